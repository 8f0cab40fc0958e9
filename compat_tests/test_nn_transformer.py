"""F.scaled_dot_product_attention, F.multi_head_attention_forward, nn.MultiheadAttention and the
nn.Transformer family against real PyTorch (eval mode, copied weights, outputs + gradients)."""
import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check, same_repr
from nn_harness import check_module

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

R = np.random.RandomState(0)


def rnd(*shape):
    return R.randn(*shape).astype(np.float32)


class Call:
    """Wrap a module so `check_module` can pass keyword arguments: `Call(m, n_pos, **kw)` feeds
    its first `n_pos` positional inputs to `m` and the rest as the named keywords (in order)."""

    def __init__(self, nn, module, names=(), **static):
        base = nn.Module

        class _Wrapper(base):
            def __init__(self):
                super().__init__()
                self.m = module

            def forward(self, *xs):
                n = len(xs) - len(names)
                kw = dict(zip(names, xs[n:]))
                kw.update(static)
                return self.m(*xs[:n], **kw)

        self.wrapper = _Wrapper()


def wrap(make, names=(), **static):
    return lambda nn: Call(nn, make(nn), names, **static).wrapper


# ---- scaled_dot_product_attention -------------------------------------------------------------

Q, K, V = rnd(2, 3, 4, 8), rnd(2, 3, 5, 8), rnd(2, 3, 5, 6)
BOOL_MASK = R.rand(4, 5) > 0.4
BOOL_MASK[1] = False  # a fully masked row
FLOAT_MASK = rnd(2, 1, 4, 5)
FLOAT_MASK[0, 0, 2] = -np.inf


def _sdpa(lib, q, k, v, kw, mask=None, mask_grad=False):
    a, b, c = (lib.tensor(x, requires_grad=True) for x in (q, k, v))
    m = None
    if mask is not None:
        m = lib.tensor(mask)
        if mask_grad:
            m.requires_grad_(True)
    o = lib.nn.functional.scaled_dot_product_attention(a, b, c, attn_mask=m, **kw)
    (o * o).sum().backward()
    return o, a.grad, b.grad, c.grad, (m.grad if mask_grad else None)


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"scale": 0.3},
                                {"is_causal": True, "scale": 0.5}])
def test_sdpa_basic(kw):
    check(_sdpa, Q, K, V, kw)


def test_sdpa_bool_mask():
    check(_sdpa, Q, K, V, {}, BOOL_MASK)


def test_sdpa_float_mask_with_grad():
    check(_sdpa, Q, K, V, {}, FLOAT_MASK, True)


def test_sdpa_unbatched_and_3d():
    check(_sdpa, Q[0, 0], K[0, 0], V[0, 0], {})
    check(_sdpa, Q[0], K[0], V[0], {"is_causal": True})


def test_sdpa_broadcast_heads_and_gqa():
    k1, v1 = K[:, :1], V[:, :1]
    check(_sdpa, Q, k1, v1, {})
    check(_sdpa, Q, k1, v1, {"enable_gqa": True})
    q6 = rnd(2, 6, 4, 8)
    check(_sdpa, q6, rnd(2, 2, 5, 8), rnd(2, 2, 5, 6), {"enable_gqa": True})


def test_sdpa_float64():
    check(_sdpa, Q.astype(np.float64), K.astype(np.float64), V.astype(np.float64), {},
          FLOAT_MASK.astype(np.float64))


def test_sdpa_dropout_shape_and_eval():
    def f(lib):
        lib.manual_seed(0)
        q, k, v = (lib.tensor(x) for x in (Q, K, V))
        o = lib.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
        full = lib.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
        return o.shape, o.dtype, full
    check(f)


@pytest.mark.parametrize("case", range(7))
def test_sdpa_errors(case):
    def f(lib):
        q, k, v = (lib.tensor(x) for x in (Q, K, V))
        F = lib.nn.functional
        if case == 0:
            return F.scaled_dot_product_attention(q, k, v, attn_mask=lib.tensor(BOOL_MASK),
                                                  is_causal=True)
        if case == 1:
            return F.scaled_dot_product_attention(q, k, v, attn_mask=lib.ones(4, 5).long())
        if case == 2:
            return F.scaled_dot_product_attention(q.double(), k, v)
        if case == 3:
            return F.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
        if case == 4:
            return F.scaled_dot_product_attention(q, k[:, :2], v[:, :2], enable_gqa=False)
        if case == 5:
            return F.scaled_dot_product_attention(q, k[:, :2], v[:, :2], enable_gqa=True)
        return F.scaled_dot_product_attention(q[0, 0, 0], k[0, 0, 0], v[0, 0, 0])
    check(f)


# ---- MultiheadAttention -----------------------------------------------------------------------

E, H, L, S, N = 8, 2, 4, 5, 3


def _mha(**kw):
    return lambda nn: nn.MultiheadAttention(E, H, **kw)


def test_mha_self_attention_seq_first():
    x = rnd(L, N, E)
    check_module(wrap(_mha()), [x, x, x], train=False, compare_repr=False)


def test_mha_cross_attention_batch_first_per_head_weights():
    check_module(wrap(_mha(batch_first=True), average_attn_weights=False),
                 [rnd(N, L, E), rnd(N, S, E), rnd(N, S, E)], train=False, compare_repr=False)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_masks_bool(need_weights):
    kpm = np.zeros((N, S), bool)
    kpm[0, -2:] = True
    am = R.rand(L, S) > 0.7
    am[:, 0] = False
    check_module(wrap(_mha(), ("key_padding_mask", "attn_mask"), need_weights=need_weights),
                 [rnd(L, N, E), rnd(S, N, E), rnd(S, N, E), kpm, am], train=False,
                 compare_repr=False)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_masks_float_3d(need_weights):
    am = rnd(N * H, L, S)
    kpm = rnd(N, S)
    check_module(wrap(_mha(batch_first=True), ("key_padding_mask", "attn_mask"),
                      need_weights=need_weights),
                 [rnd(N, L, E), rnd(N, S, E), rnd(N, S, E), kpm, am], train=False,
                 compare_repr=False)


def test_mha_fully_masked_rows():
    kpm = np.zeros((N, S), bool)
    kpm[1] = True
    x, y = rnd(L, N, E), rnd(S, N, E)
    # need_weights=False goes through SDPA (zeros for fully masked rows) ...
    check_module(wrap(_mha(), ("key_padding_mask",), need_weights=False), [x, y, y, kpm],
                 train=False, compare_repr=False, backward=False)
    # ... need_weights=True through softmax (NaN rows)
    check_module(wrap(_mha(), ("key_padding_mask",)), [x, y, y, kpm], train=False,
                 compare_repr=False, backward=False)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_causal(need_weights):
    mask = np.triu(np.ones((L, L), bool), 1)
    x = rnd(N, L, E)
    check_module(wrap(_mha(batch_first=True), ("attn_mask",), is_causal=True,
                      need_weights=need_weights), [x, x, x, mask], train=False,
                 compare_repr=False)


def test_mha_kdim_vdim():
    check_module(wrap(_mha(kdim=6, vdim=3), ("key_padding_mask",)),
                 [rnd(L, N, E), rnd(S, N, 6), rnd(S, N, 3), np.zeros((N, S), bool)],
                 train=False, compare_repr=False)


@pytest.mark.parametrize("kw", [dict(add_bias_kv=True), dict(add_zero_attn=True),
                                dict(add_bias_kv=True, add_zero_attn=True, bias=False)])
def test_mha_bias_kv_zero_attn(kw):
    kpm = np.zeros((N, S), bool)
    kpm[2, 0] = True
    am = rnd(L, S)
    for nw in (True, False):
        check_module(wrap(_mha(**kw), ("key_padding_mask", "attn_mask"), need_weights=nw),
                     [rnd(L, N, E), rnd(S, N, E), rnd(S, N, E), kpm.astype(np.float32) * -1e9,
                      am], train=False, compare_repr=False)


def test_mha_unbatched():
    kpm = np.array([False, False, True, False, False])
    check_module(wrap(_mha(batch_first=True), ("key_padding_mask", "attn_mask")),
                 [rnd(L, E), rnd(S, E), rnd(S, E), kpm, rnd(H, L, S)], train=False,
                 compare_repr=False)


def test_mha_parameters_and_repr():
    for kw in ({}, dict(kdim=6, vdim=3), dict(add_bias_kv=True, bias=False)):
        tm = real_torch.nn.MultiheadAttention(E, H, **kw)
        lm = torchlike.nn.MultiheadAttention(E, H, **kw)
        assert repr(tm) == repr(lm)
        assert [(n, tuple(p.shape)) for n, p in tm.named_parameters()] == \
            [(n, tuple(p.shape)) for n, p in lm.named_parameters()]
        assert list(tm.state_dict()) == list(lm.state_dict())
    lm = torchlike.nn.MultiheadAttention(E, H)
    assert float(lm.in_proj_bias.abs().sum()) == 0 and float(lm.out_proj.bias.abs().sum()) == 0
    bound = (6 / (E + 3 * E)) ** 0.5
    assert float(lm.in_proj_weight.abs().max()) <= bound
    assert type(lm.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert (lm.head_dim, lm._qkv_same_embed_dim, lm.batch_first) == (E // H, True, False)


@pytest.mark.parametrize("case", range(8))
def test_mha_errors(case):
    x0 = rnd(L, N, E)

    def f(lib):
        if case == 0:
            return lib.nn.MultiheadAttention(E, 3)
        if case == 1:
            return lib.nn.MultiheadAttention(0, 2)
        m = lib.nn.MultiheadAttention(E, H)
        x = lib.tensor(x0)
        if case == 2:
            return m(x, x[0], x)
        if case == 3:
            return m(x, x, x, attn_mask=lib.zeros(L, L + 1))
        if case == 4:
            return m(x, x, x, key_padding_mask=lib.zeros(N, L).long())
        if case == 5:
            return m(x, x, x, is_causal=True)
        if case == 6:
            return m(x, x, x, key_padding_mask=lib.zeros(N + 1, L, dtype=lib.bool))
        return m(x[None], x[None], x[None])
    check(f)


# ---- multi_head_attention_forward -------------------------------------------------------------

def test_multi_head_attention_forward_functional():
    arrays = (rnd(L, N, E), rnd(S, N, E), rnd(S, N, E), rnd(3 * E, E), rnd(3 * E), rnd(E, E),
              rnd(E))
    static_k = rnd(N * H, S, E // H)

    def f(lib):
        g = [lib.tensor(a, requires_grad=True) for a in arrays]
        q, k, v, w, b, ow, ob = g
        sk = lib.tensor(static_k, requires_grad=True)
        out, wts = lib.nn.functional.multi_head_attention_forward(
            q, k, v, E, H, w, b, None, None, False, 0.0, ow, ob, training=False,
            static_k=sk, average_attn_weights=False)
        (out.sum() + (wts * wts).sum()).backward()
        return out, wts, [t.grad for t in g], sk.grad
    check(f, **TOL)  # float32 sums of several products: rounding near zero crossings


# ---- Transformer layers -----------------------------------------------------------------------

D, NH, FF = 8, 2, 16
TOL = dict(rtol=1e-4, atol=1e-5)  # stacks of layers accumulate float32 rounding


def _enc_layer(**kw):
    return lambda nn: nn.TransformerEncoderLayer(D, NH, FF, dropout=0.1, **kw)


def _dec_layer(**kw):
    return lambda nn: nn.TransformerDecoderLayer(D, NH, FF, dropout=0.1, **kw)


@pytest.mark.parametrize("kw", [{}, dict(norm_first=True), dict(activation="gelu"),
                                dict(batch_first=True, bias=False, layer_norm_eps=1e-3)])
def test_encoder_layer(kw):
    shape = (N, L, D) if kw.get("batch_first") else (L, N, D)
    check_module(_enc_layer(**kw), [rnd(*shape)], train=False)


def test_encoder_layer_masks_and_causal():
    mask = np.triu(np.ones((L, L), bool), 1)
    kpm = np.zeros((N, L), bool)
    kpm[0, -1] = True
    check_module(wrap(_enc_layer(batch_first=True), ("src_mask", "src_key_padding_mask")),
                 [rnd(N, L, D), mask, kpm], train=False, compare_repr=False)
    check_module(wrap(_enc_layer(), ("src_mask",), is_causal=True),
                 [rnd(L, N, D), mask], train=False, compare_repr=False)
    fmask = rnd(L, L)
    check_module(wrap(_enc_layer(norm_first=True), ("src_mask",)), [rnd(L, N, D), fmask],
                 train=False, compare_repr=False)


def test_encoder_layer_unbatched_and_callable_activation():
    check_module(lambda nn: nn.TransformerEncoderLayer(D, NH, FF, activation=nn.functional.silu
                                                       if hasattr(nn.functional, "silu")
                                                       else nn.functional.gelu),
                 [rnd(L, D)], train=False)


@pytest.mark.parametrize("kw", [{}, dict(norm_first=True, activation="gelu"),
                                dict(batch_first=True)])
def test_decoder_layer(kw):
    bf = kw.get("batch_first")
    tgt = rnd(N, L, D) if bf else rnd(L, N, D)
    mem = rnd(N, S, D) if bf else rnd(S, N, D)
    tmask = np.triu(np.ones((L, L), bool), 1)
    mkpm = np.zeros((N, S), bool)
    mkpm[1, 0] = True
    # two attention blocks and a feed-forward: bias gradients are float32 sums of N*L terms
    # of size ~1 that cancel to ~1e-2, so their rounding is ~1e-6 absolute
    check_module(wrap(_dec_layer(**kw), ("tgt_mask", "memory_key_padding_mask")),
                 [tgt, mem, tmask, mkpm], train=False, compare_repr=False, **TOL)


def test_decoder_layer_repr():
    check_module(_dec_layer(), [rnd(L, N, D), rnd(S, N, D)], train=False, backward=False)


def test_encoder_stack():
    def make(nn):
        return nn.TransformerEncoder(nn.TransformerEncoderLayer(D, NH, FF), 2,
                                     norm=nn.LayerNorm(D))
    check_module(make, [rnd(L, N, D)], train=False, **TOL)
    mask = np.triu(np.ones((L, L), bool), 1)  # detected as causal
    kpm = np.zeros((N, L), bool)
    kpm[2, -2:] = True
    check_module(wrap(make, ("mask", "src_key_padding_mask")), [rnd(L, N, D), mask, kpm],
                 train=False, compare_repr=False, **TOL)


def test_encoder_stack_nested_fast_path_zeros_padding():
    kpm = np.zeros((N, L), bool)
    kpm[0, -2:] = True

    def f(lib):
        lib.manual_seed(0)
        nn = lib.nn
        m = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, NH, FF, batch_first=True), 2)
        m.eval()
        for p in m.parameters():
            p.requires_grad_(False)
        return m

    tm, lm = f(real_torch), f(torchlike)
    from nn_harness import copy_weights
    copy_weights(lm, tm)
    x = rnd(N, L, D)
    with real_torch.no_grad():
        e = tm(real_torch.tensor(x), src_key_padding_mask=real_torch.tensor(kpm))
    with torchlike.no_grad():
        a = lm(torchlike.tensor(x), src_key_padding_mask=torchlike.tensor(kpm))
    np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)
    assert lm.use_nested_tensor and (a.numpy()[0, -2:] == 0).all()


def test_decoder_stack():
    def make(nn):
        return nn.TransformerDecoder(nn.TransformerDecoderLayer(D, NH, FF, batch_first=True), 2)
    tmask = np.triu(np.full((L, L), -np.inf, np.float32), 1)
    check_module(wrap(make, ("tgt_mask",)), [rnd(N, L, D), rnd(N, S, D), tmask], train=False,
                 compare_repr=False, **TOL)
    check_module(make, [rnd(N, L, D), rnd(N, S, D)], train=False, **TOL)


def test_transformer_full():
    def make(nn):
        return nn.Transformer(d_model=D, nhead=NH, num_encoder_layers=1, num_decoder_layers=2,
                              dim_feedforward=FF)
    tmask = np.triu(np.full((L, L), -np.inf, np.float32), 1)
    check_module(wrap(make, ("tgt_mask",)), [rnd(S, N, D), rnd(L, N, D), tmask], train=False,
                 compare_repr=False, **TOL)
    check_module(make, [rnd(S, N, D), rnd(L, N, D)], train=False, backward=False)


def test_transformer_batch_first_norm_first():
    def make(nn):
        return nn.Transformer(d_model=D, nhead=NH, num_encoder_layers=1, num_decoder_layers=1,
                              dim_feedforward=FF, batch_first=True, norm_first=True,
                              activation="gelu")
    skpm = np.zeros((N, S), bool)
    skpm[0, -1] = True
    check_module(wrap(make, ("src_key_padding_mask", "memory_key_padding_mask")),
                 [rnd(N, S, D), rnd(N, L, D), skpm, skpm], train=False, **TOL)


def test_transformer_init_and_state_dict_names():
    tm = real_torch.nn.Transformer(D, NH, 1, 1, FF)
    lm = torchlike.nn.Transformer(D, NH, 1, 1, FF)
    assert list(tm.state_dict()) == list(lm.state_dict())
    # every matrix is xavier-uniform initialised, vectors keep their module's init
    for (n, p) in lm.named_parameters():
        if p.dim() > 1:
            fan_out, fan_in = p.shape
            assert float(p.abs().max()) <= (6 / (fan_in + fan_out)) ** 0.5 + 1e-6, n


def test_generate_square_subsequent_mask():
    check(lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(4))
    check(lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(3,
                                                                         dtype=lib.float64))


def test_transformer_reprs():
    same_repr(lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(D, NH, FF), 3))
    same_repr(lambda lib: lib.nn.Transformer(D, NH, 2, 1, FF))
    same_repr(lambda lib: lib.nn.TransformerEncoderLayer(D, NH, FF, activation=lib.nn.GELU())
              if hasattr(lib.nn, "GELU") else lib.nn.TransformerEncoderLayer(D, NH, FF))


@pytest.mark.parametrize("case", range(5))
def test_transformer_errors(case):
    def f(lib):
        nn = lib.nn
        if case == 0:
            return nn.TransformerEncoderLayer(D, NH, FF, activation="tanh")
        m = nn.Transformer(D, NH, 1, 1, FF)
        if case == 1:
            return m(lib.zeros(S, N, D), lib.zeros(L, N + 1, D))
        if case == 2:
            return m(lib.zeros(S, N, D + 1), lib.zeros(L, N, D + 1))
        if case == 3:
            return m.encoder(lib.zeros(S, N, D), src_key_padding_mask=lib.zeros(N, S).long())
        return m.encoder.layers[0](lib.zeros(S, N, D), src_mask=lib.zeros(S, S).int())
    check(f)


def test_attributes():
    for lib in (real_torch, torchlike):
        layer = lib.nn.TransformerEncoderLayer(D, NH, FF, batch_first=True)
        assert layer.activation_relu_or_gelu == 1
        assert lib.nn.TransformerEncoderLayer(D, NH, FF, activation="gelu") \
            .activation_relu_or_gelu == 2
        enc = lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        assert (enc.num_layers, enc.use_nested_tensor, enc.enable_nested_tensor) == \
            (2, False, False)
        assert lib.nn.TransformerEncoder(layer, 1).use_nested_tensor
        t = lib.nn.Transformer(D, NH, 1, 1, FF)
        assert (t.d_model, t.nhead, t.batch_first) == (D, NH, False)


# ---- training mode, dtypes, helpers ------------------------------------------------------------

@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_training_mode(need_weights):
    x, y = rnd(L, N, E), rnd(S, N, E)
    # dropout=0 in training mode is deterministic; dropout=1 drops every attention weight
    check_module(wrap(_mha(), need_weights=need_weights), [x, y, y], train=True,
                 compare_repr=False)
    check_module(wrap(_mha(dropout=1.0), need_weights=need_weights), [x, y, y], train=True,
                 compare_repr=False)


def test_mha_dropout_is_random_in_training_only():
    torchlike.manual_seed(0)
    m = torchlike.nn.MultiheadAttention(E, H, dropout=0.5)
    x = torchlike.tensor(rnd(L, N, E), requires_grad=True)
    a, wa = m(x, x, x)
    b, wb = m(x, x, x)
    assert not bool((wa == wb).all())
    (a.sum() + b.sum()).backward()
    assert x.grad.shape == x.shape
    m.eval()
    c, _ = m(x, x, x, need_weights=False)
    d, _ = m(x, x, x, need_weights=False)
    assert bool((c == d).all())


def test_mha_float64():
    x = rnd(N, L, E).astype(np.float64)
    check_module(lambda nn: nn.MultiheadAttention(E, H, batch_first=True).double(), [x, x, x],
                 train=False)


def test_encoder_layer_train_mode_no_dropout():
    check_module(lambda nn: nn.TransformerEncoderLayer(D, NH, FF, dropout=0.0), [rnd(L, N, D)],
                 train=True)


def test_canonical_mask():
    m = R.rand(3, 4) > 0.5
    check(lambda lib: lib.nn.functional._canonical_mask(lib.tensor(m), "m", None, "",
                                                       lib.float32))
    check(lambda lib: lib.nn.functional._canonical_mask(lib.tensor(m).long(), "m", None, "",
                                                       lib.float32))


def _no_grad_pair(make, call):
    """Build both modules (torch weights copied), run `call(lib, module)` under no_grad."""
    from nn_harness import copy_weights
    tm, lm = make(real_torch.nn).eval(), make(torchlike.nn).eval()
    copy_weights(lm, tm)
    with real_torch.no_grad():
        e = call(real_torch, tm)
    with torchlike.no_grad():
        a = call(torchlike, lm)
    from harness import assert_same
    assert_same(e, a, atol=1e-5)


@pytest.mark.parametrize("need_weights", [True, False])
def test_inference_fast_path_semantics(need_weights):
    # PyTorch's fused inference path: fully masked rows are NaN, `is_causal` is ignored
    x = rnd(N, L, E)
    kpm = np.zeros((N, L), bool)
    kpm[2] = True
    am = np.triu(np.ones((L, L), bool), 1)
    am[0, 1] = False  # not causal

    def call(lib, m):
        t = lib.tensor(x)
        return (m(t, t, t, key_padding_mask=lib.tensor(kpm), need_weights=need_weights),
                m(t, t, t, attn_mask=lib.tensor(am), is_causal=True, need_weights=need_weights),
                m(t, t, t, is_causal=True, need_weights=need_weights))
    _no_grad_pair(_mha(batch_first=True), call)


def test_inference_fast_path_encoder_layer():
    x = rnd(N, L, D)
    kpm = np.zeros((N, L), bool)
    kpm[2] = True

    def call(lib, m):
        t = lib.tensor(x if m.self_attn.batch_first else x.transpose(1, 0, 2).copy())
        return m(t, src_key_padding_mask=lib.tensor(kpm)), m(t)
    _no_grad_pair(lambda nn: nn.TransformerEncoderLayer(D, NH, FF, batch_first=True), call)
    _no_grad_pair(lambda nn: nn.TransformerEncoderLayer(D, NH, FF), call)  # slow path: zeros
