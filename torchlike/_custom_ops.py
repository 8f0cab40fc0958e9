"""Mirrors `torch._custom_ops` (the predecessor of `torch.library.custom_op`): the fake-kernel
helpers libraries import from it."""
from .library import get_ctx, register_fake as impl_abstract  # noqa: F401
