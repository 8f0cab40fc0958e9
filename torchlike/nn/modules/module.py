"""Mirrors `torch.nn.Module`: parameter/buffer/submodule registration, traversal, state dicts,
hooks, device/dtype moves and PyTorch's repr."""
import functools
import itertools
from collections import OrderedDict, namedtuple

from ..._core import grad_state
from ..._core.tensor import Tensor
from ...autograd.graph import RemovableHandle
from ..parameter import Buffer, Parameter

_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"   # the state-dict key of `get_extra_state()`


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _torch_module_name(mod):
    if mod == "torchlike" or mod.startswith("torchlike."):
        return "torch" + mod[len("torchlike"):]
    return mod


def _torch_class_str(cls):
    """`str(cls)` as PyTorch prints it (`<class 'torch.nn...'>` for torchlike's classes)."""
    mod = _torch_module_name(cls.__module__)
    name = cls.__qualname__
    return f"<class '{name}'>" if mod == "builtins" else f"<class '{mod}.{name}'>"


def _typename(obj):
    """Mirrors `torch.typename`."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    module = _torch_module_name(module)
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def _addindent(s, num_spaces):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in lines)


class Module:
    """Mirrors `torch.nn.Module`."""

    dump_patches = False
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if kwargs and not self.call_super_init:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args and not self.call_super_init:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks_always_called"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()
        d["_modules"] = {}

    def forward(self, *input):
        """Mirrors the default `Module.forward`: subclasses must define it."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  f'"forward" function')

    # ---- registration ---------------------------------------------------------------------------

    def register_buffer(self, name, tensor, persistent=True):
        """Mirrors `Module.register_buffer`."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            f"(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Mirrors `Module.register_parameter` (None allowed)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            f"(torch.nn.Parameter or None required)")
        elif param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             f"function of another Tensor, compute the value in the forward() "
                             f"method.")
        else:
            self._parameters[name] = param

    def add_module(self, name, module):
        """Mirrors `Module.add_module`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")

        def remove_from(*dicts_or_sets):
            for ds in dicts_or_sets:
                if name in ds:
                    if isinstance(ds, dict):
                        del ds[name]
                    else:
                        ds.discard(name)

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, d["_buffers"], d["_modules"], d["_non_persistent_buffers_set"])
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                f"(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, d["_parameters"], d["_buffers"], d["_non_persistent_buffers_set"])
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer "
                                        f"'{name}' (torch.nn.Buffer, torch.Tensor or None "
                                        f"expected)")
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                    else:
                        persistent = name not in d["_non_persistent_buffers_set"]
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d:
            p = d["_parameters"]
            if name in p:
                return p[name]
        if "_buffers" in d:
            b = d["_buffers"]
            if name in b:
                return b[name]
        if "_modules" in d:
            m = d["_modules"]
            if name in m:
                return m[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self))
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # ---- traversal ------------------------------------------------------------------------------

    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                name = module_prefix + ("." if module_prefix else "") + k
                yield name, v

    def parameters(self, recurse=True):
        """Mirrors `Module.parameters`."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Mirrors `Module.named_parameters`."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        """Mirrors `Module.named_children`."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Mirrors `Module.named_modules`."""
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    def get_submodule(self, target):
        """Mirrors `Module.get_submodule`."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return getattr(mod, buffer_name)

    # ---- modes ----------------------------------------------------------------------------------

    def apply(self, fn):
        """Mirrors `Module.apply`: `fn` on every submodule (children first), then self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def train(self, mode=True):
        """Mirrors `Module.train`."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Mirrors `Module.zero_grad`."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_())

    # ---- device and dtype -----------------------------------------------------------------------

    def _apply(self, fn, recurse=True):
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with grad_state_off():
                applied = fn(param)
            param.data = applied
            if param.grad is not None:
                with grad_state_off():
                    g = fn(param.grad)
                param.grad.data = g
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """Mirrors `Module.to(device | dtype | tensor)`: floating parameters and buffers change
        dtype, everything changes device."""
        from ..._ops.conversion import _parse_to
        dtype, device, _, memory_format = _parse_to(args, dict(kwargs))
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")

        def convert(t):
            d = dtype if dtype is not None and (t.is_floating_point() or t.is_complex()) else None
            if memory_format is not None and t.dim() in (4, 5):  # the weights of convolutions
                return t.to(device=device, dtype=d, memory_format=memory_format)
            return t.to(device=device, dtype=d)
        return self._apply(convert)

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device=None, recurse=True):
        from ... import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    # ---- calling and hooks ------------------------------------------------------------------------

    def _get_backward_hooks(self):
        full, non_full = [], []
        if self._is_full_backward_hook is True:
            full = list(self._backward_hooks.values())
        elif self._is_full_backward_hook is False:
            non_full = list(self._backward_hooks.values())
        return full, non_full

    def _call_impl(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks or
                self._backward_pre_hooks or _global_forward_hooks or _global_forward_pre_hooks):
            return self.forward(*args, **kwargs)
        result = None
        called_always = set()

        def inner():
            nonlocal result, args, kwargs
            full_hooks, non_full_hooks = self._get_backward_hooks()
            pre_bw_hooks = list(self._backward_pre_hooks.values())
            for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                  *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    res = hook(self, args, kwargs)
                    if res is not None:
                        if isinstance(res, tuple) and len(res) == 2:
                            args, kwargs = res
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {res}.")
                else:
                    res = hook(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)
            bw = None
            if full_hooks or pre_bw_hooks:
                from .hooks import BackwardHook
                bw = BackwardHook(self, full_hooks, pre_bw_hooks)
                args = bw.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or \
                        hook_id in _global_forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res
            if bw is not None:
                if not isinstance(result, (Tensor, tuple)):
                    import warnings
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  "Tensor or a tuple of Tensors but received "
                                  f"{type(result)}", stacklevel=2)
                result = bw.setup_output_hook(result)
            if non_full_hooks:
                var = result
                while not isinstance(var, Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, Tensor))
                    else:
                        var = var[0]
                if var.grad_fn is not None:
                    for hook in non_full_hooks:
                        var.grad_fn.register_hook(
                            functools.partial(_call_old_backward_hook, hook, self))
            return result

        try:
            return inner()
        except Exception:
            import warnings
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if (hook_id in self._forward_hooks_always_called or
                        hook_id in _global_forward_hooks_always_called) and \
                        hook_id not in called_always:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            res = hook(self, args, kwargs, result)
                        else:
                            res = hook(self, args, result)
                        if res is not None:
                            result = res
                    except Exception as e:  # noqa: BLE001 - warned like PyTorch
                        warnings.warn("global module forward hook with ``always_call=True`` "
                                      "raised an exception that was silenced as another error "
                                      f"was raised in forward: {str(e)}", stacklevel=2)
                        continue
            raise

    __call__ = _call_impl

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Mirrors `Module.register_forward_pre_hook`."""
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """Mirrors `Module.register_forward_hook`."""
        handle = RemovableHandle(self._forward_hooks, extra_dict=[
            self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """Mirrors `Module.register_full_backward_hook`: `hook(module, grad_input,
        grad_output)` may return a replacement grad_input."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    # ---- state dicts ----------------------------------------------------------------------------

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        extra = getattr(type(self), "get_extra_state", None)
        if extra is not None and extra is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Mirrors `Module.state_dict`: an OrderedDict of detached tensors, with `_metadata`."""
        if args:
            import warnings
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn."
                          "Module.state_dict for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if res is not None:
                    destination = res
            elif res is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/"
                           "issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/"
                           "issues/new?template=bug-report.yml to report this bug.")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Mirrors `Module._load_from_state_dict` (this module's own parameters and buffers)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                        persistent.items()) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  f"torch.Tensor or Tensor-like object from checkpoint but "
                                  f"received {type(input_param)}")
                continue
            if len(param.shape) == 0 and len(input_param.shape) == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{input_param.shape} from checkpoint, the shape in current "
                                  f"model is {param.shape}.")
                continue
            try:
                with grad_state_off():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(input_param, Parameter):
                                input_param = Parameter(input_param,
                                                        requires_grad=param.requires_grad)
                            else:
                                input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:  # noqa: BLE001 - reported like PyTorch does
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions '
                                  f"in the model are {param.size()} and whose dimensions in the "
                                  f"checkpoint are {input_param.size()}, an exception occurred : "
                                  f"{ex.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(type(self), "set_extra_state", Module.set_extra_state) is not \
                Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Mirrors `Module.load_state_dict`: PyTorch's missing/unexpected/size-mismatch errors
        and its `_IncompatibleKeys` return value."""
        from collections.abc import Mapping
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state_dict.items()
                                   if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible)
                if out is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not"
                        "expected to return new values, if incompatible_keys need to be modified,"
                        "it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def register_state_dict_pre_hook(self, hook):
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """Mirrors `Module.register_state_dict_post_hook` (the hook must return None)."""
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook):
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        if with_module:
            self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self)
        else:
            self._load_state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ---- repr and pickling -----------------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)


class grad_state_off:
    def __enter__(self):
        self.prev = grad_state.ENABLED[0]
        grad_state.ENABLED[0] = False

    def __exit__(self, *a):
        grad_state.ENABLED[0] = self.prev


def register_module_forward_pre_hook(hook):
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _call_old_backward_hook(hook, module, grad_input, grad_output):
    return hook(module, grad_input, grad_output)
