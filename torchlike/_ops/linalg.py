"""linalg ops (being filled in)."""
