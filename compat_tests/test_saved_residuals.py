"""Saved residuals (`torchlike/autograd/residuals.py`): a composite kernel recorded by autograd
keeps what its vjp needs, so its backward does not compute the forward again. Gradients are
checked against PyTorch, with the residuals and without them, node by node, fused, retained
for a second backward and through create_graph."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import torchlike
from harness import check
from torchlike.autograd import fused, graph, residuals
from torchlike.autograd.function import apply_jax

R = np.random.RandomState(3)


@pytest.fixture(params=[True, False], ids=["saved", "recomputed"])
def saving(request):
    old = residuals.ENABLED[0]
    residuals.ENABLED[0] = request.param
    yield request.param
    residuals.ENABLED[0] = old


def test_backward_reads_the_residuals_not_the_forward():
    """The backward of `2 * exp(x)` needs `exp(x)`: read from the saved residuals, the backward
    program computes no exponential; rebuilt from the operand, it does."""
    kernel = jax.jit(lambda x: 2 * jnp.exp(x))
    xv = R.randn(7).astype(np.float32)
    x = torchlike.tensor(xv, requires_grad=True)
    (y,) = apply_jax(kernel, [x])
    node = y.grad_fn
    assert node._res is not None
    bwd = graph._make_vjp(node._fn, node._diff, (True,), node._out_diff, node._single)
    ct = (jnp.ones(7, jnp.float32),)
    saved = jax.jit(bwd).lower(node._dyn, ct, node._res).as_text()
    again = jax.jit(bwd).lower(node._dyn, ct, None).as_text()
    assert "exponential" not in saved and "exponential" in again
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(xv), rtol=1e-6)


def test_no_residuals_without_grad_or_for_eager_functions():
    x = torchlike.randn(4, requires_grad=True)
    with torchlike.no_grad():
        (y,) = apply_jax(jax.jit(jnp.sin), [x])
    assert y.grad_fn is None
    (z,) = apply_jax(lambda a: jnp.sin(a), [x])   # not jitted: it may need concrete values
    assert z.grad_fn._res is None


def _mha_step(torch, x, w_in, w_out, fuse_twice):
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.tensor(w_in))
        mha.out_proj.weight.copy_(torch.tensor(w_out))
    grads = []
    for _ in range(3 if fuse_twice else 1):   # the third step runs the fused backward
        mha.zero_grad()
        inp = torch.tensor(x, requires_grad=True)
        out, _ = mha(inp, inp, inp)
        (out * out).sum().backward()
        grads.append((inp.grad, mha.in_proj_weight.grad, mha.out_proj.bias.grad))
    return grads


@pytest.mark.parametrize("fuse_twice", [False, True], ids=["node_by_node", "fused"])
def test_attention_gradients(saving, fuse_twice):
    x, w_in, w_out = R.randn(3, 5, 8), R.randn(24, 8) * 0.3, R.randn(8, 8) * 0.3
    args = (x.astype(np.float32), w_in.astype(np.float32), w_out.astype(np.float32))
    fused._ENTRIES.clear()
    fused._FAMILIES.clear()
    check(lambda torch: _mha_step(torch, *args, fuse_twice), rtol=1e-4, atol=1e-5)


def test_lstm_layer_norm_cross_entropy_gradients(saving):
    x = R.randn(4, 6, 5).astype(np.float32)
    target = R.randint(0, 3, 4)

    def fn(torch):
        torch.manual_seed(0)
        lstm = torch.nn.LSTM(5, 7, batch_first=True)
        norm = torch.nn.LayerNorm(7)
        head = torch.nn.Linear(7, 3)
        out, _ = lstm(torch.tensor(x))
        loss = torch.nn.functional.cross_entropy(head(norm(out[:, -1])), torch.tensor(target))
        loss.backward()
        return loss, lstm.weight_hh_l0.grad, norm.weight.grad, head.weight.grad
    check(fn, rtol=1e-4, atol=1e-5)


def test_retained_graph_twice_and_create_graph(saving):
    x = R.randn(3, 4).astype(np.float64)

    def fn(torch):
        a = torch.tensor(x, requires_grad=True)
        y = torch.nn.functional.layer_norm(a, (4,))
        loss = (y * y * y).sum()
        (g,) = torch.autograd.grad(loss, a, create_graph=True, retain_graph=True)
        first = torch.autograd.grad(loss, a, retain_graph=True)[0]
        second = torch.autograd.grad(loss, a)[0]
        (gg,) = torch.autograd.grad(g.sum(), a)
        return first, second, gg
    check(fn)

