"""The public names of real PyTorch's modules, as the table `torchlike/_torch_names.json` stores
them (torchlike never imports torch, so the drop-in runner and `--check` read this table to tell
"torch has it, torchlike lacks it" from a plain typo).

    python compat_tests/torch_names.py --write     # regenerate the table from installed torch
"""
import importlib
import json
import os
import sys

TABLE = os.path.join(os.path.dirname(__file__), "..", "torchlike", "_torch_names.json")
SKIP = ("torch.ao", "torch.fx", "torch.package", "torch.export", "torch.onnx", "torch.testing",
        "torch.utils.benchmark", "torch.utils.tensorboard", "torch.distributed.",
        "torch.nn.intrinsic", "torch.nn.qat", "torch.nn.quantized", "torch.nn.quantizable")


def live_table():
    """{module: sorted public names} for real torch's public modules (depth <= 3)."""
    import torch
    for extra in ("torch.utils.data", "torch.func", "torch.special", "torch.fft",
                  "torch.distributions", "torch.nn.utils.parametrize", "torch.utils.checkpoint",
                  "torch.utils.dlpack", "torch.amp", "torch.nn.attention"):
        importlib.import_module(extra)
    out = {}
    for name, mod in sorted(sys.modules.items()):
        parts = name.split(".")
        if (parts[0] != "torch" or len(parts) > 4 or any(p.startswith("_") for p in parts)
                or name.startswith(SKIP) or mod is None):
            continue
        out[name] = sorted(n for n in dir(mod) if not n.startswith("_"))
    out["torch.Tensor"] = sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    return out


if __name__ == "__main__":
    if "--write" in sys.argv:
        with open(TABLE, "w") as f:
            json.dump(live_table(), f, separators=(",", ":"), sort_keys=True)
            f.write("\n")
    print(f"{len(live_table())} modules")
