"""Mirrors `torch.utils.tensorboard`: `SummaryWriter` writing TensorBoard event files, on the
`tensorboard` package (an optional extra, as for PyTorch)."""
import importlib.util

if importlib.util.find_spec("tensorboard") is None:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "SummaryWriter"]
