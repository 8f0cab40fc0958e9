"""PyTorch's OpInfo operator database driven through torchlike, compared with PyTorch.

`op_db` (torch.testing._internal.common_methods_invocations) is PyTorch's own test data: for every
operator, the dtypes it supports on CPU, sample inputs, error inputs and autograd support. It is
imported from the installed PyTorch and used as an oracle; nothing of it is copied into torchlike.
"""
