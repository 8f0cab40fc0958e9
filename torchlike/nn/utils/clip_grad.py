"""clip_grad_norm_ / clip_grad_value_ (being filled in)."""
__all__ = []
