"""repr/str of tensors must be byte-identical to PyTorch 2.13 (`torch/_tensor_str.py`)."""
import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check, same_repr

LIBS = (real_torch, torchlike)


@pytest.fixture(autouse=True)
def _restore_print_state():
    yield
    for lib in LIBS:
        lib.set_printoptions(profile="default")
        lib.set_default_dtype(lib.float32)


def T(x, dtype=None):
    """Build the same tensor in both libraries from a NumPy array (cast to `dtype` by name)."""
    a = np.asarray(x)

    def make(lib):
        t = lib.tensor(a.copy())
        return t if dtype is None else t.to(getattr(lib, dtype))
    return make


_rng = np.random.RandomState(0)
RAND_3x4 = _rng.randn(3, 4).astype(np.float32)
RAND_2x3x4 = _rng.randn(2, 3, 4).astype(np.float32)
RAND_4D = _rng.randn(2, 2, 3, 2).astype(np.float32)
RAND_BIG = _rng.randn(40, 50).astype(np.float32)
RAND_SMALL = (_rng.rand(5) * 1e-6).astype(np.float32)
RAND_HUGE = (_rng.rand(4) * 1e10).astype(np.float32)
WIDE = _rng.randn(30).astype(np.float32) * 100
CPLX = (_rng.randn(4) + 1j * _rng.randn(4)).astype(np.complex64)
INTS = _rng.randint(-1000, 1000, size=(4, 5))

ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
              "float32", "float64", "complex64", "complex128"]

CASES = {
    # ---- the seeds' examples
    "seed_float_2d": lambda torch: torch.tensor([[0.1, 1.2], [2.2, 3.1], [4.9, 5.2]]),
    "seed_zeros": lambda torch: torch.zeros(2, 3),
    "seed_unsqueeze": lambda torch: torch.tensor([1, 2, 3, 4]).unsqueeze(1),
    "seed_bool_mask": lambda torch: torch.arange(8) > 3,
    "seed_sqrt_like": T(np.sqrt(np.array([[0, 2, 13], [5, 8, 1]], dtype=np.float32))),
    # ---- 0-dim
    "scalar_float": lambda torch: torch.tensor(3.5),
    "scalar_int_float": lambda torch: torch.tensor(3.0),
    "scalar_int": lambda torch: torch.tensor(7),
    "scalar_bool": lambda torch: torch.tensor(True),
    "scalar_neg": lambda torch: torch.tensor(-0.25),
    "scalar_small": lambda torch: torch.tensor(1e-7),
    "scalar_big": lambda torch: torch.tensor(1e12),
    "scalar_nan": lambda torch: torch.tensor(float("nan")),
    "scalar_inf": lambda torch: torch.tensor(float("-inf")),
    "scalar_f64": lambda torch: torch.tensor(2.5, dtype=torch.float64),
    "scalar_complex": lambda torch: torch.tensor(1 + 2j),
    "scalar_complex_neg_imag": lambda torch: torch.tensor(1.5 - 2.25j),
    "scalar_neg_zero": lambda torch: torch.tensor(-0.0),
    # ---- empty
    "empty_1d": lambda torch: torch.tensor([]),
    "empty_0x3": lambda torch: torch.zeros(0, 3),
    "empty_2x0x4": lambda torch: torch.zeros(2, 0, 4),
    "empty_int": lambda torch: torch.zeros(0, dtype=torch.int64),
    "empty_int32": lambda torch: torch.zeros(3, 0, dtype=torch.int32),
    "empty_bool": lambda torch: torch.zeros(0, dtype=torch.bool),
    "empty_f64": lambda torch: torch.zeros(0, dtype=torch.float64),
    "empty_c64": lambda torch: torch.zeros(0, 2, dtype=torch.complex64),
    "empty_grad": lambda torch: torch.zeros(0, 2).requires_grad_(),
    # ---- shapes
    "rand_2d": T(RAND_3x4),
    "rand_3d": T(RAND_2x3x4),
    "rand_4d": T(RAND_4D),
    "arange_3d": lambda torch: torch.arange(24).view(2, 3, 4),
    "arange_4d": lambda torch: torch.arange(48.).view(2, 2, 3, 4),
    "single_elem_3d": lambda torch: torch.ones(1, 1, 1),
    "column": lambda torch: torch.arange(5.).view(5, 1),
    "ones_int_2d": lambda torch: torch.ones(2, 2, dtype=torch.int64),
    # ---- magnitudes and value styles
    "negatives": lambda torch: torch.tensor([-1.5, 2.25, -3.125]),
    "int_valued_neg": lambda torch: torch.tensor([-1., 2., -300.]),
    "int_valued_sci": lambda torch: torch.tensor([1., 2000.]),
    "ratio_just_under": lambda torch: torch.tensor([1., 999.5]),
    "ratio_over": lambda torch: torch.tensor([0.5, 600.]),
    "big_1e8": lambda torch: torch.tensor([1.5e8, 2.]),
    "tiny": T(RAND_SMALL),
    "huge": T(RAND_HUGE),
    "min_1e-4": lambda torch: torch.tensor([1e-4, 2e-4]),
    "linspace": lambda torch: torch.linspace(-1, 1, 5),
    "near_zero_in_sci": T(np.array([-1, -0.6666667, -2.9802322e-08, 0.3333333], np.float32)),
    "linspace_wide": lambda torch: torch.linspace(0, 10, 40),
    "mixed_zero": lambda torch: torch.tensor([0., 0.001, 0.5]),
    "neg_zero": lambda torch: torch.tensor([-0.0, 0.0, 1.0]),
    "precision_rounding": lambda torch: torch.tensor([0.00005, 0.99995, 1.23456789]),
    # ---- nan / inf
    "nan_inf_only": lambda torch: torch.tensor([float("nan"), float("inf"), -float("inf")]),
    "nan_inf_ints": lambda torch: torch.tensor([1., float("nan"), float("inf"), -2.]),
    "nan_inf_frac": lambda torch: torch.tensor([1.5, float("nan"), -float("inf"), -2.]),
    "nan_inf_sci": lambda torch: torch.tensor([1e-6, float("nan"), float("inf"), 1e6]),
    "nan_zero": lambda torch: torch.tensor([[0., float("nan")], [0., 0.]]),
    "inf_f16": lambda torch: torch.tensor([1., 70000., 3.], dtype=torch.float16),
    # ---- integer / bool
    "ints_mixed_width": T(INTS),
    "ints_int8": T(np.array([-128, 0, 127]), "int8"),
    "ints_uint8": T(np.array([0, 9, 255]), "uint8"),
    "ints_int16": T(np.array([[-32768, 5], [7, 32767]]), "int16"),
    "ints_big": lambda torch: torch.tensor([2 ** 62, -3]),
    "bool_all_true": lambda torch: torch.ones(3, dtype=torch.bool),
    "bool_2d": T(np.array([[True, False], [False, True]])),
    # ---- low precision floats
    "f16_vals": T(np.array([0.1, 1.3, 65504.], dtype=np.float32), "float16"),
    "f16_frac": T(np.array([0.1, 0.2, 0.3333], dtype=np.float32), "float16"),
    "bf16_vals": T(np.array([0.1, 1.3, 3e38], dtype=np.float32), "bfloat16"),
    "bf16_frac": T(np.array([[0.1, 0.2], [0.7, -1.1]], dtype=np.float32), "bfloat16"),
    "f64_vals": T(np.array([0.1, 1 / 3, 2.0])),
    # ---- complex
    "complex_vec": T(CPLX),
    "complex128": T(CPLX.astype(np.complex128)),
    "complex_int_valued": lambda torch: torch.tensor([1 + 2j, -3 - 4j, 0j]),
    "complex_sci": lambda torch: torch.tensor([1e-6 + 1e6j, 2 + 3j]),
    "complex_nan": lambda torch: torch.tensor([complex(float("nan"), 1), complex(1, float("inf"))]),
    "complex_neg_zero_imag": lambda torch: torch.tensor([complex(1, -0.0), complex(-1, 0.0)]),
    "complex_2d": T((np.arange(6) + 0.5j * np.arange(6)).reshape(2, 3).astype(np.complex64)),
    "complex_big": lambda torch: torch.tensor(np.ones(1200) * (1 + 2j)).to(torch.complex64),
    # ---- summarisation
    "arange_2000f": lambda torch: torch.arange(2000.),
    "arange_2000i": lambda torch: torch.arange(2000),
    "cube_20": lambda torch: torch.arange(8000.).view(20, 20, 20),
    "cube_20_int": lambda torch: torch.arange(8000).view(20, 20, 20),
    "rand_big_2d": T(RAND_BIG),
    "summarized_short_dim": lambda torch: torch.arange(3000.).view(1000, 3),
    "summarized_4d": lambda torch: torch.arange(2 * 7 * 8 * 10).view(2, 7, 8, 10),
    "bool_big": lambda torch: torch.arange(1500) % 3 == 0,
    "just_threshold": lambda torch: torch.arange(1000.),
    "just_over_threshold": lambda torch: torch.arange(1001.),
    # ---- wrapping at 80 columns
    "wide_row": T(WIDE),
    "wide_int_row": lambda torch: torch.arange(100),
    "wide_2d": T((np.arange(60.).reshape(2, 30) / 7).astype(np.float32)),
    "wide_3d": lambda torch: (torch.arange(90.).view(3, 1, 30) - 40) * 3.5,
    "wide_complex": lambda torch: torch.tensor(np.arange(20) * (1 + 1j)).to(torch.complex64),
    "wide_with_dtype": lambda torch: torch.arange(40, dtype=torch.int32),
    "wide_suffix_wrap": lambda torch: torch.arange(20., dtype=torch.float64).requires_grad_(),
    "suffix_wrap_edge": lambda torch: torch.tensor([1.2345, 2.5, 3.5, 4.5, 5.5, 6.5],
                                                   dtype=torch.float64).requires_grad_(),
    # ---- requires_grad
    "grad_leaf": lambda torch: torch.ones(2, 2).requires_grad_(),
    "grad_leaf_scalar": lambda torch: torch.tensor(1.5, requires_grad=True),
    "grad_leaf_f64": lambda torch: torch.ones(3, dtype=torch.float64).requires_grad_(),
    "grad_leaf_complex": lambda torch: torch.ones(2, dtype=torch.complex64).requires_grad_(),
}

for _name in ALL_DTYPES:
    CASES[f"dtype_{_name}"] = T(np.array([[0, 1, 2], [3, 4, 5]]), _name)
    CASES[f"dtype_scalar_{_name}"] = T(np.array(1), _name)
    CASES[f"dtype_empty_{_name}"] = T(np.zeros((0,)), _name)
    CASES[f"dtype_big_{_name}"] = T((np.arange(1100) % 7).reshape(11, 100), _name)


@pytest.mark.parametrize("name", list(CASES))
def test_repr(name):
    same_repr(CASES[name])


@pytest.mark.parametrize("name", ["seed_float_2d", "scalar_complex", "empty_0x3", "grad_leaf",
                                  "cube_20", "dtype_int32"])
def test_str(name):
    fn = CASES[name]
    assert str(fn(torchlike)) == str(fn(real_torch))
    assert str(fn(torchlike)) == repr(fn(torchlike))


def test_format_in_fstring():
    fn = CASES["seed_float_2d"]
    assert f"{fn(torchlike)}" == f"{fn(real_torch)}"


# ---- print options ---------------------------------------------------------------------------

def _get_printoptions(torch):
    # PyTorch 2.13 keeps get_printoptions in torch._tensor_str; torchlike exports it at the top
    if torch is real_torch:
        return real_torch._tensor_str.get_printoptions()
    return torch.get_printoptions()


OPTION_SETS = {
    "precision2": dict(precision=2),
    "precision0": dict(precision=0),
    "precision8": dict(precision=8),
    "threshold5": dict(threshold=5),
    "edgeitems1": dict(threshold=5, edgeitems=1),
    "edgeitems0": dict(threshold=5, edgeitems=0),
    "linewidth40": dict(linewidth=40),
    "linewidth200": dict(linewidth=200),
    "linewidth5": dict(linewidth=5),
    "sci_on": dict(sci_mode=True),
    "sci_off": dict(sci_mode=False),
    "profile_short": dict(profile="short"),
    "profile_full": dict(profile="full"),
    "profile_full_prec": dict(profile="full", precision=2),
}

OPTION_INPUTS = {
    "float2d": T(RAND_3x4),
    "arange10": lambda torch: torch.arange(10),
    "arange10f": T((np.arange(10.) / 3).astype(np.float32)),
    "big2d": lambda torch: torch.arange(1500.).view(30, 50),
    "cube": lambda torch: torch.arange(6 * 5 * 4).view(6, 5, 4),
    "huge_vals": T(RAND_HUGE),
    "complex": T(CPLX),
    "scalar": lambda torch: torch.tensor(3.14159265),
    "wide_grad": lambda torch: torch.arange(30.).requires_grad_(),
}


@pytest.mark.parametrize("opts", list(OPTION_SETS))
@pytest.mark.parametrize("inp", list(OPTION_INPUTS))
def test_printoptions(opts, inp):
    kw = OPTION_SETS[opts]

    # the repr is taken after fn returns: keep the options set for both sides
    real_torch.set_printoptions(**kw)
    e = repr(OPTION_INPUTS[inp](real_torch))
    real_torch.set_printoptions(profile="default")
    torchlike.set_printoptions(**kw)
    a = repr(OPTION_INPUTS[inp](torchlike))
    torchlike.set_printoptions(profile="default")
    assert a == e, f"repr differs\n torch:\n{e}\n torchlike:\n{a}"


@pytest.mark.parametrize("opts", list(OPTION_SETS))
def test_get_printoptions(opts):
    def fn(torch):
        torch.set_printoptions(**OPTION_SETS[opts])
        out = _get_printoptions(torch)
        torch.set_printoptions(profile="default")
        return out
    check(fn)


def test_get_printoptions_default():
    check(lambda torch: _get_printoptions(torch))


def test_sci_mode_reset_by_later_call():
    def fn(torch):
        torch.set_printoptions(sci_mode=True)
        torch.set_printoptions(precision=3)  # sci_mode goes back to None (automatic)
        r = repr(torch.tensor([1.5, 2.5]))
        torch.set_printoptions(profile="default")
        return r
    check(fn)


def test_profile_then_override():
    def fn(torch):
        torch.set_printoptions(profile="short", edgeitems=1, threshold=3)
        r = repr(torch.tensor((np.arange(20.).reshape(4, 5) / 3).astype(np.float32)))
        o = _get_printoptions(torch)
        torch.set_printoptions(profile="default")
        return r, o
    check(fn)


# ---- default dtype -----------------------------------------------------------------------------

DEFAULT_DTYPE_INPUTS = {
    "f32": T(np.array([1.5, 2.5], dtype=np.float32)),
    "f64": T(np.array([1.5, 2.5], dtype=np.float64)),
    "c64": T(CPLX),
    "c128": T(CPLX.astype(np.complex128)),
    "int64": lambda torch: torch.arange(3),
    "empty_f32": lambda torch: torch.zeros(0, dtype=torch.float32),
    "empty_f64": lambda torch: torch.zeros(0, dtype=torch.float64),
    "ones_default": lambda torch: torch.ones(2),
}


@pytest.mark.parametrize("inp", list(DEFAULT_DTYPE_INPUTS))
def test_default_dtype_float64(inp):
    def fn(torch):
        torch.set_default_dtype(torch.float64)
        try:
            return repr(DEFAULT_DTYPE_INPUTS[inp](torch))
        finally:
            torch.set_default_dtype(torch.float32)
    check(fn)


# ---- layouts, subclasses, autograd and device suffixes ------------------------------------

VIEW_CASES = {
    "transposed": lambda torch: torch.arange(12.).view(3, 4).t(),
    "transpose_3d": lambda torch: torch.arange(24).view(2, 3, 4).transpose(0, 2),
    "transposed_big": lambda torch: torch.arange(3000.).view(60, 50).t(),
}


@pytest.mark.parametrize("name", list(VIEW_CASES))
def test_repr_views(name):
    same_repr(VIEW_CASES[name])


def test_subclass_prefix():
    def fn(torch):
        class MyTensor(torch.Tensor):
            pass
        return torch.arange(4.).view(2, 2).as_subclass(MyTensor)
    same_repr(fn)


def _with_fake_grad_fn(t, node):
    t.requires_grad_()
    t.grad_fn = node
    return t


def test_grad_fn_suffix():
    class MulBackward0:
        pass
    expected = repr(real_torch.ones(2, 3, requires_grad=True) * 2)
    actual = repr(_with_fake_grad_fn(torchlike.full((2, 3), 2.), MulBackward0()))
    assert actual == expected


def test_grad_fn_suffix_wraps_and_name_method():
    class CppFunction:
        def name(self):
            return "torch::autograd::AddBackward0"
    expected = repr(real_torch.arange(20., dtype=real_torch.float64, requires_grad=True) + 1)
    t = torchlike.arange(1., 21., dtype=torchlike.float64)
    assert repr(_with_fake_grad_fn(t, CppFunction())) == expected


@pytest.mark.parametrize("n", [3, 14, 15, 16, 40])
def test_device_suffix(n):
    # PyTorch CPU cannot build CUDA tensors: check against its own suffix-placement routine
    body = repr(real_torch.arange(float(n)))[:-1]
    expected = real_torch._tensor_str._add_suffixes(body, ["device='cuda:0'"], 7, False)
    t = torchlike.arange(float(n))
    t._st.device = torchlike.device("cuda", 0)
    assert repr(t) == expected


# meta tensors have no values: PyTorch prints `...` and the size (and any non-default dtype)
META_CASES = {
    "1d": lambda torch: torch.ones(2, device="meta"),
    "0d": lambda torch: torch.tensor(3., device="meta"),
    "0d_int": lambda torch: torch.tensor(3, device="meta"),
    "empty": lambda torch: torch.empty(0, device="meta"),
    "empty_2d": lambda torch: torch.empty(2, 0, device="meta"),
    "int64": lambda torch: torch.ones(2, 3, dtype=torch.int64, device="meta"),
    "int32_empty": lambda torch: torch.empty(0, dtype=torch.int32, device="meta"),
    "bool": lambda torch: torch.ones(2, dtype=torch.bool, device="meta"),
    "float64": lambda torch: torch.ones(2, dtype=torch.float64, device="meta"),
    "complex64": lambda torch: torch.ones(2, dtype=torch.complex64, device="meta"),
    "large": lambda torch: torch.ones(100, 100, device="meta"),
    "requires_grad": lambda torch: torch.ones(2, device="meta", requires_grad=True),
    "grad_fn": lambda torch: torch.ones(2, device="meta", requires_grad=True) * 2,
    "parameter": lambda torch: torch.nn.Parameter(torch.ones(2, device="meta")),
    "view": lambda torch: torch.ones(2, 3, device="meta").t(),
}


@pytest.mark.parametrize("name", sorted(META_CASES))
def test_repr_meta(name):
    same_repr(META_CASES[name])


def test_repr_meta_printoptions_and_default_dtype():
    def f(torch):
        torch.set_printoptions(edgeitems=0)
        a = repr(torch.ones(2, device="meta"))
        torch.set_printoptions(profile="default")
        torch.set_default_dtype(torch.float64)
        return [a, repr(torch.ones(2, device="meta")),
                repr(torch.ones(2, dtype=torch.float32, device="meta")),
                str(torch.zeros(3, device="meta"))]
    check(f)
