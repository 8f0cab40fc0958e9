import os
import sys
import zlib

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("JAX_PLATFORMS", "cpu")

_RNG_NAMES = ("R", "RNG", "rng", "_RNG")


@pytest.fixture(autouse=True)
def _reseed_module_rngs(request):
    """Test modules draw inputs from module-level RandomStates; reseed them per test (from the
    test's id) so a test's inputs don't depend on which tests ran before it on its xdist
    worker."""
    seed = zlib.crc32(request.node.nodeid.encode())
    for name in _RNG_NAMES:
        rng = getattr(request.module, name, None)
        if isinstance(rng, np.random.RandomState):
            rng.seed(seed)
    yield
