"""Mirrors the import-time surface of `torch.fx`: `wrap` (which libraries call at import on
functions they want kept as leaves), and the classes they subclass (`Tracer`, `GraphModule`,
`Interpreter`, `Transformer`). Divergence: torchlike has no symbolic tracer yet, so
`symbolic_trace` and `Tracer.trace` raise `NotAvailable` when called."""
from .._missing import NotAvailable


def _lacking(what):
    return NotAvailable(f"torch.fx.{what} is not available in torchlike yet (no symbolic "
                        "tracer)")


def wrap(fn_or_name):
    """Mirrors `torch.fx.wrap`: marks a function (or a global's name) as a leaf of symbolic
    tracing; returns its argument."""
    return fn_or_name


class Tracer:
    """Mirrors `torch.fx.Tracer`'s constructor and leaf queries."""

    def __init__(self, autowrap_modules=(), autowrap_functions=(),
                 param_shapes_constant=False):
        self.autowrap_modules = autowrap_modules
        self.autowrap_functions = autowrap_functions
        self.param_shapes_constant = param_shapes_constant

    def is_leaf_module(self, m, module_qualified_name):
        return (m.__module__.startswith(("torch.nn", "torchlike.nn"))
                and not m.__class__.__name__ == "Sequential")

    def trace(self, root, concrete_args=None):
        raise _lacking("Tracer.trace")


class Graph:
    """Mirrors `torch.fx.Graph` (not constructible without a tracer)."""

    def __init__(self, *args, **kwargs):
        raise _lacking("Graph")


class GraphModule:
    """Mirrors `torch.fx.GraphModule` (not constructible without a tracer)."""

    def __init__(self, *args, **kwargs):
        raise _lacking("GraphModule")


class Interpreter:
    """Mirrors `torch.fx.Interpreter` (needs a GraphModule)."""

    def __init__(self, module, *args, **kwargs):
        raise _lacking("Interpreter")


class Transformer(Interpreter):
    """Mirrors `torch.fx.Transformer`."""


class Node:
    """Mirrors `torch.fx.Node`."""


class Proxy:
    """Mirrors `torch.fx.Proxy`."""


def symbolic_trace(root, concrete_args=None):
    """Mirrors `torch.fx.symbolic_trace` (raises: no symbolic tracer)."""
    raise _lacking("symbolic_trace")
