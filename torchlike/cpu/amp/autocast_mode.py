"""Mirrors `torch.cpu.amp.autocast_mode` (a deprecated alias of `torch.amp.autocast`)."""
from ..._core import dtype as _dt
from ...amp import autocast_mode as _am
from ...amp import deprecated as _dep

autocast = _dep.autocast_alias(_am.autocast, "cpu", _dt.bfloat16, __name__)
