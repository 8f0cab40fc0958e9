"""Mirrors `torch.testing`: `assert_close`, `make_tensor` and the deprecated `assert_allclose`.
(`FileCheck`, PyTorch's TorchScript IR checker, has no counterpart.)"""
from ._comparison import assert_allclose, assert_close  # noqa: F401
from ._creation import make_tensor  # noqa: F401
