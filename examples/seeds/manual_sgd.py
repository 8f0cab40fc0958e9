"""The seed's manual SGD loop: in-place `sub_` under no_grad, then `grad.zero_()`."""
import torch

feature = torch.tensor([[1.0, 2.0], [2.0, 1.0], [3.0, 0.5], [0.5, 3.0]])
label = torch.tensor([[5.0], [4.0], [4.5], [6.5]])
weight = torch.tensor([[0.1], [0.1]], requires_grad=True)
bias = torch.tensor([0.0], requires_grad=True)
lr, epochs = 0.01, 20

for i in range(epochs):
    predict = torch.mm(feature, weight) + bias
    loss = ((predict - label) ** 2).sum(dim=0)
    loss.backward()
    # Disable the autograd
    with torch.no_grad():
        # Inplace changes
        weight.sub_(weight.grad * lr)
        bias.sub_(bias.grad * lr)
        # Do the reset in no grad mode as well in case you do second order
        # derivatives later (meaning that weight.grad will requires_grad)
        weight.grad.zero_()
        bias.grad.zero_()
    if i % 5 == 0 or i == epochs - 1:
        print(f"epoch {i}: loss {loss.item():.5f}")
print(weight, bias, sep="\n")
print(weight.is_leaf, weight.grad, weight.requires_grad)

# The mistake the seed warns about: `weight = weight - weight.grad * lr` makes a new non-leaf
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w * w).sum().backward()
w = w - w.grad * lr
print(w.is_leaf, w.grad_fn is not None)
try:
    w.grad.zero_()
except AttributeError as e:
    print("AttributeError:", e)
