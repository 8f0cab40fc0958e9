"""An unmodified PyTorch script: fit y = 2x + 1 with nn.Linear, MSELoss and plain SGD."""
import sys

import torch
from torch import nn

x = torch.linspace(-1, 1, 32).unsqueeze(1)
y = 2 * x + 1
model = nn.Linear(1, 1)
with torch.no_grad():                    # a fixed start, so every run prints the same
    model.weight.fill_(0.5)
    model.bias.zero_()
lr = float(sys.argv[1]) if len(sys.argv) > 1 else 0.1

for step in range(100):
    loss = nn.functional.mse_loss(model(x), y)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    if step % 25 == 0:
        print(f"step {step:2d}  loss {loss.item():.4f}")
print(f"weight {model.weight.item():.3f}  bias {model.bias.item():.3f}")
print(type(torch.tensor(0.0)).__module__.split(".")[0])
