"""View ops: a new (size, stride, offset) over the same storage, no kernel launched.

Each row is a layout function `f(tensor, *args) -> (size, stride, offset)`; the registry-style
generator below makes the function, the method and (where PyTorch has one) the in-place twin that
changes `self`'s own layout (`transpose_`, `squeeze_`, ...).
"""
import inspect
import math
import operator

import jax
import jax.numpy as jnp
import numpy as np

from .._core import formats as _fmt
from .._core import frames as _frames
from .._core import dtype as dt
from .._core import layout
from .._core.grad_state import ENABLED as _GRAD
from .._core.storage import Storage
from .._core.tensor import Tensor, _new, _wrap_dim, make_view
from .registry import publish, FUNCTIONS, METHODS, OPS, from_numpy_names, numpy_names

VIEW_OPS = {}
# PyTorch's autograd node for each view op (the default is CamelCase + "Backward0")
_NODE_NAMES = {"view": "ViewBackward0", "view_as": "ViewBackward0", "swapaxes": "TransposeBackward0",
               "swapdims": "TransposeBackward0", "t": "TBackward0", "movedim": "PermuteBackward0",
               "moveaxis": "PermuteBackward0", "expand_as": "ExpandBackward0",
               "broadcast_to": "ExpandBackward0", "narrow": "SliceBackward0",
               "unflatten": "ViewBackward0",
               # call-dependent: squeeze() / squeeze(dim) / squeeze(dims) are overloads 0/1/2
               "squeeze": lambda args, kw: "SqueezeBackward" + (
                   "0" if kw.get("dim", args[0] if args else None) is None else
                   "2" if isinstance(kw.get("dim", args[0] if args else None), (tuple, list))
                   else "1")}


def _dims_arg(args):
    """`f(2, 3)`, `f((2, 3))`, `f([2, 3])` and `f(torch.Size([2, 3]))` all mean (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(map(operator.index, args))


def view_op(name=None, *, method=True, function=True, inplace=False, aliases=(),
            method_aliases=()):
    """Register a layout function as a view op (function, method, optional in-place twin)."""
    def register(fn):
        n = name or fn.__name__

        node = _NODE_NAMES.get(n) or "".join(p.capitalize() for p in n.split("_")) + "Backward0"
        # PyTorch's NumPy spelling `axis=` for `dim` (`x.squeeze(axis=0)`)
        np_names = "dim" in inspect.signature(fn).parameters

        def view(input, *args, **kwargs):
            if kwargs and np_names and "axis" in kwargs:
                kwargs = from_numpy_names(kwargs, n)
            size, stride, offset = fn(input, *args, **kwargs)
            return make_view(input, size, stride, offset,
                             node if type(node) is str else node(args, kwargs))
        view.__name__ = view.__qualname__ = n
        view.__doc__ = f"Mirrors `torch.{n}` (a view: shares storage with `input`)."
        VIEW_OPS[n] = fn
        OPS[n] = None
        if function:
            for a in (n,) + tuple(aliases):
                FUNCTIONS[a] = view
        if method:
            for a in (n,) + tuple(aliases) + tuple(method_aliases):
                METHODS[a] = view
        if inplace:
            def view_(self, *args, **kwargs):
                if kwargs and np_names and "axis" in kwargs:
                    kwargs = from_numpy_names(kwargs, n + "_")
                size, stride, offset = fn(self, *args, **kwargs)
                set_layout(self, size, stride, offset)
                return self
            view_.__name__ = n + "_"
            for a in (n,) + tuple(aliases) + tuple(method_aliases):
                METHODS[a + "_"] = view_
        return view
    return register


def set_layout(t, size, stride, offset):
    """Change `t`'s own layout in place (the in-place view ops, `as_strided_`)."""
    t._size, t._stride, t._offset = tuple(size), tuple(stride), offset
    st = t._st
    t._natural = offset == 0 and t._size == st.shape and \
        t._stride == layout.contiguous_strides(t._size)
    t._cache = t._cache_src = None


def _infer_size(shape, n):
    shape = list(shape)
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {shape}")
        else:
            known *= s
    if infer is not None:
        if known == 0 and n == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {shape} because "
                               f"the unspecified dimension size -1 can be any value and is "
                               f"ambiguous")
        if known == 0 or n % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
        shape[infer] = n // known
    elif known != n:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
    return tuple(shape)


@view_op()
def view(self, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int)) and \
            hasattr(shape[0], "itemsize"):
        return _view_dtype(self, shape[0])
    size = _infer_size(_dims_arg(shape), math.prod(self._size))
    # a natural tensor is contiguous: PyTorch's computeStride gives the contiguous strides
    stride = layout.contiguous_strides(size) if self._natural else \
        layout.compute_view_stride(self._size, self._stride, size)
    if stride is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return size, stride, self._offset


def _view_dtype(self, d):
    """PyTorch's `Tensor.view(dtype)`: the same bytes read as `d` (the last dimension scales
    with the element size), with PyTorch's layout checks."""
    from .registry import short_name
    old, new = self.dtype.itemsize, d.itemsize
    size, stride, offset = list(self._size), list(self._stride), self._offset
    if old != new:
        what = f"to view {short_name(self.dtype)} as {short_name(d)} (different element sizes)"
        if not size:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if stride[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
        if old > new:
            r = old // new
            size[-1] *= r
            stride = [s * r for s in stride[:-1]] + [1]
            offset *= r
        else:
            r = new // old
            if size[-1] % r:
                raise RuntimeError(f"self.size(-1) must be divisible by {r} {what}, but got "
                                   f"{size[-1]}")
            for i, s in enumerate(stride[:-1]):
                if s % r:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {r} {what}, but "
                                       f"got {s}")
            if offset % r:
                raise RuntimeError(f"self.storage_offset() must be divisible by {r} {what}, but "
                                   f"got {offset}")
            size[-1] //= r
            stride = [s // r for s in stride[:-1]] + [1]
            offset //= r
    return reinterpret(self, d, tuple(size), tuple(stride), offset)


def reinterpret(self, d, size, stride, offset):
    """A tensor of dtype `d` with layout (size, stride, offset) over `self`'s memory: a true
    view. The storage moves to host memory shared with NumPy (as `Tensor.numpy()` does) and the
    new tensor's storage is a NumPy view of the same bytes, so writes through either are seen
    by both. Not differentiable (PyTorch's `view(dtype)` is not either)."""
    st = self._st
    if st.device.type != "cpu":
        raise NotImplementedError(f"torchlike: reinterpreting the memory of a {st.device.type} "
                                  f"tensor as another dtype (view(dtype), .real, .imag, "
                                  f"view_as_real) is only available on CPU")
    if d is self.dtype:
        return make_view(self, size, stride, offset, "ViewBackward0")
    ptr = st.ptr
    flat = st.share_with_numpy()
    self._cache = None
    n = st.numel * self.dtype.itemsize // d.itemsize
    raw = flat.view(np.uint8)[:n * d.itemsize].view(d.np)
    alias = Storage.from_numpy_flat(raw, d, st.device, resizable=False)
    alias._ptr = ptr
    return _new(Tensor, alias, size, stride, offset, self._vc,
                self._base if self._base is not None else self)


def _view_method(self, *shape, dtype=None):
    """Mirrors `Tensor.view(*shape)` and `Tensor.view(dtype)`."""
    if dtype is not None or len(shape) == 1 and type(shape[0]) is not int:  # not x.view(-1)
        if dtype is not None or isinstance(shape[0], (dt.dtype, type)):
            d = dtype if dtype is not None else shape[0]
            if type(d) is not dt.dtype:
                if d not in dt.PY_TYPES:
                    raise _view_bad_arg(d)
                d = dt.PY_TYPES[d]
            return _view_dtype(self, d)
        if not isinstance(shape[0], (int, np.integer, tuple, list, Tensor)):
            raise _view_bad_arg(shape[0])
    size, stride, offset = VIEW_OPS["view"](self, *shape)
    return make_view(self, size, stride, offset, "ViewBackward0")


def _view_bad_arg(v):
    name = type(v).__name__
    return TypeError(f"view() received an invalid combination of arguments - got ({name}), but "
                     f"expected one of:\n * (torch.dtype dtype)\n      didn't match because some "
                     f"of the arguments have invalid types: (!{name}!)\n * (tuple of ints size)\n"
                     f"      didn't match because some of the arguments have invalid types: "
                     f"(!{name}!)\n")


def view_as_real(input):
    """Mirrors `torch.view_as_real`: a float view (last dimension 2: real, imaginary) of a
    complex tensor's memory."""
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    out = reinterpret(input, input.dtype.to_real(), input._size + (2,),
                      tuple(s * 2 for s in input._stride) + (1,), input._offset * 2)
    if input._requires_grad and _GRAD[0]:
        _record_reinterpret(input, out, "ViewAsRealBackward0",
                            lambda a: jnp.stack([jnp.real(a), jnp.imag(a)], -1))
    return out


def view_as_complex(input):
    """Mirrors `torch.view_as_complex`: a complex view of a float tensor whose last dimension
    (size 2, stride 1) holds real and imaginary parts."""
    if input.dtype.name not in ("float32", "float64", "float16"):
        from .registry import short_name
        raise RuntimeError(f"view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {short_name(input.dtype)}")
    if not input._size or input._size[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if input._stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in input._stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if input.dtype.name == "float16":
        raise NotImplementedError("torchlike has no complex32 (ComplexHalf) dtype")
    out = reinterpret(input, input.dtype.to_complex(), input._size[:-1],
                      tuple(s // 2 for s in input._stride[:-1]), input._offset // 2)
    if input._requires_grad and _GRAD[0]:
        _record_reinterpret(input, out, "ViewAsComplexBackward0",
                            lambda a: jax.lax.complex(a[..., 0], a[..., 1]))
    return out


def _record_reinterpret(src, view, name, fn):
    """`view`'s autograd node: its value as the JAX function `fn` of `src`'s value."""
    from ..autograd.function import record
    record(name, jax.jit(fn), [src._value()], [(0, src)], [view], True, "none")


def real(input):
    """Mirrors `torch.real` / `Tensor.real`: a view of the real parts (`self` if not complex)."""
    if not input.dtype.is_complex:
        return input
    return FUNCTIONS["select"](view_as_real(input), -1, 0)


def imag(input):
    """Mirrors `torch.imag` / `Tensor.imag`: a view of the imaginary parts."""
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return FUNCTIONS["select"](view_as_real(input), -1, 1)


METHODS["view"] = _view_method
FUNCTIONS["view_as_real"] = view_as_real
FUNCTIONS["view_as_complex"] = view_as_complex
OPS.setdefault("view_as_real", None)
OPS.setdefault("view_as_complex", None)


@view_op(function=False)
def view_as(self, other):
    return VIEW_OPS["view"](self, other._size)


@view_op(inplace=True, aliases=("swapaxes", "swapdims"))
def transpose(self, dim0, dim1):
    n = len(self._size)
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    if n == 0:  # a 0-d tensor transposes dims 0/-1 onto themselves
        return (), (), self._offset
    size, stride = list(self._size), list(self._stride)
    size[d0], size[d1] = size[d1], size[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return size, stride, self._offset


@view_op(inplace=True)
def t(self):
    n = len(self._size)
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return self._size[::-1], self._stride[::-1], self._offset


@view_op()
def permute(self, *dims):
    dims = _dims_arg(dims)
    n = len(self._size)
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    wrapped = [_wrap_dim(d, n) for d in dims]
    if len(set(wrapped)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return ([self._size[d] for d in wrapped], [self._stride[d] for d in wrapped], self._offset)


@view_op(aliases=("moveaxis",))
def movedim(self, source, destination):
    n = len(self._size)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    for what, given in (("source", src), ("destination", dst)):
        if len({_wrap_dim(d, n) for d in given}) != len(given):
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({given})")
    src = [_wrap_dim(d, n) for d in src]
    dst = [_wrap_dim(d, n) for d in dst]
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [o if o is not None else next(rest) for o in order]
    return ([self._size[d] for d in order], [self._stride[d] for d in order], self._offset)


def _squeeze_dims(self, dim):
    n = len(self._size)
    if dim is None:
        return {i for i, s in enumerate(self._size) if s == 1}
    dims = [dim] if isinstance(dim, int) else list(dim)
    return {_wrap_dim(d, n) for d in dims if self._size[_wrap_dim(d, n)] == 1} if n else set()


@view_op(inplace=True)
def squeeze(self, dim=None):
    if not self._size:
        if dim is not None:
            for d in ([dim] if isinstance(dim, int) else dim):
                _wrap_dim(d, 0)
        return (), (), self._offset
    drop = _squeeze_dims(self, dim)
    keep = [i for i in range(len(self._size)) if i not in drop]
    return [self._size[i] for i in keep], [self._stride[i] for i in keep], self._offset


@view_op(inplace=True)
def unsqueeze(self, dim):
    n = len(self._size)
    d = _wrap_dim(dim, n + 1)
    size, stride = list(self._size), list(self._stride)
    new_stride = stride[d] * size[d] if d < n else 1
    size.insert(d, 1)
    stride.insert(d, new_stride)
    return size, stride, self._offset


@view_op(function=False)
def expand(self, *sizes):
    sizes = _dims_arg(sizes)
    n = len(self._size)
    if len(sizes) < n:
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(self._size)}}}, size={list(sizes)}): "
                           f"the number of sizes provided ({len(sizes)}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({n})")
    size, stride = [], []
    lead = len(sizes) - n
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            size.append(s)
            stride.append(0)
            continue
        cur, cst = self._size[i - lead], self._stride[i - lead]
        if s == -1:
            s = cur
        if cur == s:
            size.append(s)
            stride.append(cst)
        elif cur == 1:
            size.append(s)
            stride.append(0)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({cur}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(self._size)}")
    return size, stride, self._offset


@view_op(function=False)
def expand_as(self, other):
    return VIEW_OPS["expand"](self, other._size)


@view_op()
def broadcast_to(self, size):
    return VIEW_OPS["expand"](self, tuple(size))


@view_op()
def narrow(self, dim, start, length):
    n = len(self._size)
    if n == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, n)
    if isinstance(start, Tensor):
        if start.dim() != 0 or start.dtype.is_floating_point or start.dtype.is_complex or \
                start.dtype.name == "bool":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start.item())
    start = operator.index(start)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    cur = self._size[d]
    if not -cur <= start <= cur:
        raise IndexError(f"start out of range (expected to be in range of [{-cur}, {cur}], but "
                         f"got {start})")
    if start < 0:
        start += cur
    if start + length > cur or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({cur}).")
    size = list(self._size)
    size[d] = length
    return size, self._stride, self._offset + start * self._stride[d]


@view_op()
def select(self, dim, index):
    n = len(self._size)
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, n)
    index = operator.index(index)
    cur = self._size[d]
    if not -cur <= index < cur:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(self._size)} at dimension {d}")
    if index < 0:
        index += cur
    return (self._size[:d] + self._size[d + 1:], self._stride[:d] + self._stride[d + 1:],
            self._offset + index * self._stride[d])


@view_op(inplace=True)
def as_strided(self, size, stride, storage_offset=None):
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    off = self._offset if storage_offset is None else storage_offset
    if size and layout.numel(size):
        need = off + sum((n - 1) * s for n, s in zip(size, stride)) + 1
        if need > self._st.numel:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, "
                f"and itemsize {self.dtype.itemsize} requiring a storage size of "
                f"{need * self.dtype.itemsize} are out of bounds for storage of size "
                f"{self._st.numel * self.dtype.itemsize}")
    return size, stride, off


@view_op()
def diagonal(self, offset=0, dim1=0, dim2=1):
    n = len(self._size)
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    off = self._offset
    if offset >= 0:
        length = max(min(self._size[d1], self._size[d2] - offset), 0)
        if length:
            off += offset * self._stride[d2]
    else:
        length = max(min(self._size[d1] + offset, self._size[d2]), 0)
        if length:
            off -= offset * self._stride[d1]
    keep = [i for i in range(n) if i not in (d1, d2)]
    size = [self._size[i] for i in keep] + [length]
    stride = [self._stride[i] for i in keep] + [self._stride[d1] + self._stride[d2]]
    return size, stride, off


@view_op(function=False)
def unfold(self, dimension, size, step):
    n = len(self._size)
    d = _wrap_dim(dimension, max(n, 1)) if n else 0
    cur = self._size[d] if n else 1
    if size > cur:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {cur} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (cur - size) // step + 1
    st = self._stride[d] if n else 1
    new_size = list(self._size)
    new_stride = list(self._stride)
    if n:
        new_size[d] = count
        new_stride[d] = st * step
    return new_size + [size], new_stride + [st], self._offset


@view_op()
def unflatten(self, dim, sizes):
    n = len(self._size)
    d = _wrap_dim(dim, n)
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    inferred = _infer_unflatten(sizes, self._size[d], d)
    size = self._size[:d] + inferred + self._size[d + 1:]
    return size, layout.compute_view_stride(self._size, self._stride, size), self._offset


def _infer_unflatten(sizes, n, d):
    try:
        return _infer_size(sizes, n)
    except RuntimeError as e:
        if "is invalid for input of size" in str(e):
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to "
                               f"the size of dim {d} ({n}) in the input tensor") from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None


@view_op(function=False)
def alias(self):
    return self._size, self._stride, self._offset


# ---- composites that are views when they can be -------------------------------------------------

def _register(name, fn, method=True, function=True, aliases=()):
    fn.__name__ = name
    publish(fn, name, method=method, function=function, aliases=aliases)


def reshape(input, *shape):
    """Mirrors `torch.reshape`: a view when strides allow, otherwise a copy."""
    size = _infer_size(_dims_arg(shape), input.numel())
    stride = layout.compute_view_stride(input._size, input._stride, size)
    if stride is not None:
        return make_view(input, size, stride, input._offset, "ViewBackward0")
    return _copy_reshape(input, size)


def _copy_reshape(input, size):
    from .conversion import _reshape_copy, _reshape_jit
    from .._core.grad_state import ENABLED
    if ENABLED[0] and input.requires_grad:  # a copy inside the graph (PyTorch: _unsafe_view)
        from ..autograd.function import apply_jax
        return apply_jax(_reshape_jit(tuple(size)), [input], name="UnsafeViewBackward0")[0]
    return _reshape_copy(input, size)


def reshape_as(self, other):
    return reshape(self, other._size)


def flatten(input, start_dim=0, end_dim=-1):
    """Mirrors `torch.flatten`: a view when possible."""
    n = len(input._size)
    if n == 0:
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    size = input._size[:s] + (math.prod(input._size[s:e + 1]),) + input._size[e + 1:]
    return reshape(input, size)


def ravel(input):
    return reshape(input, (-1,))


def contiguous(self, memory_format=None):
    """Mirrors `Tensor.contiguous`: `self` when already contiguous in `memory_format`, else a
    copy laid out in it."""
    if self.is_contiguous(memory_format=memory_format):
        return self
    if memory_format is _fmt.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return self.clone(memory_format=memory_format or _fmt.contiguous_format)


def unbind(input, dim=0):
    n = len(input._size)
    if n == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, n)
    return tuple(select(input, d, i) for i in range(input._size[d]))


def split(tensor, split_size_or_sections, dim=0):
    n = len(tensor._size)
    d = _wrap_dim(dim, n)
    total = tensor._size[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step == 0 and total != 0:
            raise RuntimeError("split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {total}")
        sizes = [min(step, total - i) for i in range(0, total, step)] if step else [0]
        if not sizes:
            sizes = [0]
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != total:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {total} "
                               f"(input tensor's size at dimension {d}), but got split_sizes="
                               f"{sizes}")
    out, start = [], 0
    for s in sizes:
        out.append(narrow(tensor, d, start, s))
        start += s
    return tuple(out)


def split_with_sizes(self, split_sizes, dim=0):
    return split(self, list(split_sizes), dim)


def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = len(input._size)
    d = _wrap_dim(dim, n)
    size = input._size[d]
    step = -(-size // chunks) if size else 0
    if step == 0:
        return tuple(narrow(input, d, 0, 0) for _ in range(chunks)) if size == 0 else ()
    return split(input, step, d)


def tensor_split(input, indices_or_sections, dim=0):
    n = len(input._size)
    d = _wrap_dim(dim, n)
    size = input._size[d]
    if isinstance(indices_or_sections, Tensor) and indices_or_sections.dim() == 0:
        indices_or_sections = int(indices_or_sections.item())  # a 0-d tensor counts sections
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        q, r = divmod(size, k)
        bounds, start = [], 0
        for i in range(k):
            length = q + (1 if i < r else 0)
            bounds.append((start, length))
            start += length
    else:
        idx = [int(i) for i in (indices_or_sections.tolist() if isinstance(indices_or_sections, Tensor) else indices_or_sections)]
        bounds, prev = [], 0
        for i in idx + [size]:
            i = min(max(i if i >= 0 else i + size, 0), size)
            s = min(prev, size)
            bounds.append((s, max(i - s, 0)))
            prev = max(i, prev)
    return tuple(narrow(input, d, s, length) for s, length in bounds)


def _nsplit(name, need, dim_for):
    def f(input, indices_or_sections):
        if input.dim() < need:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, "
                               f"but got a tensor with {input.dim()} dimensions!")
        if not isinstance(indices_or_sections, (int, list, tuple, Tensor)):
            kind = type(indices_or_sections).__name__
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"(Tensor, {kind}), but expected one of:\n"
                            f" * (Tensor input, int sections)\n"
                            f"      didn't match because some of the arguments have invalid "
                            f"types: (Tensor, !{kind}!)\n"
                            f" * (Tensor input, tuple of ints indices)\n"
                            f"      didn't match because some of the arguments have invalid "
                            f"types: (Tensor, !{kind}!)\n")
        d = dim_for(input)
        if isinstance(indices_or_sections, int) and \
                (indices_or_sections == 0 or input._size[d] % indices_or_sections):
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the "
                               f"size of the dimension {input._size[d]} is not divisible by the "
                               f"split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)
    return f


for _name, _fn, _al in (("reshape", reshape, ()), ("flatten", flatten, ()), ("ravel", ravel, ()),
                        ("unbind", numpy_names(unbind), ()), ("split", split, ()),
                        ("tensor_split", numpy_names(tensor_split), ()),
                        ("chunk", numpy_names(chunk), ())):
    _register(_name, _fn, aliases=_al)
_register("reshape_as", reshape_as, function=False)
_register("contiguous", contiguous, function=False)
_register("split_with_sizes", split_with_sizes)
_register("hsplit", _nsplit("hsplit", 1, lambda t: 1 if t.dim() > 1 else 0))
_register("vsplit", _nsplit("vsplit", 2, lambda t: 0))
_register("dsplit", _nsplit("dsplit", 3, lambda t: 2))


def _prop(name, fn):
    METHODS[name] = property(fn)


def _matrices(self, what):
    if self.dim() == 1:  # PyTorch keeps 0-d tensors as they are
        raise RuntimeError(f"tensor.{what} is only supported on matrices or batches of matrices. "
                           f"Got 1-D tensor.")
    return self if self.dim() == 0 else transpose(self, -2, -1)


def _H(self):
    if self.dim() not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH"
                              if self.dim() > 2 else ""))
    return permute(self, tuple(range(self.dim() - 1, -1, -1))).conj()


_T_DEPRECATED = {
    0: "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. "
       "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)",
    None: "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
          "deprecated and it will throw an error in a future release. Consider `x.mT` to "
          "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
          "reverse the dimensions of a tensor. (Triggered internally at "
          "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)"}
def _T(self):
    """`x.T`; on other than 2-D tensors PyTorch warns (once per process, each message)."""
    if self.dim() != 2:
        _frames.warn(_T_DEPRECATED[0 if self.dim() == 0 else None], once=True)
    return permute(self, tuple(range(self.dim() - 1, -1, -1)))


_prop("T", _T)
_prop("mT", lambda self: _matrices(self, "mT"))
_prop("H", _H)
_prop("mH", lambda self: _matrices(self, "mH").conj())


# ---- the `*_copy` twins: each view op's result as a fresh contiguous tensor ---------------------

def _write_out(res, out):
    """`res` written into `out` (resized as PyTorch's out= variants resize)."""
    from .registry import _write_one_out
    _write_one_out(res._value(), out)
    return out


def _copy_of(view_name, dropped=()):
    """`torch.<view_name>_copy`: the view op, then a contiguous copy of its result (a tuple of
    copies for the ops returning several views; `out=` then takes a list)."""
    def f(input, *args, out=None, **kwargs):
        for k in dropped:      # accepted and ignored (`expand_copy(..., implicit=True)`)
            kwargs.pop(k, None)
        view_fn = FUNCTIONS.get(view_name) or METHODS[view_name]
        res = view_fn(input, *args, **kwargs)
        if isinstance(res, tuple):
            copies = tuple(r.clone(memory_format=_fmt.contiguous_format) for r in res)
            if out is None:
                return copies
            if len(out) != len(copies):
                raise RuntimeError(f"{view_name}_copy_out() expected an out= argument of size "
                                   f"{len(copies)}, got size {len(out)}")
            for r, o in zip(copies, out):
                _write_out(r, o)
            return None
        res = res.clone(memory_format=_fmt.contiguous_format)
        return res if out is None else _write_out(res, out)
    f.__name__ = f.__qualname__ = view_name + "_copy"
    f.__doc__ = (f"Mirrors `torch.{view_name}_copy`: `{view_name}`'s result as a new tensor "
                 f"that shares no storage with `input`.")
    return f


# view op -> keyword arguments its `_copy` twin accepts and ignores
_VIEW_COPIES = {"expand": ("implicit",), "diagonal": (), "alias": (), "as_strided": (),
                "view": (), "permute": (), "split_with_sizes": (), "unbind": (), "unfold": (),
                "squeeze": (), "unsqueeze": (), "transpose": (), "t": ()}
for _name, _dropped in _VIEW_COPIES.items():
    _register(_name + "_copy", _copy_of(_name, _dropped), method=False)


def _unsafe(fn, name):
    """`unsafe_split`/`unsafe_chunk`: the same views (PyTorch only skips its autograd checks on
    later in-place writes to them). `unsafe_split` takes only an int size (sizes are
    `unsafe_split_with_sizes`)."""
    def f(*args, **kwargs):
        if name == "unsafe_split" and len(args) > 1 and not isinstance(args[1], int):
            raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, "
                            f"not {type(args[1]).__name__}")
        return fn(*args, **kwargs)
    f.__doc__ = f"Mirrors `torch.{name}`."
    return f


for _name, _fn in (("unsafe_split", split), ("unsafe_chunk", chunk),
                   ("unsafe_split_with_sizes", split_with_sizes)):
    _register(_name, _unsafe(_fn, _name))
