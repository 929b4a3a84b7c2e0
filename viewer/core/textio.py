"""Reading user text files defensively: size cap, encoding, JSON with line numbers."""
from __future__ import annotations

import gc
import json
import os
import stat
from contextlib import contextmanager
from itertools import repeat
from pathlib import Path
from typing import Any, Iterator

from .diagnostics import Diagnostics, UserError
from .media import LFS_PROBLEM, is_lfs_pointer

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
    if is_lfs_pointer(data[:64]):
        raise UserError(f"{path}: {LFS_PROBLEM}")
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


def read_json_lines(text: str, path: Path, diags: Diagnostics, first_line: int = 1,
                    whole_file: bool = True) -> tuple[list[int], list[Any]]:
    """Line numbers and values of every non-blank line that parses.

    Fast path: the whole text as one JSON array (one C-level parse instead
    of one per line); only when that fails do we go line by line to find
    and report the bad lines. `first_line` numbers a chunk of a larger file;
    `whole_file` says an empty text is an empty file (worth reporting).
    """
    body = text.rstrip("\n")
    if body:
        # The usual file, one record per line: parse it whole. A blank line
        # makes ",," and a line holding two values makes the count differ;
        # both fall through to the careful path below.
        try:
            values = json.loads("[" + body.replace("\n", ",") + "]")
            if len(values) == body.count("\n") + 1 and _lines_stand_alone(body):
                return list(range(first_line, first_line + len(values))), values
        except (json.JSONDecodeError, RecursionError, ValueError):
            pass
    # Lines end at "\n" only: splitlines() would also cut at U+0085 and U+2028, which a JSON
    # string may hold as is, losing the record and shifting every line number after it.
    lines = text.split("\n")
    numbers = [i for i, ln in enumerate(lines, first_line) if ln and not ln.isspace()]
    if not numbers:
        if whole_file:
            diags.error("file is empty", path, code="file.empty")
        return [], []
    if len(numbers) < len(lines):
        lines = [lines[i - first_line] for i in numbers]
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


def _every_line_closes(body: str | bytes) -> bool:
    """Whether every line of `body` (text or bytes) ends on a closing brace or bracket, counted in C."""
    nl, brace, bracket = ("\n", "}", "]") if isinstance(body, str) else (b"\n", b"}", b"]")
    n = body.count(nl) + 1
    closes = body.count(brace + nl) + body.endswith(brace)
    if closes < n:
        closes += body.count(bracket + nl) + body.endswith(bracket)
    return closes == n


def _lines_stand_alone(body: str) -> bool:
    """Whether no value of the whole-file parse can have come from two lines joined by its comma.

    A record line closes on a bracket; when a line does not (half of a value cut in two), every
    line that does not open and close on brackets is parsed on its own, so two broken halves never
    pass for one record. (A first half that closes on a bracket, `{"a": [{"b": 1}`, with a line of
    two values to even the count, would still pass: contrived.)
    """
    # The usual file, every line closing on a brace, is told by one count in C, no line looked at:
    # the first half of a value cut in two cannot close on its bracket (but for the contrived case above).
    if _every_line_closes(body):
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


# Bytes of a JSON Lines file decoded at a time: large enough that the per-chunk cost vanishes, small
# enough that a file's text is never held whole (a 500 MB prediction log streams through 16 MB).
JSON_LINES_CHUNK = 16 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"


def stream_json_lines(path: Path, diags: Diagnostics, types: tuple = ()) -> Iterator[tuple[list[int], list[Any]]]:
    """(line numbers, values) of a JSON Lines file, a chunk of lines at a time, never its whole text.

    Each chunk is decoded by msgspec's decode_lines, typed with the first of
    `types` (msgspec Structs, or `Any`) that decodes every line of it; a type
    that fails once is not tried again for the file. Values are then those
    types' objects, or plain JSON values once every type failed. A chunk msgspec
    refuses (a malformed line, invalid UTF-8, NaN, a huge integer) is read by
    read_json_lines exactly as a whole file always was, so problems are
    reported with the same messages, codes and line numbers.
    Raises UserError when the file cannot be read at all.
    """
    size = regular_file_size(path)
    if size > MAX_TEXT_BYTES:
        raise UserError(f"{path}: file is {size / 1024**2:.0f} MB, larger than the "
                        f"{MAX_TEXT_BYTES / 1024**2:.0f} MB limit for a text file")
    decoders = _decoders(types)
    line = 1
    nonblank = False
    reported_utf8 = False
    try:
        f = open(path, "rb")
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror or e})") from None
    with f:
        tail = b""            # the start of a line the last block cut off (it never holds a newline)
        first = True
        while True:
            try:
                block = f.read(JSON_LINES_CHUNK)
            except OSError as e:
                raise UserError(f"{path}: cannot read ({e.strerror or e})") from None
            if first:
                block, first = block.removeprefix(_BOM), False
                if is_lfs_pointer(block[:64]):
                    raise UserError(f"{path}: {LFS_PROBLEM}")
            if block:
                cut = block.rfind(b"\n") + 1
                if cut == 0:                     # one line longer than a chunk: read on
                    tail += block
                    continue
                # The block's whole lines, read in place (no copy of the block): its first completes the tail's.
                lines = block.split(b"\n")
                next_tail = lines.pop()
                if tail:
                    lines[0] = tail + lines[0]
                    pieces = [lines[0], memoryview(block)[block.index(b"\n") + 1:cut]]
                else:
                    pieces = [memoryview(block)[:cut]]
                tail = next_tail
            elif not tail:
                break
            else:                                # the last line, without its newline
                lines, pieces, tail = [tail], [tail], b""
            numbers, values = _fast_chunk(lines, line, decoders, pieces)
            if numbers is None:
                data = b"\n".join(lines) + (b"\n" if block else b"")
                text, reported_utf8 = _chunk_text(data, path, diags, line, reported_utf8)
                nonblank = nonblank or any(ln and not ln.isspace() for ln in text.split("\n"))
                numbers, values = read_json_lines(text, path, diags, line, whole_file=False)
            nonblank = nonblank or bool(numbers)
            line += len(lines)
            if numbers:
                yield numbers, values
            if not block:
                break
    if not nonblank:
        diags.error("file is empty", path, code="file.empty")


def _decoders(types: tuple) -> list:
    import msgspec  # lazily: loading a release is the only place that needs it
    return [msgspec.json.Decoder(t) for t in (*types, Any)]


_CLOSERS = (b"}", b"]")


def _fast_chunk(lines: list[bytes], first_line: int, decoders: list,
                pieces: list) -> tuple[list[int] | None, list]:
    """The chunk's non-blank lines decoded by the first decoder that takes them all (dropping those
    before it from `decoders`); (None, []) when none does. `lines` are the chunk's lines, `pieces` its
    bytes (one or two runs of whole lines, bytes or memoryviews), each ending at the end of a line."""
    import msgspec
    # Blank by bytes; a line of Unicode spaces is not, and takes the careful path. Told in C for the usual chunk.
    if b"" in lines or any(map(bytes.isspace, lines)):
        numbers = [n for n, ln in enumerate(lines, first_line) if ln.strip()]
        if not numbers:
            return [], []
        kept = [lines[n - first_line] for n in numbers]
    else:
        numbers, kept = list(range(first_line, first_line + len(lines))), lines
    while decoders:
        try:
            # One value per line, whitespace between (so blank lines are skipped): no copy of the chunk.
            values = decoders[0].decode_lines(pieces[0])
            for piece in pieces[1:]:
                values += decoders[0].decode_lines(piece)
        except msgspec.ValidationError:
            decoders.pop(0)              # not of this type: try the next, for this chunk and the rest
            continue
        except (msgspec.DecodeError, RecursionError):
            return None, []
        # A line holding two values adds one, and a value cut over two lines loses one: either way the count
        # differs. Both at once would even it out, but a value cut in two leaves a line that does not close on
        # a brace or bracket: such chunks go to the careful path, which reports their lines.
        ok = len(values) == len(numbers) and (all(map(bytes.endswith, kept, repeat(_CLOSERS))) or all(
            map(bytes.endswith, map(bytes.rstrip, kept), repeat(_CLOSERS))))
        return (numbers, values) if ok else (None, [])
    return None, []


def _chunk_text(data: bytes, path: Path, diags: Diagnostics, first_line: int,
                reported: bool) -> tuple[str, bool]:
    """A chunk's text; bytes that are not UTF-8 replaced, the file's first such line reported once."""
    try:
        return data.decode("utf-8"), reported
    except UnicodeDecodeError as e:
        if not reported:
            line = first_line + data.count(b"\n", 0, e.start)
            diags.error(f"not UTF-8 (byte 0x{data[e.start]:02x}); undecodable bytes replaced",
                        path, line, code="file.not_utf8")
        return data.decode("utf-8", errors="replace"), True


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
