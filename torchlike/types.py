"""Mirrors `torch.types`: the type aliases annotations use."""
import builtins
from typing import List, Optional, Sequence, Tuple, Union  # noqa: F401

from ._core.device import device as _device_cls
from ._core.dtype import dtype as _dtype_cls

_int = builtins.int
_float = builtins.float
_bool = builtins.bool
_complex = builtins.complex
_dtype = _dtype_cls
_device = _device_cls
_size = Union[List[builtins.int], Tuple[builtins.int, ...]]
_layout = object
_qscheme = object
_dispatchkey = Union[builtins.str]
Number = Union[builtins.int, builtins.float, builtins.bool]
_Number = (builtins.int, builtins.float, builtins.bool)
Device = Optional[Union[_device_cls, builtins.str, builtins.int]]
Storage = object
IntLikeType = builtins.int
FloatLikeType = builtins.float
BoolLikeType = builtins.bool
py_sym_types = (builtins.int, builtins.float, builtins.bool)
