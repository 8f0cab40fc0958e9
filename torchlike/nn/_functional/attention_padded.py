"""`multi_head_attention_forward` on inputs padded to a size class (see `_core/buckets.py`):
batch and sequence dims that keep changing run one attention program per size class.

The attention kernel runs on the padded buffers with the padded keys masked out (a key padding
mask made inside the program from the real key length, joined with the caller's), so the real
rows equal the exact computation; the dropout keep-mask, drawn at the real sizes as PyTorch draws
it, is padded on the host. Under autograd the whole program is the node (see `_ops/bucketed`).
"""

import jax.numpy as jnp
import numpy as np

from ..._core import buckets
from ..._core.device import put
from ..._ops import bucketed
from ..._core import programs

# positions in `_mha_forward`'s operand tuple
_Q, _K, _V, _MASK, _KPM, _STATIC_K, _STATIC_V, _KEEP = 0, 1, 2, 12, 13, 14, 15, 16
_BIAS_K = 8


@programs.factory
def _masking_padded_keys(fn, batch_first):
    """`fn` (an attention kernel) with the keys beyond the real length (the last operand)
    masked through its key padding mask."""
    def g(*args):
        args, real = list(args[:-1]), args[-1]
        key = args[_K]
        n, s = (key.shape[0], key.shape[1]) if batch_first else (key.shape[1], key.shape[0])
        pad = jnp.broadcast_to(jnp.arange(s) >= real[0], (n, s))
        kpm = args[_KPM]
        args[_KPM] = pad if kpm is None else (kpm | pad)
        return fn(*args)
    g.__name__ = getattr(fn, "__name__", "attention")
    return g


def run(fn, operands, num_heads, batch_first, name):
    """The attention output (a tensor padded like its query), or None where this path does not
    apply (unbatched inputs, attention weights asked for, static or biased keys, a 3-D mask, a
    float key padding mask, padding along the embedding dim)."""
    q, k, v = operands[_Q], operands[_K], operands[_V]
    if not buckets.any_padded((q, k, v)) or q.dim() != 3 or k.dim() != 3 or v.dim() != 3 or \
            any(operands[i] is not None for i in (_BIAS_K, _BIAS_K + 1, _STATIC_K, _STATIC_V)):
        return None
    mask, kpm = operands[_MASK], operands[_KPM]
    if mask is not None and mask.dim() != 2 or \
            kpm is not None and not str(kpm.dtype).endswith("bool"):
        return None
    bd, sd = (0, 1) if batch_first else (1, 0)
    reads = {}
    dims = set()      # ("n" | "l" | "s") that are padded somewhere
    for i, role in ((_Q, "l"), (_K, "s"), (_V, "s")):
        arr, padded = bucketed._read(operands[i])
        if 2 in padded:
            return None
        reads[i] = arr
        dims.update("n" if d == bd else role for d in padded)
    N, L, S = q.shape[bd], q.shape[sd], k.shape[sd]
    ext = {"n": buckets.size_class(N) if "n" in dims else N,
           "l": buckets.size_class(L) if "l" in dims else L,
           "s": buckets.size_class(S) if "s" in dims else S}

    def layout(seq):
        shape = [0, 0, q.shape[2]]
        shape[bd], shape[sd] = ext["n"], ext[seq]
        return tuple(shape)
    targets = {_Q: layout("l"), _K: layout("s"), _V: layout("s")}
    if mask is not None:
        reads[_MASK] = mask._value()
        targets[_MASK] = (ext["l"], ext["s"])
    if kpm is not None:
        reads[_KPM] = kpm._value()
        targets[_KPM] = (ext["n"], ext["s"])
    ops = list(operands)
    keep = operands[_KEEP]
    if keep is not None:   # drawn at the real sizes: (N * heads, L, S), padded on the host
        h = np.asarray(keep._value()).reshape(N, num_heads, L, S)
        h = np.pad(h, [(0, ext["n"] - N), (0, 0), (0, ext["l"] - L), (0, ext["s"] - S)])
        ops[_KEEP] = put(h.reshape(ext["n"] * num_heads, ext["l"], ext["s"]), keep.device)
    ops.append(buckets.consts((S,)))
    out = tuple(sorted((d, n) for d, n, role in ((bd, N, "n"), (sd, L, "l")) if ext[role] > n))
    try:
        return bucketed.run_fn(_masking_padded_keys(fn, batch_first), tuple(ops), reads,
                               targets, {}, [out], name, q._st.device)[0]
    except Exception:  # noqa: BLE001 - the exact path raises PyTorch's error
        return None
