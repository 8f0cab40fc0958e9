"""A seed gives PyTorch's numbers: every CPU sampler, generator state bytes, module init and data
shuffling compared bit for bit with real torch after the same seed."""
import numpy as np
import pytest
import torch as real_torch

import torchlike

SEEDS = (0, 7, 123456789, 2 ** 40 + 3)


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    if hasattr(x, "detach"):
        x = x.detach()
        if x.dtype in (real_torch.bfloat16, torchlike.bfloat16):
            x = x.float()
        return x.numpy().copy()
    return x


def same_draws(fn, seeds=SEEDS):
    """`fn(lib)` under both libraries after each seed: equal results, dtypes and RNG state."""
    for seed in seeds:
        out = []
        for lib in (real_torch, torchlike):
            lib.manual_seed(seed)
            r = fn(lib)
            out.append((_np(r), lib.get_rng_state().numpy().copy()))
        (expected, s1), (actual, s2) = out
        for e, a in zip(expected if isinstance(expected, list) else [expected],
                        actual if isinstance(actual, list) else [actual]):
            if isinstance(e, np.ndarray):
                assert e.dtype == a.dtype and e.shape == a.shape, (seed, e.dtype, a.dtype)
                np.testing.assert_array_equal(a, e, err_msg=f"seed {seed}")
            else:
                assert a == e, (seed, a, e)
        np.testing.assert_array_equal(s2, s1, err_msg=f"rng state after seed {seed}")


FACTORIES = {
    "rand": lambda t: [t.rand(5), t.rand(3, 4), t.rand(2, dtype=t.float64)],
    "rand_reduced": lambda t: [t.rand(6, dtype=t.float16), t.rand(6, dtype=t.bfloat16)],
    "randn_small": lambda t: [t.randn(1), t.randn(3), t.randn(15), t.randn(5, dtype=t.float64)],
    "randn_blocks": lambda t: [t.randn(16), t.randn(37), t.randn(4, 250), t.randn(1000)],
    "randn_float64": lambda t: [t.randn(16, dtype=t.float64), t.randn(999, dtype=t.float64)],
    "randn_complex": lambda t: [t.randn(3, dtype=t.complex64), t.randn(20, dtype=t.complex128)],
    "rand_like": lambda t: [t.rand_like(t.zeros(4, 5)), t.randn_like(t.zeros(20))],
    "randint": lambda t: [t.randint(10, (7,)), t.randint(-5, 5, (3, 3)),
                          t.randint(0, 2 ** 40, (4,)), t.randint(3, 9, (5,), dtype=t.int32),
                          t.randint_like(t.zeros(6), 2, 50)],
    "randperm": lambda t: [t.randperm(0), t.randperm(1), t.randperm(2), t.randperm(100),
                           t.randperm(5000), t.randperm(7, dtype=t.int32)],
    "normal": lambda t: [t.normal(2.0, 3.0, (20,)), t.normal(t.arange(20.0), 2.0),
                         t.normal(1.0, t.arange(1.0, 21.0)),
                         t.normal(t.zeros(4, 5), t.ones(5))],
    "bernoulli": lambda t: [t.bernoulli(t.full((30,), 0.3)),
                            t.bernoulli(t.full((9,), 0.6, dtype=t.float64)),
                            t.bernoulli(t.zeros(12), 0.4),
                            t.bernoulli(t.linspace(0, 1, 25).reshape(5, 5))],
    "multi_step": lambda t: [t.randn(3), t.rand(4), t.randn(2), t.randn(40), t.randn(1)],
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factories_draw_pytorchs_numbers(name):
    same_draws(FACTORIES[name])


def _filled(method, *args, shape=(6, 5), dtype="float32", view=None, **kw):
    def fn(t):
        x = t.zeros(*shape, dtype=getattr(t, dtype))
        v = view(x) if view else x
        getattr(v, method)(*args, **kw)
        return x
    return fn


INPLACE = {
    "uniform_": _filled("uniform_", -2.0, 3.0),
    "uniform_f64": _filled("uniform_", 1.0, 2.0, dtype="float64"),
    "uniform_transposed": _filled("uniform_", view=lambda x: x.t()),
    "uniform_strided": _filled("uniform_", shape=(6, 8), view=lambda x: x[:, ::2]),
    "normal_": _filled("normal_", 1.0, 0.5, shape=(8, 5)),
    "normal_small": _filled("normal_", -1.0, 2.0, shape=(3,)),
    "normal_transposed": _filled("normal_", shape=(8, 5), view=lambda x: x.t()),
    "normal_f64": _filled("normal_", shape=(40,), dtype="float64"),
    "bernoulli_p": _filled("bernoulli_", 0.25, shape=(50,)),
    # the integer threshold at its ends: p = 0, 1, halves, thirds, just below and above them
    "bernoulli_edges": lambda t: t.stack([t.zeros(4000).bernoulli_(p) for p in
                                          (0.0, 1.0, 0.5, 1 / 3, 0.5 - 2 ** -53, 2 ** -30,
                                           1 - 2 ** -53, 0.9)]),
    "bernoulli_tensor_p": lambda t: t.zeros(4, 6).bernoulli_(t.full((6,), 0.7)),
    "random_int64": _filled("random_", dtype="int64"),
    "random_int32": _filled("random_", dtype="int32"),
    "random_uint8": _filled("random_", dtype="uint8"),
    "random_bool": _filled("random_", dtype="bool"),
    "random_float32": _filled("random_", dtype="float32"),
    "random_float64": _filled("random_", dtype="float64"),
    "random_to": _filled("random_", 17, dtype="int64"),
    "random_from_to": _filled("random_", -3, 40, dtype="int16"),
    "exponential_": _filled("exponential_", 2.5),
    "exponential_f64": _filled("exponential_", dtype="float64"),
    "geometric_": _filled("geometric_", 0.3),
    "log_normal_": _filled("log_normal_", 0.5, 0.25),
    "cauchy_": _filled("cauchy_", 1.0, 2.0),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_samplers_draw_pytorchs_numbers(name):
    same_draws(INPLACE[name])


def test_generators_and_state_bytes():
    def fn(t):
        g = t.Generator().manual_seed(99)
        a = t.rand(5, generator=g)
        state = g.get_state()
        b = t.randn(20, generator=g)
        g.set_state(state)
        c = t.randn(20, generator=g)
        t.randn(3)                                   # leaves a cached normal in the state
        s = t.get_rng_state()
        d = t.randn(3)
        t.set_rng_state(s)
        return [a, b, c, d, t.randn(3), state, g.initial_seed(), t.initial_seed()]
    same_draws(fn)


def test_state_tensors_are_interchangeable_with_pytorch():
    real_torch.manual_seed(5)
    real_torch.randn(7)
    torchlike.set_rng_state(torchlike.tensor(real_torch.get_rng_state().numpy()))
    np.testing.assert_array_equal(torchlike.randn(9).numpy(), real_torch.randn(9).numpy())
    fresh = real_torch.Generator().get_state().numpy()
    np.testing.assert_array_equal(torchlike.Generator().get_state().numpy(), fresh)
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056 but "
                                           "found the input RNG state size to be 16"):
        torchlike.set_rng_state(torchlike.zeros(16, dtype=torchlike.uint8))


def test_fork_rng_restores_the_stream():
    def fn(t):
        with t.random.fork_rng():
            t.randn(30)
        return t.randn(5)
    same_draws(fn)


MODULES = {
    "linear": lambda nn: nn.Linear(7, 3),
    "conv": lambda nn: nn.Conv2d(3, 4, 3),
    "embedding": lambda nn: nn.Embedding(10, 6),
    "lstm": lambda nn: nn.LSTM(4, 5, num_layers=2),
    "transformer_layer": lambda nn: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16),
    "mlp": lambda nn: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_module_init_matches_pytorch(name):
    same_draws(lambda t: [p for p in MODULES[name](t.nn).parameters()], seeds=(0, 42))


def test_dropout_masks_match_pytorch():
    def fn(t):
        F = t.nn.functional
        x = t.ones(4, 6, 3, 3)
        return [F.dropout(x, 0.3), F.dropout2d(x, 0.5), t.nn.Dropout(0.1)(t.ones(50)),
                F.alpha_dropout(t.ones(20), 0.2, training=True)]
    same_draws(fn)


def test_data_shuffling_matches_pytorch():
    def fn(t):
        data = t.utils.data
        ds = data.TensorDataset(t.arange(23))
        epochs = [[b[0].tolist() for b in data.DataLoader(ds, batch_size=5, shuffle=True)]
                  for _ in range(2)]
        parts = [list(s.indices) for s in data.random_split(range(10), [3, 7])]
        with_replacement = list(data.RandomSampler(range(9), replacement=True,
                                                   num_samples=40))
        subset = list(data.SubsetRandomSampler([10, 20, 30, 40]))
        return [epochs, parts, with_replacement, subset, t.rand(2)]
    same_draws(fn)
