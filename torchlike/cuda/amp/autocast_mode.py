"""Mirrors `torch.cuda.amp.autocast_mode` (deprecated aliases of `torch.amp`'s)."""
from ..._core import dtype as _dt
from ...amp import autocast_mode as _am
from ...amp import deprecated as _dep

autocast = _dep.autocast_alias(_am.autocast, "cuda", _dt.float16, __name__)
custom_fwd = _dep.custom_fwd_alias(_am.custom_fwd, "cuda")
custom_bwd = _dep.custom_bwd_alias(_am.custom_bwd, "cuda")
