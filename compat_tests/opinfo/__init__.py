"""PyTorch's OpInfo operator database driven through torchlike, compared with PyTorch.

`op_db` (torch.testing._internal.common_methods_invocations) is PyTorch's own test data: for every
operator, the dtypes it supports on CPU, sample inputs, error inputs and autograd support. It is
imported from the installed PyTorch and used as an oracle; nothing of it is copied into torchlike.
"""


def load_op_db():
    """PyTorch's `op_db`. Importing PyTorch's test utilities freezes `torch.backends`' global
    flags (`torch.backends.disable_global_flags()`, for PyTorch's own suite); the flags are
    unfrozen again, so that the other tests in this process can set them as users do."""
    import torch.backends
    from torch.testing._internal.common_methods_invocations import op_db
    # (the flag lives in the globals of torch/backends/__init__.py's functions)
    torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True
    return op_db
