"""Mirrors the attention part of `torch.nn.functional`: `scaled_dot_product_attention` and
`multi_head_attention_forward`.

Each call validates its arguments in Python (with PyTorch's messages) and then runs ONE cached,
jitted JAX kernel through `apply_jax`, so the whole attention (projections, masking, softmax,
dropout, output projection) is a single dispatch whose backward is the kernel's vjp."""
import math
import warnings

import jax
import jax.numpy as jnp

from ..._core.tensor import Tensor
from ...autograd.function import apply_jax
from ...amp.dispatch import autocast_op as _autocast_op
from ..._core import programs

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward",
           "_canonical_mask", "_none_or_dtype"]

# C++ scalar-type names PyTorch prints in its messages
_CPP_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
    "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def _cpp(dtype):
    name = str(dtype).replace("torch.", "").replace("torchlike.", "")
    return _CPP_NAMES.get(name, name)


def _is_float(t):
    return t.dtype.is_floating_point


def _is_bool(t):
    return str(t.dtype).endswith("bool")


def _broadcast_check(a, b):
    """Raise PyTorch's broadcasting error for shapes `a` and `b` (tuples)."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                               f"at non-singleton dimension {i}")
    return tuple(max(x, y) for x, y in zip(a, b))


def _keep_mask(shape, p, like):
    """A Bernoulli(1 - p) keep-mask drawn from torchlike's generator."""
    from ... import empty
    with _no_grad():
        return empty(tuple(shape), dtype=like.dtype, device=like.device).bernoulli_(1.0 - p)


def _no_grad():
    from ... import no_grad
    return no_grad()


def _safe_softmax(x, masked_rows=None):
    """Softmax over the last axis that yields 0 (and zero gradients) on rows that are all -inf,
    as PyTorch's SDPA does."""
    dead = jnp.all(x == -jnp.inf, axis=-1, keepdims=True)
    w = jax.nn.softmax(jnp.where(dead, jnp.zeros((), x.dtype), x), axis=-1)
    return jnp.where(dead, jnp.zeros((), w.dtype), w)


def _inv_keep(p):
    return 0.0 if p >= 1.0 else 1.0 / (1.0 - p)


def _additive(mask, dtype, bool_means_masked):
    """Turn a bool mask into an additive float one (-inf where attention is forbidden)."""
    if mask.dtype == jnp.bool_:
        forbid = mask if bool_means_masked else jnp.logical_not(mask)
        return jnp.where(forbid, jnp.asarray(-jnp.inf, dtype), jnp.asarray(0, dtype))
    return mask


# ---- scaled_dot_product_attention -------------------------------------------------------------

@programs.factory
def _sdpa_kernel(is_causal, scale, gqa, p):
    def f(q, k, v, mask, keep):
        if gqa:
            hq = q.shape[-3]
            k = jnp.repeat(k, hq // k.shape[-3], axis=-3)
            v = jnp.repeat(v, hq // v.shape[-3], axis=-3)
        s = (1.0 / math.sqrt(q.shape[-1])) if scale is None else scale
        attn = jnp.matmul(q, jnp.swapaxes(k, -1, -2)) * jnp.asarray(s, q.dtype)
        L, S = q.shape[-2], k.shape[-2]
        if is_causal:
            tril = jnp.tril(jnp.ones((L, S), jnp.bool_))
            attn = jnp.where(tril, attn, jnp.asarray(-jnp.inf, attn.dtype))
        if mask is not None:
            if mask.dtype == jnp.bool_:
                attn = jnp.where(mask, attn, jnp.asarray(-jnp.inf, attn.dtype))
            else:
                attn = attn + mask
        w = _safe_softmax(attn)
        if keep is not None:
            w = w * keep * jnp.asarray(_inv_keep(p), w.dtype)
        return jnp.matmul(w, v)
    return f


@_autocast_op("scaled_dot_product_attention")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """Mirrors `F.scaled_dot_product_attention` (math semantics: a bool `attn_mask` is True where
    attention is allowed, a float one is added to the scores; fully masked rows give zeros)."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument '{name}' (position "
                            f"{('query', 'key', 'value').index(name) + 1}) must be Tensor, not "
                            f"{type(t).__name__}")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query.dim()} key.dim: {key.dim()} and "
                           f"value.dim: {value.dim()} instead.")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_cpp(query.dtype)} key.dtype: {_cpp(key.dtype)} and "
                           f"value.dtype: {_cpp(value.dtype)} instead.")
    if attn_mask is not None and not (_is_bool(attn_mask) or attn_mask.dtype == query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {_cpp(attn_mask.dtype)} and  "
                           f"query.dtype: {_cpp(query.dtype)} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    gqa = False
    if enable_gqa and query.dim() >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk != 0 or hq % hv != 0:
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in ")
        gqa = hk != hq or hv != hq
    kshape, vshape = tuple(key.shape), tuple(value.shape)
    if gqa:
        kshape = kshape[:-3] + (query.shape[-3],) + kshape[-2:]
        vshape = vshape[:-3] + (query.shape[-3],) + vshape[-2:]
    # the shape rules of the math path: q @ k^T, (+ mask), @ v
    if query.shape[-1] != key.shape[-1]:
        batch = _broadcast_check(tuple(query.shape[:-2]), kshape[:-2])
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{math.prod(batch)}, {query.shape[-1]}] but got: "
                           f"[{math.prod(batch)}, {key.shape[-1]}].")
    batch = _broadcast_check(tuple(query.shape[:-2]), kshape[:-2])
    scores = batch + (query.shape[-2], key.shape[-2])
    if attn_mask is not None:
        scores = _broadcast_check(scores, tuple(attn_mask.shape))
    _broadcast_check(scores[:-2], vshape[:-2])
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{math.prod(scores[:-2])}, {scores[-1]}] but got: "
                           f"[{math.prod(scores[:-2])}, {value.shape[-2]}].")
    keep = None
    p = float(dropout_p)
    if p > 0.0:
        keep = _keep_mask(scores, p, query)
    fn = _sdpa_kernel(bool(is_causal), None if scale is None else float(scale), gqa,
                      p if keep is not None else 0.0)
    return apply_jax(fn, (query, key, value, attn_mask, keep),
                     "ScaledDotProductAttentionBackward0")[0]


# ---- multi_head_attention_forward ------------------------------------------------------------

def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """Mirrors `F._canonical_mask`: a bool mask becomes a float mask with -inf where True."""
    if mask is not None:
        is_float = mask.dtype.is_floating_point
        if not _is_bool(mask) and not is_float:
            raise AssertionError(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None and mask.dtype != other_type:
            warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                          f"Use same type for both instead.", stacklevel=2)
        if not is_float:
            from ... import zeros_like
            mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _check_mask(mask, mask_name, other_type, other_name, check_other=True):
    """`_canonical_mask`'s checks without the conversion (the kernels convert bool masks)."""
    if mask is not None:
        if not _is_bool(mask) and not mask.dtype.is_floating_point:
            raise AssertionError(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None and mask.dtype != other_type:
            warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                          f"Use same type for both instead.", stacklevel=3)


def _none_or_dtype(input):
    """Mirrors `F._none_or_dtype`."""
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(f"For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors "
                                 f"respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(f"For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 f"instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 f"respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 1-D but found {key_padding_mask.dim()}-D tensor "
                                 f"instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(f"For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     f"instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _linear(x, w, b):
    y = jnp.matmul(x, w.T)
    return y if b is None else y + b


@programs.factory
def _mha_kernel(num_heads, batched, batch_first, need_weights, average, causal_hint,
                add_zero_attn, p, nan_dead_rows=False):
    """The whole of `multi_head_attention_forward` after validation, as one JAX function.
    `nan_dead_rows`: fully masked rows give NaN (PyTorch's fused inference path) rather than
    SDPA's zeros."""
    def f(query, key, value, in_w, in_b, q_w, k_w, v_w, bias_k, bias_v, out_w, out_b,
          attn_mask, kpm, static_k, static_v, keep):
        dt = query.dtype
        if not batched:
            query, key, value = (None if x is None else x[:, None] for x in (query, key, value))
            if kpm is not None:
                kpm = kpm[None]
        elif batch_first:
            query, key, value = (None if x is None else jnp.swapaxes(x, 0, 1)
                                 for x in (query, key, value))
        L, N, E = query.shape
        hd = E // num_heads
        if kpm is not None:
            kpm = _additive(kpm, dt, True)
        if causal_hint:
            attn_mask = None
        elif attn_mask is not None:
            attn_mask = _additive(attn_mask, dt, True)
        if in_w is not None:
            w_q, w_k, w_v = jnp.split(in_w, 3)
        else:
            w_q, w_k, w_v = q_w, k_w, v_w
        b_q = b_k = b_v = None
        if in_b is not None:
            b_q, b_k, b_v = jnp.split(in_b, 3)
        q = _linear(query, w_q, b_q)
        k = None if key is None else _linear(key, w_k, b_k)  # None: static_k replaces it
        v = None if value is None else _linear(value, w_v, b_v)
        if attn_mask is not None and attn_mask.ndim == 2:
            attn_mask = attn_mask[None]
        if bias_k is not None:  # (never with static k/v)
            k = jnp.concatenate([k, jnp.broadcast_to(bias_k, (1, N, E)).astype(k.dtype)])
            v = jnp.concatenate([v, jnp.broadcast_to(bias_v, (1, N, E)).astype(v.dtype)])
            if attn_mask is not None:
                attn_mask = jnp.pad(attn_mask, [(0, 0)] * (attn_mask.ndim - 1) + [(0, 1)])
            if kpm is not None:
                kpm = jnp.pad(kpm, [(0, 0), (0, 1)])
        q = q.reshape(L, N * num_heads, hd).transpose(1, 0, 2)
        k = (k.reshape(k.shape[0], N * num_heads, hd).transpose(1, 0, 2)
             if static_k is None else static_k)
        v = (v.reshape(v.shape[0], N * num_heads, hd).transpose(1, 0, 2)
             if static_v is None else static_v)
        if add_zero_attn:
            k = jnp.concatenate([k, jnp.zeros((N * num_heads, 1, hd), k.dtype)], axis=1)
            v = jnp.concatenate([v, jnp.zeros((N * num_heads, 1, hd), v.dtype)], axis=1)
            if attn_mask is not None:
                attn_mask = jnp.pad(attn_mask, [(0, 0)] * (attn_mask.ndim - 1) + [(0, 1)])
            if kpm is not None:
                kpm = jnp.pad(kpm, [(0, 0), (0, 1)])
        S = k.shape[1]
        if kpm is not None:
            kpm = jnp.broadcast_to(kpm.reshape(N, 1, 1, S), (N, num_heads, 1, S))
            kpm = kpm.reshape(N * num_heads, 1, S)
            attn_mask = kpm if attn_mask is None else attn_mask + kpm
        if need_weights:
            qs = q * jnp.asarray(math.sqrt(1.0 / float(hd)), q.dtype)
            w = jnp.matmul(qs, jnp.swapaxes(k, -1, -2))
            if attn_mask is not None:
                w = attn_mask + w
            w = jax.nn.softmax(w, axis=-1)
            if keep is not None:
                w = w * keep * jnp.asarray(_inv_keep(p), w.dtype)
            o = jnp.matmul(w, v)
            o = o.transpose(1, 0, 2).reshape(L * N, E)
            o = _linear(o, out_w, out_b).reshape(L, N, -1)
            w = w.reshape(N, num_heads, L, S)
            if average:
                w = w.mean(axis=1)
            if not batched:
                o, w = o[:, 0], w[0]
            elif batch_first:
                o = jnp.swapaxes(o, 0, 1)
            return o, w
        q4 = q.reshape(N, num_heads, L, hd)
        k4 = k.reshape(N, num_heads, S, hd)
        v4 = v.reshape(N, num_heads, S, hd)
        s = jnp.matmul(q4, jnp.swapaxes(k4, -1, -2)) * jnp.asarray(1.0 / math.sqrt(hd), dt)
        if causal_hint:
            s = jnp.where(jnp.tril(jnp.ones((L, S), jnp.bool_)), s, jnp.asarray(-jnp.inf, dt))
        if attn_mask is not None:
            if attn_mask.shape[0] == 1:
                attn_mask = attn_mask[None]
            else:
                attn_mask = attn_mask.reshape(N, num_heads, -1, S)
            s = s + attn_mask
        w = jax.nn.softmax(s, axis=-1) if nan_dead_rows else _safe_softmax(s)
        if keep is not None:
            w = w * keep.reshape(N, num_heads, L, S) * jnp.asarray(_inv_keep(p), w.dtype)
        o = jnp.matmul(w, v4)
        o = o.transpose(2, 0, 1, 3).reshape(N * L, E)
        o = _linear(o, out_w, out_b).reshape(L, N, -1)
        if not batched:
            o = o[:, 0]
        elif batch_first:
            o = jnp.swapaxes(o, 0, 1)
        return o
    return f


@_autocast_op("multi_head_attention_forward")
def _mha_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
                 out_proj_bias, training=True, key_padding_mask=None, need_weights=True,
                 attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None,
                 k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None,
                 average_attn_weights=True, is_causal=False, batch_first=False, fast=False):
    # fast: PyTorch's fused inference path (`_native_multi_head_attention` /
    # `_transformer_encoder_layer_fwd`) would run: it ignores `is_causal` and gives NaN rows
    # where every key is masked
    if fast:
        is_causal = False
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    # shapes as seen after batch_first / unbatched handling: (L, N, E)
    if not is_batched:
        qs, ks, vs = ((s[0], 1, s[1]) for s in (query.shape, key.shape, value.shape))
    elif batch_first:
        qs, ks, vs = ((s[1], s[0], s[2]) for s in (query.shape, key.shape, value.shape))
    else:
        qs, ks, vs = (tuple(t.shape) for t in (query, key, value))
    tgt_len, bsz, embed_dim = qs
    src_len = ks[0]
    _check_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    causal_hint = bool(is_causal and key_padding_mask is None and not need_weights)
    if not causal_hint:
        _check_mask(attn_mask, "attn_mask", None, "", check_other=False)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got "
                             f"{embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if ks[:2] != vs[:2]:
            from ... import Size
            raise AssertionError(f"key's sequence and batch dims {Size(ks[:2])} do not match "
                                 f"value's {Size(vs[:2])}")
        for nm, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {nm}_proj_weight is "
                                     f"None")
        in_w = None
        sep = (q_proj_weight, None if static_k is not None else k_proj_weight,
               None if static_v is not None else v_proj_weight)
    else:
        if ks != vs:
            from ... import Size
            raise AssertionError(f"key shape {Size(ks)} does not match value shape {Size(vs)}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        in_w = in_proj_weight
        sep = (None, None, None)
    if attn_mask is not None and not causal_hint:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        src_len += 1
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    for nm, st in (("static_k", static_k), ("static_v", static_v)):
        if st is not None:
            if st.size(0) != bsz * num_heads:
                raise AssertionError(f"expecting {nm}.size(0) of {bsz * num_heads}, but got "
                                     f"{st.size(0)}")
            if st.size(2) != head_dim:
                raise AssertionError(f"expecting {nm}.size(2) of {head_dim}, but got "
                                     f"{st.size(2)}")
    if static_k is not None:
        src_len = static_k.size(1)
    if add_zero_attn:
        src_len += 1
    if key_padding_mask is not None:
        kb = 1 if not is_batched else key_padding_mask.shape[0]
        ksl = key_padding_mask.shape[-1] + (bias_k is not None) + bool(add_zero_attn)
        if kb != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {kb}")
        if ksl != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{ksl}")
    if not training:
        dropout_p = 0.0
    keep = None
    p = float(dropout_p)
    if p > 0.0:
        keep = _keep_mask((bsz * num_heads, tgt_len, src_len), p, query)
    fn = _mha_kernel(num_heads, is_batched, bool(batch_first and is_batched), bool(need_weights),
                     bool(average_attn_weights), causal_hint, bool(add_zero_attn),
                     p if keep is not None else 0.0, bool(fast))
    # a static key/value replaces the projected one, so that input takes no part (no grad)
    operands = (query, None if static_k is not None else key,
                None if static_v is not None else value, in_w, in_proj_bias, *sep, bias_k,
                bias_v, out_proj_weight,
                out_proj_bias, None if causal_hint else attn_mask, key_padding_mask, static_k,
                static_v, keep)
    if not need_weights and is_batched:   # inputs padded to a size class
        from . import attention_padded
        out = attention_padded.run(fn, operands, num_heads, bool(batch_first),
                                   "MultiHeadAttentionBackward0")
        if out is not None:
            return out, None
    outs = apply_jax(fn, operands, "MultiHeadAttentionBackward0")
    if need_weights:
        return outs[0], outs[1]
    return outs[0], None


@_autocast_op("multi_head_attention_forward")
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Mirrors `F.multi_head_attention_forward` (sequence-first layout; 2-D inputs unbatched)."""
    return _mha_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                        in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
                        out_proj_bias, training, key_padding_mask, need_weights, attn_mask,
                        use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight,
                        static_k, static_v, average_attn_weights, is_causal)
