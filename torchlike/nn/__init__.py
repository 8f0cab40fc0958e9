"""Mirrors `torch.nn`."""
from .parameter import (Buffer, Parameter, UninitializedBuffer,  # noqa: F401
                        UninitializedParameter)
from .modules import *  # noqa: F401,F403
del utils   # noqa: F821 - the star import's `nn.modules.utils`; `nn.utils` is imported below
from .modules.module import (Module, register_module_forward_hook,  # noqa: F401
                             register_module_forward_pre_hook)
from . import functional, init, utils  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
