"""`torchlike.compile` — being built (issue 9)."""
from ._missing import NotAvailable


def compile(model=None, **kwargs):  # noqa: A001 - mirrors torch.compile
    raise NotAvailable("torch.compile is not available in torchlike yet")
