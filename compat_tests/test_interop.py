"""DLPack (`torch.from_dlpack`, `torch.utils.dlpack`, `Tensor.__dlpack__`) compared with real
PyTorch, including memory sharing with NumPy; and the JAX bridges of torchlike
(`from_jax`/`.jax()` without copies, `from_jax_function` inside autograd)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check


def _from_numpy_shares(torch):
    a = np.arange(6.0)
    x = torch.from_dlpack(a)
    x.add_(1)                       # the producer sees the consumer's writes
    a[0] = 100.0                    # and the other way round
    return x, torch.tensor(a.copy()), x.dtype, tuple(x.shape)


def _to_numpy_shares(torch):
    y = torch.zeros(3)
    b = np.from_dlpack(y)
    y.add_(2)
    return torch.tensor(b.copy()), y


def _capsule_roundtrip(torch):
    y = torch.arange(4.0)
    z = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(y))
    z.mul_(3)
    return y, z


def _capsule_twice(torch):
    cap = torch.utils.dlpack.to_dlpack(torch.ones(2))
    torch.utils.dlpack.from_dlpack(cap)
    return torch.utils.dlpack.from_dlpack(cap)


def _strided(torch):
    x = torch.from_dlpack(np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2])
    return x, x.stride(), torch.tensor(np.from_dlpack(torch.arange(10)[::3]).copy())


DLPACK_CASES = {
    "from_numpy_shares": _from_numpy_shares,
    "to_numpy_shares": _to_numpy_shares,
    "capsule_roundtrip": _capsule_roundtrip,
    "capsule_consumed": _capsule_twice,
    "strided": _strided,
    "tensor_to_tensor": lambda torch: (lambda a: (torch.from_dlpack(a).add_(1), a))(
        torch.ones(3)),
    "dtypes": lambda torch: [torch.from_dlpack(np.ones(2, dtype=d)).dtype
                             for d in (np.float16, np.float64, np.int8, np.uint8, np.bool_,
                                       np.complex64)],
    "device": lambda torch: (lambda d: (repr(d[0]), int(d[0]), d[1]))(
        torch.ones(2).__dlpack_device__()),
    "requires_grad": lambda torch: torch.ones(2, requires_grad=True).__dlpack__(),
    "to_dlpack_requires_grad": lambda torch: torch.utils.dlpack.from_dlpack(
        torch.utils.dlpack.to_dlpack(torch.ones(2, requires_grad=True))),
    "not_a_tensor": lambda torch: torch.from_dlpack(1.0),
    "enum": lambda torch: (int(torch.utils.dlpack.DLDeviceType.kDLCUDA),
                           torch.utils.dlpack.DLDeviceType.kDLCPU.name),
}


@pytest.mark.parametrize("case", list(DLPACK_CASES))
def test_dlpack(case):
    check(DLPACK_CASES[case])


def test_dlpack_between_libraries():
    t = real_torch.arange(5.0)
    x = torchlike.from_dlpack(t)          # real torch -> torchlike, sharing memory
    x.add_(1)
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    back = real_torch.from_dlpack(torchlike.arange(3.0))
    assert back.tolist() == [0.0, 1.0, 2.0]
    j = jnp.arange(3, dtype=jnp.float32)  # JAX <-> torchlike
    assert torchlike.from_dlpack(j).tolist() == [0.0, 1.0, 2.0]
    bf = torchlike.ones(2, dtype=torchlike.bfloat16)
    assert jnp.from_dlpack(bf).dtype == jnp.bfloat16
    assert torchlike.from_dlpack(bf).dtype is torchlike.bfloat16


def test_from_jax_and_jax_share_buffers():
    a = jnp.arange(6.0, dtype=jnp.float32)
    x = torchlike.from_jax(a)
    assert x.jax() is a and x.dtype is torchlike.float32


# ---- JAX functions inside autograd ------------------------------------------------------------

def _jax_fn_side(torch, create_graph):
    """The same math as a JAX function under torchlike and as torch ops under PyTorch."""
    if torch is torchlike:
        f = torchlike.from_jax_function(lambda a, b: (jnp.sin(a) * b, jnp.sum(a ** 3)))
    else:
        def f(a, b):
            return torch.sin(a) * b, (a ** 3).sum()
    p = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    q = torch.tensor(3.0, requires_grad=True)
    out, s = f(p, q)
    loss = out.sum() + s
    gp, gq = torch.autograd.grad(loss, (p, q), create_graph=create_graph)
    res = [out.detach(), s.detach(), gp.detach(), gq.detach()]
    if create_graph:
        res.append(torch.autograd.grad(gp.sum(), p)[0])
    return res


@pytest.mark.parametrize("create_graph", [False, True])
def test_from_jax_function_in_autograd(create_graph):
    check(lambda torch: _jax_fn_side(torch, create_graph))


def test_from_jax_function_node_and_backward():
    f = torchlike.from_jax_function(jnp.tanh)
    p = torchlike.tensor([0.1, -0.4], requires_grad=True)
    y = f(p)
    assert y.grad_fn.name() == "JaxFunctionBackward0"
    y.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), 1 - np.tanh([0.1, -0.4]) ** 2, rtol=1e-6)
    assert f(torchlike.ones(2)).grad_fn is None
    assert jax.jit(lambda a: f(torchlike.from_jax(a)).jax())(jnp.zeros(2)).shape == (2,)
