"""Fixed-shape training loops of many styles, each in this fresh process; prints, per style, the
programs traced and compiled at every step (torchlike.compile_log), as JSON on the last line.
Run by test_zero_trace.py: from the third step on, every list must be empty."""
import json
import sys

import torchlike as torch
from torchlike import compile_log

nn = torch.nn
F = nn.functional
STEPS = 7


def train(model, batch, loss_fn, make_opt, sched=None, clip=False, extra=None):
    torch.manual_seed(0)
    opt = make_opt(model.parameters())
    sch = sched(opt) if sched is not None else None
    per_step = []
    for _ in range(STEPS):
        with compile_log.record() as log:
            x, y = batch()
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            if clip:
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if sch is not None:
                sch.step()
            if extra is not None:
                extra(model)
            loss.item()
        per_step.append([repr(e) for e in log.events])
    return per_step


class LM(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.emb = nn.Embedding(30, 16)
        self.rnn = getattr(nn, kind)(16, 24, num_layers=2, batch_first=True, dropout=0.1)
        self.out = nn.Linear(24, 30)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h).reshape(-1, 30)


class Cells(nn.Module):
    """Hand-written recurrence: a GRUCell and an LSTMCell looped over time with indexing."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRUCell(10, 16)
        self.lstm = nn.LSTMCell(16, 12)
        self.out = nn.Linear(12, 3)

    def forward(self, x):
        h = torch.zeros(x.size(0), 16)
        hc = (torch.zeros(x.size(0), 12), torch.zeros(x.size(0), 12))
        outs = []
        for t in range(x.size(1)):
            h = self.gru(x[:, t], h)
            hc = self.lstm(h, hc)
            outs.append(hc[0])
        return self.out(torch.stack(outs, 1)[:, -1])


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class WithHooks(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 1)
        self.a.register_forward_hook(lambda m, i, o: o * 0.5)
        self.b.register_full_backward_hook(lambda m, gi, go: None)

    def forward(self, x):
        h = Square.apply(self.a(x))
        h.register_hook(lambda g: g * 2)
        return self.b(h).squeeze(1)


class TransformerClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        return self.out(self.enc(x).mean(1))


class TinyGPTBlock(nn.Module):
    """Attention written out as GPT code writes it: split, view, transpose, masked softmax."""

    def __init__(self, c=16, heads=2, block=8):
        super().__init__()
        self.qkv = nn.Linear(c, 3 * c)
        self.proj = nn.Linear(c, c)
        self.heads = heads
        self.register_buffer("mask", torch.tril(torch.ones(block, block)).view(1, 1, block, block))
        self.ln = nn.LayerNorm(c)
        self.head = nn.Linear(c, 11)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln(x)).split(c, 2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (k.size(-1) ** 0.5))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        y = F.dropout(F.softmax(att, dim=-1), 0.1, self.training) @ v
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        return self.head(x + self.proj(y)).view(-1, 11)


def main():
    sched = torch.optim.lr_scheduler
    styles = {
        "mlp": lambda: train(
            nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 5)),
            lambda: (torch.randn(8, 20), torch.randint(0, 5, (8,))), nn.CrossEntropyLoss(),
            lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), clip=True,
            sched=lambda o: sched.StepLR(o, 2, gamma=0.5)),
        "cnn": lambda: train(
            nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 8 * 8, 10)),
            lambda: (torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))), F.cross_entropy,
            lambda p: torch.optim.Adam(p, lr=1e-3),
            sched=lambda o: sched.CosineAnnealingLR(o, 10)),
        "lstm": lambda: train(
            LM("LSTM"), lambda: (torch.randint(0, 30, (4, 7)), torch.randint(0, 30, (28,))),
            F.cross_entropy, lambda p: torch.optim.AdamW(p, lr=1e-3), clip=True),
        "gru": lambda: train(
            LM("GRU"), lambda: (torch.randint(0, 30, (4, 7)), torch.randint(0, 30, (28,))),
            F.cross_entropy, lambda p: torch.optim.RMSprop(p, lr=1e-3),
            sched=lambda o: sched.ExponentialLR(o, 0.9)),
        "cells": lambda: train(
            Cells(), lambda: (torch.randn(4, 6, 10), torch.randint(0, 3, (4,))),
            F.cross_entropy, lambda p: torch.optim.Adagrad(p, lr=1e-2), clip=True),
        "function_and_hooks": lambda: train(
            WithHooks(), lambda: (torch.randn(5, 6), torch.randn(5)), F.mse_loss,
            lambda p: torch.optim.SGD(p, lr=0.01, weight_decay=1e-4)),
        "transformer": lambda: train(
            TransformerClassifier(), lambda: (torch.randn(3, 5, 16), torch.randint(0, 4, (3,))),
            F.cross_entropy, lambda p: torch.optim.AdamW(p, lr=1e-3),
            sched=lambda o: sched.OneCycleLR(o, 0.01, total_steps=20)),
        "gpt_attention": lambda: train(
            TinyGPTBlock(), lambda: (torch.randn(2, 8, 16), torch.randint(0, 11, (16,))),
            F.cross_entropy, lambda p: torch.optim.AdamW(p, lr=3e-4, weight_decay=0.1),
            clip=True, sched=lambda o: sched.LambdaLR(o, lambda s: min(1.0, (s + 1) / 3))),
    }
    names = sys.argv[1:] or list(styles)
    print(json.dumps({name: styles[name]() for name in names}))


if __name__ == "__main__":
    main()
