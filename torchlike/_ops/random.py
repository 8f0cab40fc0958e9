"""random ops (being filled in)."""
