"""Train a small CNN on scikit-learn's bundled 8x8 handwritten digits (1,797 images, offline).

A plain PyTorch script: run it with `python -m torchlike examples/digits_cnn.py` (torchlike) or
`python examples/digits_cnn.py` (real PyTorch). It shows a tqdm progress bar, prints the test
accuracy, saves the training curve as a PNG and the model with torch.save, then reloads the
checkpoint into a fresh model and checks it predicts the same.
"""
import argparse
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402
from tqdm import tqdm  # noqa: E402


class DigitsNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.dropout(torch.flatten(x, 1))
        return self.fc2(F.relu(self.fc1(x)))


def evaluate(model, loader):
    model.eval()
    device = next(model.parameters()).device
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            correct += (model(xb).argmax(1) == yb).sum().item()
            total += yb.numel()
    return correct / total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--out", default="digits_out")
    args = parser.parse_args()
    torch.manual_seed(0)

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]        # N x 1 x 8 x 8
    x_train, x_test, y_train, y_test = train_test_split(
        images, digits.target, test_size=0.2, random_state=0, stratify=digits.target)
    train = TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
    test = TensorDataset(torch.from_numpy(x_test), torch.from_numpy(y_test))
    print(f"train {len(train)} images, test {len(test)} images, {images.shape[1:]} each")
    train_loader = DataLoader(train, batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(test, batch_size=256)

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = DigitsNet().to(device)
    print(model)
    print("parameters:", sum(p.numel() for p in model.parameters()))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=max(1, args.epochs // 2),
                                                gamma=0.5)
    losses, accuracies = [], []
    for epoch in range(args.epochs):
        model.train()
        running = 0.0
        bar = tqdm(train_loader, desc=f"epoch {epoch + 1}/{args.epochs}", leave=False)
        for xb, yb in bar:
            xb, yb = xb.to(device), yb.to(device)
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item() * len(yb)
            bar.set_postfix(loss=f"{loss.item():.3f}")
        scheduler.step()
        losses.append(running / len(train))
        accuracies.append(evaluate(model, test_loader))
        tqdm.write(f"epoch {epoch + 1}: train loss {losses[-1]:.4f}  "
                   f"test accuracy {accuracies[-1]:.4f}")

    accuracy = evaluate(model, test_loader)
    print(f"test accuracy: {accuracy:.4f}")

    os.makedirs(args.out, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(range(1, args.epochs + 1), losses, label="train loss")
    ax.plot(range(1, args.epochs + 1), accuracies, label="test accuracy")
    ax.set_xlabel("epoch")
    ax.legend()
    fig.savefig(os.path.join(args.out, "training_curve.png"), dpi=100)
    path = os.path.join(args.out, "digits_cnn.pt")
    torch.save(model.state_dict(), path)

    restored = DigitsNet().to(device)
    restored.load_state_dict(torch.load(path, map_location=device))
    same = evaluate(restored, test_loader) == accuracy
    print(f"saved {path}; reloaded model gives the same accuracy: {same}")


if __name__ == "__main__":
    main()
