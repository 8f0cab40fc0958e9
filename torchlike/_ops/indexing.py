"""indexing ops (being filled in)."""
