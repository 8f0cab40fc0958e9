"""PyTorch's CPU random numbers: its Mersenne Twister and the transforms its CPU kernels apply.

`Engine` is the state of a CPU `torch.Generator`: a 32-bit MT19937 seeded with the low 32 bits
of the seed (Knuth's initialisation, as `at::mt19937` does; NumPy's `MT19937` bit generator
produces the words) plus the cached second Box-Muller sample of its scalar normal sampler.
The samplers below consume words exactly as PyTorch's CPU kernels do, element by element in
the kernel's iteration order, so `torch.manual_seed(s)` followed by the same calls gives the
same numbers:

* `random()` is one 32-bit word; `random64()` two words, the first the high half;
* a float32 uniform is `(w & (2**24 - 1)) * 2**-24` (float64: 53 bits of a `random64()`),
  scaled as `x * (to - from) + from` in double; float16/bfloat16 round the float32 value;
* `normal_` on a contiguous float tensor of >= 16 elements fills uniforms first, then turns
  each block of 16 into normals by Box-Muller over the pairs (j, j + 8), redrawing the last 16
  when the size is not a multiple of 16 (float32 through `cephes32`); smaller or strided
  tensors draw element by element from a double Box-Muller that caches its second sample;
* integers: `from + w % range` (a `random64()` when the range needs 33+ bits for 64-bit and
  floating types); `randperm` is a forward Fisher-Yates shuffle with `random() % (n - i)`;
* `bernoulli_(p)`: one double uniform per element, `u < p`. (PyTorch's x86 build on an Intel
  CPU takes MKL's own stream here instead; this is the path it takes on other CPUs.)
"""
import math

import numpy as np

from . import cephes32

_N = 624
_U32 = np.uint64(32)
_M24 = np.uint64((1 << 24) - 1)
_M53 = np.uint64((1 << 53) - 1)
_M21 = np.uint64((1 << 21) - 1)   # the high word's share of 53 bits
STATE_BYTES = 5056
# PyTorch's CPUGeneratorImplState: the legacy THGenerator struct plus a float normal cache
_STATE = np.dtype([("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"),
                   ("state", "<u8", (_N,)), ("normal_x", "<f8"), ("normal_y", "<f8"),
                   ("normal_rho", "<f8"), ("normal_valid", "<i4"), ("pad", "<i4"),
                   ("float_normal", "<f4"), ("float_valid", "u1"), ("pad2", "u1", (3,))])
assert _STATE.itemsize == STATE_BYTES


def _init_genrand(seed32):
    """MT19937's initial key for a 32-bit seed (Knuth's multiplier)."""
    key = [seed32]
    for i in range(1, _N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


class Engine:
    """One CPU generator's state (see the module docstring)."""

    __slots__ = ("seed", "bits", "fresh", "normal")

    def __init__(self, seed):
        self.bits = np.random.MT19937()
        self.reseed(seed)

    def reseed(self, seed):
        self.seed = seed
        self.bits.state = {"bit_generator": "MT19937",
                           "state": {"key": _init_genrand(seed & 0xFFFFFFFF), "pos": _N}}
        self.fresh = True      # nothing drawn since seeding (PyTorch's `next` field is 0)
        self.normal = None     # the cached second sample of the scalar normal sampler

    def copy(self):
        e = Engine.__new__(Engine)
        e.bits = np.random.MT19937()
        e.bits.state = self.bits.state
        e.seed, e.fresh, e.normal = self.seed, self.fresh, self.normal
        return e

    def words(self, n):
        """`n` 32-bit words (uint64 array)."""
        if n:
            self.fresh = False
        return self.bits.random_raw(n)

    def words64(self, n):
        """`n` `random64()` values: two words each, the first one the high half."""
        w = self.words(2 * n)
        return (w[0::2] << _U32) | w[1::2]

    # ---- PyTorch's state tensor -----------------------------------------------------------

    def state_bytes(self):
        s = np.zeros((), _STATE)
        st = self.bits.state["state"]
        pos = int(st["pos"])
        s["seed"], s["seeded"] = self.seed, 1
        s["left"] = _N + 1 - pos
        s["next"] = 0 if self.fresh else pos
        s["state"] = st["key"]
        if self.normal is not None:
            s["normal_valid"], s["normal_y"] = 1, self.normal
        return np.frombuffer(s.tobytes(), np.uint8)

    def set_state_bytes(self, raw):
        s = np.frombuffer(raw.tobytes(), _STATE)[0]
        left = int(s["left"])
        pos = _N + 1 - left if 1 <= left <= _N else _N
        self.bits.state = {"bit_generator": "MT19937",
                           "state": {"key": s["state"].astype(np.uint32), "pos": pos}}
        self.seed = int(s["seed"])
        self.fresh = int(s["next"]) == 0 and pos == _N
        self.normal = float(s["normal_y"]) if s["normal_valid"] else None


# ---- transforms: each returns `n` values in the kernel's iteration order ----------------------

def _unit24(w):
    return (w & _M24).astype(np.float64) * 2.0 ** -24


def _unit53(w):
    return (w & _M53).astype(np.float64) * 2.0 ** -53


def _round(x, npdt):
    """A float64 result stored as `npdt` (float16/bfloat16 through float32, as PyTorch's
    float-computing kernels store reduced floats)."""
    if npdt.itemsize < 4 and npdt.kind == "f" or npdt.name == "bfloat16":
        return x.astype(np.float32).astype(npdt)
    return x.astype(npdt)


def uniform(eng, n, npdt, lo, hi):
    """`uniform_(lo, hi)`: in double, `x * (to - from) + from` with `from`/`to` in the dtype."""
    if npdt == np.float64:
        return _unit53(eng.words64(n)) * (hi - lo) + lo
    f, t = np.float32(lo), np.float32(hi)
    return _round(_unit24(eng.words(n)) * np.float64(t - f) + np.float64(f), npdt)


# glibc's double log/log1p/tan (Python's math module), where NumPy's own differ in the last bit
# (NumPy's sin/cos agree with glibc's)
_LIBM = {name: np.frompyfunc(getattr(math, name), 1, 1) for name in ("log", "log1p", "tan")}


def _libm(name, x):
    return _LIBM[name](x).astype(np.float64)


def _box_muller_16(u, npdt):
    """Blocks of 16 uniforms (rows) to normals: pairs (j, j + 8), cos first."""
    if npdt == np.float32:
        u = u.astype(np.float32)
        r = np.sqrt(np.float32(-2) * cephes32.log(np.float32(1) - u[:, :8]))
        s, c = cephes32.sincos(np.float32(2 * math.pi) * u[:, 8:])
        return np.concatenate([r * c, r * s], axis=1)
    r = np.sqrt(-2 * _libm("log", 1 - u[:, :8]))
    th = 2 * math.pi * u[:, 8:]
    return np.concatenate([r * np.cos(th), r * np.sin(th)], axis=1)


def _fill_uniforms(eng, n, npdt):
    return _unit53(eng.words64(n)) if npdt == np.float64 else _unit24(eng.words(n))


def normal(eng, n, npdt, mean, std, contiguous):
    """`normal_(mean, std)`: the block path for contiguous tensors of >= 16 elements, else the
    scalar path."""
    if n < 16 or not contiguous or npdt not in (np.float32, np.float64):
        return _round(np.array([_scalar_normal(eng) for _ in range(n)]) * std + mean, npdt)
    u = _fill_uniforms(eng, n, npdt)
    full = n // 16 * 16
    out = np.empty(n, np.float64 if npdt == np.float64 else np.float32)
    out[:full] = _box_muller_16(u[:full].reshape(-1, 16), npdt).reshape(-1)
    if n != full:  # the tail: 16 fresh uniforms over the last 16 places
        out[n - 16:] = _box_muller_16(_fill_uniforms(eng, 16, npdt).reshape(1, 16),
                                      npdt).reshape(-1)
    if npdt == np.float32:
        return (out.astype(np.float64) * np.float32(std) + np.float32(mean)).astype(np.float32)
    return out * std + mean


def _scalar_normal(eng):
    """One standard normal of PyTorch's `normal_distribution<double>` (caching the sine)."""
    if eng.normal is not None:
        z, eng.normal = eng.normal, None
        return z
    u1, u2 = _unit53(eng.words64(2)).tolist()
    r = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    eng.normal = r * math.sin(theta)
    return r * math.cos(theta)


def log_normal(eng, n, npdt, mean, std):
    """`log_normal_`: exp of the scalar normal path."""
    return _round(np.array([math.exp(_scalar_normal(eng) * std + mean) for _ in range(n)]),
                  npdt)


def _wide(npdt):
    return npdt in (np.int64, np.float64, np.float32) or npdt.name == "bfloat16"


def random_from_to(eng, n, npdt, lo, span):
    """`random_(from, to)` / `randint`: `from + w % (to - from)`."""
    w = eng.words64(n) if span >= 1 << 32 and _wide(npdt) else eng.words(n)
    return (lo + (w % np.uint64(span)).astype(object if span >= 1 << 63 else np.int64)) \
        .astype(npdt)


def random_full(eng, n, npdt, bound):
    """`random_()` with no range: `w % (bound + 1)` (a `random64()` for int64 and float64)."""
    w = eng.words64(n) if npdt in (np.int64, np.float64) else eng.words(n)
    if npdt == np.bool_:
        return (w & np.uint64(1)).astype(np.bool_)
    return (w % np.uint64(bound + 1)).astype(np.int64).astype(npdt)


def randperm(eng, n):
    """A forward Fisher-Yates shuffle of 0..n-1 with `random() % (n - i)`."""
    if n <= 1:
        return np.arange(n, dtype=np.int64)
    w = eng.words(n - 1) if n < (1 << 32) // 20 else eng.words64(n - 1)
    z = (w % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
    r = list(range(n))
    for i, k in enumerate(z):
        j = i + k
        r[i], r[j] = r[j], r[i]
    return np.array(r, dtype=np.int64)


def bernoulli_scalar(eng, n, p):
    """`bernoulli_(p)` for a float `p`: a double uniform per element, `u < p`. Compared as
    integers, in place over the drawn words: with `u = x * 2**-53` exact, `u < p` is
    `x < ceil(p * 2**53)`."""
    w = eng.words(2 * n).reshape(n, 2)
    x = w[:, 0]
    x &= _M21
    x <<= _U32
    x |= w[:, 1]
    if p != p or p <= 0:
        bound = 0
    elif p >= 1:
        bound = 1 << 53
    else:
        bound = math.ceil(p * 2.0 ** 53)
    return x < np.uint64(bound)


def bernoulli_tensor(eng, p):
    """`bernoulli_(p_tensor)`: per element of the (broadcast) `p` in iteration order, a double
    uniform when `p` is float64, else a float one."""
    flat = p.reshape(-1)
    if p.dtype == np.float64:
        return _unit53(eng.words64(flat.size)) < flat
    return _unit24(eng.words(flat.size)) < flat.astype(np.float32)


def exponential(eng, n, npdt, lambd):
    """`exponential_`: `-1 / lambda * log1p(-u)` in double."""
    return _round((-1.0 / lambd) * _libm("log1p", -_unit53(eng.words64(n))), npdt)


def geometric(eng, n, npdt, p):
    """`geometric_`: `ceil(log(u) / log1p(-p))`."""
    return np.ceil(_libm("log", _unit53(eng.words64(n))) / math.log1p(-p)).astype(npdt)


def cauchy(eng, n, npdt, median, sigma):
    """`cauchy_`: `median + sigma * tan(pi * (u - 0.5))`."""
    return _round(median + sigma * _libm("tan", math.pi * (_unit53(eng.words64(n)) - 0.5)),
                  npdt)


def multinomial_with_replacement(eng, probs, num_samples):
    """`multinomial(replacement=True)` on rows of `probs` (float32, or float64): each row's
    running sums (accumulated in order, in the rows' dtype) divided by its total, the last set
    to 1; each sample is the first slot whose sum reaches a uniform double, rows drawn in
    order."""
    out = np.empty((probs.shape[0], num_samples), np.int64)
    for i, row in enumerate(probs):
        cum = np.cumsum(row, dtype=row.dtype)
        cum = cum / cum[-1]
        cum[-1] = 1
        out[i] = np.searchsorted(cum.astype(np.float64), _unit53(eng.words64(num_samples)))
    return out
