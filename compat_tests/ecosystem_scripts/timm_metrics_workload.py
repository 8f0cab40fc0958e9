"""timm, torchmetrics and einops with their everyday calls, written once and run by
`test_transformers.py` under `python -m torchlike` and on real PyTorch; results into the .npz
argv[1]."""
import sys

import einops
import numpy as np
import timm
import torch
import torchmetrics
from einops.layers.torch import Rearrange

R = {}


def put(name, value):
    if isinstance(value, torch.Tensor):
        value = value.detach().numpy()
    R[name] = np.asarray(value)


for name, kw in (("resnet18", {}), ("vit_tiny_patch16_224", {"img_size": 32, "patch_size": 8}),
                 ("convnext_atto", {})):
    torch.manual_seed(0)
    m = timm.create_model(name, pretrained=False, num_classes=5, **kw)
    x = torch.randn(2, 3, 32, 32)
    y = m(x)
    loss = torch.nn.functional.cross_entropy(y, torch.tensor([1, 3]))
    loss.backward()
    put(f"{name}_out", y)
    put(f"{name}_grad", next(m.parameters()).grad)
    m.eval()
    put(f"{name}_eval", m(x))

g = torch.Generator().manual_seed(2)
logits = torch.randn(20, 4, generator=g)
target = torch.randint(0, 4, (20,), generator=g)
for key, metric in (("acc", torchmetrics.classification.MulticlassAccuracy(num_classes=4)),
                    ("f1", torchmetrics.classification.MulticlassF1Score(num_classes=4,
                                                                         average="macro")),
                    ("auroc", torchmetrics.classification.MulticlassAUROC(num_classes=4)),
                    ("confmat", torchmetrics.classification.MulticlassConfusionMatrix(4))):
    metric.update(logits[:10], target[:10])
    metric.update(logits[10:], target[10:])
    put(f"metric_{key}", metric.compute())
preds, obs = torch.randn(30, generator=g), torch.randn(30, generator=g)
for key, metric in (("mse", torchmetrics.MeanSquaredError()),
                    ("mae", torchmetrics.MeanAbsoluteError()),
                    ("r2", torchmetrics.R2Score()),
                    ("pearson", torchmetrics.PearsonCorrCoef())):
    put(f"metric_{key}", metric(preds, obs))

x = torch.arange(2 * 3 * 4 * 6, dtype=torch.float32).reshape(2, 3, 4, 6)
put("einops_rearrange", einops.rearrange(x, "b c (h p) w -> b (h w) (p c)", p=2))
put("einops_reduce", einops.reduce(x, "b c h w -> b c", "mean"))
put("einops_repeat", einops.repeat(x[0, 0], "h w -> h w k", k=2))
packed, ps = einops.pack([x[:, 0], x[:, 1].flatten(1)], "b *")
put("einops_pack", packed)
put("einops_layer", Rearrange("b c h w -> b (c h w)")(x))
np.savez(sys.argv[1], **R)   # argv[2]: a scratch directory (unused)
print("ok", len(R))
