"""Run one OpInfo entry at one dtype through PyTorch and torchlike and compare, case by case.

A case is one sample input through one variant (function, method, in-place, operator), one error
input, or one float64 gradient. Each gives a `Case` whose `ok` says whether torchlike agrees with
PyTorch: same outcome (a result, or an exception of the same type and message), dtype and shape,
values within the dtype's tolerance; error inputs raise the type PyTorch's database states with a
message its pattern matches; gradients agree for a random cotangent.
"""
import re
import warnings
from dataclasses import dataclass

import numpy as np
import torch as real_torch

import torchlike
from harness import Raised, assert_same
from opinfo import convert

MAX_SAMPLES = 8
# assert_close's defaults, loosened for float32/complex64 (XLA sums and fuses in other orders).
TOLERANCES = {
    "float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1e-4, 1e-5),
    "complex64": (1e-4, 1e-5), "float64": (1e-7, 1e-7), "complex128": (1e-7, 1e-7),
}
GRAD_TOLERANCE = (1e-6, 1e-7)


@dataclass
class Case:
    op: str          # OpInfo's full name ("nn.functional.conv2d", "norm.fro")
    dtype: str       # "float32"
    kind: str        # "forward", "error", "grad"
    variant: str     # "function", "method", "inplace", "operator", "inplace_operator"
    index: int       # sample number
    ok: bool
    detail: str = ""
    stride_ok: bool = True


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _tensors(x, out):
    if isinstance(x, (real_torch.Tensor, torchlike.Tensor)):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _tensors(v, out)
    elif isinstance(x, dict):
        for v in x.values():
            _tensors(v, out)
    return out


def _copy(x):
    """A real-torch copy of a sample value with the same strides (in-place variants change it)."""
    if isinstance(x, real_torch.Tensor):
        t = x.detach()
        n = t.untyped_storage().nbytes() // max(t.element_size(), 1)
        flat = real_torch.as_strided(t, (n,), (1,), 0).clone() if n else t.reshape(0).clone()
        c = flat.as_strided(t.shape, t.stride(), t.storage_offset())
        return c.requires_grad_() if x.requires_grad and x.is_leaf else c
    if isinstance(x, (list, tuple, dict)) and not isinstance(x, real_torch.Size):
        return convert.walk(x, _copy)
    return x


def _call(fn, args, kwargs, seed=0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real_torch.manual_seed(seed)
        torchlike.manual_seed(seed)
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - outcomes are compared
            return Raised(e)


def _strides(x):
    return [(tuple(t.stride()), t.storage_offset()) for t in _tensors(x, [])]


# Entries whose output is uninitialised memory: only its dtype, shape and strides are compared.
UNINITIALISED = ("empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
                 "empty_permuted")
# Entries whose outputs are defined up to a phase (eigenvectors): compared after the sample's
# `output_process_fn_grad`, which PyTorch's database gives them to make outputs unique.
GAUGE = ("linalg.eig", "linalg.eigh")


def _function(op):
    """The function variant: `torch.<name>` when that is the database's callable, else by the
    callable's own module and name."""
    obj = real_torch
    for part in op.name.split("."):
        obj = getattr(obj, part, None)
    if obj is not None and obj is op.op:
        try:
            return convert._attr_path(torchlike, op.name)
        except convert.Missing:
            pass
    return convert.callable_(op.op)


def variants(op):
    """(name, torch callable, torchlike callable or a `convert.Missing`) for each variant."""
    found = [("function", op.op), ("method", op.method_variant),
             ("inplace", op.inplace_variant), ("operator", op.operator_variant),
             ("inplace_operator", op.inplace_operator_variant)]
    out = []
    for name, fn in found:
        if fn is None:
            continue
        try:
            out.append((name, fn, _function(op) if name == "function" else convert.callable_(fn)))
        except convert.Missing as e:
            out.append((name, fn, e))
    return out


def _metadata(x):
    if isinstance(x, (real_torch.Tensor, torchlike.Tensor)):
        return (str(x.dtype).replace("torch.", ""), tuple(x.shape))
    return x


def _compare(expected, actual, dtype, op=None, sample=None):
    rtol, atol = TOLERANCES.get(dtype, (None, None))
    if isinstance(expected, Raised) != isinstance(actual, Raised):
        if isinstance(expected, Raised):
            return False, f"no error; PyTorch raises {expected!r}"[:300]
        return False, f"torchlike raised {actual!r}"[:300]
    if isinstance(expected, Raised):
        same = expected.type == actual.type and \
            expected.msg.split("\nException raised from")[0].strip() == actual.msg.strip()
        return same, "" if same else f"torch {expected!r} / torchlike {actual!r}"[:300]
    if op is not None and not isinstance(expected, Raised) and not isinstance(actual, Raised):
        if op.name in UNINITIALISED:
            expected, actual = _metadata(expected), _metadata(actual)
        elif op.name in GAUGE:
            expected = sample.output_process_fn_grad(expected)
            actual = convert.callable_(sample.output_process_fn_grad)(actual)
    try:
        assert_same(expected, actual, rtol=rtol, atol=atol)
        return True, ""
    except AssertionError as e:
        return False, str(e).split("\n")[0][:300] + (
            "" if "\n" not in str(e) else " | " + " ".join(str(e).split("\n")[1:6])[:300])
    except Exception as e:  # noqa: BLE001 - a result torchlike cannot even convert
        return False, f"comparison raised {type(e).__name__}: {e}"[:300]


def forward_cases(op, dtype, max_samples=MAX_SAMPLES, noncontiguous=False):
    """Each sample through each variant; with `noncontiguous`, also each sample's
    non-contiguous twin (`SampleInput.noncontiguous()`) through the function variant."""
    name, cases = _dtype_name(dtype), []
    try:
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))[:max_samples]
    except Exception:  # noqa: BLE001 - PyTorch's database has no samples here
        return cases
    found = variants(op)
    runs = [(s, found) for s in samples]
    if noncontiguous:
        runs += [(s.noncontiguous(), [("noncontiguous",) + tuple(found[0][1:])])
                 for s in samples]
    for i, (s, chosen) in enumerate(runs):
        i = i % len(samples)
        for vname, tfn, lfn in chosen:
            if isinstance(lfn, Exception):
                cases.append(Case(op.full_name, name, "forward", vname, i, False,
                                  f"missing: {lfn}"))
                continue
            args = (s.input, *s.args)
            try:
                largs, lkw = convert.value(args), convert.value(s.kwargs)
            except Exception as e:  # noqa: BLE001
                cases.append(Case(op.full_name, name, "forward", vname, i, False,
                                  f"input conversion raised {type(e).__name__}: {e}"[:300]))
                continue
            expected = _call(tfn, _copy(args), _copy(s.kwargs))
            actual = _call(lfn, largs, lkw)
            ok, detail = _compare(expected, actual, name, op, s)
            stride_ok = True
            if ok and not isinstance(expected, Raised):
                try:
                    stride_ok = _strides(expected) == _strides(actual)
                except Exception:  # noqa: BLE001
                    stride_ok = False
            cases.append(Case(op.full_name, name, "forward", vname, i, ok, detail, stride_ok))
    return cases


def error_cases(op):
    cases = []
    try:
        errors = list(op.error_inputs("cpu"))
    except Exception:  # noqa: BLE001
        return cases
    try:
        lfn = _function(op)
    except convert.Missing as e:
        return [Case(op.full_name, "", "error", "function", i, False, f"missing: {e}")
                for i in range(len(errors))]
    for i, ei in enumerate(errors):
        s = ei.sample_input
        args = (s.input, *s.args)
        expected = _call(op.op, _copy(args), _copy(s.kwargs))
        if not (isinstance(expected, Raised)
                and re.search(ei.error_regex, expected.msg)):
            continue  # PyTorch itself does not raise as its database says: no oracle
        try:
            largs, lkw = convert.value(args), convert.value(s.kwargs)
        except Exception as e:  # noqa: BLE001
            cases.append(Case(op.full_name, "", "error", "function", i, False,
                              f"input conversion raised {type(e).__name__}: {e}"[:300]))
            continue
        actual = _call(lfn, largs, lkw)
        if not isinstance(actual, Raised):
            ok, detail = False, f"no error; PyTorch raises {expected!r}"[:300]
        else:
            ok = actual.type == expected.type and bool(re.search(ei.error_regex, actual.msg))
            detail = "" if ok else f"torch {expected!r} / torchlike {actual!r}"[:300]
        cases.append(Case(op.full_name, "", "error", "function", i, ok, detail))
    return cases


def _differentiable(outs):
    return [t for t in _tensors(outs, []) if t.requires_grad and (
        t.dtype.is_floating_point or t.dtype.is_complex)]


def grad_cases(op, max_samples=MAX_SAMPLES):
    dtype = real_torch.float64
    if not op.supports_autograd or dtype not in op.supported_backward_dtypes("cpu"):
        return []
    try:
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=True))[:max_samples]
        lfn = _function(op)
        wrapper = convert.callable_(op.gradcheck_wrapper)
    except convert.Missing as e:
        return [Case(op.full_name, "float64", "grad", "function", 0, False, f"missing: {e}")]
    except Exception:  # noqa: BLE001
        return []
    cases = []
    for i, s in enumerate(samples):
        args = (s.input, *s.args)
        largs, lkw = convert.value(args), convert.value(s.kwargs)
        tin = [t for t in _tensors((args, s.kwargs), []) if t.requires_grad]
        lin = [t for t in _tensors((largs, lkw), []) if t.requires_grad]
        if not tin:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                real_torch.manual_seed(0)
                tout = _differentiable(s.output_process_fn_grad(
                    op.gradcheck_wrapper(op.op, *args, **s.kwargs)))
                if not tout:
                    continue
                rng = np.random.default_rng(i)
                cots = [rng.standard_normal(tuple(t.shape)) for t in tout]
                texp = real_torch.autograd.grad(
                    tout, tin, [real_torch.tensor(c, dtype=t.dtype) for c, t in zip(cots, tout)],
                    allow_unused=True)
        except Exception:  # noqa: BLE001 - PyTorch cannot differentiate this sample
            continue

        def torchlike_grads():
            torchlike.manual_seed(0)
            process = convert.callable_(s.output_process_fn_grad)
            lout = _differentiable(process(wrapper(lfn, *largs, **lkw)))
            if len(lout) != len(tout):
                raise AssertionError(f"{len(lout)} differentiable outputs, PyTorch has {len(tout)}")
            return torchlike.autograd.grad(
                lout, lin, [torchlike.tensor(c, dtype=t.dtype) for c, t in zip(cots, lout)],
                allow_unused=True)
        actual = _call(lambda: torchlike_grads(), (), {})
        expected = [real_torch.zeros(g.shape, dtype=g.dtype) if g is not None and
                    g._is_zerotensor() else g for g in texp]  # PyTorch's efficient zeros
        if isinstance(actual, Raised):
            ok, detail = False, f"torchlike raised {actual!r}"[:300]
        else:
            try:
                assert_same(expected, list(actual), *GRAD_TOLERANCE, path="grad")
                ok, detail = True, ""
            except AssertionError as e:
                ok, detail = False, str(e)[:300]
            except Exception as e:  # noqa: BLE001 - a gradient torchlike cannot even convert
                ok, detail = False, f"comparison raised {type(e).__name__}: {e}"[:300]
        cases.append(Case(op.full_name, "float64", "grad", "function", i, ok, detail))
    return cases


def op_cases(op, dtypes=None, grads=True, errors=True, max_samples=MAX_SAMPLES,
             grad_samples=MAX_SAMPLES, noncontiguous=False):
    """All cases of one OpInfo entry: forward per dtype (default: every dtype it lists on CPU)."""
    cases = []
    supported = op.supported_dtypes("cpu")
    for dtype in sorted(supported if dtypes is None else set(dtypes) & set(supported), key=str):
        cases += forward_cases(op, dtype, max_samples, noncontiguous)
    if errors:
        cases += error_cases(op)
    if grads:
        cases += grad_cases(op, grad_samples)
    return cases
