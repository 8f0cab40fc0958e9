"""Chi2(df): the sum of `df` squared standard normals, a Gamma(df / 2, 1 / 2)."""
from torchlike.distributions import constraints
from torchlike.distributions.gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Mirrors `torch.distributions.Chi2` (samples as `Gamma`'s)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._new_instance(_instance))

    @property
    def df(self):
        return self.concentration * 2

