"""`torch.func.vmap` with `jax.vmap`: the function runs once on tensors over batch tracers.

randomness='error' raises PyTorch's error when the function drew from a generator;
'same' draws once for the whole batch (what tracing once gives); 'different' runs the batch one
sample at a time (each draw is then its own), as `chunk_size=1` does."""
import functools

import jax
import jax.numpy as jnp

from .._core.tensor import Tensor, wrap
from . import _pytree
from ._bridge import as_tensor, func_name, torch_errors
from ._outer import through_autograd

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                 "use the 'same' or 'different' randomness flags on vmap or perform the "
                 "randomness operation out of vmap")


def check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Mirrors `torch.func.vmap` / `torch.vmap` (see the module docstring for randomness)."""
    check_randomness(randomness)
    if chunk_size is not None and not chunk_size > 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        batch, flat_dims, flat_args, spec = _inputs(in_dims, args, func)
        step = 1 if randomness == "different" else chunk_size
        if step is None or step >= batch:
            flat, out_spec, flat_out_dims = _vmap_once(func, flat_args, flat_dims, spec, kwargs,
                                                       out_dims, randomness)
            return _pytree.unflatten(flat, out_spec)
        return _chunked(func, flat_args, flat_dims, spec, kwargs, out_dims, randomness, batch,
                        step)
    return through_autograd(wrapped)


# ---- inputs -----------------------------------------------------------------------------------

def _inputs(in_dims, args, func):
    """(batch size, in_dim per leaf, leaves, spec), with PyTorch's checks and messages."""
    name = func_name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to "
                         "be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. The "
                         "latter is unsupported.")
    flat, spec = _pytree.flatten(args)
    dims = _pytree.broadcast_prefix(in_dims, spec)
    if dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         "compatible with the structure of `inputs`. in_dims has structure "
                         f"{_pytree.flatten(in_dims)[1]} but inputs has structure {spec}.")
    head = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): "
    for i, (x, d) in enumerate(zip(flat, dims)):
        if d is not None and not isinstance(d, int):
            raise ValueError(f"{head}Got in_dim={d} for an input but in_dim must be either an "
                             "integer dimension or None.")
        if d is None:
            continue
        if not isinstance(x, Tensor):
            raise ValueError(f"{head}Got in_dim={d} for an input but the input is of type "
                             f"{type(x)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        n = x.dim()
        if not -n <= d < n:
            raise ValueError(f"{head}Got in_dim={d} for some input, but that input is a Tensor "
                             f"of dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim "
                             f"< {n}.")
        dims[i] = d % n
    sizes = [x.shape[d] for x, d in zip(flat, dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], dims, flat, spec


def _check_out_dims(out_dims, func):
    if isinstance(out_dims, int):
        return
    for d in _pytree.flatten(out_dims)[0]:
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({func_name(func)}, ..., out_dims={out_dims}): `out_dims` must "
                             "be an int, None or a python collection of ints representing where "
                             "in the outputs the vmapped dimension should appear.")


def _flat_out_dims(out, out_dims, spec, func):
    if isinstance(out, Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        dims = None
    else:
        dims = _pytree.broadcast_prefix(out_dims, spec)
    if dims is None:
        raise ValueError(f"vmap({func_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims "
                         "is not compatible with the structure of `outputs`. out_dims has "
                         f"structure {_pytree.flatten(out_dims)[1]} but outputs has structure "
                         f"{spec}.")
    return dims


# ---- one jax.vmap -----------------------------------------------------------------------------

_ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
         "calling .item() on a Tensor, please try to rewrite what you're doing with other "
         "operations. If error is occurring somewhere inside PyTorch internals, please file a bug "
         "report.")
_CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
                 "control flow. We don't support that yet, please file an issue at "
                 "https://github.com/pytorch/pytorch/issues .")


def _data_dependent(e):
    """PyTorch's error for reading a batched tensor's value (`.item()`, `if t:`) under vmap."""
    tb, names = e.__traceback__, set()
    while tb is not None:
        names.add(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    if "__bool__" in names:
        return RuntimeError(_CONTROL_FLOW)
    if names & {"item", "__float__", "__int__", "__index__", "tolist"}:
        return RuntimeError(_ITEM)
    return e


def _generators():
    from .._ops import random as r
    return [r.default_generator] + list(r._cuda_generators.values())


class _Out:
    """What the traced function hands back besides arrays: specs, devices, pass-through leaves."""
    __slots__ = ("spec", "dims", "kinds", "static", "devices")


def _vmap_once(func, flat_args, flat_dims, spec, kwargs, out_dims, randomness):
    """Run `func` under one `jax.vmap`: (output leaves, output spec, out_dim per leaf)."""
    pos = [i for i, d in enumerate(flat_dims) if d is not None]
    name = func_name(func)
    box = _Out()
    gens = _generators() if randomness == "error" else ()
    before = [g._offset for g in gens]
    saved = [g.clone_state() for g in gens]

    def f(*arrays):
        leaves = list(flat_args)
        for i, a in zip(pos, arrays):
            leaves[i] = as_tensor(a, flat_args[i])
        try:
            out = func(*_pytree.unflatten(leaves, spec), **kwargs)
        except jax.errors.TracerArrayConversionError as e:
            raise _data_dependent(e) from None
        if any(g._offset != b for g, b in zip(gens, before)):
            for g, st in zip(gens, saved):
                g.graphsafe_set_state(st)
            raise RuntimeError(_RANDOM_ERROR)
        flat, box.spec = _pytree.flatten(out)
        box.dims = _flat_out_dims(out, out_dims, box.spec, func)
        mapped, unmapped, box.kinds, box.static, box.devices = [], [], [], [], []
        for o, d in zip(flat, box.dims):
            if d is None:
                if isinstance(o, Tensor):
                    box.kinds.append("unmapped")
                    unmapped.append(o._value())
                    box.devices.append(o.device)
                else:
                    box.kinds.append("static")
                    box.static.append(o)
                continue
            if not isinstance(o, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got "
                                 f"type {type(o)}. Did you mean to set out_dims= to None for "
                                 "output?")
            n = o.dim() + 1
            if not -n <= d < n:
                raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, "
                                 f"{n - 1}], but got {d})")
            box.kinds.append("mapped")
            mapped.append(o._value())
            box.devices.append(o.device)
        return mapped, unmapped

    try:
        with torch_errors():
            mapped, unmapped = jax.vmap(f, in_axes=tuple(flat_dims[i] for i in pos),
                                        out_axes=(0, None))(*[flat_args[i]._value() for i in pos])
    except ValueError as e:
        if "out_axes" in str(e) and "None" in str(e):
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when "
                             "out_dim is None") from None
        raise
    result, m, u, s, dev = [], iter(mapped), iter(unmapped), iter(box.static), iter(box.devices)
    for kind, d in zip(box.kinds, box.dims):
        if kind == "static":
            result.append(next(s))
            continue
        a = next(m) if kind == "mapped" else next(u)
        if kind == "mapped" and d % a.ndim != 0:
            a = jnp.moveaxis(a, 0, d)
        result.append(wrap(a, next(dev)))
    return result, box.spec, box.dims


def _chunked(func, flat_args, flat_dims, spec, kwargs, out_dims, randomness, batch, step):
    """vmap over `step` samples at a time, the chunks' outputs concatenated on their out_dims."""
    chunks = []
    for start in range(0, batch, step):
        n = min(step, batch - start)
        args = [x if d is None else x.narrow(d, start, n) for x, d in zip(flat_args, flat_dims)]
        chunks.append(_vmap_once(func, args, flat_dims, spec, kwargs, out_dims, randomness))
    _, out_spec, dims = chunks[0]
    if len(chunks) > 1 and None in dims:  # what PyTorch's chunked vmap does with out_dims=None
        raise TypeError("cat(): argument 'dim' must be int, not NoneType")
    from .. import cat
    flat = [cat([c[0][i] for c in chunks], dim=d) for i, d in enumerate(dims)]
    return _pytree.unflatten(flat, out_spec)
