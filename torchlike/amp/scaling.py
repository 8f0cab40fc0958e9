"""The two kernels behind GradScaler, as PyTorch exposes them:
`torch._amp_foreach_non_finite_check_and_unscale_` and `torch._amp_update_scale_`."""
import numpy as np


def _torch():
    import torchlike
    return torchlike


def amp_foreach_non_finite_check_and_unscale_(self, found_inf, inv_scale):
    """Multiplies each tensor of `self` by `inv_scale` in place; sets `found_inf` to 1.0 if any
    holds an inf or NaN."""
    torch = _torch()
    if not self:
        return
    with torch.no_grad():
        bad = torch.stack([~torch.isfinite(g).all() for g in self]).any()
        found_inf.copy_(torch.where(bad, torch.ones_like(found_inf), found_inf))
        for g in self:
            g.mul_(inv_scale)


def amp_update_scale_(self, growth_tracker, found_inf, scale_growth_factor, scale_backoff_factor,
                      growth_interval):
    """PyTorch's scale update: back off after an inf/NaN step; grow the scale (when the grown
    value is finite) after `growth_interval` consecutive clean steps. Returns `self`."""
    if found_inf.item():
        self.mul_(scale_backoff_factor)
        growth_tracker.fill_(0)
        return self
    successful = growth_tracker.item() + 1
    if successful == growth_interval:
        with np.errstate(over="ignore"):  # the kernel's float32 product
            grown = np.float32(self.item()) * np.float32(scale_growth_factor)
        if np.isfinite(grown):
            self.mul_(scale_growth_factor)
        growth_tracker.fill_(0)
    else:
        growth_tracker.fill_(successful)
    return self
