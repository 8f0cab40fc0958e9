"""Mirrors `torch.optim`: PyTorch's optimizers with their update math in optax (one jitted
update per param group), and `lr_scheduler`."""
from . import lr_scheduler  # noqa: F401
from .adam import Adam, Adamax, AdamW, NAdam, RAdam
from .asgd import ASGD, Rprop
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import Adadelta, Adagrad, RMSprop
from .sgd import SGD

__all__ = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam",
           "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "lr_scheduler"]
