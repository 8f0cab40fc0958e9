"""Mirrors `torch.nn.functional`: re-exports the functional families in `nn/_functional/`."""
from ._functional.activation import *  # noqa: F401,F403
from ._functional.conv import *  # noqa: F401,F403
from ._functional.norm import *  # noqa: F401,F403
from ._functional.loss import *  # noqa: F401,F403
from ._functional.misc import *  # noqa: F401,F403
from ._functional.attention import *  # noqa: F401,F403
from ._functional.rnn import *  # noqa: F401,F403
