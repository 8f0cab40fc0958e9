import torch

x = torch.linspace(-2, 2, 5)
print("grid ready")
y = torch.special.airy_ai(x)
print(y)
