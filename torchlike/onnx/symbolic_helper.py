"""Mirrors the decorators of `torch.onnx.symbolic_helper` that symbolic functions are written
with (they only matter inside an export)."""


def parse_args(*arg_descriptors):
    """Mirrors `torch.onnx.symbolic_helper.parse_args`: the symbolic function unchanged."""
    return lambda fn: fn


def quantized_args(*arg_q_descriptors, scale=None, zero_point=None, quantize_output=True):
    """Mirrors `torch.onnx.symbolic_helper.quantized_args`."""
    return lambda fn: fn
