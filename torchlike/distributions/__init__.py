"""torch.distributions for torchlike: a clean-room implementation written from PyTorch's
documentation and observed behaviour (not from its source). Built on torchlike's public tensor
ops, so log_prob/entropy/rsample carry autograd. Distributions torchlike does not have yet
raise `NotAvailable` through the module hook in `torchlike._missing`."""
from torchlike.distributions import constraints, transforms
from torchlike.distributions.bernoulli import Bernoulli
from torchlike.distributions.beta import Beta
from torchlike.distributions.binomial import Binomial
from torchlike.distributions.categorical import Categorical
from torchlike.distributions.cauchy import Cauchy
from torchlike.distributions.chi2 import Chi2
from torchlike.distributions.constraint_registry import biject_to, transform_to
from torchlike.distributions.dirichlet import Dirichlet
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.exponential import Exponential
from torchlike.distributions.gamma import Gamma
from torchlike.distributions.geometric import Geometric
from torchlike.distributions.gumbel import Gumbel
from torchlike.distributions.half_normal import HalfNormal
from torchlike.distributions.independent import Independent
from torchlike.distributions.kl import kl_divergence, register_kl
from torchlike.distributions.laplace import Laplace
from torchlike.distributions.log_normal import LogNormal
from torchlike.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from torchlike.distributions.multinomial import Multinomial
from torchlike.distributions.multivariate_normal import MultivariateNormal
from torchlike.distributions.normal import Normal
from torchlike.distributions.one_hot_categorical import OneHotCategorical
from torchlike.distributions.poisson import Poisson
from torchlike.distributions.studentT import StudentT
from torchlike.distributions.transformed_distribution import TransformedDistribution
from torchlike.distributions.transforms import (
    AbsTransform, AffineTransform, ComposeTransform, ExpTransform, IndependentTransform,
    LowerCholeskyTransform, PositiveDefiniteTransform, PowerTransform, ReshapeTransform,
    SigmoidTransform, SoftmaxTransform, SoftplusTransform, StickBreakingTransform,
    TanhTransform, Transform, identity_transform)
from torchlike.distributions.uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet",
           "Distribution", "Exponential", "Gamma", "Geometric", "Gumbel", "HalfNormal",
           "Independent", "Laplace", "LogNormal", "LowRankMultivariateNormal", "Multinomial",
           "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson", "StudentT",
           "TransformedDistribution", "Uniform", "biject_to", "constraints", "kl_divergence",
           "register_kl", "transform_to", "transforms",
           "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StickBreakingTransform", "TanhTransform", "Transform",
           "identity_transform"]
