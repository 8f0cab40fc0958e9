"""A plain PyTorch-style script: fit y = 3x - 2 + noise by gradient descent with in-place updates.

Runs unchanged with `import torch`; here it imports torchlike under that name.
"""
try:
    import torchlike as torch
except ImportError:  # the same script under real PyTorch
    import torch

torch.manual_seed(0) if hasattr(torch, "manual_seed") else None
x = torch.linspace(-1, 1, 256).unsqueeze(1)
noise = torch.linspace(0, 1, 256).unsqueeze(1).sin() * 0.1
y = 3 * x - 2 + noise

w = torch.zeros(1, 1)
b = torch.zeros(1)
lr = 0.5
for step in range(200):
    pred = x.mm(w) + b
    err = pred - y
    loss = (err * err).mean()
    # analytic gradients of the mean squared error
    grad_w = 2 * x.t().mm(err) / x.shape[0]
    grad_b = 2 * err.mean(0)
    w.sub_(lr * grad_w)
    b.sub_(lr * grad_b)
    if step % 50 == 0 or step == 199:
        print(f"step {step:3d}  loss {loss.item():.6f}")
print(f"w = {w.item():.4f}, b = {b.item():.4f}")
