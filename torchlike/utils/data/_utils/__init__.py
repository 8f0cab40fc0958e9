"""Mirrors `torch.utils.data._utils`: collation, fetching, worker processes."""
from . import collate, fetch, worker  # noqa: F401
from .worker import MP_STATUS_CHECK_INTERVAL  # noqa: F401
