"""torch.distributions for torchlike: a clean-room implementation written from PyTorch's
documentation and observed behaviour (not from its source). Built on torchlike's public tensor
ops, so log_prob/entropy/rsample carry autograd. Distributions torchlike does not have yet
raise `NotAvailable` through the module hook in `torchlike._missing`."""
from torchlike.distributions import constraints
from torchlike.distributions.bernoulli import Bernoulli
from torchlike.distributions.categorical import Categorical
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.exponential import Exponential
from torchlike.distributions.independent import Independent
from torchlike.distributions.kl import kl_divergence, register_kl
from torchlike.distributions.laplace import Laplace
from torchlike.distributions.normal import Normal
from torchlike.distributions.one_hot_categorical import OneHotCategorical
from torchlike.distributions.uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "Independent",
           "Laplace", "Normal", "OneHotCategorical", "Uniform", "constraints",
           "kl_divergence", "register_kl"]
