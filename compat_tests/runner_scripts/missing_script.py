import torch

x = torch.ones(4, 4)
print("before")
y = torch.fft.rfft2(x)
print("after")
