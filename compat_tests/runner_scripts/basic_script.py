"""A plain PyTorch script: run by real Python with real torch and by `python -m torchlike`;
the test compares what they print."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd

from helper_mod import double

if __name__ == "__main__":
    print("argv", sys.argv[1:])
    x = torch.arange(6, dtype=torch.float32).view(2, 3)
    print(double(x))
    lin = nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]]))
        lin.bias.fill_(0.1)
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = F.relu(lin(x * w)).sum()
    (g,) = autograd.grad(y, w)
    print(y, g)
    print(torch.cuda.is_available(), isinstance(x, torch.Tensor), torch.float32)
