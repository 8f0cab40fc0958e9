"""Global autograd switches, kept apart so the core can read them without importing autograd."""

ENABLED = [True]      # torch.is_grad_enabled()
INFERENCE = [False]   # inside torch.inference_mode()
FORWARD_AD = [False]  # inside torch.autograd.forward_ad.dual_level() (see forward_ad.py)


def differentiable(*tensors):
    """Whether an op on `tensors` (None allowed) takes its differentiable path: one requires
    grad with grad mode on, or one carries a forward-AD tangent."""
    if ENABLED[0]:
        for t in tensors:
            if t is not None and t._requires_grad:
                return True
    if FORWARD_AD[0]:
        for t in tensors:
            if t is not None and "_fw_tangent" in t.__dict__:
                return True
    return False
