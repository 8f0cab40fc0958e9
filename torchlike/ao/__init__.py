"""Mirrors `torch.ao` (only the quantization names float models use)."""
