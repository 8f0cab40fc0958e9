"""`torch.X` names that PyTorch also exposes at the top level for nn ops (`torch.conv2d`,
`torch.max_pool2d`, `torch.selu`, ...): the same callables as `torch.nn.functional.X`, for the
names whose positional signatures agree."""
from . import functional as F

NAMES = ("selu", "celu", "prelu", "rrelu", "hardshrink", "bilinear", "cosine_similarity",
         "pairwise_distance", "pdist", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
         "conv_transpose2d", "conv_transpose3d", "max_pool1d", "max_pool2d", "max_pool3d",
         "avg_pool1d", "adaptive_avg_pool1d", "pixel_shuffle",
         "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "dropout",
         "alpha_dropout", "feature_alpha_dropout", "layer_norm", "group_norm", "selu_", "celu_",
         "rrelu_", "dropout_", "alpha_dropout_", "feature_alpha_dropout_",
         "max_pool1d_with_indices")


def publish(namespace):
    for name in NAMES:
        fn = getattr(F, name, None)
        if fn is not None:
            namespace.setdefault(name, fn)
