"""Mirrors the float-model surface of `torch.ao.quantization`: `QuantStub`/`DeQuantStub` (the
identity until a model is converted), `QConfig`. Divergence: torchlike has no quantized tensors,
so `prepare`/`convert`/`quantize` raise `NotAvailable`."""
from collections import namedtuple

from ...nn.modules.module import Module
from ..._missing import NotAvailable


class _Stub(Module):
    """A module that is the identity in a float model (and keeps its `qconfig`)."""

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class QuantStub(_Stub):
    """Mirrors `torch.ao.quantization.QuantStub`: the identity in a float model."""


class DeQuantStub(_Stub):
    """Mirrors `torch.ao.quantization.DeQuantStub`: the identity in a float model."""


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """Mirrors `torch.ao.quantization.QConfig`: the observer classes (or factories) of a
    layer's activation and weight."""
    __slots__ = ()

    def __new__(cls, activation, weight):
        if isinstance(activation, Module) or isinstance(weight, Module):
            raise ValueError("QConfig received observer instance, please pass observer class "
                             "instead. Use MyObserver.with_args(x=1) to override arguments to "
                             "constructor if needed")
        return super().__new__(cls, activation, weight)


def _lacking(name):
    def fn(*args, **kwargs):
        raise NotAvailable(f"torch.ao.quantization.{name} is not available in torchlike yet "
                           "(no quantized tensors)")
    fn.__name__ = name
    return fn


prepare = _lacking("prepare")
prepare_qat = _lacking("prepare_qat")
convert = _lacking("convert")
quantize = _lacking("quantize")
quantize_dynamic = _lacking("quantize_dynamic")
fuse_modules = _lacking("fuse_modules")
get_default_qconfig = _lacking("get_default_qconfig")
get_default_qat_qconfig = _lacking("get_default_qat_qconfig")
