"""Which devices an op's tensor operands may be on, and PyTorch's errors when they disagree.

PyTorch has two rules, and both are mirrored here:

- **Elementwise ops and reductions** (its TensorIterator): the op's device is the first
  operand's device that is not the CPU. A 0-dim CPU tensor that is an input (not the tensor an
  in-place op writes) combines with tensors on any device, as a scalar would; any other operand
  on another device raises "Expected all tensors to be on the same device, but found at least
  two devices, cuda:0 and cpu!".
- **Other kernels** (matrix products, `index_select`, `cat`, norms: the ones its code generator
  checks argument by argument): the first tensor argument fixes the device and the first one
  elsewhere raises "Expected all tensors to be on the same device, but got mat2 is on cpu,
  different from other tensors on cuda:0 (when checking argument in method
  wrapper_CUDA_mm)". An op-table row states this with `devices=(method, names)`: the wrapper's
  name and PyTorch's argument names for the row's tensor parameters.

The checks cost nothing while every operand is on one device: the dispatcher compares the
storages' device objects (interned, see `device.canonical`) and comes here only on a mismatch.
"""
from .tensor import Tensor


def _tensors(row, args):
    """(argument name, tensor) for each tensor operand, lists flattened, in argument order."""
    out = []
    for name, v in zip(row.names, args):
        if isinstance(v, Tensor):
            out.append((name, v))
        elif isinstance(v, (list, tuple)) and name in row.lists:
            out.extend((name, t) for t in v if isinstance(t, Tensor))
    return out


def same_device_error(common, other):
    """PyTorch's TensorIterator error for operands on two devices."""
    return RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                        f"two devices, {common} and {other}!")


def argument_error(name, dev, common, method):
    """PyTorch's generated-wrapper error for argument `name` on `dev`."""
    return RuntimeError(f"Expected all tensors to be on the same device, but got {name} is on "
                        f"{dev}, different from other tensors on {common} (when checking "
                        f"argument in method {method})")


def out_argument_error(row, args, device, out_device):
    """PyTorch's CUDA out= wrapper error: `out` is checked first, so the operands' first named
    argument is the one reported. The wrapper's name is the functional one's out overload
    (`wrapper_CUDA_mm` -> `wrapper_CUDA_mm_out_out`, as CUDA PyTorch 2.11 reports;
    `wrapper_CUDA__X` -> `wrapper_CUDA_out_X_out` by the same naming scheme)."""
    spec = row.devices
    method, names = spec(*args) if callable(spec) else spec
    order = list(names)
    first = min((n for n, _ in _tensors(row, args) if n in names), key=order.index)
    head, _, op = method.rpartition("__")
    method = f"{head}_out_{op}_out" if head else f"{method}_out_out"
    return argument_error(names[first], device, out_device, method)


def reconcile(row, args, inplace=False):
    """`args` with each 0-dim CPU input moved to the op's device, or PyTorch's error when the
    operands' devices disagree otherwise (see the module docstring). `inplace`: `args[0]` is the
    tensor written, which never moves."""
    spec = row.devices
    tensors = _tensors(row, args)
    if spec is not None:
        method, names = spec(*args) if callable(spec) else spec
        order = list(names)  # the wrapper's order of checks
        named = sorted(((n, t) for n, t in tensors if n in names),
                       key=lambda nt: order.index(nt[0]))
        _check_arguments([(names[n], t) for n, t in named], method)
        tensors = [(n, t) for n, t in tensors if n not in names] + named[:1]
    return _swap_all(args, _scalars_moved([t for _, t in tensors],
                                          args[0] if inplace else None))


def _check_arguments(named, method):
    """PyTorch's argument-by-argument check of (argument name, tensor) pairs, in order."""
    if not named:
        return
    common = named[0][1]._st.device
    for name, t in named[1:]:
        if t._st.device != common:
            raise argument_error(name, t._st.device, common, method)


def _scalars_moved(tensors, written=None):
    """{id: copy on the op's device} for the 0-dim CPU inputs among `tensors` (TensorIterator's
    rule; `written` never moves), or PyTorch's error for any other disagreement."""
    if not tensors:
        return {}
    common = next((t._st.device for t in tensors if t._st.device.type != "cpu"),
                  tensors[0]._st.device)
    moved = {}
    for t in tensors:
        d = t._st.device
        if d == common:
            continue
        if d.type == "cpu" and not t._size and t is not written:
            moved[id(t)] = t.to(common)
            continue
        raise same_device_error(common, d)
    return moved


def _swap_all(args, moved):
    return [_swap(v, moved) for v in args] if moved else args


def _swap(v, moved):
    if isinstance(v, Tensor):
        return moved.get(id(v), v)
    if isinstance(v, (list, tuple)) and any(isinstance(t, Tensor) for t in v):
        return type(v)(moved.get(id(t), t) if isinstance(t, Tensor) else t for t in v)
    return v


def agree(operands):
    """Whether the tensors among `operands` are on one device (the cheap common case)."""
    first = None
    for o in operands:
        if isinstance(o, Tensor):
            d = o._st.device
            if first is None:
                first = d
            elif d is not first and d != first:
                return False
    return True


def check_operands(operands, spec=None, written=None):
    """`operands` of a composite kernel (`apply_jax`) with 0-dim CPU inputs moved to the
    kernel's device, or PyTorch's error. `spec`: (wrapper name, PyTorch's argument name per
    operand position, None for a position its wrapper does not check) for a kernel PyTorch
    checks argument by argument; `written`: the operand an in-place kernel writes (never
    moved)."""
    rest = [o for o in operands if isinstance(o, Tensor)]
    if spec is not None:
        method, names = spec
        named = [(n, o) for n, o in zip(names, operands) if n is not None and
                 isinstance(o, Tensor)]
        _check_arguments(named, method)
        rest = [o for n, o in zip(names, operands) if n is None and isinstance(o, Tensor)] + \
            [o for _, o in named[:1]]
    return _swap_all(list(operands), _scalars_moved(rest, written))
