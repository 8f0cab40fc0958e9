"""torch.nn recurrent modules (RNN / LSTM / GRU and cells) and torch.nn.utils.rnn, checked against
PyTorch: outputs, input / initial-state / parameter gradients (with torch's weights copied in),
reprs, parameter names and shapes, packed sequences and errors."""
import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check, same_repr
from nn_harness import check_module

RS = np.random.RandomState(0)


def arr(*shape, dtype=np.float32):
    return RS.randn(*shape).astype(dtype)


def lib_of(nn):
    return real_torch if nn is real_torch.nn else torchlike


def flat(factory, lstm=False, packed=None, batch_first=False, enforce_sorted=True):
    """A wrapper module returning every result as a flat tuple of tensors (so all of them get
    cotangents in `check_module`); `packed=lengths` packs the padded input first and pads the
    packed output back."""
    def make(nn):
        lib = lib_of(nn)
        R = lib.nn.utils.rnn

        class Wrap(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = factory(nn)

            def forward(self, x, *state):
                if packed is not None:
                    x = R.pack_padded_sequence(x, packed, batch_first=batch_first,
                                               enforce_sorted=enforce_sorted)
                if lstm:
                    out, (h, c) = self.rnn(x, tuple(state) if state else None)
                    hs = (h, c)
                else:
                    out, h = self.rnn(x, state[0] if state else None)
                    hs = (h,)
                if packed is not None:
                    padded, lens = R.pad_packed_sequence(out, batch_first=batch_first)
                    return (out.data, out.batch_sizes, padded, lens) + hs
                return (out,) + hs
        return Wrap()
    return make


# ---- full-sequence modules ------------------------------------------------------------------

T, B, I, H = 5, 3, 4, 6

CONFIGS = [
    dict(),
    dict(num_layers=2, bidirectional=True),
    dict(batch_first=True, bias=False),
    dict(num_layers=2, bidirectional=True, batch_first=True, bias=False),
]


def _x(batch_first, batched=True):
    if not batched:
        return arr(T, I)
    return arr(B, T, I) if batch_first else arr(T, B, I)


@pytest.mark.parametrize("kw", CONFIGS, ids=str)
@pytest.mark.parametrize("kind", ["RNN", "RNN_relu", "GRU", "LSTM"])
def test_rnn_modules(kind, kw):
    name = "RNN" if kind.startswith("RNN") else kind
    extra = {"nonlinearity": "relu"} if kind == "RNN_relu" else {}
    make = flat(lambda nn: getattr(nn, name)(I, H, **kw, **extra), lstm=name == "LSTM")
    check_module(make, [_x(kw.get("batch_first", False))], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(num_layers=2), dict(bidirectional=True, batch_first=True)],
                         ids=str)
@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_rnn_modules_with_initial_state(kind, kw):
    L = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    state = [arr(L, B, H)] + ([arr(L, B, H)] if kind == "LSTM" else [])
    make = flat(lambda nn: getattr(nn, kind)(I, H, **kw), lstm=kind == "LSTM")
    check_module(make, [_x(kw.get("batch_first", False))] + state, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kw,with_state", [
    (dict(), False), (dict(num_layers=2, bidirectional=True, batch_first=True), True),
    (dict(bias=False, num_layers=2), True)], ids=str)
def test_lstm_proj_size(kw, with_state):
    P = 3
    L = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    state = [arr(L, B, P), arr(L, B, H)] if with_state else []
    make = flat(lambda nn: nn.LSTM(I, H, proj_size=P, **kw), lstm=True)
    check_module(make, [_x(kw.get("batch_first", False))] + state, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("with_state,batch_first", [(False, True), (True, False)])
@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_unbatched(kind, with_state, batch_first):
    L = 4  # 2 layers, bidirectional
    state = ([arr(L, H)] + ([arr(L, H)] if kind == "LSTM" else [])) if with_state else []
    make = flat(lambda nn: getattr(nn, kind)(I, H, num_layers=2, bidirectional=True,
                                             batch_first=batch_first), lstm=kind == "LSTM")
    check_module(make, [_x(batch_first, batched=False)] + state, rtol=1e-4, atol=1e-5)


def test_float64():
    make = flat(lambda nn: nn.LSTM(I, H, num_layers=2, bidirectional=True,
                                   dtype=real_torch.float64 if nn is real_torch.nn
                                   else torchlike.float64), lstm=True)
    check_module(make, [_x(False).astype(np.float64)])


def test_eval_mode_and_full_dropout():
    # dropout is random in training; in eval it is off, and p=1 is deterministic (all zero)
    make = flat(lambda nn: nn.GRU(I, H, num_layers=3, dropout=0.5))
    check_module(make, [_x(False)], train=False, rtol=1e-4, atol=1e-5)
    make = flat(lambda nn: nn.LSTM(I, H, num_layers=2, dropout=1.0, bidirectional=True), lstm=True)
    check_module(make, [_x(False)], train=True, rtol=1e-4, atol=1e-5)


def test_dropout_training_is_random_and_scaled():
    torchlike.manual_seed(0)
    m = torchlike.nn.RNN(I, H, num_layers=2, dropout=0.5)
    x = torchlike.tensor(_x(False))
    a, _ = m(x)
    b, _ = m(x)
    assert tuple(a.shape) == (T, B, H)
    assert not torchlike.equal(a, b)
    m.eval()
    c, _ = m(x)
    d, _ = m(x)
    assert torchlike.equal(c, d)


def test_default_init_range_and_names():
    def f(torch):
        torch.manual_seed(0)
        m = torch.nn.LSTM(I, H, num_layers=2, bidirectional=True, proj_size=2)
        return [(n, tuple(p.shape), p.requires_grad) for n, p in m.named_parameters()]
    check(f)
    for make in [lambda nn: nn.LSTM(3, 16, num_layers=2), lambda nn: nn.GRUCell(3, 25),
                 lambda nn: nn.RNN(3, 9, bidirectional=True)]:
        m = make(torchlike.nn)
        bound = 1 / np.sqrt(m.hidden_size)
        for p in m.parameters():
            v = p.detach().numpy()
            assert np.all(np.abs(v) <= bound) and v.std() > bound / 4
    check(lambda torch: [list(map(tuple, map(lambda p: p.shape, w)))
                         for w in torch.nn.GRU(I, H, 2, bidirectional=True).all_weights])
    check(lambda torch: torch.nn.RNN(I, H, 2, bias=False)._flat_weights_names)


def test_flatten_parameters_and_to():
    def f(torch):
        torch.manual_seed(0)
        m = torch.nn.GRU(I, H)
        m.flatten_parameters()
        m = m.double()
        return m.weight_ih_l0.dtype, m(torch.zeros(2, 1, I, dtype=torch.float64))[0].dtype
    check(f)


REPRS = [
    lambda nn: nn.LSTM(10, 20, num_layers=2, batch_first=True),
    lambda nn: nn.LSTM(10, 20, 2, False, True, 0.5, True, 5),
    lambda nn: nn.RNN(4, 3, 2, "relu", False, True, 0.5, True),
    lambda nn: nn.RNN(4, 3),
    lambda nn: nn.GRU(4, 3, bidirectional=True, dropout=0.25, num_layers=3),
    lambda nn: nn.RNNCell(4, 3, False, "relu"),
    lambda nn: nn.RNNCell(4, 3),
    lambda nn: nn.LSTMCell(4, 3),
    lambda nn: nn.GRUCell(4, 3, bias=False),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_reprs(i):
    same_repr(lambda torch: REPRS[i](torch.nn))


# ---- errors ---------------------------------------------------------------------------------

CTOR_ERRORS = [
    lambda nn: nn.GRU(4, 3, proj_size=2),
    lambda nn: nn.RNN(4, 3, proj_size=2),
    lambda nn: nn.LSTM(4, 3, proj_size=3),
    lambda nn: nn.LSTM(4, 3, proj_size=-1),
    lambda nn: nn.RNN(4, 3, nonlinearity="x"),
    lambda nn: nn.RNN(4, 3, dropout=2),
    lambda nn: nn.RNN(4, 3, dropout=True),
    lambda nn: nn.RNN(4, 0),
    lambda nn: nn.RNN(0, 3),
    lambda nn: nn.RNN(4, 3, num_layers=0),
    lambda nn: nn.RNN(4.0, 3),
    lambda nn: nn.LSTM(4, 3, bias=1),
    lambda nn: nn.LSTM(4, 3, batch_first=1),
]


@pytest.mark.parametrize("i", range(len(CTOR_ERRORS)))
def test_constructor_errors(i):
    check(lambda torch: CTOR_ERRORS[i](torch.nn))


FWD_ERRORS = [
    (lambda nn: nn.LSTM(4, 3), lambda t: (t.zeros(5, 2, 6),)),
    (lambda nn: nn.LSTM(4, 3), lambda t: (t.zeros(5, 2, 4, 1),)),
    (lambda nn: nn.GRU(4, 3), lambda t: (t.zeros(5),)),
    (lambda nn: nn.RNN(4, 3), lambda t: (t.zeros(5, 2, 4, 1),)),
    (lambda nn: nn.LSTM(4, 3), lambda t: (t.zeros(5, 2, 4), (t.zeros(1, 3, 3), t.zeros(1, 2, 3)))),
    (lambda nn: nn.LSTM(4, 3), lambda t: (t.zeros(5, 2, 4), (t.zeros(1, 2, 3), t.zeros(1, 3, 3)))),
    (lambda nn: nn.LSTM(4, 3), lambda t: (t.zeros(5, 2, 4), (t.zeros(2, 3), t.zeros(1, 3, 3)))),
    (lambda nn: nn.LSTM(4, 3), lambda t: (t.zeros(5, 4), (t.zeros(1, 1, 3), t.zeros(1, 3)))),
    (lambda nn: nn.LSTM(4, 3, proj_size=2), lambda t: (t.zeros(5, 2, 4),
                                                       (t.zeros(1, 2, 3), t.zeros(1, 2, 3)))),
    (lambda nn: nn.LSTM(4, 3), lambda t: (t.zeros(5, 2, 4, dtype=t.float64),)),
    (lambda nn: nn.GRU(4, 3), lambda t: (t.zeros(5, 2, 4), t.zeros(2, 2, 3))),
    (lambda nn: nn.GRU(4, 3), lambda t: (t.zeros(5, 2, 4), t.zeros(2, 3))),
    (lambda nn: nn.RNN(4, 3), lambda t: (t.zeros(5, 4), t.zeros(1, 1, 3))),
    (lambda nn: nn.RNN(4, 3, batch_first=True), lambda t: (t.zeros(2, 5, 4), t.zeros(1, 5, 3))),
    (lambda nn: nn.RNN(4, 3), lambda t: (t.zeros(5, 6),)),
    (lambda nn: nn.GRU(4, 3), lambda t: (t.zeros(0, 2, 4),)),
    (lambda nn: nn.LSTMCell(4, 3), lambda t: (t.zeros(2, 5),)),
    (lambda nn: nn.LSTMCell(4, 3), lambda t: (t.zeros(2, 4), (t.zeros(3, 3), t.zeros(2, 3)))),
    (lambda nn: nn.LSTMCell(4, 3), lambda t: (t.zeros(2, 4), (t.zeros(2, 4), t.zeros(2, 3)))),
    (lambda nn: nn.LSTMCell(4, 3), lambda t: (t.zeros(2, 4), (t.zeros(2, 3), t.zeros(2, 4)))),
    (lambda nn: nn.LSTMCell(4, 3), lambda t: (t.zeros(2, 3, 4),)),
    (lambda nn: nn.LSTMCell(4, 3), lambda t: (t.zeros(2, 4), (t.zeros(2, 2, 3), t.zeros(2, 3)))),
    (lambda nn: nn.GRUCell(4, 3), lambda t: (t.zeros(2, 5),)),
    (lambda nn: nn.GRUCell(4, 3), lambda t: (t.zeros(2, 4), t.zeros(3, 3))),
    (lambda nn: nn.GRUCell(4, 3), lambda t: (t.zeros(4), t.zeros(2, 3))),
    (lambda nn: nn.GRUCell(4, 3), lambda t: (t.zeros(2, 4), t.zeros(1, 2, 3))),
    (lambda nn: nn.RNNCell(4, 3), lambda t: (t.zeros(5),)),
    (lambda nn: nn.RNNCell(4, 3, nonlinearity="foo"), lambda t: (t.zeros(2, 4),)),
]


@pytest.mark.parametrize("i", range(len(FWD_ERRORS)))
def test_forward_errors(i):
    make, args = FWD_ERRORS[i]
    check(lambda torch: make(torch.nn)(*args(torch)))


def test_empty_batch():
    def f(torch):
        torch.manual_seed(0)
        out, h = torch.nn.GRU(4, 3)(torch.zeros(3, 0, 4))
        return out.shape, h.shape
    check(f)


# ---- cells ----------------------------------------------------------------------------------

CELL_CASES = [
    ("RNNCell", {}, True, True),
    ("RNNCell", {"nonlinearity": "relu"}, True, False),
    ("RNNCell", {"bias": False}, False, True),
    ("LSTMCell", {}, True, True),
    ("LSTMCell", {}, True, False),
    ("LSTMCell", {"bias": False}, False, True),
    ("LSTMCell", {}, False, False),
    ("GRUCell", {}, True, True),
    ("GRUCell", {}, True, False),
    ("GRUCell", {"bias": False}, False, True),
]


@pytest.mark.parametrize("kind,kw,batched,with_state", CELL_CASES, ids=str)
def test_cells(kind, kw, batched, with_state):
    x = arr(B, I) if batched else arr(I)
    sh = (B, H) if batched else (H,)
    state = ([arr(*sh)] + ([arr(*sh)] if kind == "LSTMCell" else [])) if with_state else []

    def make(nn):
        class Wrap(nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = getattr(nn, kind)(I, H, **kw)

            def forward(self, x, *state):
                if kind == "LSTMCell":
                    return self.cell(x, tuple(state) if state else None)
                return self.cell(x, state[0] if state else None)
        return Wrap()
    check_module(make, [x] + state, rtol=1e-4, atol=1e-5)


def test_cell_unrolled_matches_module():
    """A GRUCell stepped over time equals a one-layer GRU with the same weights."""
    ws = {"weight_ih": arr(3 * H, I), "weight_hh": arr(3 * H, H), "bias_ih": arr(3 * H),
          "bias_hh": arr(3 * H)}

    def f(torch):
        cell = torch.nn.GRUCell(I, H)
        gru = torch.nn.GRU(I, H)
        with torch.no_grad():
            for n, w in ws.items():
                getattr(gru, n + "_l0").copy_(torch.tensor(w))
                getattr(cell, n).copy_(torch.tensor(w))
        x = torch.tensor(_X)
        h = torch.zeros(B, H)
        outs = []
        for t in range(T):
            h = cell(x[t], h)
            outs.append(h)
        return torch.stack(outs), gru(x)[0]
    e, a = check(f, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(a[0].detach().numpy(), a[1].detach().numpy(), rtol=1e-5,
                               atol=1e-6)


_X = arr(T, B, I)


# ---- packed sequences -----------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("kw,lengths,enforce_sorted", [
    (dict(), [5, 3, 2], True),
    (dict(num_layers=2, bidirectional=True), [5, 5, 1], True),
    (dict(bidirectional=True, batch_first=True), real_torch.tensor([2, 5, 3]), False),
], ids=str)
def test_rnn_over_packed(kind, kw, lengths, enforce_sorted):
    bf = kw.get("batch_first", False)
    lens = lengths if isinstance(lengths, list) else None

    def mk_lengths(nn):
        return lengths if lens is not None else lib_of(nn).tensor(lengths.tolist())

    def make(nn):
        return flat(lambda nn: getattr(nn, kind)(I, H, **kw), lstm=kind == "LSTM",
                    packed=mk_lengths(nn), batch_first=bf, enforce_sorted=enforce_sorted)(nn)
    check_module(make, [_x(bf)], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", ["GRU", "LSTM"])
def test_rnn_over_packed_with_state(kind):
    L = 4
    state = [arr(L, B, H)] + ([arr(L, B, H)] if kind == "LSTM" else [])
    make = flat(lambda nn: getattr(nn, kind)(I, H, num_layers=2, bidirectional=True),
                lstm=kind == "LSTM", packed=[4, 5, 2], enforce_sorted=False)
    check_module(make, [_x(False)] + state, rtol=1e-4, atol=1e-5)


def test_lstm_proj_over_packed():
    make = flat(lambda nn: nn.LSTM(I, H, proj_size=2, bidirectional=True), lstm=True,
                packed=[5, 4, 1])
    check_module(make, [_x(False)], rtol=1e-4, atol=1e-5)


def test_packed_output_is_packed():
    def f(torch):
        torch.manual_seed(0)
        R = torch.nn.utils.rnn
        p = R.pack_sequence([torch.ones(3, I), torch.ones(1, I), torch.ones(2, I)],
                            enforce_sorted=False)
        out, h = torch.nn.GRU(I, H)(p)
        return (type(out).__name__, out.data.shape, out.batch_sizes, out.sorted_indices,
                out.unsorted_indices, h.shape)
    check(f)


def test_packed_wrong_hidden():
    def f(torch):
        R = torch.nn.utils.rnn
        p = R.pack_sequence([torch.ones(3, I), torch.ones(2, I)])
        return torch.nn.GRU(I, H)(p, torch.zeros(1, 3, H))
    check(f)


# ---- torch.nn.utils.rnn ---------------------------------------------------------------------

def _grad_of(fn):
    """Run `fn(torch, x)` with a grad-requiring x; return results and x's gradient."""
    def g(torch, *a):
        x = torch.tensor(_P, requires_grad=True)
        res = fn(torch, x, *a)
        outs = [r for r in (res if isinstance(res, tuple) else (res,))
                if isinstance(r, torch.Tensor) and r.requires_grad]
        w = np.random.RandomState(1)
        loss = sum((o * torch.tensor(w.randn(*o.shape).astype(np.float32))).sum() for o in outs)
        loss.backward()
        return res, x.grad
    return g


_P = arr(4, 3, 2)


@pytest.mark.parametrize("lengths", [[4, 2, 1], [4, 4, 4], (3, 3, 1)], ids=str)
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_padded_sequence(lengths, batch_first):
    def f(torch, x):
        xx = x.transpose(0, 1) if batch_first else x
        lens = list(lengths) if batch_first else torch.tensor(lengths)
        p = torch.nn.utils.rnn.pack_padded_sequence(xx, lens, batch_first=batch_first)
        return p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices
    check(_grad_of(f))


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_unsorted_round_trip(batch_first):
    def f(torch, x):
        R = torch.nn.utils.rnn
        xx = x.transpose(0, 1) if batch_first else x
        p = R.pack_padded_sequence(xx, torch.tensor([2, 4, 3]), batch_first=batch_first,
                                   enforce_sorted=False)
        padded, lens = R.pad_packed_sequence(p, batch_first=batch_first, padding_value=-1.5,
                                             total_length=6)
        padded2, lens2 = R.pad_packed_sequence(p, batch_first=not batch_first)
        return (p, padded, lens, padded2, lens2)
    check(_grad_of(f))


def test_pack_ties_sort():
    def f(torch):
        x = torch.arange(24.).reshape(4, 6, 1)
        p = torch.nn.utils.rnn.pack_padded_sequence(x, [2, 3, 3, 1, 2, 4], enforce_sorted=False)
        return p
    check(f)


@pytest.mark.parametrize("kw", [dict(), dict(batch_first=True), dict(padding_value=-2.0),
                                dict(padding_side="left"),
                                dict(batch_first=True, padding_side="left", padding_value=7)],
                         ids=str)
def test_pad_sequence(kw):
    data = [arr(n, 2, 3) for n in (3, 5, 1)]

    def f(torch):
        seqs = [torch.tensor(d, requires_grad=True) for d in data]
        out = torch.nn.utils.rnn.pad_sequence(seqs, **kw)
        (out * torch.arange(out.numel()).reshape(out.shape)).sum().backward()
        return out, [s.grad for s in seqs]
    check(f)


def test_pad_sequence_misc():
    check(lambda torch: torch.nn.utils.rnn.pad_sequence(
        [torch.ones(2, dtype=torch.int64), torch.ones(3, dtype=torch.int64)], padding_value=2.5))
    check(lambda torch: torch.nn.utils.rnn.pad_sequence([torch.ones(2), torch.arange(3)]))
    check(lambda torch: torch.nn.utils.rnn.pad_sequence([torch.ones(0, 2), torch.ones(0, 2)]))
    check(lambda torch: torch.nn.utils.rnn.pad_sequence(torch.arange(6.).reshape(2, 3)))
    check(lambda torch: torch.nn.utils.rnn.pad_sequence((t for t in [torch.ones(2)])))
    check(lambda torch: torch.nn.utils.rnn.pad_sequence([torch.ones(2, 3), torch.ones(3, 1)]))


PACK_ERRORS = [
    lambda torch: torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(4, 3, 2), [2, 3, 1]),
    lambda torch: torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(4, 3, 2), [3, 0, 0]),
    lambda torch: torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(4, 3, 2), [3, 2]),
    lambda torch: torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(4, 3, 2),
                                                          torch.tensor([[4, 2, 1]])),
    lambda torch: torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(0, 3, 2), [3, 2, 1]),
    lambda torch: torch.nn.utils.rnn.pack_sequence([torch.ones(2), torch.ones(3)]),
    lambda torch: torch.nn.utils.rnn.pad_sequence([]),
    lambda torch: torch.nn.utils.rnn.pad_sequence(3),
    lambda torch: torch.nn.utils.rnn.pad_sequence([torch.ones(2)], padding_side="x"),
    lambda torch: torch.nn.utils.rnn.pad_sequence([torch.ones(2, 3), torch.ones(3, 2)]),
    lambda torch: torch.nn.utils.rnn.pad_packed_sequence(
        torch.nn.utils.rnn.pack_sequence([torch.ones(4), torch.ones(3)]), total_length=2),
]


@pytest.mark.parametrize("i", range(len(PACK_ERRORS)))
def test_pack_errors(i):
    check(PACK_ERRORS[i])


def test_pack_sequence_and_unpack():
    data = [arr(n, 2) for n in (2, 4, 1)]

    def f(torch):
        seqs = [torch.tensor(d) for d in data]
        p = torch.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
        q = torch.nn.utils.rnn.pack_sequence(sorted(seqs, key=len, reverse=True))
        return p, q, torch.nn.utils.rnn.unpack_sequence(p), torch.nn.utils.rnn.unpack_sequence(q)
    check(f)


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence(batch_first):
    data = [arr(n, 2) for n in (3, 5, 2)]

    def f(torch):
        R = torch.nn.utils.rnn
        seqs = [torch.tensor(d) for d in data]
        padded = R.pad_sequence(seqs, batch_first=batch_first)
        lengths = torch.as_tensor([len(s) for s in seqs])
        out = R.unpad_sequence(padded, lengths, batch_first=batch_first)
        return out, padded.shape  # time-major input is transposed in place, as in PyTorch
    check(f)


def test_packed_sequence_object():
    def f(torch):
        R = torch.nn.utils.rnn
        p = R.PackedSequence(torch.ones(3), torch.tensor([2, 1]))
        q = R.PackedSequence(torch.ones(3), torch.tensor([2, 1]), torch.tensor([1, 0]))
        r = R.PackedSequence((torch.ones(3), torch.tensor([2, 1])))
        d = q.double()
        return (p, q, r, d, d.data.dtype, q.to(torch.float32) is q, q.is_cuda, p._fields,
                isinstance(p, tuple), R.invert_permutation(torch.tensor([2, 0, 1])),
                R.invert_permutation(None), q.long().data.dtype)
    check(f)
    same_repr(lambda torch: torch.nn.utils.rnn.pack_sequence([torch.tensor([1, 2, 3]),
                                                              torch.tensor([4, 5]),
                                                              torch.tensor([6])]))


def test_exports():
    import torch.nn.utils.rnn as tr
    import torchlike.nn.utils.rnn as lr
    assert sorted(tr.__all__) == sorted(lr.__all__)
    import torch.nn.modules.rnn as tm
    import torchlike.nn.modules.rnn as lm
    assert sorted(tm.__all__) == sorted(lm.__all__)
    for n in tm.__all__:
        assert hasattr(torchlike.nn, n)


def test_one_node_per_forward():
    """The whole stacked bidirectional recurrence is one autograd node (one jitted vjp), under
    the pass-through nodes that carry PyTorch's names for each result."""
    def fused(t):
        (node, _), = t.grad_fn.next_functions
        return node
    m = torchlike.nn.LSTM(I, H, num_layers=2, bidirectional=True)
    x = torchlike.tensor(_x(False), requires_grad=True)
    out, (h, c) = m(x)
    assert fused(out) is fused(h) is fused(c)
    leaves = {id(fn.variable) for fn, _ in fused(out).next_functions if fn is not None}
    assert leaves == {id(p) for p in m.parameters()} | {id(x)}
    p = torchlike.nn.utils.rnn.pack_padded_sequence(x, [5, 3, 2])
    out, (h, c) = m(p)
    assert fused(out.data) is fused(h)


GRAD_FN_CASES = [(kind, kw, inp) for kind in ("RNN", "GRU", "LSTM")
                 for kw in ({}, {"num_layers": 2}, {"bidirectional": True}, {"batch_first": True},
                            {"bidirectional": True, "batch_first": True},
                            {"proj_size": 1} if kind == "LSTM" else {"bias": False})
                 for inp in ("batched", "unbatched", "packed", "float64")]


@pytest.mark.filterwarnings("ignore::UserWarning")     # torch: LSTM projections and oneDNN
@pytest.mark.parametrize("kind,kw,inp", GRAD_FN_CASES)
def test_output_grad_fn_names(kind, kw, inp):
    """Each result's `grad_fn` (and so its repr) is named after the last operation PyTorch's
    CPU implementation records: StackBackward0, CatBackward0, TransposeBackward0/1,
    SqueezeBackward1, MkldnnRnnLayerBackward0 for float32 LSTMs."""
    x = arr(4, 2, 3)
    got = []
    for lib in (real_torch, torchlike):
        m = getattr(lib.nn, kind)(3, 2, **kw)
        t = lib.tensor(x)
        if inp == "unbatched":
            t = t[:, 0]
        elif inp == "float64":
            m, t = m.double(), t.double()
        elif inp == "packed":
            t = lib.nn.utils.rnn.pack_padded_sequence(
                t, lib.tensor([4, 2]) if not kw.get("batch_first") else lib.tensor([2, 2, 1, 1]),
                batch_first=kw.get("batch_first", False))
        out, state = m(t)
        out = out.data if inp == "packed" else out
        states = state if isinstance(state, tuple) else (state,)
        got.append([r.grad_fn.name() for r in (out,) + states] + [repr(states[0])[-25:]])
    assert got[0] == got[1]


@pytest.mark.parametrize("kind,kw", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                     ("GRUCell", {}), ("LSTMCell", {})])
@pytest.mark.parametrize("batched", [True, False])
def test_cell_grad_fn_names(kind, kw, batched):
    x = arr(2, 3) if batched else arr(3)
    got = []
    for lib in (real_torch, torchlike):
        out = getattr(lib.nn, kind)(3, 2, **kw)(lib.tensor(x))
        outs = out if isinstance(out, tuple) else (out,)
        got.append([o.grad_fn.name() for o in outs])
    assert got[0] == got[1]
