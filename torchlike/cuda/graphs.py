"""Mirrors `torch.cuda.graphs` on a build without CUDA graphs: the names exist (libraries use
them in annotations and capability checks), nothing is ever being captured, and making a graph
raises. torchlike's way to run a step as one device program is `torch.compile` (XLA)."""
import contextlib


def is_current_stream_capturing():
    """Mirrors `torch.cuda.is_current_stream_capturing`: False (no graph capture)."""
    return False


class CUDAGraph:
    """Mirrors `torch.cuda.CUDAGraph`, which cannot be made here."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class CUDAGraph")


def graph_pool_handle():
    """Mirrors `torch.cuda.graph_pool_handle` (no CUDA graphs)."""
    raise RuntimeError("Tried to instantiate dummy base class _cuda_graph_pool_handle")


@contextlib.contextmanager
def graph(cuda_graph, pool=None, stream=None, capture_error_mode="global"):
    """Mirrors `torch.cuda.graph` (a CUDAGraph cannot be made, so this is never entered)."""
    raise RuntimeError("Tried to instantiate dummy base class CUDAGraph")
    yield  # noqa: unreachable - a generator for contextmanager


def make_graphed_callables(callables, sample_args, num_warmup_iters=3,
                           allow_unused_input=False, pool=None):
    """Mirrors `torch.cuda.make_graphed_callables` (no CUDA graphs)."""
    raise RuntimeError("Tried to instantiate dummy base class CUDAGraph")
