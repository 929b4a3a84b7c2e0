"""Whether a PNG or JPEG file is whole, checked on its structure alone (no image library).

The audit's `missing_media` check runs in the pure core, where Pillow is not imported; a file with the
right magic bytes may still be cut short or damaged, and a panel would drop it. So the file is walked:
a PNG chunk by chunk (lengths, CRCs, the zlib stream of its IDAT chunks to its end) to IEND, a JPEG
segment by segment and through its entropy-coded data to EOI. The declared size is read on the way and
held against `PIXEL_BUDGET`, the same budget `render/image_io.read_rgb` gives Pillow, so that a file
declaring 50,000 x 50,000 pixels is named for that rather than decoded.
"""
from __future__ import annotations

import mmap
import os
import struct
import zlib

# 50 megapixels: a 7,000 x 7,000 RGB image is about 150 MB decoded. Benchmark views and maps are far
# smaller; a 12,000 x 12,000 PNG took `render` 19.5 s and 3 GB.
PIXEL_BUDGET = 50_000_000

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_CHUNK = 1 << 20


PIXEL_BUDGET_WORDS = "over the budget of"


def over_budget(width: int, height: int) -> str | None:
    """The message for an image whose declared size is over the pixel budget, or None."""
    if width * height <= PIXEL_BUDGET:
        return None
    return (f"declares {width} x {height} pixels, {PIXEL_BUDGET_WORDS} {PIXEL_BUDGET:,} pixels "
            f"(a decompression bomb, or an image far larger than a benchmark needs)")


def png_problem(f) -> str | None:
    """Why the PNG open in binary `f` (positioned at 0) is not whole, or None."""
    if f.read(8) != _PNG_MAGIC:
        return "not a PNG file"
    inflate = zlib.decompressobj()
    seen_ihdr = stream_ended = False
    while True:
        head = f.read(8)
        if len(head) < 8:
            return "truncated: ends before its IEND chunk"
        length, kind = struct.unpack(">I4s", head)
        if length > 0x7FFFFFFF:
            return f"damaged: chunk {kind!r} declares {length} bytes"
        crc = zlib.crc32(kind)
        left = length
        while left:
            part = f.read(min(left, _CHUNK))
            if not part:
                return f"truncated inside its {kind.decode('latin-1')} chunk"
            crc = zlib.crc32(part, crc)
            if kind == b"IHDR" and left == length:
                if len(part) < 8:
                    return "damaged: IHDR chunk too short"
                problem = over_budget(*struct.unpack(">II", part[:8]))
                if problem:
                    return problem
            if kind == b"IDAT" and not stream_ended:
                try:
                    pending = part
                    while pending:     # inflate in bounded pieces: the output is never kept
                        inflate.decompress(pending, _CHUNK)
                        pending = inflate.unconsumed_tail
                except zlib.error as e:
                    return f"damaged image data ({e})"
                stream_ended = inflate.eof
            left -= len(part)
        stored = f.read(4)
        if len(stored) < 4:
            return f"truncated inside its {kind.decode('latin-1')} chunk"
        if struct.unpack(">I", stored)[0] != crc & 0xFFFFFFFF:
            return f"damaged: the CRC of its {kind.decode('latin-1')} chunk does not match"
        if kind == b"IHDR":
            seen_ihdr = True
        elif not seen_ihdr:
            return "damaged: does not start with an IHDR chunk"
        if kind == b"IEND":
            return None if stream_ended else "damaged: its image data stops before the end of the image"


# Markers with no length: SOI, EOI, RST0-7, TEM.
_BARE = {0xD8, 0xD9, 0x01, *range(0xD0, 0xD8)}
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def jpeg_problem(f) -> str | None:
    """Why the JPEG open in binary `f` (positioned at 0) is not whole, or None."""
    if f.read(2) != b"\xff\xd8":
        return "not a JPEG file"
    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:   # a large file is not read in
        return _walk_jpeg(data)


def _walk_jpeg(data) -> str | None:
    i, n = 2, len(data)
    seen = set()
    while True:
        if i >= n:
            return "truncated: ends before its end-of-image marker"
        if data[i] != 0xFF:
            return f"damaged: no marker at byte {i}"
        while i < n and data[i] == 0xFF:             # fill bytes before a marker
            i += 1
        if i >= n:
            return "truncated: ends before its end-of-image marker"
        marker = data[i]
        i += 1
        if marker == 0xD9:
            if "SOS" not in seen:
                return "damaged: no image data before its end-of-image marker"
            return None
        if marker in _BARE:
            continue
        if i + 2 > n:
            return "truncated inside a segment header"
        length = int.from_bytes(data[i:i + 2], "big")
        if length < 2 or i + length > n:
            return f"truncated or damaged: a segment at byte {i - 2} runs past the end of the file"
        body = data[i + 2:i + length]
        if marker in _SOF:
            if len(body) < 5:
                return "damaged: frame header too short"
            height, width = struct.unpack(">HH", body[1:5])
            problem = over_budget(width, height)
            if problem:
                return problem
            if not width or not height:
                return "damaged: declares no pixels"
            seen.add("SOF")
        elif marker == 0xC4:
            problem = _tables_problem(body)
            if problem:
                return problem
        i += length
        if marker == 0xDA:                             # entropy-coded data: runs to the next real marker
            if "SOF" not in seen:
                return "damaged: image data before its frame header"
            seen.add("SOS")
            while True:
                j = data.find(b"\xff", i)
                if j < 0 or j + 1 >= n:
                    return "truncated: its image data stops before the end-of-image marker"
                nxt = data[j + 1]
                if nxt == 0x00 or 0xD0 <= nxt <= 0xD7 or nxt == 0xFF:
                    i = j + 1 if nxt == 0xFF else j + 2
                    continue
                i = j
                break


def _tables_problem(body: bytes) -> str | None:
    """Why a DHT segment's Huffman tables are damaged, or None."""
    k = 0
    while k < len(body):
        if k + 17 > len(body) or body[k] & 0x0F > 3 or body[k] >> 4 > 1:
            return "damaged: a Huffman table is malformed"
        count = sum(body[k + 1:k + 17])
        if count > 256:
            return "damaged: a Huffman table is malformed"
        k += 17 + count
    return None if k == len(body) else "damaged: a Huffman table is malformed"


IMAGE_CHECKS = {".png": png_problem, ".jpg": jpeg_problem, ".jpeg": jpeg_problem}
# A file whose bytes are a PNG's or a JPEG's is checked as what it is, whatever its name says: readers decode
# by content, and the paper's own Pos sample has a whole JPEG named image_02_topdown_2.png.
_BY_MAGIC = ((_PNG_MAGIC, png_problem), (b"\xff\xd8\xff", jpeg_problem))


def check_for(head: bytes, path: str):
    """The structural check for the file at `path` starting with `head`: by its bytes when they are a PNG's or
    a JPEG's, else by its extension (whose check then says the bytes are not what the name says); None for a
    file that is neither by its bytes nor by its name."""
    for magic, check in _BY_MAGIC:
        if head.startswith(magic):
            return check
    return IMAGE_CHECKS.get(os.path.splitext(path)[1].lower())


def image_problem(path: str) -> str | None:
    """Why the PNG or JPEG at `path` is not whole (checked as its bytes say it is; other files: None)."""
    with open(path, "rb") as f:
        check = check_for(f.read(8), path)
        if check is None:
            return None
        f.seek(0)
        return check(f)
