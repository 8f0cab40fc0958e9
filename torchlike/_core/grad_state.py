"""Global autograd switches, kept apart so the core can read them without importing autograd."""

ENABLED = [True]      # torch.is_grad_enabled()
INFERENCE = [False]   # inside torch.inference_mode()
