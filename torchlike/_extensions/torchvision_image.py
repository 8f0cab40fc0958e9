"""torchvision's image codecs (`torch.ops.image.*`, its `image` extension) through Pillow:
`read_file`/`write_file` move raw bytes, `decode_image`/`decode_jpeg`/`decode_png`/`decode_gif`/
`decode_webp` give CHW uint8 tensors (uint16 for 16-bit PNGs) in the requested mode,
`encode_png`/`encode_jpeg` give the encoded bytes. Divergence: JPEG pixels are Pillow's
decoder's (libjpeg-turbo, as torchvision's), encoded files are Pillow's (same images, not
necessarily the same bytes)."""
import functools
import io

import numpy as np

SCHEMAS = (
    "read_file(str path) -> Tensor",
    "write_file(str path, Tensor data) -> ()",
    "decode_image(Tensor data, int mode, bool apply_exif_orientation=False) -> Tensor",
    "decode_jpeg(Tensor data, int mode, bool apply_exif_orientation=False) -> Tensor",
    "decode_png(Tensor data, int mode, bool apply_exif_orientation=False) -> Tensor",
    "decode_gif(Tensor data) -> Tensor",
    "decode_webp(Tensor data, int mode) -> Tensor",
    "encode_png(Tensor data, int compression_level) -> Tensor",
    "encode_jpeg(Tensor data, int quality) -> Tensor",
)
_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _bytes(data):
    if data.dtype.itemsize != 1 or data.dim() != 1:
        raise RuntimeError("Expected a non empty 1-dimensional tensor")
    return data.numpy().tobytes()


def _tensor(array):
    import torchlike
    array = np.ascontiguousarray(array)
    return torchlike.from_numpy(array if array.flags.writeable else array.copy())


def read_file(path):
    """image::read_file: the file's bytes as a 1-D uint8 tensor."""
    with open(path, "rb") as f:
        raw = f.read()
    if not raw:
        raise RuntimeError(f"file {path} is empty")   # torchvision: "Expected a non empty file"
    return _tensor(np.frombuffer(raw, np.uint8).copy())


def write_file(path, data):
    """image::write_file."""
    with open(path, "wb") as f:
        f.write(_bytes(data))


def _decode(data, mode, apply_exif_orientation, formats=None):
    from PIL import Image, ImageOps
    img = Image.open(io.BytesIO(_bytes(data)), formats=formats)
    if apply_exif_orientation:
        img = ImageOps.exif_transpose(img)
    if mode in _MODES:
        img = img.convert(_MODES[mode])
    elif img.mode == "P":
        img = img.convert("RGBA" if "transparency" in img.info else "RGB")
    elif img.mode in ("1", "CMYK", "YCbCr", "I", "F"):
        img = img.convert("L" if img.mode in ("1", "I", "F") else "RGB")
    if img.mode in ("I;16", "I;16B", "I;16L"):
        arr = np.asarray(img, np.uint16)
    else:
        arr = np.asarray(img, np.uint8)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return _tensor(arr.transpose(2, 0, 1))


def decode_image(data, mode, apply_exif_orientation=False):
    """image::decode_image."""
    return _decode(data, int(mode), apply_exif_orientation)


def decode_jpeg(data, mode, apply_exif_orientation=False):
    """image::decode_jpeg."""
    return _decode(data, int(mode), apply_exif_orientation, ["JPEG"])


def decode_png(data, mode, apply_exif_orientation=False):
    """image::decode_png."""
    return _decode(data, int(mode), apply_exif_orientation, ["PNG"])


def decode_gif(data):
    """image::decode_gif: (C, H, W), or (N, C, H, W) for an animation, in RGB."""
    from PIL import Image, ImageSequence
    img = Image.open(io.BytesIO(_bytes(data)), formats=["GIF"])
    frames = [np.asarray(f.convert("RGB"), np.uint8).transpose(2, 0, 1)
              for f in ImageSequence.Iterator(img)]
    return _tensor(frames[0] if len(frames) == 1 else np.stack(frames))


def decode_webp(data, mode):
    """image::decode_webp."""
    return _decode(data, int(mode), False, ["WEBP"])


def _encode(data, fmt, **kwargs):
    from PIL import Image
    if data.dtype.itemsize != 1 or data.dim() != 3:
        raise RuntimeError(f"Input tensor dtype should be uint8 and it should have 3 "
                           f"dimensions, got {data.dtype} and {data.dim()}")
    arr = data.numpy().transpose(1, 2, 0)
    img = Image.fromarray(arr[:, :, 0] if arr.shape[2] == 1 else arr)
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kwargs)
    return _tensor(np.frombuffer(buf.getvalue(), np.uint8).copy())


def encode_png(data, compression_level):
    """image::encode_png."""
    if not 0 <= compression_level <= 9:
        raise RuntimeError(f"Compression level should be between 0 and 9, got "
                           f"{compression_level}")
    return _encode(data, "PNG", compress_level=int(compression_level))


def encode_jpeg(data, quality):
    """image::encode_jpeg."""
    if not 1 <= quality <= 100:
        raise RuntimeError(f"Image quality should be a positive number between 1 and 100, got "
                           f"{quality}")
    return _encode(data, "JPEG", quality=int(quality))


KERNELS = {"read_file": read_file, "write_file": write_file, "decode_image": decode_image,
           "decode_jpeg": decode_jpeg, "decode_png": decode_png, "decode_gif": decode_gif,
           "decode_webp": decode_webp, "encode_png": encode_png, "encode_jpeg": encode_jpeg}


@functools.lru_cache(maxsize=None)
def register():
    """Defines torchvision's image operators in `torch.ops.image`."""
    from . import define
    return define("image", SCHEMAS, KERNELS)
