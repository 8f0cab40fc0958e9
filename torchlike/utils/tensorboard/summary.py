"""TensorBoard `Summary` protos for each kind of record `SummaryWriter` writes."""
import io

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from . import values


def scalar(tag, value, new_style=False, double_precision=False):
    """A scalar: `simple_value`, or (new style) a one-element tensor for the scalars plugin."""
    v = values.scalar_value(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=v)])
    tensor = (TensorProto(double_val=[v], dtype="DT_DOUBLE") if double_precision else
              TensorProto(float_val=[v], dtype="DT_FLOAT"))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=tag, tensor=tensor, metadata=meta)])


def tensorflow_bins():
    """TensorFlow's default histogram edges: +-1e-12 growing by 10% up to 1e20, and zero."""
    edges, v = [], 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


def histogram(tag, vals, bins, max_bins=None):
    """A histogram of `vals` (`bins`: "tensorflow", a NumPy bins spec, or edges)."""
    a = values.to_numpy(vals).astype(float)
    return Summary(value=[Summary.Value(tag=tag, histo=histogram_proto(a, bins, max_bins))])


def histogram_proto(a, bins, max_bins=None):
    a = a.reshape(-1)
    counts, edges = np.histogram(a, bins=tensorflow_bins() if bins == "tensorflow" else bins)
    if max_bins is not None and len(counts) > max_bins:
        # every `step` neighbouring buckets merged (the last group padded with empty ones)
        step = len(counts) // max_bins
        counts = np.pad(counts, (0, (-len(counts)) % step)).reshape(-1, step).sum(1)
        edges = np.concatenate([edges[:-1:step], edges[-1:]])
    occupied = np.flatnonzero(counts)
    if occupied.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    # the occupied range, with one empty bucket before it (where there is one)
    first, last = max(int(occupied[0]) - 1, 0), int(occupied[-1]) + 1
    lead = [] if occupied[0] > 0 else [0]
    counts = np.concatenate([lead, counts[first:last]])
    edges = edges[first + (0 if occupied[0] > 0 else 0):last + 1]
    if lead:
        edges = np.concatenate([[edges[0]], edges])
    return HistogramProto(min=a.min(), max=a.max(), num=len(a), sum=a.sum(),
                          sum_squares=a.dot(a), bucket_limit=edges[1:].tolist(),
                          bucket=counts.tolist())


def histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    """A histogram from its parts, as given."""
    h = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                       bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=tag, histo=h)])


def image(tag, img, dataformats="NCHW"):
    """An image, PNG-encoded: float pixels in [0, 1] or bytes."""
    hwc = values.to_uint8(values.to_hwc(values.to_numpy(img), dataformats))
    return Summary(value=[Summary.Value(tag=tag, image=image_proto(hwc))])


def image_proto(hwc):
    from PIL import Image
    h, w, c = hwc.shape
    buf = io.BytesIO()
    Image.fromarray(hwc).save(buf, format="PNG")
    return Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=buf.getvalue())


def text(tag, string):
    """Text for the text plugin (Markdown)."""
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
    tensor = TensorProto(dtype="DT_STRING", string_val=[string.encode("utf_8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta,
                                        tensor=tensor)])


def figure_image(figure):
    """A Matplotlib figure rendered to an RGB(A) CHW byte array."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    w, h = figure.canvas.get_width_height()
    rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8).reshape(h, w, 4)
    return rgba.transpose(2, 0, 1)
