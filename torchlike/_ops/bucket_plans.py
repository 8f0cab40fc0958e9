"""Plans: a bucket rule's work on the host, done once per operand signature.

A rule (see `bucketed`) decides on the host how an op runs on padded operands: the result's
size and padded dims, each operand's target extents and fills, the composed program, its size
constants. In a loop those decisions repeat call after call (a sampling step runs the same ops
on operands of the same sizes), and they cost several times the program's dispatch. So the
first call of a signature records them as a plan (the program, which operand's array goes in
each slot, the constants, the results' sizes and padded dims), and later calls with that
signature run the plan: read the arrays, call the program, wrap the results.

A signature holds everything the rules read of their arguments: per tensor its size, dtype,
device, padded buffer shape and padded dims, and which earlier argument shares its storage;
other arguments by value. Only calls autograd does not record, on tensors that cover their
storages (no views, windows or NumPy-shared ones), for the rules that read no element values,
are planned; anything else runs the rule.
"""
from .._core.grad_state import ENABLED as _GRAD
from .._core.tensor import Tensor

PLANNED = frozenset(("pointwise", "leading", "matmul", "softmax", "sum", "mean", "prod", "max",
                     "min", "argmax", "argmin"))
_PLANS = {}
_LIMIT = 4096
_CAPTURE = [None, None]   # the signature being recorded, its launch: (plan, result) or False


class Plan:
    """A recorded rule run: `fn(*dyn)` with `slots` ((position, argument index) of the
    operands' arrays) filled into `dyn`, its results wrapped as `tensors` does."""

    __slots__ = ("fn", "dyn", "slots", "outs", "logical", "device", "single", "returns")

    def run(self, args):
        from .bucketed import make_tensors
        dyn = list(self.dyn)
        for pos, i in self.slots:
            st = args[i]._st
            dyn[pos] = st._phys if st._phys is not None else st._data
        res = self.fn(*dyn)
        tensors, single = make_tensors(res, self.outs, self.device, self.logical)
        out = tensors[0] if single else tuple(tensors)
        if not single and self.returns is not None:
            return self.returns(*out)
        return out


def signature(row, args):
    """The plan key of `row` on `args`, or None when the call is not planned."""
    parts = [row]
    grad = _GRAD[0]
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            st = a._st
            if not a._natural or a._window is not None or st._np is not None or \
                    (grad and a._requires_grad):
                return None
            p = st._phys
            if p is None:
                if st._data is None:
                    return None
                phys = None
            else:
                phys = (p.shape, st._pdims)
            alias = i
            for j in range(i):
                b = args[j]
                if isinstance(b, Tensor) and b._st is st:
                    alias = j
                    break
            parts.append((a._size, a.dtype, st.device, phys, alias))
        elif isinstance(a, (list, tuple)):
            if any(isinstance(x, Tensor) for x in a):
                return None
            parts.append((type(a), tuple(a)))
        elif isinstance(a, (float, complex)):
            parts.append((type(a), a, repr(a)))   # -0.0 == 0.0, and hashes alike
        else:
            parts.append((type(a), a))
    key = tuple(parts)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def lookup(key):
    return _PLANS.get(key)


def capture(key):
    """Start recording the rule run of signature `key` (see `record`, `commit`)."""
    _CAPTURE[0], _CAPTURE[1] = key, None


def stop():
    _CAPTURE[0] = _CAPTURE[1] = None


def record(launch, args, reads, device, logical, single, returns, result):
    """Called by `bucketed.run_row` with its launch and `result` (not under autograd), while a
    signature is captured: the plan, when every array the launch reads is an operand's. A
    second launch in one rule run spoils the capture."""
    if _CAPTURE[1] is not None:
        _CAPTURE[1] = False
        return
    _CAPTURE[1] = False
    by_id = {}
    for i, arr in reads.items():
        by_id.setdefault(id(arr), i)
    dyn = list(launch.dyn)
    slots = []
    last = len(dyn) - 1   # the size constants (see `_Launch`)
    for pos, d in enumerate(dyn):
        i = by_id.get(id(d))
        if i is not None:
            st = args[i]._st
            if d is not (st._phys if st._phys is not None else st._data):
                return
            slots.append((pos, i))
            dyn[pos] = None
        elif pos != last and hasattr(d, "shape") and getattr(d, "ndim", 0) > 0:
            return   # an array that is no operand's: not a constant of the signature
    plan = Plan()
    plan.fn, plan.dyn, plan.slots = launch.fn, tuple(dyn), tuple(slots)
    plan.outs, plan.logical, plan.device = launch.outs, logical, device
    plan.single, plan.returns = single, returns
    _CAPTURE[1] = (plan, result)


def commit(result):
    """Keep the captured plan if the rule returned its launch's `result` unchanged."""
    got = _CAPTURE[1]
    if got and got[1] is result and result is not None:
        if len(_PLANS) >= _LIMIT:
            _PLANS.clear()
        _PLANS[_CAPTURE[0]] = got[0]
