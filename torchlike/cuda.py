"""Mirrors `torch.cuda`: mapped onto JAX GPU devices (being filled in)."""
