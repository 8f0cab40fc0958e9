"""Random sampling: `Generator`, seeding, `rand`/`randn`/`randint`/`randperm`/`normal`/
`bernoulli`/`multinomial`/`poisson`, the `*_like` forms and the in-place samplers
(`uniform_`, `normal_`, `bernoulli_`, `random_`, `exponential_`, `geometric_`, `log_normal_`,
`cauchy_`).

A CPU `Generator` is PyTorch's: a Mersenne Twister whose words are turned into numbers the way
PyTorch's CPU kernels turn them (`cpu_rng`), so a seed gives PyTorch's numbers, and its state
tensor is PyTorch's 5056 bytes. The samplers run on the host, in NumPy, as PyTorch's do.

Draws a CPU engine does not reproduce (`poisson`), draws from CUDA generators,
and draws inside a `torchlike.compile`d program derive a threefry key from a (seed, counter)
pair instead; the key enters a jitted sampling kernel (cached per kind/shape/dtype) as a traced
argument, as do the distribution parameters, so new seeds, draws and parameter values compile
nothing. A compiled call takes its pair from one `random64()` of the CPU generator, so compiled
programs draw other numbers than eager code (as `torch.compile`'s do), reproducibly per seed.
"""
import math
import os

import jax
import jax.numpy as jnp
import numpy as np

from .._core import device as dev
from .._core import dtype as dt
from .._core.layout import is_contiguous
from .._core.tensor import Tensor, wrap
from . import cpu_rng
from .registry import publish, FUNCTIONS, METHODS, OPS, broadcast_shapes_checked, short_name
from .._core import programs

_DEFAULT_SEED = 67280421310721
_U64 = (1 << 64) - 1
_STATE_BYTES = 16

_CTYPE = dt.CPP_TYPE_NAMES

_NO_CUDA_GEN = (
    "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two "
    "shared libraries: a CPU library and a CUDA library; this error has occurred because you "
    "are trying to use some CUDA functionality, but the CUDA library has not been loaded by the "
    "dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
    "directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic library "
    "dependencies if you don't depend on any of their symbols.  You can check if this has "
    "occurred by using ldd on your binary to see if there is a dependency on *_cuda.so library.")


def _seed_value(seed):
    seed = int(seed)
    if seed < -(1 << 63) or seed > _U64:
        raise ValueError("Overflow when unpacking long long")
    return seed & _U64


class Generator:
    """Mirrors `torch.Generator`: on the CPU, PyTorch's Mersenne Twister (`cpu_rng.Engine`);
    on CUDA, a seed plus a draw counter (see the module docstring). `_offset` counts draws
    on either kind (vmap's randomness check reads it)."""

    def __init__(self, device="cpu"):
        d = dev.device(device)
        if d.type == "cuda":
            if not dev.gpus():
                raise RuntimeError(_NO_CUDA_GEN)
            d = dev.device("cuda", dev.current_cuda_index() if d.index is None else d.index)
        elif d.type != "cpu":
            raise RuntimeError(f"{d.type.upper()} device type not an accelerator.")
        self.device = d
        self._seed = _DEFAULT_SEED
        self._offset = 0
        self._engine = cpu_rng.Engine(_DEFAULT_SEED) if d.type == "cpu" else None

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"

    def manual_seed(self, seed):
        """Mirrors `Generator.manual_seed`: returns the generator."""
        self._reseed(_seed_value(seed))
        return self

    def _reseed(self, s):
        self._seed, self._offset = s, 0
        if self._engine is not None:
            self._engine.reseed(s)

    def seed(self):
        """Mirrors `Generator.seed`: a non-deterministic seed, set and returned."""
        s = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
        self._reseed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor: PyTorch's 5056 bytes on the CPU; on CUDA the seed and
        draw counter, little-endian uint64 each."""
        if self._engine is not None:
            a = self._engine.state_bytes()
        else:
            a = np.array([self._seed, self._offset], dtype="<u8").view(np.uint8)
        return wrap(jnp.asarray(a), dev.CPU, dt.uint8)

    def set_state(self, new_state):
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not dt.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        size = cpu_rng.STATE_BYTES if self._engine is not None else _STATE_BYTES
        if new_state.numel() != size:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {size} but found the "
                               f"input RNG state size to be {new_state.numel()}")
        raw = np.asarray(new_state._value()).reshape(-1)
        if self._engine is not None:
            self._engine.set_state_bytes(raw)
            self._seed = self._engine.seed
        else:
            seed, off = raw.copy().view("<u8").tolist()
            self._seed, self._offset = int(seed), int(off)
        return self

    def clone_state(self):
        g = Generator.__new__(Generator)
        g.device, g._seed, g._offset = self.device, self._seed, self._offset
        g._engine = self._engine.copy() if self._engine is not None else None
        return g

    def graphsafe_get_state(self):
        return self.clone_state()

    def graphsafe_set_state(self, state):
        self._seed, self._offset = state._seed, state._offset
        self._engine = state._engine.copy() if state._engine is not None else None
        return self

    def _host(self):
        """The CPU engine to draw from on the host (counting the draw), or None where draws
        go through a threefry key (CUDA generators, compiled programs being traced)."""
        e = self._engine
        if e is None or KEYED[0]:
            return None
        self._offset = (self._offset + 1) & _U64
        return e

    def _call_row(self, peek=False):
        """The (seed, counter) pair a compiled call derives its keys from: on the CPU, one
        `random64()` of the Mersenne Twister (`peek`: the one it would draw next), so compiled
        calls advance the generator and are reproducible from its state."""
        if self._engine is not None:
            e = self._engine.copy() if peek else self._engine
            return int(e.words64(1)[0]), 0
        return self._seed, self._offset

    def _next_key(self):
        """uint32[4]: (seed hi, seed lo, counter hi, counter lo); bumps the counter. A CPU
        generator's key comes from one `random64()` of its engine (reproducible from its
        state)."""
        e = self._host()
        if e is not None:
            s, o = int(e.words64(1)[0]), 0
        else:
            s, o = self._seed, self._offset
            self._offset = (o + 1) & _U64
        return np.array([s >> 32, s & 0xFFFFFFFF, o >> 32, o & 0xFFFFFFFF], dtype=np.uint32)


KEYED = [False]  # set while torchlike.compile traces: every draw goes through `_next_key`


default_generator = Generator()
_cuda_generators = {}


def _cuda_gen(i):
    g = _cuda_generators.get(i)
    if g is None:
        g = _cuda_generators[i] = Generator(dev.device("cuda", i))
    return g


def manual_seed(seed):
    """Mirrors `torch.manual_seed`: seeds the CPU (and every CUDA) generator."""
    s = _seed_value(seed)
    for i in range(len(dev.gpus())):
        _cuda_gen(i).manual_seed(s)
    return default_generator.manual_seed(s)


def seed():
    """Mirrors `torch.seed`."""
    s = default_generator.seed()
    for i in range(len(dev.gpus())):
        _cuda_gen(i).manual_seed(s)
    return s


def initial_seed():
    """Mirrors `torch.initial_seed`."""
    return default_generator.initial_seed()


def get_rng_state():
    """Mirrors `torch.get_rng_state`."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Mirrors `torch.set_rng_state`."""
    if not isinstance(new_state, Tensor) or new_state.dtype is not dt.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    default_generator.set_state(new_state)


# ---- kernels ------------------------------------------------------------------------------------

def _key(k4):
    base = jax.random.wrap_key_data(k4[:2], impl="threefry2x32")
    return jax.random.fold_in(jax.random.fold_in(base, k4[2]), k4[3])


def _real(npdt):
    return np.dtype(np.float32 if npdt == np.complex64 else np.float64) \
        if np.issubdtype(npdt, np.complexfloating) else npdt


def _s_uniform(key, shape, npdt, lo, hi):
    if np.issubdtype(npdt, np.complexfloating):
        r = _real(npdt)
        k1, k2 = jax.random.split(key)
        re = jax.random.uniform(k1, shape, r, lo, hi)
        im = jax.random.uniform(k2, shape, r, lo, hi)
        return jax.lax.complex(re, im).astype(npdt)
    u = jax.random.uniform(key, shape, jnp.float32 if npdt.itemsize < 4 else npdt)
    return (lo + u * (hi - lo)).astype(npdt)


def _s_normal(key, shape, npdt, mean, std):
    z = jax.random.normal(key, shape, npdt if npdt.itemsize >= 4 else jnp.float32)
    return (mean + std * z).astype(npdt)


def _s_randint(key, shape, npdt, lo, hi):
    return jax.random.randint(key, shape, lo, hi, dtype=jnp.int64).astype(npdt)


def _s_bits63(key, shape, npdt):
    b = jax.random.bits(key, shape, jnp.uint64) >> np.uint64(1)
    return b.astype(np.int64).astype(npdt)


def _s_bernoulli(key, shape, npdt, p):
    pf = jnp.asarray(p)
    work = pf.dtype if jnp.issubdtype(pf.dtype, jnp.floating) and pf.dtype.itemsize >= 4 \
        else jnp.float64
    u = jax.random.uniform(key, shape, work)
    return (u < pf.astype(work)).astype(npdt)


def _s_exponential(key, shape, npdt, lambd):
    w = npdt if npdt.itemsize >= 4 else jnp.float32
    return (jax.random.exponential(key, shape, w) / lambd).astype(npdt)


def _s_geometric(key, shape, npdt, p):
    u = jax.random.uniform(key, shape, jnp.float64, minval=np.finfo(np.float64).tiny, maxval=1.0)
    return (jnp.floor(jnp.log(u) / jnp.log1p(-p)) + 1).astype(npdt)


def _s_log_normal(key, shape, npdt, mean, std):
    w = npdt if npdt.itemsize >= 4 else jnp.float32
    return jnp.exp(mean + std * jax.random.normal(key, shape, w)).astype(npdt)


def _s_cauchy(key, shape, npdt, median, sigma):
    w = npdt if npdt.itemsize >= 4 else jnp.float32
    return (median + sigma * jax.random.cauchy(key, shape, w)).astype(npdt)


def _s_poisson(key, shape, npdt, lam):
    lam = jnp.asarray(lam)
    lam = lam.astype(jnp.float64 if lam.dtype.itemsize >= 8 else jnp.float32)
    return jax.random.poisson(key, lam, shape, dtype=jnp.int64).astype(npdt)


def _s_perm(key, shape, npdt):
    return jax.random.permutation(key, shape[0]).astype(npdt)


def _s_multinomial(key, shape, npdt, probs, num_samples, replacement):
    rows, n = shape
    p = probs.reshape(rows, n)
    logits = jnp.log(p.astype(jnp.float64))
    if replacement:
        s = jax.random.categorical(key, logits, axis=-1, shape=(num_samples, rows))
        return s.T.astype(npdt)
    g = jax.random.gumbel(key, (rows, n), jnp.float64)
    _, idx = jax.lax.top_k(jnp.where(p > 0, logits + g, -jnp.inf - g * 0), num_samples)
    return idx.astype(npdt)


_SAMPLERS = {"uniform": _s_uniform, "normal": _s_normal, "randint": _s_randint,
             "bits63": _s_bits63, "bernoulli": _s_bernoulli, "exponential": _s_exponential,
             "geometric": _s_geometric, "log_normal": _s_log_normal, "cauchy": _s_cauchy,
             "poisson": _s_poisson, "perm": _s_perm, "multinomial": _s_multinomial}


@programs.factory
def _kernel(kind, shape, npdt, statics):
    fn = _SAMPLERS[kind]

    def k(k4, *params):
        return fn(_key(k4), shape, npdt, *params, *statics)
    k.__name__ = "sample_" + kind
    return k


def _gen(generator, device):
    if generator is None:
        if device.type == "cuda":
            return _cuda_gen(device.index)
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    if generator.device.type != device.type:
        raise RuntimeError(f"Expected a '{device.type}' device type for generator but found "
                           f"'{generator.device.type}'")
    return generator


def _sample(kind, shape, dtype, device, generator, *params, statics=(), stride=None):
    """One draw of `kind` of `shape` and `dtype`; returns a JAX array on `device`. `stride`:
    the layout of the tensor an in-place sampler fills (PyTorch's CPU kernels draw in memory
    order, and take their block path only for contiguous tensors)."""
    g = _gen(generator, device)
    host = _HOST.get(kind)
    if host is not None and not any(isinstance(p, jax.core.Tracer) for p in params):
        e = g._host()
        if e is not None:
            return _on_host(host, e, tuple(shape), dtype, params, stride, device)
    k4 = dev.transfer(g._next_key(), dev.jax_device(device))
    params = tuple(np.asarray(p) if isinstance(p, (int, float, np.number)) and
                   not isinstance(p, bool) else p for p in params)
    return _kernel(kind, tuple(shape), np.dtype(dtype.np), tuple(statics))(k4, *params)


def _bernoulli_host(e, n, npdt, contiguous, p, perm=None, shape=()):
    if isinstance(p, float):
        return cpu_rng.bernoulli_scalar(e, n, p).astype(npdt)
    pa = np.broadcast_to(np.asarray(p), shape)
    return cpu_rng.bernoulli_tensor(e, pa.transpose(perm) if perm else pa).astype(npdt)


# kind -> f(engine, n, dtype, contiguous, *params): `n` values in the kernel's drawing order
_HOST = {
    "uniform": lambda e, n, d, c, lo, hi: cpu_rng.uniform(e, n, d, lo, hi),
    "normal": lambda e, n, d, c, mean, std: cpu_rng.normal(e, n, d, mean, std, c),
    "randint": lambda e, n, d, c, lo, hi: cpu_rng.random_from_to(e, n, d, int(lo),
                                                                  int(hi) - int(lo)),
    "bits63": lambda e, n, d, c: cpu_rng.random_full(e, n, d, (1 << 63) - 1),
    "bernoulli": _bernoulli_host,
    "exponential": lambda e, n, d, c, lambd: cpu_rng.exponential(e, n, d, lambd),
    "geometric": lambda e, n, d, c, p: cpu_rng.geometric(e, n, d, p),
    "log_normal": lambda e, n, d, c, mean, std: cpu_rng.log_normal(e, n, d, mean, std),
    "cauchy": lambda e, n, d, c, median, sigma: cpu_rng.cauchy(e, n, d, median, sigma),
}


def _drawing_order(shape, stride):
    """The permutation of dims PyTorch's kernel walks a tensor in (memory order: largest stride
    outermost), or None for the logical order."""
    if stride is None:
        return None
    perm = sorted(range(len(shape)), key=lambda i: -stride[i])
    return None if perm == list(range(len(shape))) else perm


def _on_host(host, e, shape, dtype, params, stride, device):
    """Draw on the host with the CPU engine, in PyTorch's order (complex: as its real view)."""
    npdt = np.dtype(dtype.np)
    if dtype.is_complex:  # PyTorch samples `view_as_real(self)`; a normal's parts get std/sqrt2
        npdt = np.dtype(np.float32 if npdt == np.complex64 else np.float64)
        shape = shape + (2,)
        stride = tuple(2 * s for s in stride) + (1,) if stride is not None else None
        if host is _HOST["normal"]:
            params = (params[0], params[1] / math.sqrt(2))
    n = math.prod(shape)
    contiguous = stride is None or is_contiguous(shape, stride)
    perm = _drawing_order(shape, stride)
    extra = {"perm": perm, "shape": shape} if host is _bernoulli_host else {}
    vals = host(e, n, npdt, contiguous, *params, **extra)
    if perm is None:
        arr = vals.reshape(shape)
    else:
        arr = vals.reshape([shape[i] for i in perm]).transpose(np.argsort(perm))
    if dtype.is_complex:
        arr = (arr[..., 0] + 1j * arr[..., 1]).astype(dtype.np)
    return dev.transfer(np.asarray(arr, order="C"), dev.jax_device(device))


# ---- argument helpers ---------------------------------------------------------------------------

def _sizes(name, size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)) or \
            (len(size) == 1 and type(size[0]).__name__ == "Size"):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, but "
                            f"found element of type {type(s).__name__} at pos {len(out)}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        out.append(int(s))
    return tuple(out)


def _no_args(name):
    return TypeError(
        f"{name}() received an invalid combination of arguments - got (), but expected one of:\n"
        " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype "
        "dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = "
        "False, bool requires_grad = False)\n * (tuple of ints size, *, Tensor out = None, "
        "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool "
        "pin_memory = False, bool requires_grad = False)\n")


def _not_impl(kernel, d):
    return NotImplementedError(f'"{kernel}" not implemented for \'{short_name(d)}\'')


def _finish(arr, dtype, device, requires_grad, out):
    from .creation import finish
    if out is not None:
        t = wrap(arr, device, dtype)
        if tuple(out._size) != tuple(arr.shape):
            out.resize_(tuple(arr.shape))
        out.copy_(t)
        return out
    return finish(arr, dtype, device, requires_grad)


def _dev(device, out=None):
    if device is None and out is not None:
        return out.device
    return dev.canonical(device) or dev.CPU


def _float_dtype(dtype, out, kernel):
    d = dtype or (out.dtype if out is not None else dt.get_default_dtype())
    if not (d.is_floating_point or d.is_complex):
        raise _not_impl(kernel, d)
    return d


def _register(fn, name=None, method=False, function=True):
    return publish(fn, name, method=method, function=function, dtype_arg=True)


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


# ---- factory samplers ---------------------------------------------------------------------------

def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False, **kw):
    """Mirrors `torch.rand`: uniform on [0, 1)."""
    if "size" in kw and not size:
        size = (kw.pop("size"),)
    if kw:
        raise TypeError(f"rand() got an unexpected keyword argument '{next(iter(kw))}'")
    if not size:
        raise _no_args("rand")
    shape = _sizes("rand", size)
    d = _float_dtype(dtype, out, "check_uniform_bounds")
    device = _dev(device, out)
    return _finish(_sample("uniform", shape, d, device, generator, 0.0, 1.0), d, device,
                   requires_grad, out)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, **kw):
    """Mirrors `torch.randn`: standard normal (complex: each part has variance 1/2)."""
    if "size" in kw and not size:
        size = (kw.pop("size"),)
    if kw:
        raise TypeError(f"randn() got an unexpected keyword argument '{next(iter(kw))}'")
    if not size:
        raise _no_args("randn")
    shape = _sizes("randn", size)
    d = _float_dtype(dtype, out, "normal_kernel_cpu")
    device = _dev(device, out)
    return _finish(_sample("normal", shape, d, device, generator, 0.0, 1.0), d, device,
                   requires_grad, out)


def _check_from_to(frm, to, d):
    if frm >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={frm} >= "
                           f"to={to}")
    if d.category == 1:
        info = np.iinfo(d.np)
        if not info.min <= frm <= info.max:
            raise RuntimeError(f"from is out of bounds for {_CTYPE[d.name]}")
        if not info.min <= to - 1 <= info.max:
            raise RuntimeError(f"to - 1 is out of bounds for {_CTYPE[d.name]}")


def _randint_array(lo, hi, shape, d, device, generator):
    if d.is_complex:
        raise _not_impl("random_from_to", d)
    _check_from_to(lo, hi, d)
    return _sample("randint", shape, d, device, generator, np.int64(lo), np.int64(hi))


def randint(*args, size=None, low=None, high=None, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False, pin_memory=False):
    """Mirrors `torch.randint(low=0, high, size)`: int64 by default."""
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)) or \
            (args and type(args[-1]).__name__ == "Size"):
        size = args.pop()
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    elif len(args) > 2:
        raise TypeError(f"randint(): argument 'size' (position {len(args)}) must be tuple of "
                        f"ints, not {type(args[-1]).__name__}")
    if size is None:
        if len(args) == 2:
            raise TypeError(f"randint(): argument 'size' (position 2) must be tuple of ints, "
                            f"not {type(args[1]).__name__}")
        raise TypeError("randint() missing required argument 'size'")
    if low is None:
        low = 0
    low, high = _num(low), _num(high)
    for nm, v, pos in (("low", low, 1), ("high", high, 2 if len(args) == 2 else 1)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"randint(): argument '{nm}' (position {pos}) must be int, not "
                            f"{type(v).__name__}")
    shape = _sizes("randint", (size,))
    d = dtype or (out.dtype if out is not None else dt.int64)
    device = _dev(device, out)
    if requires_grad and not (d.is_floating_point or d.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    return _finish(_randint_array(int(low), int(high), shape, d, device, generator), d, device,
                   requires_grad, out)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """Mirrors `torch.randperm`: a random permutation of 0..n-1 (int64 by default)."""
    n = _num(n)
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    d = dtype or (out.dtype if out is not None else dt.int64)
    if d is dt.bool_ or d.is_complex:
        raise _not_impl("randperm", d)
    if d.category == 1 and n > 0 and n - 1 > np.iinfo(d.np).max:
        raise RuntimeError(f"value cannot be converted to type {d.name}_t without overflow")
    device = _dev(device, out)
    if device.type == "cpu":
        return _finish(_host_perm(int(n), d, _gen(generator, device)), d, device,
                       requires_grad, out)
    return _finish(_sample("perm", (int(n),), d, device, generator), d, device,
                   requires_grad, out)


def _host_perm(n, d, g):
    """A CPU permutation: PyTorch's shuffle on the CPU engine (a jitted sampler inside a
    compiled program's trace)."""
    e = g._host()
    if e is None:
        return _kernel("perm", (n,), np.dtype(d.np), ())(g._next_key())
    return jnp.asarray(cpu_rng.randperm(e, n).astype(d.np))


def _std_check(std):
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")


def _fmt(v):
    """PyTorch's C++ stream formatting of a double (6 significant digits)."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e16:
        return str(int(v))
    return f"{v:g}"


_NORMAL_SIGS = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor "
    "out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
    "None, bool pin_memory = False, bool requires_grad = False)\n")


def _tname(v):
    if isinstance(v, Tensor):
        return "Tensor"
    return type(v).__name__


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """Mirrors every `torch.normal` overload."""
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if (mt or st) and size is not None or (not mt and not st and size is None):
        got = ", ".join(_tname(v) for v in (mean, std) + ((size,) if size is not None else ()))
        raise TypeError(f"normal() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n" + _NORMAL_SIGS)
    if not mt and not st:
        shape = _sizes("normal", (size,))
        d = _float_dtype(dtype, out, "normal_kernel_cpu")
        _std_check(float(std))
        device = _dev(device, out)
        arr = _sample("normal", shape, d, device, generator, float(mean), float(std))
        return _finish(arr, d, device, requires_grad, out)
    if mt and st:
        d = dt.promote_types(mean.dtype, std.dtype)
        shape = broadcast_shapes_checked([mean._size, std._size])
        device = mean.device
    elif mt:
        d, shape, device = mean.dtype, mean._size, mean.device
    else:
        d, shape, device = std.dtype, std._size, std.device
    if not (d.is_floating_point or d.is_complex):
        raise _not_impl("normal_kernel_cpu", d)
    if st:
        if std.numel() and bool(np.any(np.asarray(std._value()) < 0)):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        _std_check(float(std))
    # PyTorch draws normal_(0, std) and adds a tensor mean; with a tensor std it draws
    # normal_(0, 1), then multiplies by std and adds mean (each step rounded to the dtype)
    z = _sample("normal", shape, d, device, generator, 0.0, 1.0 if st else float(std))
    if st:
        z = (z * std._value()).astype(d.np)
    if mt or float(mean) != 0:
        z = (z + (mean._value() if mt else float(mean))).astype(d.np)
    if out is None:
        return _zero_grad_node(z, d, device, (mean, std),
                               "NormalBackward3" if mt and st else
                               "NormalBackward1" if mt else "NormalBackward2")
    return _finish(z, d, device, False, out)


def _zero_grad_node(arr, dtype, device, operands, name):
    """A sample as the output of a node on the tensor parameters it was drawn with: PyTorch's
    graph (its `grad_fn` name), whose gradient is zero for each of them."""
    from .._core.grad_state import ENABLED
    if not (ENABLED[0] and any(isinstance(o, Tensor) and o.requires_grad for o in operands)):
        return _finish(arr, dtype, device, False, None)
    from ..autograd.function import apply_jax
    return apply_jax(lambda *a: a[-1], [*operands, arr], name=name, device=device)[0]


def bernoulli(input, p=None, *, generator=None, out=None):
    """Mirrors `torch.bernoulli`: draws with probabilities `input` (or the float `p`)."""
    d = input.dtype
    if p is None:
        if not (d.is_floating_point):
            raise _not_impl("bernoulli_tensor_cpu_p_", d)
        v = np.asarray(input._value())
        if v.size and not bool(np.all((v >= 0) & (v <= 1))):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")
        pv = input._value()
    else:
        _check_p01(p)
        pv = float(p)
    arr = _sample("bernoulli", input._size, d, input.device, generator, pv)
    if out is None:
        return _zero_grad_node(arr, d, input.device, (input,), "BernoulliBackward0")
    return _finish(arr, d, input.device, False, out)


def _check_p01(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(float(p))}")


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Mirrors `torch.multinomial` (int64 indices; rows of `input` are unnormalised weights)."""
    if not (input.dtype.is_floating_point):
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{short_name(input.dtype)}")
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if out is not None and isinstance(out, Tensor) and out.dtype is not dt.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {short_name(out.dtype)}")
    n = input._size[-1]
    if n > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    v = np.asarray(input._value()).astype(np.float64).reshape(-1, n)
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        if replacement and num_samples > 1:  # PyTorch's with-replacement kernel checks in order
            first = v.reshape(-1)[np.argmax(~(np.isfinite(v) & (v >= 0)).reshape(-1))]
            raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                               + ("< 0)" if not first >= 0 else "= infinity or NaN)"))
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if v.size and np.any(v.sum(-1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rows = v.shape[0]
    g = _gen(generator, input.device)
    if g._engine is not None and not KEYED[0]:
        arr = _multinomial_cpu(input.detach(), int(num_samples), replacement, g, generator)
    else:
        arr = _sample("multinomial", (rows, n), dt.int64, input.device, generator,
                      input._value(), statics=(int(num_samples), bool(replacement)))
    if input.dim() == 1:
        arr = arr.reshape(num_samples)
    return _finish(arr, dt.int64, input.device, False, out)


def _multinomial_cpu(p, num_samples, replacement, g, generator):
    """PyTorch's CPU multinomial on generator `g`'s engine: without replacement (or for one
    sample) the exponential race (`p / Exp(1)` draws, then argmax or topk); with replacement one
    uniform double per sample against the row's normalised cumulative sums."""
    if not replacement or num_samples == 1:
        q = FUNCTIONS["empty_like"](p).exponential_(1, generator=generator)
        race = p / q
        idx = race.argmax(-1, keepdim=True) if num_samples == 1 else \
            FUNCTIONS["topk"](race, num_samples).indices
        return idx._value()
    acc = np.float64 if p.dtype is dt.float64 else np.float32
    rows = np.asarray(p._value()).astype(acc).reshape(-1, p._size[-1])
    out = cpu_rng.multinomial_with_replacement(g._host(), rows, num_samples)
    return jnp.asarray(out.reshape(p._size[:-1] + (num_samples,)))


def poisson(input, generator=None):
    """Mirrors `torch.poisson`: draws with rates `input` (same dtype as `input`)."""
    d = input.dtype
    if not d.is_floating_point:
        raise _not_impl("poisson_cpu", d)
    v = np.asarray(input._value())
    if v.size and bool(np.any(v < 0)):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    arr = _sample("poisson", input._size, d, input.device, generator, input._value())
    return _finish(arr, d, input.device, False, None)


def _like_dev(input, device):
    return dev.canonical(device) if device is not None else input.device


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    """Mirrors `torch.rand_like`."""
    d = dtype or input.dtype
    if not (d.is_floating_point or d.is_complex):
        raise _not_impl("check_uniform_bounds", d)
    device = _like_dev(input, device)
    return _finish(_sample("uniform", input._size, d, device, generator, 0.0, 1.0), d, device,
                   requires_grad, None)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None):
    """Mirrors `torch.randn_like`."""
    d = dtype or input.dtype
    if not (d.is_floating_point or d.is_complex):
        raise _not_impl("normal_kernel_cpu", d)
    device = _like_dev(input, device)
    return _finish(_sample("normal", input._size, d, device, generator, 0.0, 1.0), d, device,
                   requires_grad, None)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None):
    """Mirrors `torch.randint_like(input, [low,] high)`."""
    if high is None:
        low, high = 0, low
    d = dtype or input.dtype
    device = _like_dev(input, device)
    arr = _randint_array(int(_num(low)), int(_num(high)), input._size, d, device, generator)
    return _finish(arr, d, device, requires_grad, None)


for _f in (rand, randn, randint, randperm, normal, poisson, rand_like, randn_like, randint_like,
           manual_seed, seed, initial_seed, get_rng_state, set_rng_state):
    _register(_f)
_register(bernoulli, method=True)
_register(multinomial, method=True)
FUNCTIONS["Generator"] = Generator
FUNCTIONS["default_generator"] = default_generator


# ---- in-place samplers --------------------------------------------------------------------------

_FILL_NAMES = {"uniform": "UniformBackward0", "normal": "NormalBackward0",
               "bernoulli": "BernoulliBackward2", "exponential": "ExponentialBackward0",
               "geometric": "GeometricBackward0", "log_normal": "LogNormalBackward0",
               "cauchy": "CauchyBackward0", "randint": "RandomBackward0",
               "bits63": "RandomBackward2"}


def _replaced(a, new):
    """An in-place sampler as a function of the old value: the new one (zero gradient)."""
    return new


def _fill(self, kind, generator, *params, name=None):
    from .._core.grad_state import ENABLED
    if ENABLED[0] and self._requires_grad:
        # PyTorch's in-place rules (a leaf that requires grad refuses) before any sampling;
        # on a non-leaf the sampler becomes the node (its gradient is zero)
        from ..autograd.inplace import check_inplace_allowed, inplace_apply
        check_inplace_allowed(self)
        arr = _sample(kind, self._size, self.dtype, self.device, generator, *params,
                      stride=self._stride)
        return inplace_apply(self, name or _FILL_NAMES[kind], _replaced, [arr])
    arr = _sample(kind, self._size, self.dtype, self.device, generator, *params,
                  stride=self._stride)
    self._assign(arr)
    return self


def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    """Mirrors `Tensor.uniform_(from=0, to=1)`."""
    from_ = kw.pop("from", from_)
    d = self.dtype
    if not (d.is_floating_point or d.is_complex):
        raise _not_impl("check_uniform_bounds", d)
    from_, to = float(_num(from_)), float(_num(to))
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt(from_)} > to={_fmt(to)}")
    return _fill(self, "uniform", generator, from_, to)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Mirrors `Tensor.normal_`."""
    d = self.dtype
    if not (d.is_floating_point or d.is_complex):
        raise _not_impl("normal_kernel_cpu", d)
    _std_check(float(_num(std)))
    return _fill(self, "normal", generator, float(_num(mean)), float(_num(std)))


def bernoulli_(self, p=0.5, *, generator=None):
    """Mirrors `Tensor.bernoulli_` (`p` a float or a tensor of probabilities)."""
    if isinstance(p, Tensor):
        v = np.asarray(p._value())
        if v.size and not bool(np.all((v >= 0) & (v <= 1))):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")
        broadcast_shapes_checked([self._size, p._size])
        return _fill(self, "bernoulli", generator, p._value(), name="BernoulliBackward1")
    _check_p01(p)
    return _fill(self, "bernoulli", generator, float(p))


def _random_bound(d):
    """Upper bound (inclusive) of `random_()` with no range, per dtype."""
    if d is dt.bool_:
        return 1
    if d.category == 1:
        return int(np.iinfo(d.np).max)
    return 1 << {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[d.name]


def random_(self, from_=None, to=None, *, generator=None, **kw):
    """Mirrors `Tensor.random_()`, `random_(to)`, `random_(from, to)`."""
    from_ = kw.pop("from", from_)
    d = self.dtype
    if d.is_complex:
        raise _not_impl("random_", d)
    name = "RandomBackward0"
    if from_ is not None and to is None:
        from_, to, name = 0, from_, "RandomBackward1"
    if from_ is None and to is None:
        hi = _random_bound(d)
        if hi >= (1 << 63) - 1:
            return _fill(self, "bits63", generator)
        return _fill(self, "randint", generator, np.int64(0), np.int64(hi + 1),
                     name="RandomBackward2")
    if from_ is None:
        from_ = 0
    frm, to = int(_num(from_)), int(_num(to))
    _check_from_to(frm, to, d)
    return _fill(self, "randint", generator, np.int64(frm), np.int64(to), name=name)


def exponential_(self, lambd=1.0, *, generator=None):
    """Mirrors `Tensor.exponential_`."""
    d = self.dtype
    if not d.is_floating_point:
        raise RuntimeError(f"Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {short_name(d)}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda="
                           f"{_fmt(float(lambd))}")
    return _fill(self, "exponential", generator, float(lambd))


def geometric_(self, p, *, generator=None):
    """Mirrors `Tensor.geometric_`: trials until the first success (values >= 1)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(float(p))}")
    if self.dtype.is_complex:
        raise _not_impl("geometric_cpu", self.dtype)
    return _fill(self, "geometric", generator, float(p))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Mirrors `Tensor.log_normal_`."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(float(std))}")
    if not self.dtype.is_floating_point:
        raise _not_impl("log_normal_cpu", self.dtype)
    return _fill(self, "log_normal", generator, float(mean), float(std))


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Mirrors `Tensor.cauchy_`."""
    d = self.dtype
    if not d.is_floating_point:
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{_CTYPE.get(d.name, d.name)}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(float(sigma))}")
    return _fill(self, "cauchy", generator, float(median), float(sigma))


for _f in (uniform_, normal_, bernoulli_, random_, exponential_, geometric_, log_normal_,
           cauchy_):
    _register(_f, method=True, function=False)
del _f

# `torchlike.random` (torch.random): seeding helpers and fork_rng
import importlib as _importlib  # noqa: E402

_importlib.import_module("torchlike.random")
