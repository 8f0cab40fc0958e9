"""A plain PyTorch training script: fit a small MLP to y = sin(3x) with autograd, nn.Linear/nn.Tanh,
nn.MSELoss and a hand-written SGD-with-momentum step under no_grad.

Run it on torchlike with `python -m torchlike examples/linear_regression.py`.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.linspace(-1, 1, 256).unsqueeze(1)
y = (3 * x).sin()

model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 1))
criterion = nn.MSELoss()
velocity = [torch.zeros_like(p) for p in model.parameters()]
lr, momentum = 0.1, 0.9

print(model)
for step in range(300):
    loss = criterion(model(x), y)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p, v in zip(model.parameters(), velocity):
            v.mul_(momentum).add_(p.grad)
            p.sub_(v, alpha=lr)
    if step % 50 == 0 or step == 299:
        print(f"step {step:3d}  loss {loss.item():.6f}")
print(f"final loss {criterion(model(x), y).item():.6f}")
