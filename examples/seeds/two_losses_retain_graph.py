"""GAN-style training with two losses sharing layers: `d_loss.backward(retain_graph=True)` keeps
the graph for `g_loss.backward()` (the seed's `backprop(D=True, G=True)`); a second backward
through a freed graph fails with PyTorch's error."""
import torch
import torch.nn as nn


def fixed_init(model):
    """Deterministic weights, so both libraries print the same numbers."""
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).view_as(p) * (1 + 0.1 * i))


generator = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
discriminator = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
fixed_init(generator)
fixed_init(discriminator)
g_optimizer = torch.optim.SGD(generator.parameters(), lr=0.05)
d_optimizer = torch.optim.SGD(discriminator.parameters(), lr=0.05)
bce = nn.BCEWithLogitsLoss()
noise = torch.linspace(-1, 1, 16 * 4).view(16, 4)
real = torch.stack([torch.linspace(0, 1, 16), torch.linspace(1, 0, 16)], dim=1)


def losses():
    fake = generator(noise)
    d_loss = bce(discriminator(real), torch.ones(16, 1)) + \
        bce(discriminator(fake), torch.zeros(16, 1))
    g_loss = bce(discriminator(fake), torch.ones(16, 1))
    return {'d_loss': d_loss, 'g_loss': g_loss}


def backprop(loss, D=True, G=True):
    # Both backward passes run before either optimizer steps: stepping D first would modify in
    # place the weights g_loss's graph saved, and g_loss.backward() would then raise PyTorch's
    # "modified by an inplace operation" error.
    if D:
        d_optimizer.zero_grad()
        loss['d_loss'].backward(retain_graph=G)
    if G:
        g_optimizer.zero_grad()
        loss['g_loss'].backward(inputs=list(generator.parameters()))
    if D:
        d_optimizer.step()
    if G:
        g_optimizer.step()


for step in range(10):
    loss = losses()
    backprop(loss)
    print(f"step {step}: d_loss {loss['d_loss'].item():.5f}  g_loss {loss['g_loss'].item():.5f}")

loss = losses()
total = loss['d_loss'] + loss['g_loss']
total.backward()
try:
    total.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
