"""torch.func.vmap compared with real PyTorch: in_dims/out_dims (None, negative, nested),
nesting, composition with grad, nn.functional ops inside, in-place ops on fresh tensors,
chunk_size, randomness, and the errors for misuse."""
import numpy as np
import pytest

from harness import check

RNG = np.random.default_rng(1)
A = RNG.standard_normal((4, 3)).astype(np.float32)
B = RNG.standard_normal((3, 4)).astype(np.float32)
W = RNG.standard_normal((5, 3)).astype(np.float32)
IMG = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
KER = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)


def t(torch, a):
    return torch.tensor(a.copy())


def _inplace_fresh(torch, x):
    y = x.clone()
    y[0] = 0.0
    y.mul_(2).add_(x)
    z = x.new_zeros(2)
    z.copy_(x[:2])
    return y, z


VMAP_CASES = {
    "default": lambda torch, F: F.vmap(lambda x: x.sin() * x.sum())(t(torch, A)),
    "in_dims_1": lambda torch, F: F.vmap(lambda x: x.cumsum(0), in_dims=1)(t(torch, A)),
    "in_dims_neg": lambda torch, F: F.vmap(lambda x: x * 2, in_dims=-1)(t(torch, A)),
    "in_dims_none": lambda torch, F: F.vmap(lambda x, y: x @ y, in_dims=(0, None))(
        t(torch, A), t(torch, B)),
    "in_dims_mixed": lambda torch, F: F.vmap(lambda x, y: x * y, in_dims=(0, 1))(
        t(torch, A), t(torch, B)),
    "in_dims_nested": lambda torch, F: F.vmap(lambda p, s: p[0] * p[1] + s,
                                              in_dims=((0, 1), None))(
        (t(torch, A), t(torch, B)), 1.5),
    "in_dims_dict": lambda torch, F: F.vmap(lambda d: d["a"] - d["b"], in_dims=({"a": 0, "b": 1},))(
        {"a": t(torch, A), "b": t(torch, B)}),
    "out_dims_1": lambda torch, F: F.vmap(lambda x: x.outer(x), out_dims=1)(t(torch, A)),
    "out_dims_neg": lambda torch, F: F.vmap(lambda x: x.outer(x), out_dims=-1)(t(torch, A)),
    "out_dims_tuple": lambda torch, F: F.vmap(lambda x: (x.sum(), x * 2), out_dims=(0, 1))(
        t(torch, A)),
    "out_dims_none": lambda torch, F: F.vmap(lambda x: (x * 2, torch.ones(2), "tag"),
                                             out_dims=(0, None, None))(t(torch, A)),
    "unbatched_out": lambda torch, F: F.vmap(lambda x: torch.ones(2))(t(torch, A)),
    "dict_out": lambda torch, F: F.vmap(lambda x: {"s": x.sum(), "m": x.max()})(t(torch, A)),
    "kwargs_unbatched": lambda torch, F: F.vmap(lambda x, y=None: x * y)(t(torch, A),
                                                                          y=t(torch, A)[0]),
    "nested": lambda torch, F: F.vmap(F.vmap(lambda a, b: a * b, in_dims=(None, 0)),
                                      in_dims=(0, None))(t(torch, A)[:, 0], t(torch, B)[0]),
    "nested_matmul": lambda torch, F: F.vmap(F.vmap(torch.dot, in_dims=(None, 1)),
                                             in_dims=(0, None))(t(torch, A), t(torch, B)),
    "shape_inside": lambda torch, F: F.vmap(lambda x: x.reshape(x.shape[0], 1) + x.numel())(
        t(torch, A)),
    "inplace_fresh": lambda torch, F: F.vmap(lambda x: _inplace_fresh(torch, x))(t(torch, A)),
    "views": lambda torch, F: F.vmap(lambda x: x.view(3, 1).expand(3, 2).t()[1:])(t(torch, A)),
    "zero_batch": lambda torch, F: F.vmap(lambda x: x * 2)(torch.ones(0, 3)),
    "chunk_size": lambda torch, F: F.vmap(lambda x: x.exp(), chunk_size=3)(t(torch, A)),
    "chunk_size_out_dims": lambda torch, F: F.vmap(lambda x: (x, x.sum()), chunk_size=3,
                                                   out_dims=(1, 0))(t(torch, A)),
    "chunk_out_none": lambda torch, F: F.vmap(lambda x: (x, torch.ones(1)), chunk_size=3,
                                              out_dims=(0, None))(t(torch, A)),
    "trace_of_views": lambda torch, F: F.vmap(torch.trace)(t(torch, A).view(4, 3, 1)[:, :1]),
    # nn.functional inside
    "linear": lambda torch, F: F.vmap(torch.nn.functional.linear, in_dims=(0, None))(
        t(torch, A), t(torch, W)),
    "conv2d": lambda torch, F: F.vmap(lambda x: torch.nn.functional.conv2d(
        x.unsqueeze(0), t(torch, KER), padding=1).squeeze(0))(t(torch, IMG)),
    "softmax": lambda torch, F: F.vmap(lambda x: torch.nn.functional.softmax(x, dim=0),
                                       in_dims=1, out_dims=1)(t(torch, A)),
    "cross_entropy": lambda torch, F: F.vmap(torch.nn.functional.cross_entropy,
                                             in_dims=(0, None))(t(torch, A), torch.tensor(2)),
    "cross_entropy_probs": lambda torch, F: F.vmap(torch.nn.functional.cross_entropy)(
        t(torch, A), t(torch, A).softmax(1)),
    # composition with grad
    "grad_inside": lambda torch, F: F.vmap(F.grad(lambda x: (x.sin() ** 2).sum()))(t(torch, A)),
    "jacrev_inside": lambda torch, F: F.vmap(F.jacrev(lambda x: x.exp() * x.sum()))(t(torch, A)),
    "grad_of_vmap": lambda torch, F: F.grad(lambda x: F.vmap(lambda r: r.norm())(x).sum())(
        t(torch, A)),
    # errors
    "in_dims_list": lambda torch, F: F.vmap(lambda x: x, in_dims=[0])(t(torch, A)),
    "in_dims_none_top": lambda torch, F: F.vmap(lambda x: x, in_dims=None)(t(torch, A)),
    "in_dims_struct": lambda torch, F: F.vmap(lambda x: x, in_dims=(0, 0))(t(torch, A)),
    "in_dims_bad_leaf": lambda torch, F: F.vmap(lambda x: x, in_dims=("a",))(t(torch, A)),
    "in_dim_oob": lambda torch, F: F.vmap(lambda x: x, in_dims=2)(t(torch, A)),
    "no_batched": lambda torch, F: F.vmap(lambda x: x, in_dims=(None,))(t(torch, A)),
    "size_mismatch": lambda torch, F: F.vmap(lambda x, y: x)(t(torch, A), t(torch, B)),
    "non_tensor_in": lambda torch, F: F.vmap(lambda x: x)(1.0),
    "no_inputs": lambda torch, F: F.vmap(lambda: torch.ones(1))(),
    "non_tensor_out": lambda torch, F: F.vmap(lambda x: 1)(t(torch, A)),
    "batched_out_none": lambda torch, F: F.vmap(lambda x: x, out_dims=None)(t(torch, A)),
    "out_dims_oob": lambda torch, F: F.vmap(lambda x: x, out_dims=2)(t(torch, A)),
    "out_dims_struct": lambda torch, F: F.vmap(lambda x: (x, x), out_dims=(0, 0, 0))(
        t(torch, A)),
    "out_dims_type": lambda torch, F: F.vmap(lambda x: x, out_dims="a")(t(torch, A)),
    "chunk_zero": lambda torch, F: F.vmap(lambda x: x, chunk_size=0)(t(torch, A)),
    "randomness_bad": lambda torch, F: F.vmap(lambda x: x, randomness="foo")(t(torch, A)),
    "random_error": lambda torch, F: F.vmap(lambda x: x + torch.randn(()))(t(torch, A)),
    "dropout_error": lambda torch, F: F.vmap(lambda x: torch.nn.functional.dropout(x, 0.5))(
        t(torch, A)),
    "item": lambda torch, F: F.vmap(lambda x: x.sum().item())(t(torch, A)),
    "control_flow": lambda torch, F: F.vmap(lambda x: x if x.sum() > 0 else -x)(t(torch, A)),
}


@pytest.mark.parametrize("case", list(VMAP_CASES))
def test_vmap(case):
    check(lambda torch: VMAP_CASES[case](torch, torch.func))


def _unique_counts(torch, randomness):
    F = torch.func
    x = torch.zeros(4, 2)
    same = F.vmap(lambda r: r + torch.rand(()), randomness=randomness)(x)
    like = F.vmap(lambda r: torch.rand_like(r), randomness=randomness)(x)
    return same.unique().numel(), like.unique().numel(), tuple(same.shape)


@pytest.mark.parametrize("randomness", ["same", "different"])
def test_randomness_modes(randomness):
    # the numbers differ between libraries; how many distinct values each mode draws does not
    check(lambda torch: _unique_counts(torch, randomness))


def test_vmap_cross_entropy_batched_class_targets():
    check(lambda torch: torch.func.vmap(torch.nn.functional.cross_entropy)(
        t(torch, A), torch.tensor([0, 2, 1, 1])))


def test_top_level_vmap_is_func_vmap():
    import torchlike
    assert torchlike.vmap is torchlike.func.vmap
