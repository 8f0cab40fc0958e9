"""Mirrors `torch.nn.attention.flex_attention`: attention whose scores are changed by a
`score_mod(score, b, h, q_idx, kv_idx)` and masked by a `mask_mod(b, h, q_idx, kv_idx)`
(`create_block_mask`). torchlike computes it densely: both functions are called once on
broadcasting index tensors (int32, as in PyTorch's kernels), so they must be written with
tensor operations (PyTorch's requirement too), and the result is one attention over the full
score matrix. Fully masked rows give zeros and a log-sum-exp of -inf, as in PyTorch. As PyTorch's, it refuses
inputs that require grad on the CPU (on accelerators the dense form is differentiated).
Divergence: a `BlockMask` keeps the mask element by element (its block-sparse tensors —
`kv_num_blocks`, `kv_indices`... — are not built), so its repr differs."""
import math
import typing

_DEFAULT_SPARSE_BLOCK_SIZE = 128
_LARGE_SPARSE_BLOCK_SIZE = 1 << 30

__all__ = ["BlockMask", "flex_attention", "AuxOutput", "AuxRequest", "FlexKernelOptions",
           "create_block_mask", "create_mask", "or_masks", "and_masks", "noop_mask"]


class AuxRequest(typing.NamedTuple):
    """Mirrors `AuxRequest`: which extra outputs `flex_attention(return_aux=...)` gives."""
    lse: bool = False
    max_scores: bool = False


class AuxOutput(typing.NamedTuple):
    """Mirrors `AuxOutput`."""
    lse: typing.Any = None
    max_scores: typing.Any = None


FlexKernelOptions = dict


def _torch():
    import torchlike
    return torchlike


def noop_mask(b, h, q_idx, kv_idx):
    """Mirrors `noop_mask`: keeps everything."""
    return b.new_ones(size=(), dtype=_torch().bool, device=b.device)


def _noop_score(score, b, h, q_idx, kv_idx):
    return score


def and_masks(*mask_mods):
    """Mirrors `and_masks`."""
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        result = b.new_ones((), dtype=_torch().bool)
        for m in mask_mods:
            result = result & m(b, h, q_idx, kv_idx)
        return result
    return and_mask


def or_masks(*mask_mods):
    """Mirrors `or_masks`."""
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        result = b.new_zeros((), dtype=_torch().bool)
        for m in mask_mods:
            result = result | m(b, h, q_idx, kv_idx)
        return result
    return or_mask


def _indices(B, H, Q, KV, device):
    """Broadcasting (b, h, q_idx, kv_idx) index tensors for a (B, H, Q, KV) grid."""
    torch = _torch()
    i32 = torch.int32
    return (torch.arange(B, dtype=i32, device=device).view(B, 1, 1, 1),
            torch.arange(H, dtype=i32, device=device).view(1, H, 1, 1),
            torch.arange(Q, dtype=i32, device=device).view(1, 1, Q, 1),
            torch.arange(KV, dtype=i32, device=device).view(1, 1, 1, KV))


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device=None):
    """Mirrors `create_mask`: the (B, H, Q_LEN, KV_LEN) boolean mask of a mask_mod; for a
    score_mod (five arguments), the positions where it leaves a score of 0 finite."""
    torch = _torch()
    B, H = B or 1, H or 1
    b, h, q, kv = _indices(B, H, Q_LEN, KV_LEN, device)
    params = len(__import__("inspect").signature(mod_fn).parameters)
    if params == 5:
        score = torch.zeros((), device=device)
        out = mod_fn(score, b, h, q, kv)
        out = torch.where(torch.isneginf(out), False, True)
    else:
        out = mod_fn(b, h, q, kv)
    return torch.broadcast_to(out.to(torch.bool), (B, H, Q_LEN, KV_LEN)).clone()


class BlockMask:
    """Mirrors `BlockMask` (see the module docstring's divergence)."""

    def __init__(self, mask, mask_mod, seq_lengths, BLOCK_SIZE):
        self._mask = mask
        self.mask_mod = mask_mod
        self.seq_lengths = seq_lengths
        self.BLOCK_SIZE = BLOCK_SIZE

    @property
    def shape(self):
        return (self._mask.shape[0], self._mask.shape[1]) + tuple(self.seq_lengths)

    def to(self, device):
        return BlockMask(self._mask.to(device), self.mask_mod, self.seq_lengths,
                         self.BLOCK_SIZE)

    def sparsity(self):
        """Mirrors `BlockMask.sparsity`: the percentage of blocks with nothing kept."""
        torch = _torch()
        bq, bk = self.BLOCK_SIZE
        m = self._mask
        Q, KV = m.shape[-2:]
        pq, pk = (-Q) % bq, (-KV) % bk
        m = torch.nn.functional.pad(m, (0, pk, 0, pq))
        blocks = m.view(m.shape[0], m.shape[1], m.shape[2] // bq, bq, m.shape[3] // bk, bk)
        kept = blocks.any(-1).any(-2)
        return 100 * (1 - kept.float().mean().item())

    def __repr__(self):
        return (f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n"
                f"mask_mod={getattr(self.mask_mod, '__name__', self.mask_mod)}\n)")


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None, BLOCK_SIZE=128,
                      _compile=False, separate_full_blocks=True, compute_dq_write_order=False,
                      dq_kv_order=True):
    """Mirrors `create_block_mask`."""
    if isinstance(BLOCK_SIZE, int):
        BLOCK_SIZE = (BLOCK_SIZE, BLOCK_SIZE)
    mask = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    return BlockMask(mask, mask_mod, (Q_LEN, KV_LEN), tuple(BLOCK_SIZE))


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None,
                   enable_gqa=False, return_lse=False, kernel_options=None, *,
                   return_aux=None):
    """Mirrors `flex_attention` (dense, see the module docstring)."""
    torch = _torch()
    if return_aux is not None and return_aux.max_scores and query.device.type == "cpu":
        raise NotImplementedError("Returning max scores is not supported on CPU/MPS.")
    if query.device.type == "cpu" and torch.is_grad_enabled() and any(
            t.requires_grad for t in (query, key, value)):
        raise NotImplementedError("FlexAttention does not support backward on CPU. Please set "
                                  "the input requires_grad to False or use another device.")
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    B, Hq, L, E = query.shape
    Hkv = key.shape[1]
    if Hq != Hkv:
        if not enable_gqa:
            raise ValueError(f"Expect query and key/value to have the same number of heads but "
                             f"got Hq={Hq} and Hkv={Hkv}. Try setting enable_gqa=True for GQA.")
        if Hq % Hkv:
            raise ValueError(f"Expect number of query heads to be a multiple of kv heads for "
                             f"GQA but got Hq={Hq} and Hkv={Hkv}.")
        key = key.repeat_interleave(Hq // Hkv, 1)
        value = value.repeat_interleave(Hq // Hkv, 1)
    S = key.shape[2]
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    acc = torch.float32 if query.dtype in (torch.float16, torch.bfloat16) else query.dtype
    scores = (query.to(acc) @ key.to(acc).transpose(-2, -1)) * scale
    if score_mod is not None:
        b, h, q, kv = _indices(B, Hq, L, S, query.device)
        scores = score_mod(scores, b, h, q, kv)
    if block_mask is not None:
        mask = block_mask._mask
        scores = scores.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    max_scores = scores.amax(dim=-1)
    finite = torch.isfinite(lse)
    probs = torch.exp(scores - torch.where(finite, lse, torch.zeros_like(lse)).unsqueeze(-1))
    probs = torch.where(finite.unsqueeze(-1), probs, torch.zeros_like(probs))
    out = (probs @ value.to(acc)).to(query.dtype)
    if return_aux is not None:
        return out, AuxOutput(lse=lse if return_aux.lse else None,
                              max_scores=max_scores if return_aux.max_scores else None)
    if return_lse:
        return out, lse
    return out
