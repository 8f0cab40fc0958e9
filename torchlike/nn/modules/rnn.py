"""Mirrors torch.nn's recurrent modules: `RNN`, `LSTM`, `GRU` and their cells.

Each forward is one dispatch: the whole stacked, (bi)directional recurrence runs as a single
cached jitted JAX function (`nn/_functional/rnn.py`), recorded as one autograd node whose
backward is its jitted vjp."""
import math
import numbers
import warnings
import weakref

import numpy as np

from .._functional.rnn import cell_forward, rnn_forward
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module
from ..._core import autocast_state as _autocast_state

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _tl():
    import torchlike
    return torchlike


def _init_uniform(params, hidden_size):
    tl = _tl()
    stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
    with tl.no_grad():
        for w in params:
            w.uniform_(-stdv, stdv)


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


class RNNBase(Module):
    """Mirrors `torch.nn.RNNBase`."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]
    __jit_unused_properties__ = ["all_weights"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        tl = _tl()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs = []
        num_directions = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: "
                            f"{type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode == "LSTM":
            gate_size = 4 * hidden_size
        elif mode == "GRU":
            gate_size = 3 * hidden_size
        elif mode in ("RNN_TANH", "RNN_RELU"):
            gate_size = hidden_size
        else:
            raise ValueError("Unrecognized RNN mode: " + mode)

        def new(*shape):
            return Parameter(tl.empty(shape, device=device, dtype=dtype))

        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                real_hidden_size = proj_size if proj_size > 0 else hidden_size
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                params = [new(gate_size, layer_input_size), new(gate_size, real_hidden_size)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    params += [new(gate_size), new(gate_size)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    params.append(new(proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [x.format(layer, suffix) for x in names]
                for name, param in zip(names, params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                              for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            idx = self._flat_weights_names.index(attr)
            self._flat_weights[idx] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """A no-op: there is no cuDNN weight buffer to compact."""

    def _apply(self, fn, recurse=True):
        self._flat_weight_refs = []
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self):
        _init_uniform(self.parameters(), self.hidden_size)

    def check_input(self, input, batch_sizes):
        if input.dtype != self._flat_weights[0].dtype and not _autocast_state.any_enabled():
            w = self._flat_weights[0].dtype
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w})."
                             f" Convert input: input.to({w}), or convert model: "
                             f"model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got "
                               f"{input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        h = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, h)

    def check_hidden_size(self, hx_size, expected_hidden_size,
                          msg="Expected hidden size {}, got {}"):
        if tuple(hx_size) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx_size)))

    def _weights_have_changed(self):
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def _update_flat_weights(self):
        if self._weights_have_changed():
            self._init_flat_weights()

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def __getstate__(self):
        self._update_flat_weights()
        state = self.__dict__.copy()
        state.pop("_flat_weight_refs", None)
        return state

    def __setstate__(self, d):
        super().__setstate__(d)
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]

    @property
    def all_weights(self):
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    # ---- shared forward -----------------------------------------------------------------------

    def _masks(self, T, B, dtype, device, batch_sizes=None):
        """Dropout masks (scaled keep masks), (T, B, features), for the outputs of all but the
        last layer. For a packed sequence PyTorch drops out the packed data, so the mask is
        drawn in that layout (`sum(batch_sizes)` rows, time-major) and spread over (T, B)."""
        if not (self.training and self.dropout > 0 and self.num_layers > 1):
            return None
        tl = _tl()
        p = self.dropout
        D = 2 if self.bidirectional else 1
        h = self.proj_size if self.proj_size > 0 else self.hidden_size
        shape = (T, B, D * h) if batch_sizes is None else (sum(batch_sizes), D * h)
        masks = []
        with tl.no_grad():
            for _ in range(self.num_layers - 1):
                m = tl.empty(shape, dtype=dtype, device=device)
                if p == 1:
                    m.zero_()
                else:
                    m.bernoulli_(1 - p).div_(1 - p)
                if batch_sizes is not None:
                    steps = np.repeat(np.arange(T), batch_sizes)
                    rows = np.concatenate([np.arange(b) for b in batch_sizes] or [[]])
                    padded = tl.zeros((T, B, D * h), dtype=dtype, device=device)
                    padded[tl.tensor(steps), tl.tensor(rows.astype(np.int64))] = m
                    m = padded
                masks.append(m)
        return masks

    def _run(self, input, hx, cx=None):
        """Shared forward of RNN / LSTM / GRU; `hx` (and `cx` for LSTM) may be None."""
        self._update_flat_weights()
        lstm = self.mode == "LSTM"
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            hx_size = None if hx is None else tuple(hx.shape)
            cx_size = None if cx is None else tuple(cx.shape)
            self._check_all(data, batch_sizes, hx_size, cx_size, tuple(data.shape))
            bs = [int(b) for b in batch_sizes.tolist()]
            T, B = len(bs), (bs[0] if bs else 0)
            outs = rnn_forward(
                self.mode, data, hx, cx, self._flat_weights, num_layers=self.num_layers,
                bidirectional=self.bidirectional, has_bias=self.bias, proj_size=self.proj_size,
                hidden_size=self.hidden_size, batch_first=False, unbatched=False,
                batch_sizes=batch_sizes, sorted_indices=sorted_indices,
                unsorted_indices=unsorted_indices,
                masks=self._masks(T, B, data.dtype, data.device, bs))
            output = PackedSequence(outs[0], batch_sizes, sorted_indices, unsorted_indices)
            return output, ((outs[1], outs[2]) if lstm else outs[1])
        if input.dim() not in (2, 3):
            if lstm or self.mode == "GRU":
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                                 f"instead")
            raise ValueError(f"RNN: Expected input to be 2D or 3D, got {input.dim()}D tensor "
                             f"instead")
        is_batched = input.dim() == 3
        if hx is not None:
            if lstm:
                want = 3 if is_batched else 2
                if hx.dim() != want or cx.dim() != want:
                    kind = "batched 3-D" if is_batched else "unbatched 2-D"
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but "
                                       f"got ({hx.dim()}-D, {cx.dim()}-D) tensors")
            elif is_batched and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                                   f"{hx.dim()}-D tensor")
            elif not is_batched and hx.dim() != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                   f"{hx.dim()}-D tensor")
        in_size = tuple(input.shape)
        if not is_batched:  # PyTorch unsqueezes the batch dimension
            in_size = (1,) + in_size if self.batch_first else in_size[:1] + (1,) + in_size[1:]

        def unb(s):
            return None if s is None else ((s[0], 1) + s[1:] if not is_batched else s)

        hx_size = unb(None if hx is None else tuple(hx.shape))
        cx_size = unb(None if cx is None else tuple(cx.shape))
        self._check_all(input, None, hx_size, cx_size, in_size)
        T = in_size[1] if self.batch_first else in_size[0]
        B = in_size[0] if self.batch_first else in_size[1]
        if T == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        outs = rnn_forward(
            self.mode, input, hx, cx, self._flat_weights, num_layers=self.num_layers,
            bidirectional=self.bidirectional, has_bias=self.bias, proj_size=self.proj_size,
            hidden_size=self.hidden_size, batch_first=self.batch_first,
            unbatched=not is_batched, masks=self._masks(T, B, input.dtype, input.device))
        return outs[0], ((outs[1], outs[2]) if lstm else outs[1])

    def _check_all(self, input, batch_sizes, hx_size, cx_size, in_size):
        """PyTorch's `check_forward_args` on the (unsqueezed) shapes; zero states pass."""
        if input.dtype != self._flat_weights[0].dtype and not _autocast_state.any_enabled():
            w = self._flat_weights[0].dtype
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w})."
                             f" Convert input: input.to({w}), or convert model: "
                             f"model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if len(in_size) != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got "
                               f"{len(in_size)}")
        if self.input_size != in_size[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {in_size[-1]}")
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = in_size[0] if self.batch_first else in_size[1]
        D = 2 if self.bidirectional else 1
        h = self.proj_size if self.proj_size > 0 else self.hidden_size
        expected = (self.num_layers * D, mini_batch, h)
        if self.mode == "LSTM":
            if hx_size is not None:
                self.check_hidden_size(hx_size, expected, "Expected hidden[0] size {}, got {}")
                self.check_hidden_size(cx_size, (self.num_layers * D, mini_batch,
                                                 self.hidden_size),
                                       "Expected hidden[1] size {}, got {}")
        elif hx_size is not None:
            self.check_hidden_size(hx_size, expected)


class RNN(RNNBase):
    """Mirrors `torch.nn.RNN` (Elman RNN, tanh or relu)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.__dict__["nonlinearity"] = args[3]
            args = args[:3] + args[4:]
        else:
            self.__dict__["nonlinearity"] = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or "
                             f"'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._run(input, hx)


class LSTM(RNNBase):
    """Mirrors `torch.nn.LSTM` (gates i, f, g, o; optional projection `proj_size`)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        if hx is None:
            return self._run(input, None, None)
        return self._run(input, hx[0], hx[1])


class GRU(RNNBase):
    """Mirrors `torch.nn.GRU` (gates r, z, n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._run(input, hx)


# ---- cells ------------------------------------------------------------------------------------

class RNNCellBase(Module):
    """Mirrors `torch.nn.RNNCellBase`."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        tl = _tl()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(tl.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(tl.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(tl.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(tl.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        _init_uniform(self.parameters(), self.hidden_size)

    def _check(self, input, hiddens):
        """PyTorch's cell checks (on the unsqueezed shapes)."""
        if input.size(1) != self.weight_ih.size(1):
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                               f"{self.weight_ih.size(1)}")
        for k, h in enumerate(hiddens):
            if input.size(0) != h.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{k} "
                                   f"batch size {h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.size(1)}, "
                                   f"expected {self.hidden_size}")

    def _cell(self, mode, kind, input, hx, cx):
        if input.dim() not in (1, 2):
            raise ValueError(f"{kind}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        is_batched = input.dim() == 2
        if hx is not None:
            x2 = input if is_batched else input.unsqueeze(0)
            hs = (hx,) if cx is None else (hx, cx)
            if not is_batched:
                hs = tuple(h.unsqueeze(0) for h in hs)
            self._check(x2, hs)
        else:
            x2 = input if is_batched else input.unsqueeze(0)
            self._check(x2, ())
        return cell_forward(mode, input, hx, cx, self.weight_ih, self.weight_hh, self.bias_ih,
                            self.bias_hh, hidden_size=self.hidden_size, unbatched=not is_batched)


class RNNCell(RNNCellBase):
    """Mirrors `torch.nn.RNNCell`."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             f"instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._cell(mode, "RNNCell", input, hx, None)


class LSTMCell(RNNCellBase):
    """Mirrors `torch.nn.LSTMCell`."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             f"instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
            return self._cell("LSTM", "LSTMCell", input, hx[0], hx[1])
        return self._cell("LSTM", "LSTMCell", input, None, None)


class GRUCell(RNNCellBase):
    """Mirrors `torch.nn.GRUCell`."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             f"instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        return self._cell("GRU", "GRUCell", input, hx, None)
