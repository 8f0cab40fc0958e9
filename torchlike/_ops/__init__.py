"""The op table, by family. `load` imports every family and publishes the generated API."""
import importlib

FAMILIES = ("pointwise", "views", "creation", "conversion", "compare", "reduction", "indexing",
            "shape",
            "linalg", "fft", "special", "random", "interop", "misc")


def load(namespace):
    """Import each op family (registering its rows), attach methods, export functions."""
    from . import registry
    for fam in FAMILIES:
        importlib.import_module(f"{__name__}.{fam}")
    registry.install()
    for name, fn in registry.FUNCTIONS.items():
        namespace.setdefault(name, fn)
