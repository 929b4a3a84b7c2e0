"""Writing files so that a crash never leaves half a file behind."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator


@contextmanager
def atomic_binary(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file to write `path` through, in pieces: the pieces go to a temporary file in the same
    folder, which is fsynced and renamed over `path` (and the folder fsynced) when the block ends without
    an exception; on an exception it is removed and `path` is left as it was.

    An existing `path` that is a symbolic link is written through (its target
    is replaced), never replaced by a regular file.
    """
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, _new_file_mode())      # mkstemp makes it private (0600); open() would not
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_folder(path.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` atomically (atomic_binary)."""
    with atomic_binary(path) as f:
        f.write(data)


class TextSink:
    """Text written as UTF-8 into a binary file.

    A lone surrogate (U+D800-U+DFFF alone: what Python makes of JSON's "\\ud800", which a prediction
    file may hold) has no UTF-8 form. It is written as its escape, `\\ud800`, which inside a JSON
    string is the same character, so a JSON file stays valid and reads back unchanged; `escaped` counts
    them, for the caller to say so.
    """

    def __init__(self, f: BinaryIO):
        self._f = f
        self.escaped = 0

    def write(self, text: str) -> None:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            self.escaped += sum(1 for c in text if "\ud800" <= c <= "\udfff")
            data = text.encode("utf-8", "backslashreplace")
        self._f.write(data)


@contextmanager
def atomic_text(path: str | Path) -> Iterator[TextSink]:
    """A TextSink writing `path` atomically (atomic_binary), piece by piece."""
    with atomic_binary(path) as f:
        yield TextSink(f)


def atomic_write_text(path: str | Path, text: str) -> int:
    """Write `text` to `path` as UTF-8, atomically. Returns how many lone surrogates were written as
    `\\uXXXX` escapes (TextSink): 0 for any text UTF-8 can hold."""
    with atomic_text(path) as out:
        out.write(text)
    return out.escaped


def surrogate_note(path: str | Path, escaped: int) -> str:
    """What to tell people when `escaped` lone surrogates were written as escapes into `path`."""
    return (f"warning: {path}: {escaped} lone surrogate{'s' if escaped != 1 else ''} (U+D800-U+DFFF, invalid "
            "Unicode, as a JSON \\ud800 escape decodes) written as \\uXXXX escapes, since UTF-8 cannot hold them")


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable: without it a crash can bring back the old file."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return                                  # a folder we may not open (some platforms): best effort
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _new_file_mode() -> int:
    """The mode open() gives a new file: 0666 less the umask (which can only be read by setting it)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask
