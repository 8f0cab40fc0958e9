"""Mirrors the import-time surface of `torch.onnx`: symbolic registration (kept, since nothing
exports), `is_in_onnx_export`, the enums libraries read. Divergence: `export` raises, as
PyTorch does when the ONNX exporter's dependencies are missing."""
import enum
import re

producer_name = "pytorch"
producer_version = "2.13.0"
_SYMBOLICS = {}


class OnnxExporterError(RuntimeError):
    """Mirrors `torch.onnx.OnnxExporterError`."""


class TensorProtoDataType(enum.IntEnum):
    """Mirrors `torch.onnx.TensorProtoDataType` (ONNX's element types)."""
    UNDEFINED = 0
    FLOAT = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    STRING = 8
    BOOL = 9
    FLOAT16 = 10
    DOUBLE = 11
    UINT32 = 12
    UINT64 = 13
    COMPLEX64 = 14
    COMPLEX128 = 15
    BFLOAT16 = 16


class OperatorExportTypes(enum.IntEnum):
    """Mirrors `torch.onnx.OperatorExportTypes`."""
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


class TrainingMode(enum.IntEnum):
    """Mirrors `torch.onnx.TrainingMode`."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def is_in_onnx_export():
    """Mirrors `torch.onnx.is_in_onnx_export`: False (torchlike never exports)."""
    return False


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """Mirrors `torch.onnx.register_custom_op_symbolic`: `domain::name` (an empty domain is
    `aten`), kept for an export that torchlike cannot run."""
    if symbolic_name.startswith("::"):
        symbolic_name = f"aten{symbolic_name}"
    if not re.match(r"^[a-zA-Z0-9_-]*::[a-zA-Z_-][a-zA-Z0-9_-]*$", symbolic_name):
        raise OnnxExporterError(
            f"Failed to register operator {symbolic_name}. The symbolic name must match the "
            "format domain::name, and should start with a letter and contain only "
            "alphanumeric characters")
    _SYMBOLICS[(symbolic_name, opset_version)] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    """Mirrors `torch.onnx.unregister_custom_op_symbolic`."""
    _SYMBOLICS.pop((symbolic_name, opset_version), None)


def export(*args, **kwargs):
    """Mirrors `torch.onnx.export` on an installation without the exporter's dependencies."""
    raise OnnxExporterError("torch.onnx.export is not available in torchlike: it has no "
                            "TorchScript or FX graph to export")


def _opset_modules():
    """`torch.onnx.symbolic_opsetN`: importable (libraries import them to register symbolics),
    their functions only meaningful inside an export, which torchlike cannot run."""
    from .._missing import stub_module
    return {f"symbolic_opset{n}": stub_module(f"torch.onnx.symbolic_opset{n}")
            for n in range(7, 21)}


globals().update(_opset_modules())
from . import symbolic_helper  # noqa: E402,F401
