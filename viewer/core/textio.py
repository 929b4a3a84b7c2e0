"""Reading user text files defensively: size cap, encoding, JSON with line numbers."""
from __future__ import annotations

import gc
import json
import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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
    size = regular_file_size(path)
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
                    path, line, code="file.not_utf8")
        return data.decode("utf-8-sig", errors="replace")


def regular_file_size(path: str | Path) -> int:
    """The size of a regular file; UserError for anything else (a FIFO would block the reader for ever)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError) as e:               # ValueError: a NUL in the path
        raise UserError(f"{path}: cannot read ({getattr(e, 'strerror', None) or e})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a named pipe" if stat.S_ISFIFO(st.st_mode)
                else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device")
        raise UserError(f"{path}: is {kind}, not a regular file")
    return st.st_size


def _json_value_error(e: Exception) -> str:
    """Why a value no JSON parser here can hold was refused (nesting, a huge integer)."""
    if isinstance(e, RecursionError):
        return "JSON nested too deeply"
    return f"number too long to read ({e})" if "digits" in str(e) else f"unreadable JSON value ({e})"


def parse_json_document(text: str, path: Path, diags: Diagnostics) -> Any | None:
    """One JSON document, or None with the error's line reported."""
    if not text.strip():
        diags.error("file is empty", path, code="file.empty")
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        diags.error(f"malformed JSON: {e.msg} (column {e.colno})", path, e.lineno, code="json.malformed")
    except (RecursionError, ValueError) as e:
        diags.error(_json_value_error(e), path, code="json.unreadable_value")
    return None


def read_json_lines(text: str, path: Path, diags: Diagnostics) -> tuple[list[int], list[Any]]:
    """Line numbers and values of every non-blank line that parses.

    Fast path: the whole file as one JSON array (one C-level parse instead
    of one per line); only when that fails do we go line by line to find
    and report the bad lines.
    """
    body = text.rstrip("\n")
    if body:
        # The usual file, one record per line: parse it whole. A blank line
        # makes ",," and a line holding two values makes the count differ;
        # both fall through to the careful path below.
        try:
            values = json.loads("[" + body.replace("\n", ",") + "]")
            if len(values) == body.count("\n") + 1 and _lines_stand_alone(body):
                return list(range(1, len(values) + 1)), values
        except (json.JSONDecodeError, RecursionError, ValueError):
            pass
    # Lines end at "\n" only: splitlines() would also cut at U+0085 and U+2028, which a JSON
    # string may hold as is, losing the record and shifting every line number after it.
    lines = text.split("\n")
    numbers = [i for i, ln in enumerate(lines, 1) if ln and not ln.isspace()]
    if not numbers:
        diags.error("file is empty", path, code="file.empty")
        return [], []
    if len(numbers) < len(lines):
        lines = [lines[i - 1] for i in numbers]
    try:
        values = json.loads("[" + ",".join(lines) + "]")
        if len(values) == len(numbers) and _lines_stand_alone("\n".join(lines)):
            return numbers, values
    except (json.JSONDecodeError, RecursionError, ValueError):
        pass
    good_numbers, values = [], []
    for n, ln in zip(numbers, lines):
        try:
            values.append(json.loads(ln))
            good_numbers.append(n)
        except json.JSONDecodeError as e:
            diags.error(f"malformed JSON: {e.msg} (column {e.colno})", path, n, code="json.malformed")
        except (RecursionError, ValueError) as e:
            diags.error(_json_value_error(e), path, n, code="json.unreadable_value")
    return good_numbers, values


def _lines_stand_alone(body: str) -> bool:
    """Whether no value of the whole-file parse can have come from two lines joined by its comma.

    A record line closes on a bracket; when a line does not (half of a value cut in two), every
    line that does not open and close on brackets is parsed on its own, so two broken halves never
    pass for one record. (A first half that closes on a bracket, `{"a": [{"b": 1}`, with a line of
    two values to even the count, would still pass: contrived.)
    """
    # The usual file, every line closing on a brace, is told by one count in C, no line looked at:
    # the first half of a value cut in two cannot close on its bracket (but for the contrived case above).
    n = body.count("\n") + 1
    closes = body.count("}\n") + (body[-1:] == "}")
    if closes < n:
        closes += body.count("]\n") + (body[-1:] == "]")
    if closes == n:
        return True
    for line in body.split("\n"):
        s = line.strip()
        if s[:1] in ("{", "[") and s[-1:] in ("}", "]"):
            continue
        try:
            json.loads(line)
        except (json.JSONDecodeError, RecursionError, ValueError):
            return False
    return True


@contextmanager
def no_gc():
    """Pause the cyclic garbage collector while building many small containers.

    Loading creates millions of dicts and lists that are all alive at the
    end; the collector would otherwise scan them again and again for nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # What was loaded lives as long as the session and holds no cycles;
        # freezing it keeps later collections from walking it again.
        gc.freeze()
        if was_enabled:
            gc.enable()
