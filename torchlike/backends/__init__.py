"""Mirrors `torch.backends`: the switches training scripts set (`cudnn.benchmark`,
`cudnn.deterministic`, `cuda.matmul.allow_tf32`, ...) and the availability queries. XLA picks
torchlike's kernels, so the switches are recorded and read back but change no computation
(torchlike's float32 matmuls and convolutions always run at full precision)."""
from . import cpu, cuda, cudnn, mps  # noqa: F401
