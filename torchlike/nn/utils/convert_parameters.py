"""parameters_to_vector / vector_to_parameters (being filled in)."""
__all__ = []
