"""A small, streaming GIF89a writer (no Pillow needed): one global palette, LZW, looping.

Frames are quantised to a 256-colour palette chosen by median cut from
sample frames (the caller passes a few representative ones, else the first
frame is used), through a 32x32x32 lookup table so a 1280x720 frame maps in
a few milliseconds. Each frame after the first stores only the rectangle
that changed since the previous one (a side-by-side clip changes in one
half), which keeps files small; an unchanged frame is a 1x1 patch, so the
frame count and timing stay exactly as written.
"""
from __future__ import annotations

import struct

import numpy as np

_LUT_BITS = 5
_MIN_CODE_SIZE = 8
_CLEAR, _EOI = 256, 257
_MAX_CODE = 4096


def median_cut(pixels: np.ndarray, colors: int = 256) -> np.ndarray:
    """(colors, 3) uint8 palette for (N, 3) uint8 pixels; unused entries are black."""
    px = np.asarray(pixels, np.uint8).reshape(-1, 3)

    def box(b):
        span = np.ptp(b, axis=0) if len(b) > 1 else np.zeros(3, np.uint8)
        return int(span.max()), len(b), int(span.argmax()), b

    boxes = [box(px)] if len(px) else []
    while boxes and len(boxes) < colors:
        # Split the box with the widest channel range (ties: the most pixels).
        k = max(range(len(boxes)), key=lambda i: boxes[i][:2])
        span, _, ch, b = boxes[k]
        if span <= 0:
            break
        boxes.pop(k)
        b = b[np.argsort(b[:, ch], kind="stable")]
        # Cut where the channel's value changes, nearest the median: a cut inside a run of one
        # value would leave that colour in both halves and waste a palette entry.
        steps = np.flatnonzero(b[1:, ch] != b[:-1, ch]) + 1
        mid = int(steps[np.argmin(np.abs(steps - len(b) // 2))])
        boxes += [box(b[:mid]), box(b[mid:])]
    pal = np.zeros((colors, 3), np.uint8)
    for i, (_, _, _, b) in enumerate(boxes):
        pal[i] = np.round(b.mean(axis=0)).astype(np.uint8)
    return pal


def palette_lut(palette: np.ndarray) -> np.ndarray:
    """(32768,) uint8: the nearest palette entry for each 5-bit-per-channel colour."""
    from scipy.spatial import cKDTree
    step = 1 << (8 - _LUT_BITS)
    levels = np.arange(1 << _LUT_BITS) * step + step // 2
    r, g, b = np.meshgrid(levels, levels, levels, indexing="ij")
    cells = np.stack([r, g, b], axis=-1).reshape(-1, 3).astype(float)
    return cKDTree(palette.astype(float)).query(cells)[1].astype(np.uint8)


def lzw_encode(indices: bytes, min_code_size: int = _MIN_CODE_SIZE) -> bytes:
    """GIF LZW of palette indices (variable code width, clear when the table is full)."""
    clear, eoi = 1 << min_code_size, (1 << min_code_size) + 1
    out = bytearray()
    bits = nbits = 0
    code_size = min_code_size + 1
    table: dict[int, int] = {}
    next_code = eoi + 1

    bits |= clear << nbits
    nbits += code_size
    if not indices:
        bits |= eoi << nbits
        nbits += code_size
    else:
        prefix = indices[0]
        for c in indices[1:]:
            key = (prefix << 8) | c
            code = table.get(key)
            if code is not None:
                prefix = code
                continue
            bits |= prefix << nbits
            nbits += code_size
            while nbits >= 8:
                out.append(bits & 0xFF)
                bits >>= 8
                nbits -= 8
            if next_code < _MAX_CODE:
                table[key] = next_code
                next_code += 1
                # The decoder widens its codes one entry later than we add them.
                if next_code > (1 << code_size) and code_size < 12:
                    code_size += 1
            else:
                bits |= clear << nbits
                nbits += code_size
                table.clear()
                code_size = min_code_size + 1
                next_code = eoi + 1
            prefix = c
        bits |= prefix << nbits
        nbits += code_size
        bits |= eoi << nbits
        nbits += code_size
    while nbits > 0:
        out.append(bits & 0xFF)
        bits >>= 8
        nbits -= 8
    return bytes(out)


def _sub_blocks(data: bytes) -> bytes:
    parts = [bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255)]
    return b"".join(parts) + b"\x00"


class GifWriter:
    """Write frames of one size to `path`; `close()` finishes the file."""

    def __init__(self, path: str, size: tuple[int, int], fps: float, samples: list[np.ndarray] = (),
                 loop: int = 0):
        self.path = str(path)
        self.width, self.height = int(size[0]), int(size[1])
        self.delay_cs = max(2, int(round(100.0 / fps)))    # browsers treat < 2 cs as 10 cs
        self.loop = loop
        self._samples = list(samples)
        self._lut: np.ndarray | None = None
        self._previous: np.ndarray | None = None
        self._file = open(self.path, "wb")
        self.frames = 0

    def _start(self, first: np.ndarray) -> None:
        frames = self._samples or [first]
        pixels = np.concatenate([f.reshape(-1, 3)[:: max(1, f.size // 3 // 60000)] for f in frames])
        palette = median_cut(pixels, 256)
        self._lut = palette_lut(palette)
        f = self._file
        f.write(b"GIF89a")
        f.write(struct.pack("<HHBBB", self.width, self.height, 0xF7, 0, 0))
        f.write(palette.tobytes())
        f.write(b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + struct.pack("<H", self.loop) + b"\x00")

    def index(self, rgb: np.ndarray) -> np.ndarray:
        """(h, w) uint8 palette indices of an RGB frame."""
        q = (rgb >> (8 - _LUT_BITS)).astype(np.uint16)
        return self._lut[(q[..., 0] << (2 * _LUT_BITS)) | (q[..., 1] << _LUT_BITS) | q[..., 2]]

    def write(self, rgb: np.ndarray) -> None:
        rgb = np.asarray(rgb, np.uint8)
        if rgb.shape != (self.height, self.width, 3):
            raise ValueError(f"frame is {rgb.shape[1]}x{rgb.shape[0]}, the GIF {self.width}x{self.height}")
        if self._lut is None:
            self._start(rgb)
        idx = self.index(rgb)
        if self._previous is None:
            x0, y0, x1, y1 = 0, 0, self.width, self.height
        else:
            changed = idx != self._previous
            rows, cols = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
            if len(rows):
                x0, y0, x1, y1 = int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1
            else:
                x0, y0, x1, y1 = 0, 0, 1, 1                # nothing changed: a 1x1 repeat keeps timing
        self._previous = idx
        patch = np.ascontiguousarray(idx[y0:y1, x0:x1])
        f = self._file
        # Graphic control: disposal 1 (leave the frame in place), the delay, no transparency.
        f.write(b"\x21\xF9\x04\x04" + struct.pack("<H", self.delay_cs) + b"\x00\x00")
        f.write(b"\x2C" + struct.pack("<HHHHB", x0, y0, x1 - x0, y1 - y0, 0))
        f.write(bytes([_MIN_CODE_SIZE]))
        f.write(_sub_blocks(lzw_encode(patch.tobytes())))
        self.frames += 1

    def close(self) -> None:
        if self._file.closed:
            return
        if self._lut is None:                  # no frame written: still a valid (blank) GIF
            self.write(np.zeros((self.height, self.width, 3), np.uint8))
        self._file.write(b"\x3B")
        self._file.close()
