"""Mirrors `torch._check` and its family (`_check_index`, `_check_value`, `_check_type`,
`_check_not_implemented`, `_check_with`, `_check_is_size`, `_check_tensor_all`), `torch._assert`
and `torch._assert_async`: the assertion helpers library code calls."""
import warnings

_DEFAULT = ("Expected cond to be True, but got False. (Could this error message be improved? "
            "If so, please report an enhancement request to PyTorch.)")


def _check_with(error_type, cond, message):
    """Mirrors `torch._check_with`: raises `error_type(message())` when `cond` is False."""
    from ._core.tensor import Tensor
    if not issubclass(error_type, Exception) or issubclass(error_type, Warning):
        raise AssertionError("error_type must be a subclass of Exception but not Warning, got "
                             f"{error_type}")
    if isinstance(cond, Tensor):
        raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                        "torch._check_tensor_all() to assert that all elements are true.")
    if not isinstance(cond, bool):
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if message is None:
        msg = _DEFAULT
    else:
        if not callable(message):
            raise TypeError("message must be a callable")
        msg = str(message())
    raise error_type(msg)


def _check(cond, message=None):
    """Mirrors `torch._check`."""
    _check_with(RuntimeError, cond, message)


def _check_index(cond, message=None):
    """Mirrors `torch._check_index`."""
    _check_with(IndexError, cond, message)


def _check_value(cond, message=None):
    """Mirrors `torch._check_value`."""
    _check_with(ValueError, cond, message)


def _check_type(cond, message=None):
    """Mirrors `torch._check_type`."""
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond, message=None):
    """Mirrors `torch._check_not_implemented`."""
    _check_with(NotImplementedError, cond, message)


def _check_is_size(i, message=None, *, max=None):  # noqa: A002
    """Mirrors `torch._check_is_size`."""
    warnings.warn("_check_is_size will be removed in a future PyTorch release along with "
                  "guard_size_oblivious.     Use _check(i >= 0) instead.", FutureWarning,
                  stacklevel=2)
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


def _check_tensor_all_with(error_type, cond, message=None):
    """Mirrors `torch._check_tensor_all_with`: every element of bool tensor `cond` is True."""
    from ._core.tensor import Tensor
    import torchlike
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype != torchlike.bool:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, bool(cond.all().item()), message)


def _check_tensor_all(cond, message=None):
    """Mirrors `torch._check_tensor_all`."""
    _check_tensor_all_with(RuntimeError, cond, message)


def _assert(condition, message):
    """Mirrors `torch._assert`: Python's `assert`, also under `python -O`'s absence of it."""
    if not condition:
        raise AssertionError(message)


_UNSET = object()


def _assert_async(tensor, assert_msg=_UNSET):
    """Mirrors `torch._assert_async` (checked at once in torchlike)."""
    from ._core.tensor import Tensor
    if not isinstance(tensor, Tensor):
        raise TypeError("_assert_async(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if assert_msg is not _UNSET and not isinstance(assert_msg, str):
        raise TypeError("_assert_async(): argument 'assert_msg' (position 2) must be str, not "
                        f"{type(assert_msg).__name__}")
    if not bool(tensor):
        if assert_msg is _UNSET:
            raise RuntimeError("Expected Tensor with single nonzero value, but got zero")
        raise RuntimeError(assert_msg or "Assertion is failed")
