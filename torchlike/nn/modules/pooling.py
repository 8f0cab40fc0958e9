"""torch.nn modules: pooling (being filled in)."""
__all__ = []
