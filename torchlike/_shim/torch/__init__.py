"""Put on PYTHONPATH by the drop-in runner, so Python processes it starts (DataLoader workers,
multiprocessing children) also get torchlike for `import torch`."""
from torchlike._runner import install_as_torch

install_as_torch()
