"""reduction ops (being filled in)."""
