"""Mirrors `torch.nn.utils.prune`: pruning a module's tensor `name` moves the parameter to
`name_orig`, registers the 0/1 buffer `name_mask`, and adds a forward pre-hook (the pruning
method itself) that recomputes the plain attribute `name = name_mask * name_orig` before every
forward. Pruning the same tensor again composes the masks through a `PruningContainer`; `remove`
makes the pruning permanent.

Entries and channels are chosen with `torch.topk`/`torch.kthvalue` and drawn with `torch.rand`/
`torch.rand_like`, the calls PyTorch makes, so masks and random streams follow PyTorch's; where
several candidates tie at the cut, `topk` keeps them in stable (index) order, which PyTorch's CPU
kernel does not promise (see the Differences page)."""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from .convert_parameters import parameters_to_vector


def _torch():
    import torchlike
    return torchlike


class BasePruningMethod(ABC):
    """Mirrors `torch.nn.utils.prune.BasePruningMethod`: subclasses define `compute_mask` and a
    `PRUNING_TYPE` ("unstructured", "structured" with a `dim`, or "global")."""

    _tensor_name: str

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for `t`, respecting `default_mask` (the previous one)."""

    def apply_mask(self, module):
        """The pruned tensor: the module's mask (as the original's dtype) times its original."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune `module.name` with `cls(*args, **kwargs)`, composing with earlier pruning."""
        method = _composite_method(cls, module, name, args, kwargs)
        orig = getattr(module, name)
        scores = _scores(importance_scores, orig, f"parameter {name} of {module}")
        first = not isinstance(method, PruningContainer)
        if first:
            _move_parameter(module, name, name + "_orig")
            default_mask = _torch().ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(
                memory_format=_torch().contiguous_format)
        try:
            module.register_buffer(name + "_mask",
                                   method.compute_mask(scores, default_mask=default_mask))
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:
                _move_parameter(module, name + "_orig", name)
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """`t` times the mask this method computes for it (from `importance_scores` if given)."""
        scores = _scores(importance_scores, t, "tensor t")
        if default_mask is None:
            default_mask = _torch().ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: `name` becomes a Parameter holding the pruned values, and
        `name_orig` / `name_mask` go away."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 f"removed")
        name = self._tensor_name
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = pruned.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _composite_method(cls, module, name, args, kwargs):
    """The method to hook for pruning `name` once more: a new `cls(...)`, or, if `name` is
    already pruned, the old hook (taken off the module) in a container with the new one last."""
    hooks = module._forward_pre_hooks
    keys = [k for k, hook in hooks.items()
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(keys) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of "
                             f"module {module}. Use a PruningContainer.")
    old = hooks.pop(keys[0]) if keys else None
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old is None:
        return method
    if not isinstance(old, PruningContainer):
        old = PruningContainer(old)
    old.add_pruning_method(method)
    return old


def _scores(importance_scores, t, what):
    """`importance_scores` (checked to have `t`'s shape), or `t` itself."""
    if importance_scores is None:
        return t
    if importance_scores.shape != t.shape:
        raise AssertionError(f"importance_scores should have the same shape as {what}, got "
                             f"{importance_scores.shape} vs {t.shape}")
    return importance_scores


def _move_parameter(module, src, dst):
    """Re-register parameter `src` of `module` under the name `dst` (appended last)."""
    module.register_parameter(dst, getattr(module, src))
    del module._parameters[src]


class PruningContainer(BasePruningMethod):
    """Mirrors `torch.nn.utils.prune.PruningContainer`: the pruning methods applied in turn to
    one tensor; its mask is the latest method's, computed on what earlier ones left."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append `method` (acting on this container's tensor)."""
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """`default_mask` with the latest method's mask written over the part it still keeps
        (kept entries, kept channels along the method's `dim`, or everything for "global")."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        region = _unpruned_region(method, t, default_mask)
        partial = method.compute_mask(t[region], default_mask=default_mask[region])
        new_mask[region] = partial.to(dtype=new_mask.dtype)
        return new_mask


def _unpruned_region(method, t, mask):
    """The index selecting the part of `t` that `method` prunes next, given the mask so far."""
    kind = method.PRUNING_TYPE
    if kind == "unstructured":
        return mask == 1
    if kind == "global":
        return (slice(None),) * len(t.shape)
    if kind != "structured":
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
    if not hasattr(method, "dim"):
        raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the '
                             'attribute `dim` defined.')
    ndim = t.dim()
    dim = method.dim + ndim if method.dim < 0 else method.dim
    if dim < 0:
        raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
    region = [slice(None)] * ndim
    region[dim] = mask.sum(dim=[d for d in range(ndim) if d != dim]) != 0
    return tuple(region)


class Identity(BasePruningMethod):
    """Mirrors `torch.nn.utils.prune.Identity`: the reparametrization with a mask of ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Mirrors `torch.nn.utils.prune.RandomUnstructured`: prunes `amount` random entries."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=_torch().contiguous_format)
        if count:
            _zero_top(mask, _torch().rand_like(t), count, largest=True)
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Mirrors `torch.nn.utils.prune.L1Unstructured`: prunes the `amount` entries of smallest
    absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=_torch().contiguous_format)
        if count:
            _zero_top(mask, _torch().abs(t), count, largest=False)
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _zero_top(mask, scores, count, largest):
    """Zero (in place) the entries of `mask` where `scores` holds its `count` top values."""
    indices = _torch().topk(scores.view(-1), k=count, largest=largest).indices
    mask.view(-1)[indices] = 0


class RandomStructured(BasePruningMethod):
    """Mirrors `torch.nn.utils.prune.RandomStructured`: prunes `amount` random channels along
    `dim`."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        size, count = _channels_to_prune(t, self.dim, self.amount)
        if not count:
            return default_mask
        prob = _torch().rand(size)
        keep = prob > _torch().kthvalue(prob, k=count).values
        return _channel_mask(t, self.dim, keep, default_mask)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Mirrors `torch.nn.utils.prune.LnStructured`: prunes the `amount` channels along `dim` of
    smallest `torch.norm(p=n)`."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        size, count = _channels_to_prune(t, self.dim, self.amount)
        norm = _norm_per_channel(t, self.n, self.dim)
        keep = _torch().topk(norm, k=size - count, largest=True).indices
        if not count:
            return default_mask
        return _channel_mask(t, self.dim, keep, default_mask)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


def _channels_to_prune(t, dim, amount):
    """(number of channels of `t` along `dim`, how many of them `amount` prunes), validated."""
    if len(t.shape) <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {len(t.shape)} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")
    size = t.shape[dim]
    return size, _count_to_prune(amount, size)


def _norm_per_channel(t, n, dim):
    """The `n`-norm of each channel of `t` along `dim` (over all the other dims)."""
    dims = list(range(t.dim()))
    dims.remove(dims[dim])
    return _torch().norm(t, p=n, dim=dims)


def _channel_mask(t, dim, channels, default_mask):
    """Ones on `channels` (a bool mask or indices along `dim`), zeros elsewhere, times
    `default_mask`."""
    mask = _torch().zeros_like(t)
    index = [slice(None)] * len(t.shape)
    index[dim] = channels
    mask[tuple(index)] = 1
    mask *= default_mask.to(dtype=mask.dtype)
    return mask


class CustomFromMask(BasePruningMethod):
    """Mirrors `torch.nn.utils.prune.CustomFromMask`: prunes where the given `mask` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask "
                                 f"shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _check_amount(amount):
    """PyTorch's checks on `amount` at construction: a fraction in [0, 1] or a count >= 0."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral):
        bad = amount < 0
    else:
        bad = float(amount) > 1.0 or float(amount) < 0.0  # (NaN passes, as in PyTorch)
    if bad:
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         f"non-negative integer")


def _count_to_prune(amount, size):
    """How many of `size` units `amount` (a count, or a fraction rounded) prunes, checked."""
    count = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if isinstance(count, numbers.Integral) and count > size:
        raise ValueError(f"amount={count} should be smaller than the number of parameters to "
                         f"prune={size}")
    return count


def identity(module, name):
    """Mirrors `torch.nn.utils.prune.identity`."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Mirrors `torch.nn.utils.prune.random_unstructured`."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Mirrors `torch.nn.utils.prune.l1_unstructured`."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Mirrors `torch.nn.utils.prune.random_structured`."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Mirrors `torch.nn.utils.prune.ln_structured`."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Mirrors `torch.nn.utils.prune.custom_from_mask`."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Mirrors `torch.nn.utils.prune.global_unstructured`: one unstructured mask computed over
    all the `(module, name)` tensors together, then applied to each with `custom_from_mask`.
    (Like PyTorch's, it walks `parameters` more than once, so pass a list, not a generator.)"""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    if importance_scores is None:
        importance_scores = {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector([importance_scores.get((module, name), getattr(module, name))
                                   for module, name in parameters])
    default_mask = parameters_to_vector([
        getattr(module, name + "_mask", _torch().ones_like(getattr(module, name)))
        for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    mask = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        tensor = getattr(module, name)
        custom_from_mask(module, name, mask=mask[start:start + tensor.numel()].view_as(tensor))
        start += tensor.numel()


def remove(module, name):
    """Mirrors `torch.nn.utils.prune.remove`: make the pruning of `module.name` permanent and
    drop its hook."""
    hooks = module._forward_pre_hooks
    for key, hook in hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     f"can be removed")


def is_pruned(module):
    """Mirrors `torch.nn.utils.prune.is_pruned`: whether any submodule has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())
