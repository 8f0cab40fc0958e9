"""Mirrors `torch.serialization`: `save` / `load` in PyTorch's own checkpoint format, with
`weights_only=True` loading (and its allow-list) by default."""
from ._load import load
from ._names import StorageType
from ._save import DEFAULT_PROTOCOL, save
from ._weights_only import (add_safe_globals, clear_safe_globals, get_safe_globals,
                            safe_globals)

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "safe_globals", "StorageType", "DEFAULT_PROTOCOL"]
