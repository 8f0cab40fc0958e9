import torch

x = torch.ones(4, 4)
print("before")
y = torch.special.airy_ai(x)
print("after")
