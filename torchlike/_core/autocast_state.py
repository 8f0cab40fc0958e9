"""Autocast's global switches, kept apart (as `grad_state` is) so the op dispatcher can read them
without importing `torchlike.amp`.

`ACTIVE[0]` is the dispatcher's one check per op: True while autocast is enabled for any device
type. `HOOK[0]` (installed by `torchlike.amp.dispatch`) casts an op-table row's arguments; it
runs only while `ACTIVE[0]` holds. As `grad_state`, the state is process-wide (PyTorch's is per
thread)."""

ACTIVE = [False]
HOOK = [None]
ENABLED = {}            # device type -> bool (torch.is_autocast_enabled(device_type))
DTYPE = {}              # device type -> torchlike dtype, filled by torchlike.amp.state
CACHE_ENABLED = [True]  # torch.is_autocast_cache_enabled()
NESTING = [0]           # torch.autocast_increment_nesting / autocast_decrement_nesting
CACHE = {}              # id(float32 leaf) -> (leaf, its lower-precision copy)


def refresh():
    """Recompute `ACTIVE` after a change to `ENABLED`."""
    ACTIVE[0] = any(ENABLED.values())


def any_enabled():
    """torch._C._is_any_autocast_enabled(): autocast on for some device type (also while a cast
    op runs with autocast suspended)."""
    return any(ENABLED.values())
