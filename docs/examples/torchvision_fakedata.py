"""An image classifier with torchvision's datasets, transforms and models (run it with
`python -m torchlike docs/examples/torchvision_fakedata.py`)."""
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms

torch.manual_seed(0)
train = datasets.FakeData(size=16, image_size=(3, 32, 32), num_classes=10,
                          transform=transforms.Compose([
                              transforms.RandomCrop(32, padding=4),
                              transforms.RandomHorizontalFlip(),
                              transforms.ToTensor(),
                              transforms.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25))]))
loader = DataLoader(train, batch_size=8, shuffle=True)
model = models.mobilenet_v3_small(num_classes=10)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for epoch in range(2):
    for x, y in loader:
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: batch {tuple(x.shape)}, loss {loss.item():.2f}")
