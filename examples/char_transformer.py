"""A character-level transformer language model, trained briefly on Shakespeare's sonnets (public
domain, `examples/data/sonnets.txt`), then sampled.

A plain PyTorch script: `python -m torchlike examples/char_transformer.py` runs it on torchlike,
`python examples/char_transformer.py` on real PyTorch.
"""
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


class CharTransformer(nn.Module):
    def __init__(self, vocab, block, dim=64, heads=4, layers=2):
        super().__init__()
        self.block = block
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, block, dim))
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=4 * dim, dropout=0.1,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)
        mask = torch.triu(torch.full((block, block), float("-inf")), diagonal=1)
        self.register_buffer("causal", mask, persistent=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.embed(idx) + self.pos[:, :t]
        x = self.encoder(x, mask=self.causal[:t, :t], is_causal=True)
        return self.head(self.norm(x))


def batches(data, block, batch_size, generator):
    starts = torch.randint(0, len(data) - block - 1, (batch_size,), generator=generator)
    x = torch.stack([data[s:s + block] for s in starts.tolist()])
    y = torch.stack([data[s + 1:s + block + 1] for s in starts.tolist()])
    return x, y


@torch.no_grad()
def sample(model, prompt, length, stoi, itos, temperature=0.8):
    model.eval()
    device = next(model.parameters()).device
    idx = torch.tensor([[stoi[c] for c in prompt]], device=device)
    for _ in range(length):
        logits = model(idx[:, -model.block:])[:, -1] / temperature
        nxt = torch.multinomial(F.softmax(logits, dim=-1), 1)
        idx = torch.cat([idx, nxt], dim=1)
    return "".join(itos[i] for i in idx[0].tolist())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--block", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--sample-chars", type=int, default=200)
    args = parser.parse_args()
    torch.manual_seed(0)

    with open(os.path.join(HERE, "data", "sonnets.txt")) as f:
        text = f.read()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    itos = dict(enumerate(chars))
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    print(f"{len(text)} characters, vocabulary of {len(chars)}")

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = CharTransformer(len(chars), args.block).to(device)
    print("parameters:", sum(p.numel() for p in model.parameters()))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.steps)
    gen = torch.Generator().manual_seed(1)
    print(f"initial loss should be near ln({len(chars)}) = {math.log(len(chars)):.2f}")
    for step in range(args.steps):
        model.train()
        x, y = batches(data, args.block, args.batch_size, gen)
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        if step % 100 == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {loss.item():.3f}")

    prompt = text[:args.block]
    print("--- sample ---")
    print(sample(model, prompt, args.sample_chars, stoi, itos))


if __name__ == "__main__":
    main()
