"""Image files as (h, w, 3) RGB uint8 arrays, through Pillow.

The app reads option images, views and maps and writes PNGs with Pillow
(not OpenCV, which with its own Qt, FFmpeg and BLAS was a quarter of the
packaged app). Pillow decodes PNG and baseline JPEG to the same pixels as
OpenCV's `imread` did (both use libpng/libjpeg-turbo with default settings;
checked on the demo's files), and it turns images by their EXIF orientation
as `imread` does. 16-bit images keep their high byte, as `imread` kept it.

Every image the app reads from a user goes through `read_rgb`, which holds it to `PIXEL_BUDGET`
(core/audit/image_check's, the audit's too): Pillow's own `MAX_IMAGE_PIXELS` is set to it on purpose, and a
file that declares more is refused by its declared size, before its pixels are decoded.
"""
from __future__ import annotations

import io
import os
import warnings
from pathlib import Path

import numpy as np

from ..core.audit.image_check import PIXEL_BUDGET, PIXEL_BUDGET_WORDS, over_budget
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


def _pillow():
    """Pillow's Image module, held to the budget: over it Pillow warns (an error here, process-wide, since
    `warnings.catch_warnings` is not safe in the audit's threads), over twice it Pillow raises."""
    from PIL import Image
    if Image.MAX_IMAGE_PIXELS != PIXEL_BUDGET:
        Image.MAX_IMAGE_PIXELS = PIXEL_BUDGET
        warnings.filterwarnings("error", category=Image.DecompressionBombWarning)
    return Image


def read_rgb(path: str | os.PathLike) -> np.ndarray:
    """The image at `path` as (h, w, 3) RGB uint8; OSError (saying which file and why) if it cannot be read."""
    from PIL import UnidentifiedImageError
    Image = _pillow()
    try:
        with Image.open(path) as image:
            problem = over_budget(*image.size)
            if not problem:
                return _as_rgb(image)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as e:
        problem = f"{_declared(e)}, {PIXEL_BUDGET_WORDS} {PIXEL_BUDGET:,} pixels (a decompression bomb, or an " \
                  f"image far larger than a benchmark needs)"
    except FileNotFoundError:
        raise OSError(f"{path}: file not found") from None
    except (UnidentifiedImageError, ValueError, SyntaxError, OSError) as e:
        if lfs_pointer_file(path):
            raise OSError(f"{path}: {LFS_PROBLEM}") from None
        raise OSError(f"{path}: not a readable image ({e})") from None
    except MemoryError:
        raise OSError(f"{path}: too large to decode in the memory there is") from None
    raise OSError(f"{path}: {problem}")


def _declared(e: Exception) -> str:
    """The declared size in Pillow's decompression-bomb message ("Image size (W pixels) exceeds ...")."""
    import re
    m = re.search(r"\((\d+) pixels\)", str(e))
    return f"declares {int(m.group(1)):,} pixels" if m else "declares too many pixels"


def encode_png(rgb: np.ndarray) -> bytes:
    """(h, w, 3) RGB uint8 (or (h, w) gray) as PNG bytes."""
    from PIL import Image
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb, np.uint8)).save(out, format="PNG", compress_level=6)
    return out.getvalue()


def write_png(path: str | os.PathLike, rgb: np.ndarray) -> None:
    """Write `rgb` as a PNG at `path`; OSError if the file cannot be written."""
    Path(path).write_bytes(encode_png(rgb))
