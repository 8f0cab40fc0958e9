"""Mirrors `torch.backends.cuda`: the matmul precision switches and the build query."""


class cuBLASModule:
    """`torch.backends.cuda.matmul`: `allow_tf32` is `torch.get_float32_matmul_precision() !=
    'highest'`, and setting it sets that precision ('high' or 'highest'), as in PyTorch."""

    def __init__(self):
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        from .._matmul_precision import get_float32_matmul_precision
        return get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        from .._matmul_precision import set_float32_matmul_precision
        set_float32_matmul_precision("high" if value else "highest")


matmul = cuBLASModule()


def is_built():
    """Mirrors `torch.backends.cuda.is_built`: torchlike is not built against CUDA itself."""
    return False
