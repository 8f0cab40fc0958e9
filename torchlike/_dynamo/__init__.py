"""Mirrors the parts of `torch._dynamo` that libraries touch outside of compiling: the
decorators and markers they put on code (`disable`, `allow_in_graph`, `mark_dynamic`,
`graph_break`...), `is_compiling`, `reset` and a `config` whose settings are accepted. torchlike
has no bytecode tracer: `torchlike.compile` traces with JAX (see docs/compile.md)."""
from .. import compiler as _compiler
from . import config, utils  # noqa: F401

is_compiling = _compiler.is_compiling
disable = _compiler.disable
allow_in_graph = _compiler.allow_in_graph
assume_constant_result = _compiler.assume_constant_result
substitute_in_graph = _compiler.substitute_in_graph
set_stance = _compiler.set_stance
list_backends = _compiler.list_backends
reset = _compiler.reset


def disallow_in_graph(fn):
    """Mirrors `torch._dynamo.disallow_in_graph`."""
    return fn


forbid_in_graph = disallow_in_graph
nonstrict_trace = disallow_in_graph
dont_skip_tracing = _compiler._passthrough


def graph_break():
    """Mirrors `torch._dynamo.graph_break` (nothing to break outside dynamo)."""


def _marker(attr):
    def mark(t, index=None, **kwargs):
        """Records the dims on the tensor as PyTorch does (`t._dynamo_dynamic_indices`...);
        torchlike's compiler buckets dims that keep changing by itself and does not read them."""
        indices = index if isinstance(index, (list, tuple)) else [index]
        marked = getattr(t, attr, None)
        if marked is None:
            marked = set()
        marked.update(i for i in indices if i is not None)
        setattr(t, attr, marked)
    mark.__name__ = attr
    return mark


mark_dynamic = _marker("_dynamo_dynamic_indices")
maybe_mark_dynamic = _marker("_dynamo_weak_dynamic_indices")
mark_static = _marker("_dynamo_static_indices")


def mark_static_address(t, guard=True):
    """Mirrors `torch._dynamo.mark_static_address` (recorded, not read)."""
    t._dynamo_static_input_type = "guarded" if guard else "unguarded"


def is_dynamo_supported():
    """Mirrors `torch._dynamo.is_dynamo_supported`: there is no dynamo in torchlike."""
    return False


def is_inductor_supported():
    """Mirrors `torch._dynamo.is_inductor_supported`."""
    return False


def optimize(backend="inductor", *, nopython=False, **kwargs):
    """Mirrors `torch._dynamo.optimize(backend)`: a decorator compiling with
    `torchlike.compile`."""
    return lambda fn: _compiler.compile(fn, fullgraph=nopython)


def run(fn=None):
    """Mirrors `torch._dynamo.run`: the function as it is."""
    return fn
