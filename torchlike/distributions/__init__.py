"""Mirrors `torch.distributions`: probability distributions written, as PyTorch's are, in Python
over tensor ops, so `rsample` reparameterisation and `log_prob` gradients come from torchlike's
autograd. Samples come from torchlike's generator (`torch.manual_seed` makes them reproducible;
the numbers differ from PyTorch's). PyTorch distributions not listed here raise `NotAvailable`.
"""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .constraint_registry import biject_to, transform_to
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F403
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "Exponential",
    "ExponentialFamily", "Gamma", "Independent", "Laplace", "LogNormal", "MultivariateNormal",
    "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson", "Uniform",
    "TransformedDistribution", "biject_to", "kl_divergence", "register_kl", "transform_to",
]
__all__.extend(transforms.__all__)

# imported directly (`import torchlike.distributions`), not through `torch.distributions`:
# names PyTorch has and torchlike lacks still raise NotAvailable
from .._missing import install_all as _install_all  # noqa: E402

_install_all()
