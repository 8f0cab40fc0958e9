"""Mirrors `torch.nn.utils`."""
from .clip_grad import *  # noqa: F401,F403
from .convert_parameters import *  # noqa: F401,F403
from . import rnn  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401
from . import fusion, parametrize, parametrizations  # noqa: F401,E402
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights,  # noqa: F401,E402
                     fuse_linear_bn_eval, fuse_linear_bn_weights)
from . import prune  # noqa: F401,E402
