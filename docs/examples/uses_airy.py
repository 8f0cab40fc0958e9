import torch

signal = torch.ones(8)
print("signal ready")
spectrum = torch.fft.fft(signal)
print(spectrum)
