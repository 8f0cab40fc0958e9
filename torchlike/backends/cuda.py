"""Mirrors `torch.backends.cuda`: the matmul precision switches (recorded; torchlike's float32
matmuls always run at full precision) and the build query."""


class cuBLASModule:
    """`torch.backends.cuda.matmul`."""

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = cuBLASModule()


def is_built():
    """Mirrors `torch.backends.cuda.is_built`: torchlike is not built against CUDA itself."""
    return False
