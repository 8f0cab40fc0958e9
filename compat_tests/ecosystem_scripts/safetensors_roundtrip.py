"""Under `python -m torchlike`: reads the safetensors file argv[1] (written by real PyTorch),
saves what it read to argv[2] as .npz, and writes the same tensors (plus views that share
storage, which safetensors refuses) back with safetensors to argv[3]."""
import sys

import numpy as np
import torch
from safetensors.torch import load_file, save_file, save

tensors = load_file(sys.argv[1])
np.savez(sys.argv[2], **{k: (v.float() if v.dtype == torch.bfloat16 else v).numpy()
                         for k, v in tensors.items()})
try:
    base = torch.arange(6.0)
    save({"a": base, "b": base[:3]})
    print("shared views saved")
except Exception as e:   # safetensors refuses tensors sharing memory
    print(type(e).__name__, str(e).splitlines()[0])
save_file({k: v.contiguous() for k, v in tensors.items()}, sys.argv[3],
          metadata={"from": "torchlike"})
print("ok")
