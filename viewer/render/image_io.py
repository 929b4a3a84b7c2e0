"""Image files as (h, w, 3) RGB uint8 arrays, through Pillow.

The app reads option images, views and maps and writes PNGs with Pillow
(not OpenCV, which with its own Qt, FFmpeg and BLAS was a quarter of the
packaged app). Pillow decodes PNG and baseline JPEG to the same pixels as
OpenCV's `imread` did (both use libpng/libjpeg-turbo with default settings;
checked on the demo's files), and it turns images by their EXIF orientation
as `imread` does. 16-bit images keep their high byte, as `imread` kept it.
"""
from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from ..core.media import LFS_PROBLEM, lfs_pointer_file


def _as_rgb(image) -> np.ndarray:
    from PIL import ImageOps
    image = ImageOps.exif_transpose(image)
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        gray = (np.asarray(image, np.uint32) >> 8).astype(np.uint8)
        return np.repeat(gray[:, :, None], 3, axis=2)
    if image.mode != "RGB":
        image = image.convert("RGB")
    return np.asarray(image, np.uint8)


def read_rgb(path: str | os.PathLike) -> np.ndarray:
    """The image at `path` as (h, w, 3) RGB uint8; OSError (saying which file and why) if it cannot be read."""
    from PIL import Image, UnidentifiedImageError
    try:
        with Image.open(path) as image:
            return _as_rgb(image)
    except FileNotFoundError:
        raise OSError(f"{path}: file not found") from None
    except (UnidentifiedImageError, ValueError, SyntaxError, OSError) as e:
        if lfs_pointer_file(path):
            raise OSError(f"{path}: {LFS_PROBLEM}") from None
        raise OSError(f"{path}: not a readable image ({e})") from None


def encode_png(rgb: np.ndarray) -> bytes:
    """(h, w, 3) RGB uint8 (or (h, w) gray) as PNG bytes."""
    from PIL import Image
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb, np.uint8)).save(out, format="PNG", compress_level=6)
    return out.getvalue()


def write_png(path: str | os.PathLike, rgb: np.ndarray) -> None:
    """Write `rgb` as a PNG at `path`; OSError if the file cannot be written."""
    Path(path).write_bytes(encode_png(rgb))
