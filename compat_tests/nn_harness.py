"""Helpers for nn tests: build the same module in both libraries with torch's weights, run the
same inputs, and compare outputs, gradients (inputs and parameters) and reprs."""
import numpy as np
import torch as real_torch

import torchlike
from harness import assert_same, run


def copy_weights(tl_module, torch_module):
    """Load torch_module's parameters and buffers into tl_module (same names and shapes)."""
    sd = {}
    for k, v in torch_module.state_dict().items():
        a = v.detach().cpu()
        if a.dtype == real_torch.bfloat16:
            a = a.float()
        sd[k] = torchlike.tensor(a.numpy()).to(getattr(torchlike, str(v.dtype)[6:]))
    tl_module.load_state_dict(sd)
    return tl_module


def check_module(make, inputs, *, grad_out_seed=0, rtol=None, atol=None, train=True,
                 backward=True, compare_repr=True):
    """`make(nn)` builds the module; `inputs` are NumPy arrays (floats get requires_grad).
    Compares forward outputs, input and parameter gradients, and the repr."""
    tm = make(real_torch.nn)
    lm = make(torchlike.nn)
    copy_weights(lm, tm)
    tm.train(train)
    lm.train(train)
    if compare_repr:
        assert repr(tm) == repr(lm), f"repr differs:\n{tm!r}\n{lm!r}"

    def side(lib, m):
        xs = []
        for a in inputs:
            t = lib.tensor(a)
            if t.is_floating_point() and backward:
                t.requires_grad_(True)
            xs.append(t)
        out = m(*xs)
        outs = out if isinstance(out, tuple) else (out,)
        res = {"out": out}
        if backward:
            rng = np.random.RandomState(grad_out_seed)
            loss = 0
            for o in outs:
                if isinstance(o, lib.Tensor) and o.requires_grad:
                    w = lib.tensor(np.asarray(rng.randn(*o.shape), np.float32)).to(o.dtype)
                    loss = loss + (o * w).sum()
            if not isinstance(loss, int):
                loss.backward()
            res["input_grads"] = [x.grad for x in xs]
            res["param_grads"] = {n: p.grad for n, p in m.named_parameters()}
        return res

    expected = run(lambda lib: side(lib, tm), real_torch)
    actual = run(lambda lib: side(lib, lm), torchlike)
    assert_same(expected, actual, rtol, atol)
    return expected, actual
