"""Mirrors the helpers of `torch._dynamo.utils` that libraries import."""
import collections

counters = collections.defaultdict(collections.Counter)


def is_compile_supported(device_type):
    """Mirrors `torch._dynamo.utils.is_compile_supported`: torchlike compiles for every device
    it runs on."""
    return True


def is_function_or_wrapper(value):
    """Mirrors `torch._dynamo.utils.is_function_or_wrapper`."""
    import types
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType,
                              types.MethodType, types.WrapperDescriptorType))
