"""The seeds' custom autograd Function (`LinearFunction`) and the `Linear` module built on it,
verbatim, trained for a few steps and checked with gradcheck."""
import torch
import torch.nn as nn
from torch.autograd import Function, gradcheck


# Inherit from Function
class LinearFunction(Function):

    # Note that both forward and backward are @staticmethods
    @staticmethod
    # bias is an optional argument
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    # This function has only a single output, so it gets only one gradient
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_variables
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0).squeeze(0)
        return grad_input, grad_weight, grad_bias


class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super(Linear, self).__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.Tensor(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.Tensor(output_features))
        else:
            self.register_parameter('bias', None)
        # Not a very smart way to initialize weights
        self.weight.data.uniform_(-0.1, 0.1)
        if bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)


if __name__ == "__main__":
    inputs = (torch.randn(20, 20, dtype=torch.double, requires_grad=True),
              torch.randn(30, 20, dtype=torch.double, requires_grad=True))
    print("gradcheck:", gradcheck(LinearFunction.apply, inputs, eps=1e-6, atol=1e-4))

    layer = Linear(3, 2)
    print(layer)
    print([name for name, _ in layer.named_parameters()])
    with torch.no_grad():    # fixed weights, so both libraries print the same numbers
        layer.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        layer.bias.copy_(torch.tensor([0.05, -0.05]))
    x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    target = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    out = layer(x)
    print(out)
    print(out.grad_fn.__class__.__name__)
    for step in range(5):
        loss = ((layer(x) - target) ** 2).mean()
        layer.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in layer.parameters():
                p.sub_(0.1 * p.grad)
        print(f"step {step}: loss {loss.item():.6f}")
    print(layer.weight.grad)
