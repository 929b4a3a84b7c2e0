"""Reading user text files defensively: size cap, encoding, JSON with line numbers."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

from .diagnostics import Diagnostics, UserError

# A release's question file at training-set size is ~200 MB; anything beyond
# this is almost certainly the wrong file (a video, a dump) and would stall us.
MAX_TEXT_BYTES = int(os.environ.get("GST_VIEWER_MAX_TEXT_BYTES", 2 * 1024**3))


def read_text(path: Path, diags: Diagnostics) -> str:
    """The file's text, decoded as UTF-8 (with or without BOM).

    Bytes that are not UTF-8 are replaced, and the first offending line is
    reported so the user can fix the file; the rest still loads.
    Raises UserError when the file cannot be read at all.
    """
    try:
        size = path.stat().st_size
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror or e})") from None
    if size > MAX_TEXT_BYTES:
        raise UserError(f"{path}: file is {size / 1024**2:.0f} MB, larger than the "
                        f"{MAX_TEXT_BYTES / 1024**2:.0f} MB limit for a text file")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        diags.error(f"not UTF-8 (byte 0x{data[e.start]:02x}); undecodable bytes replaced",
                    path, line)
        return data.decode("utf-8-sig", errors="replace")


def parse_json_document(text: str, path: Path, diags: Diagnostics) -> Any | None:
    """One JSON document, or None with the error's line reported."""
    if not text.strip():
        diags.error("file is empty", path)
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        diags.error(f"malformed JSON: {e.msg} (column {e.colno})", path, e.lineno)
        return None


def iter_json_lines(text: str, path: Path, diags: Diagnostics) -> Iterator[tuple[int, Any]]:
    """(line number, value) for every non-blank line that parses.

    Fast path: the whole file as one JSON array (one C-level parse instead
    of one per line); only when that fails do we go line by line to find
    and report the bad lines.
    """
    lines = text.splitlines()
    numbered = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip()]
    if not numbered:
        diags.error("file is empty", path)
        return
    try:
        values = json.loads("[" + ",".join(ln for _, ln in numbered) + "]")
        if len(values) == len(numbered):
            yield from zip((n for n, _ in numbered), values)
            return
    except (json.JSONDecodeError, RecursionError):
        pass
    for n, ln in numbered:
        try:
            yield n, json.loads(ln)
        except json.JSONDecodeError as e:
            diags.error(f"malformed JSON: {e.msg} (column {e.colno})", path, n)
