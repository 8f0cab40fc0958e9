"""shape ops (being filled in)."""
