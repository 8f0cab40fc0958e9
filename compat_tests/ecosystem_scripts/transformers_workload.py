"""transformers' everyday workflow with tiny models, written once and run by `test_transformers.py`
under `python -m torchlike` and on real PyTorch: forward with labels, backward, AdamW steps,
greedy and sampled and beam `generate`, `save_pretrained`/`from_pretrained` through
safetensors. Results go into an .npz (argv[1]); argv[2] is a scratch directory."""
import os
import sys

import numpy as np
import torch
from transformers import (BertConfig, BertForSequenceClassification, GPT2Config,
                          GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM)

OUT, TMP = sys.argv[1], sys.argv[2]
R = {}


def put(name, value):
    if isinstance(value, torch.Tensor):
        value = value.detach().numpy()
    R[name] = np.asarray(value)


def causal_lm(name, make):
    torch.manual_seed(0)
    model = make()
    x = torch.randint(0, 96, (2, 10))
    out = model(x, labels=x)
    put(f"{name}_loss", out.loss)
    put(f"{name}_logits", out.logits)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(2):
        opt.zero_grad()
        loss = model(x, labels=x).loss
        loss.backward()
        opt.step()
        put(f"{name}_train_loss_{step}", loss)
    put(f"{name}_grad", next(model.parameters()).grad)
    model.eval()
    with torch.no_grad():
        put(f"{name}_greedy", model.generate(x[:, :4], max_new_tokens=4, do_sample=False,
                                             pad_token_id=0))
        torch.manual_seed(1)
        put(f"{name}_sampled", model.generate(x[:, :4], max_new_tokens=4, do_sample=True,
                                              top_k=20, pad_token_id=0))
        put(f"{name}_beam", model.generate(x[:, :4], max_new_tokens=4, num_beams=3,
                                           do_sample=False, pad_token_id=0))
        path = os.path.join(TMP, name)
        model.save_pretrained(path)
        again = type(model).from_pretrained(path)
        put(f"{name}_reloaded_logits", again(x).logits)
        put(f"{name}_eval_logits", model(x).logits)


def classifier():
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=96, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=32, num_labels=3)
    model = BertForSequenceClassification(cfg)
    x = torch.randint(0, 96, (3, 8))
    mask = torch.ones(3, 8, dtype=torch.long)
    mask[0, 5:] = 0
    out = model(x, attention_mask=mask, labels=torch.tensor([0, 2, 1]))
    out.loss.backward()
    put("bert_loss", out.loss)
    put("bert_logits", out.logits)
    put("bert_grad", model.bert.embeddings.word_embeddings.weight.grad)


causal_lm("gpt2", lambda: GPT2LMHeadModel(GPT2Config(vocab_size=96, n_positions=32, n_embd=32,
                                                     n_layer=2, n_head=2)))
causal_lm("llama", lambda: LlamaForCausalLM(LlamaConfig(
    vocab_size=96, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)))
classifier()
np.savez(OUT, **R)
print("ok", len(R))
