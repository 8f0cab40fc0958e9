"""torch.masked against real torch, for what PyTorch's OpInfo samples do not reach: fully
masked-out slices, integer and bool inputs, `dtype=`, `keepdim`, broadcast and non-bool masks,
and the errors of the Python-level argument checks."""
import numpy as np
import pytest

from harness import check

_X = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
_M = np.array([[True, False, True, False], [False, False, False, False],
               [True, True, True, True]])


def _ev(expr):
    def fn(torch):
        env = dict(torch=torch, M=torch.masked, x=torch.tensor(_X), m=torch.tensor(_M),
                   i=torch.tensor((_X * 10).astype(np.int32)), b=torch.tensor(_X > 0))
        return eval(expr, env)
    return fn


@pytest.mark.parametrize("expr", [
    # fully masked-out rows give the identity (or nan / -inf as PyTorch does)
    "M.sum(x, 1, mask=m)", "M.prod(x, 1, mask=m, keepdim=True)", "M.amax(x, 1, mask=m)",
    "M.amin(x, 1, mask=m)", "M.argmax(x, 1, mask=m)", "M.argmin(x, -1, mask=m)",
    "M.mean(x, 1, mask=m)", "M.median(x, 1, mask=m)", "M.norm(x, 2, 1, mask=m)",
    "M.norm(x, float('-inf'), 1, mask=m)", "M.var(x, 1, mask=m)", "M.std(x, 1, mask=m)",
    "M.softmax(x, 1, mask=m)", "M.log_softmax(x, 1, mask=m)", "M.softmin(x, 1, mask=m)",
    "M.normalize(x, 2.0, 1, mask=m)", "M.logsumexp(x, 1, mask=m)",
    "M.cumsum(x, 1, mask=m)", "M.cumprod(x, 1, mask=m)",
    "M.logaddexp(x, x.flip(0), input_mask=m, other_mask=m.flip(0))",
    # integer / bool inputs and their dtype rules
    "M.sum(i, 1, mask=m)", "M.sum(b, 0, mask=m)", "M.prod(i, 1, mask=m)",
    "M.amax(i, 1, mask=m)", "M.amin(i.to(torch.uint8), 1, mask=m)", "M.argmax(i, 1, mask=m)",
    "M.var(i, 1, mask=m)", "M.median(i, 1, mask=m.logical_not())",
    "M.logsumexp(i, 1, mask=m)", "M.cumsum(i.to(torch.int8), 1, mask=m)",
    # dtype=, keepdim, dim forms, broadcast / non-bool masks, no mask
    "M.sum(x, 1, dtype=torch.float64, mask=m)", "M.mean(i, 1, dtype=torch.float32, mask=m)",
    "M.amax(x, 1, dtype=torch.float64, mask=m)", "M.prod(x, 1, dtype=torch.int32, mask=m)",
    "M.var(x, (0, 1), keepdim=True, mask=m)", "M.std(x, 1, False, mask=m)",
    "M.var(x, 1, correction=2, mask=m)", "M.var(x, 1, mask=m, keepdim=True)",
    "M.sum(x, (), mask=m)", "M.prod(x, [], mask=m)", "M.mean(x, mask=m)", "M.mean(x)",
    "M.sum(x, 1, mask=m[2])", "M.sum(x, 1, mask=m.to(torch.float32))",
    "M.softmax(x, (1, 0), mask=m)", "M.median(x, mask=m, keepdim=True)",
    "M._output_mask(M.sum, x, 1, mask=m, keepdim=True)",
    "M.norm(x, 0, 1, mask=m)", "M.norm(x, float('inf'), None, mask=m)",
    "M.normalize(x, float('-inf'), 1, mask=m)",
    "M.normalize(x.to(torch.complex128), 1.0, 0, mask=m)",
    "M.var(x.to(torch.complex64), 1, mask=m, correction=0)",
    "M.std(i, 1, mask=m, dtype=torch.float64)", "M.var(x, 1, mask=m, correction=3)",
    "M.logaddexp(x, x * 2)", "M.logaddexp(x, x[0], input_mask=m)",
    "M.argmax(x, 1, keepdim=True, dtype=torch.int64, mask=m)",
    "M.median(i, 1, dtype=torch.float64, mask=m[2])",
    "M._output_mask(M.norm, x, 2, 1, mask=m)", "M._output_mask(M.softmax, x, 1, mask=m)",
    # errors
    "M._output_mask(torch.abs, x, 1)", "M._output_mask(3, x, 1)", "M.argmax(x, (0, 1), mask=m)",
    "M.amax(x.to(torch.complex64), 1, mask=m)", "M.mean(x, 1, dtype=torch.int32, mask=m)",
    "M.norm(i, 2, 1, mask=m)", "M.cumsum(x, (1, 0), mask=m)",
    "M.sum(x, 2, mask=m)", "M.sum(x, (-1, 1), mask=m)", "M.amax(x, (1, -1), mask=m)",
    "M.sum(x, 1, mask=m[None])", "M.sum(x, 1, mask=m[:, :3])", "M.mean(i, 1, mask=m)",
    "M.median(i, 1, mask=m)", "M.var(x, 1, True, correction=1, mask=m)",
    "M.amax(b, 1, mask=m)",
])
def test_masked(expr):
    check(_ev(expr))


def test_masked_grad_is_zero_where_masked():
    def fn(torch):
        x = torch.tensor(_X.astype(np.float64), requires_grad=True)
        m = torch.tensor(_M)
        out = torch.masked.softmax(x, 1, mask=m)
        out = torch.where(m, out, 0.0).sum() + torch.masked.prod(x, 0, mask=m).sum()
        return torch.autograd.grad(out, x)[0]
    check(fn)
