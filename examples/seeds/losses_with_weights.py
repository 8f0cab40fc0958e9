"""The seeds' NLLLoss / CrossEntropyLoss examples with class weights and reductions."""
import torch
import torch.nn as nn
import torch.nn.functional as F

a = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=torch.float32)
target = torch.tensor([0, 1, 2])
log_prob = F.log_softmax(a, 1)
print(log_prob)

criterion = nn.NLLLoss(weight=torch.tensor([0.2, 0.4, 1], dtype=torch.float32), reduction='none')
loss = criterion(log_prob, target)
print(loss)
print((loss / (0.2 + .4 + 1)).sum())
c2 = nn.NLLLoss(weight=torch.tensor([0.2, 0.4, 1], dtype=torch.float32))
print(c2(log_prob, target))
print(nn.NLLLoss(reduction='sum')(log_prob, target))

criterion = nn.CrossEntropyLoss(weight=torch.tensor([0.2, 0.4, 1]), reduction='none')
print(criterion(a, target))
c2 = nn.CrossEntropyLoss(weight=torch.tensor([0.2, 0.4, 1], dtype=torch.float32))
print(c2(a, target))

# the "same thing by hand" trick from the seed: pick the target entries, negate, reduce
one_hot = F.one_hot(target, 3).to(log_prob.dtype)
print(-torch.mul(log_prob, one_hot).sum(dim=1))
