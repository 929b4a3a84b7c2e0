"""Writing files so that a crash never leaves half a file behind."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, fsync, rename over `path`, fsync the folder.

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
            f.write(data)
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


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


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
