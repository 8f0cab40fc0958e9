"""Mirrors `torch.serialization` (`torch.save` / `torch.load`) — being built (issue 7)."""


def save(obj, f, *args, **kwargs):
    raise NotImplementedError("torch.save is not available in torchlike yet")


def load(f, *args, **kwargs):
    raise NotImplementedError("torch.load is not available in torchlike yet")
