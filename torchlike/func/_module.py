"""Modules as functions of their state: `functional_call`, `stack_module_state`,
`replace_all_batch_norm_modules_`."""
import contextlib

from .._core.tensor import Tensor

_MISSING = object()


def _merge(dicts):
    if isinstance(dicts, dict):
        return dicts
    if isinstance(dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts = {}
        for d in dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        return {k: v for d in dicts for k, v in d.items()}
    raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                     f"dicts, but got {type(dicts)}")


def _named_tensors(module):
    out = dict(module.named_parameters(remove_duplicate=False))
    out.update(module.named_buffers(remove_duplicate=False))
    return out


def _untie(module, given):
    """`given` completed with every name tied to a given tensor (one value per tied group)."""
    groups = {}
    for name, t in _named_tensors(module).items():
        groups.setdefault(id(t), set()).add(name)
    tied = {n: g for g in groups.values() if len(g) > 1 for n in g}
    given_tied = [n for n in given if n in tied]
    for n in given_tied:
        names = tied[n]
        if len(names.intersection(given_tied)) > 1 and \
                len({id(given[m]) for m in names if m in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                             "which are tied. Consider using tie_weights=False")
    out = dict(given)
    for n in given_tied:
        for m in tied[n]:
            out[m] = given[n]
    return out


def _check_keys(module, given):
    valid = set(_named_tensors(module))
    missing, unexpected = sorted(valid - set(given)), sorted(set(given) - valid)
    msgs = []
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" +
                           "\n\t".join(msgs))


def _swap(module, name, value):
    """Put `value` at dotted `name` (a parameter, buffer or plain attribute slot); return what
    was there (`_MISSING` if nothing)."""
    *path, leaf = name.split(".")
    for p in path:
        module = getattr(module, p)
    for slots in (module._parameters, module._buffers):
        if leaf in slots:
            old = slots[leaf]
            if value is _MISSING:
                del slots[leaf]
            else:
                slots[leaf] = value
            return old
    old = module.__dict__.get(leaf, _MISSING)
    if value is _MISSING:
        module.__dict__.pop(leaf, None)
    else:
        module.__dict__[leaf] = value
    return old


@contextlib.contextmanager
def _reparametrized(module, given, tie_weights, strict):
    values = _untie(module, given) if tie_weights else given
    if strict:
        _check_keys(module, values)
    originals = {}
    try:
        for name, v in values.items():
            if not isinstance(v, Tensor):
                raise TypeError(f"{v} is not an instance of torch.Tensor")
            originals[name] = _swap(module, name, v)
        yield
    finally:
        final = {name: _swap(module, name, old) for name, old in originals.items()}
        given.update({k: final[k] for k in given if k in final})


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Mirrors `torch.func.functional_call`: call `module` with its parameters and buffers
    replaced by the given tensors (in-place updates of buffers land in the given tensors)."""
    given = _merge(parameter_and_buffer_dicts)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, given, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def _stacked(tensors, name):
    from .. import stack
    grads = [t.requires_grad for t in tensors]
    if any(grads) and not all(grads):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = stack(tensors)
    return out.detach().requires_grad_() if all(grads) else out


def stack_module_state(models):
    """Mirrors `torch.func.stack_module_state`: `(params, buffers)`, each tensor the models'
    tensors stacked on a new leading dimension (stacked parameters are new leaves)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    out = []
    for named in ("named_parameters", "named_buffers"):
        each = [dict(getattr(m, named)()) for m in models]
        out.append({k: _stacked([d[k] for d in each], k) for k in each[0]})
    return tuple(out)


def replace_all_batch_norm_modules_(root):
    """Mirrors `torch.func.replace_all_batch_norm_modules_`: batch norms stop tracking running
    statistics (so they work under vmap)."""
    from ..nn.modules.batchnorm import _BatchNorm
    for m in root.modules():
        if isinstance(m, _BatchNorm) and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
