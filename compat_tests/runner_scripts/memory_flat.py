"""A GRU language model trained with Adam, sampling names and reading a weight with .numpy()
every 50 steps; prints the process's resident memory (MB) at each of those points as JSON.
Run by test_memory_flat.py: after warm-up it must not grow."""
import json
import os

import torchlike as torch

nn = torch.nn
F = nn.functional


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


class CharModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30, 32)
        self.rnn = nn.GRU(32, 64, batch_first=True)
        self.out = nn.Linear(64, 30)

    def forward(self, x, h=None):
        y, h = self.rnn(self.emb(x), h)
        return self.out(y), h


def sample(model):
    with torch.no_grad():
        x, h, out = torch.zeros(1, 1, dtype=torch.long), None, []
        for _ in range(8):
            logits, h = model(x, h)
            x = torch.multinomial(F.softmax(logits[:, -1], -1), 1)
            out.append(x.item())
    return out


def main():
    torch.manual_seed(0)
    model = CharModel()
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    marks = []
    for step in range(501):
        x, y = torch.randint(0, 30, (16, 12)), torch.randint(0, 30, (16, 12))
        logits, _ = model(x)
        loss = F.cross_entropy(logits.reshape(-1, 30), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss.item()
        if step % 50 == 0:
            sample(model)
            model.emb.weight.detach().numpy()
            marks.append(rss_mb())
    print(json.dumps(marks))


if __name__ == "__main__":
    main()
