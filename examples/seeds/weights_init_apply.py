"""The seeds' weight initialisation through `Module.apply` (both versions: `weights_init(m)` and
the `weights_init(init_type)` factory used by PartialConv)."""
import math

import torch
import torch.nn as nn


def weights_init(m):
    if isinstance(m, nn.Conv2d):
        torch.nn.init.xavier_uniform_(m.weight.data, nn.init.calculate_gain('relu'))
        m.bias.data.zero_()
    elif isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, 0.0, 0.02)
        m.bias.data.fill_(0.01)


def weights_init_factory(init_type='gaussian'):
    def init_fun(m):
        classname = m.__class__.__name__
        if (classname.find('Conv') == 0 or classname.find(
                'Linear') == 0) and hasattr(m, 'weight'):
            if init_type == 'gaussian':
                nn.init.normal_(m.weight, 0.0, 0.02)
            elif init_type == 'xavier':
                nn.init.xavier_normal_(m.weight, gain=math.sqrt(2))
            elif init_type == 'kaiming':
                nn.init.kaiming_normal_(m.weight, a=0, mode='fan_in')
            elif init_type == 'orthogonal':
                nn.init.orthogonal_(m.weight, gain=math.sqrt(2))
            elif init_type == 'default':
                pass
            else:
                assert 0, "Unsupported initialization: {}".format(init_type)
            if hasattr(m, 'bias') and m.bias is not None:
                nn.init.constant_(m.bias, 0.0)
    return init_fun


model = nn.Sequential(nn.Conv2d(3, 64, 3), nn.ReLU(), nn.Flatten(), nn.Linear(64 * 6 * 6, 256))
model.apply(weights_init)
conv, lin = model[0], model[3]
bound = nn.init.calculate_gain('relu') * math.sqrt(6.0 / (3 * 9 + 64 * 9))
print("calculate_gain('relu') =", nn.init.calculate_gain('relu'))
print("conv weight within xavier bound:", bool(conv.weight.abs().max() <= bound))
print("conv bias all zero:", bool((conv.bias == 0).all()))
print("linear std near 0.02:", abs(lin.weight.std().item() - 0.02) < 0.002)
print("linear bias all 0.01:", bool((lin.bias == 0.01).all()))

for kind in ['gaussian', 'xavier', 'kaiming', 'orthogonal', 'default']:
    conv = nn.Conv2d(8, 16, 3)
    conv.apply(weights_init_factory(kind))
    w = conv.weight.detach().view(16, -1)
    checks = {'gaussian': lambda: abs(w.std().item() - 0.02) < 0.005,
              'xavier': lambda: abs(w.std().item() - math.sqrt(2) * math.sqrt(2 / (72 + 144)))
              < 0.02,
              'kaiming': lambda: abs(w.std().item() - math.sqrt(2 / 72)) < 0.03,
              'orthogonal': lambda: torch.allclose(w @ w.t(), 2 * torch.eye(16), atol=1e-4),
              'default': lambda: True}
    print(kind, "init as expected:", checks[kind](),
          "bias zero:", bool((conv.bias == 0).all()) if kind != 'default' else None)
