"""Where a release's annotations live, and the SQLite file its flags and saved views share.

Nothing is written before the user saves something. A store opens an existing
file only to read it, and creates the file (and its tables) at its first
write: opening a release, a screenshot or a command that only reads leaves
the release folder as it was. While a session writes, the journal is WAL with
a busy timeout, so two windows on one release queue rather than overwrite
each other; the last store to close checkpoints the WAL and puts the file
back in rollback mode, which removes `-wal` and `-shm` and lets a later
reader open it without creating either.

Where: `annotations.sqlite` beside the release when the release folder can be
written, else a per-release file in the user data folder (platformdirs;
`$GST_VIEWER_DATA` overrides it), keyed by the release's resolved path. A file
that already exists wins, so a release keeps its annotations where they were
first saved. The bundled demo always uses the user data folder.

A release is a download, and so is the `annotations.sqlite` shipped in it: the file is opened as
untrusted input. A database with triggers or views (which run inside our own reads and writes), or
whose tables are not ours, is opened read-only with the reason, as a damaged one is; cells are read
as text whatever their type; and a symbolic link named `annotations.sqlite` is followed only to a
regular file inside the release (else the user data folder is used, and the link is left alone).
"""
from __future__ import annotations

import functools
import hashlib
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..diagnostics import UserError

DB_NAME = "annotations.sqlite"
BUSY_SECONDS = 5.0


def user_data_dir() -> Path:
    """The user's data folder for gst-viewer (`$GST_VIEWER_DATA` overrides it)."""
    if os.environ.get("GST_VIEWER_DATA"):
        return Path(os.environ["GST_VIEWER_DATA"])
    import platformdirs
    return Path(platformdirs.user_data_dir("gst-viewer", appauthor=False, roaming=True))


def _folder_writable(folder: Path) -> bool:
    # Asked without writing anything: access(2) also says no on a read-only mount (EROFS), for root too.
    # When it is wrong (ACLs, network folders), creating the file fails and the user data folder is used.
    return os.access(folder, os.W_OK | os.X_OK)


def _writable(path: Path) -> bool:
    """Whether SQLite may write the file and, for its journal, its folder."""
    return os.access(path, os.W_OK) and _folder_writable(path.parent)


# The app's own bundled releases (the demo): in a checkout, assets/; installed, viewer/_assets/.
_BUNDLED_FOLDERS = (Path(__file__).resolve().parents[3] / "assets",
                    Path(__file__).resolve().parents[2] / "_assets")


def _is_bundled(root: Path) -> bool:
    return any(root == b or b in root.parents for b in _BUNDLED_FOLDERS)


@dataclass(frozen=True)
class Location:
    """Where a release's annotations are, or will be at the first save."""
    path: Path
    reason: str | None = None            # why not beside the release; None when beside it
    fallback: Path | None = None         # the user data file, should creating `path` fail after all

    @property
    def beside_release(self) -> bool:
        return self.reason is None


def release_folder(release_root: str | Path) -> Path:
    root = Path(release_root).expanduser().resolve()
    return root.parent if root.is_file() else root


def annotation_location(release_root: str | Path) -> Location:
    root = release_folder(release_root)
    beside = root / DB_NAME
    digest = hashlib.sha1(str(root).encode("utf-8")).hexdigest()[:12]
    personal = user_data_dir() / "annotations" / f"{root.name}-{digest}.sqlite"
    if _is_bundled(root):
        return Location(personal, "the bundled demo is never written")
    refused = _not_followed(root, beside)
    if refused:
        return Location(personal, refused)
    if beside.exists():
        return Location(beside)
    if not _folder_writable(root):
        return Location(personal, "the release folder is read-only")
    if personal.exists():
        return Location(personal, "they were saved there when the release folder could not be written")
    return Location(beside, fallback=personal)


def _not_followed(root: Path, beside: Path) -> str | None:
    """Why the release's annotations.sqlite must not be used: a link out of the release (or to nothing:
    SQLite would create the file it names), or not a regular file; None when it is fine or absent."""
    if beside.is_symlink():
        target = Path(os.path.realpath(beside))
        if not target.is_file():
            return f"{beside} is a symbolic link to {target}, which is not a file; it is not followed"
        if target != root and root not in target.parents:
            return f"{beside} is a symbolic link out of the release (to {target}); it is not followed"
        return None
    if beside.exists() and not beside.is_file():
        return f"{beside} is not a regular file"
    return None


def annotations_path(release_root: str | Path) -> Path:
    """annotations.sqlite beside the release, else a per-release file in the user data folder."""
    return annotation_location(release_root).path


def immediate_transaction(con: sqlite3.Connection, apply):
    """apply(con) between BEGIN IMMEDIATE and COMMIT (writers queue, none loses an update);
    on any error the transaction is rolled back and the error raised again."""
    try:
        con.execute("BEGIN IMMEDIATE")
        result = apply(con)
        con.execute("COMMIT")
        return result
    except BaseException:
        if con.in_transaction:
            try:
                con.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        raise


def enter_wal(con: sqlite3.Connection, deadline: float = BUSY_SECONDS) -> None:
    """PRAGMA journal_mode=WAL, tried again while another connection is switching the same file.

    Leaving rollback mode takes the file's exclusive lock from a shared one. When two connections do
    it at once (two windows saving their first flag in a new file), SQLite returns "locked" to one of
    them at once, without its busy handler, since waiting could deadlock; once the other is through,
    the switch is a no-op. So this is the one statement retried by hand, until the busy timeout."""
    give_up = time.monotonic() + deadline
    pause = 0.002
    while True:
        try:
            con.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() + pause > give_up:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def _connect(path: Path) -> sqlite3.Connection:
    return _guarded(sqlite3.connect(str(path), timeout=BUSY_SECONDS, isolation_level=None,
                                    check_same_thread=False))


def _guarded(con: sqlite3.Connection) -> sqlite3.Connection:
    """A connection that reads any text (bytes that are not UTF-8 replaced, not an error) and lets no view
    or trigger of the file call a function with side effects."""
    con.text_factory = _text
    try:
        con.execute("PRAGMA trusted_schema=OFF")
    except sqlite3.Error:                    # SQLite before 3.31: the schema check below still refuses
        pass
    return con


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def cell_text(value) -> str | None:
    """A cell as the text it should have been (NULL stays None): a BLOB decoded, a number written out."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


# The longest cell a store reads (a note is a few lines): a 300 MB cell is cut here, in SQLite.
MAX_CELL = 100_000

# What the stores' SCHEMAs create, by module: the file may hold these and SQLite's own, nothing else.
_STORE_MODULES = ("flags", "views")


@functools.cache
def _our_schema() -> dict[str, tuple[str, frozenset[str]]]:
    """name -> (type, columns) of every table and index the stores create."""
    import importlib
    mem = sqlite3.connect(":memory:")
    try:
        for name in _STORE_MODULES:
            module = importlib.import_module(f"{__package__}.{name}")
            for store in vars(module).values():
                if isinstance(store, type) and issubclass(store, AnnotationStore) and store.SCHEMA:
                    mem.executescript(store.SCHEMA)
        return {name: (kind, frozenset(r[1] for r in mem.execute(f"PRAGMA table_info('{name}')")))
                for kind, name in mem.execute("SELECT type, name FROM sqlite_master")}
    finally:
        mem.close()


def foreign_schema(con: sqlite3.Connection, path: Path) -> str | None:
    """Why the file's schema is not ours, or None: a trigger or a view (they would run inside our reads and
    writes), or a table of ours that is something else or lacks its columns. Other tables and indexes are
    inert to us (never read) and allowed."""
    ours = _our_schema()
    for kind, name in con.execute("SELECT type, name FROM sqlite_master"):
        name = cell_text(name)
        if kind in ("trigger", "view"):
            return f"{path}: the database holds a {kind} ({name!r}), which gst-viewer never makes"
        if name not in ours:
            continue
        if ours[name][0] != kind:
            return f"{path}: its {name!r} is a {kind}, where gst-viewer makes a {ours[name][0]}"
        if kind == "table":
            columns = {cell_text(r[1]) for r in con.execute(f"PRAGMA table_info('{name}')")}
            missing = ours[name][1] - columns
            if missing:
                return f"{path}: its table {name!r} lacks the columns {', '.join(sorted(missing))}"
    return None


class AnnotationStore:
    """One table of the annotations file, through its own connection.

    A subclass names its table's `SCHEMA`, says what it holds in `WHAT` (for
    messages) and may refuse a file in `_check(con)`. A damaged, locked or
    read-only file leaves the store read-only with `problem` saying why;
    nothing raises a traceback at the user.
    """
    SCHEMA = ""
    WHAT = "annotations"

    def __init__(self, path: str | Path, location: Location | None = None):
        self.location = location or Location(Path(path))
        self.problem: str | None = None
        self._con: sqlite3.Connection | None = None
        self._ready = False                  # WAL set and the table created: done before the first write
        self._lock = threading.Lock()
        self._open()

    @property
    def path(self) -> Path:
        return self.location.path

    @property
    def readonly(self) -> bool:
        return self.problem is not None

    @property
    def readable(self) -> bool:
        """Whether the store can be read: a file not created yet reads as empty."""
        return self._con is not None or (self.problem is None and not self.path.exists())

    @property
    def where(self) -> str:
        """Where the file is, or will be at the first save, and why there: said in the window."""
        reason = self.location.reason
        return f"{self.path}" + (f" (in your data folder: {reason})" if reason else "")

    # ------------------------------------------------------------ opening
    def _check(self, con: sqlite3.Connection) -> str | None:
        """A reason this file must not be written (a newer schema), or None; raises on damage."""
        return None

    def _open(self) -> None:
        if not self.path.exists():
            return                               # created by the first write
        try:
            con = _connect(self.path)
        except sqlite3.Error as e:
            self.problem = f"{self.path}: cannot open the {self.WHAT} database ({e}); {self.WHAT} are read-only"
            return
        try:
            foreign = foreign_schema(con, self.path)
            if foreign:
                self.problem = (f"{foreign}: not a gst-viewer annotations file, or altered; {self.WHAT} are "
                                "read-only this session (move it away to start afresh)")
                # Read on from our tables, unless one of them is a view (it could run for ever).
                ours = [name for name, (kind, _) in _our_schema().items() if kind == "table"]
                shadowed = con.execute(f"SELECT 1 FROM sqlite_master WHERE type != 'table' AND name IN "
                                       f"({', '.join('?' * len(ours))})", ours).fetchone()
                con.close()
                self._con = None if shadowed else self._read_only_connection()
                return
            con.execute("PRAGMA synchronous=FULL")
            refused = self._check(con)
        except sqlite3.Error as e:
            con.close()
            self.problem = self._describe(e, "cannot be opened") + f"; {self.WHAT} are read-only this session"
            self._con = self._read_only_connection()
            return
        self._con = con
        # Said now, not at the first save: a newer schema, a file or folder we may not write.
        if refused:
            self.problem = refused
        elif not _writable(self.path):
            self.problem = (f"{self.path}: the {self.WHAT} database is read-only "
                            "(no permission to write it or its folder)")

    def _read_only_connection(self) -> sqlite3.Connection | None:
        """Whatever can still be read, for showing; None when nothing can."""
        try:
            con = _guarded(sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=0.5,
                                           isolation_level=None, check_same_thread=False))
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return con
        except sqlite3.Error:
            return None

    def _prepare_writing(self) -> None:
        """Before the first write: create the file (in the user data folder when the release folder
        turns out not to be writable), set WAL and create the table. Raises UserError."""
        if self._con is None:
            tried = []
            for path in dict.fromkeys(p for p in (self.path, self.location.fallback) if p is not None):
                con = None
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    con = _connect(path)
                    con.execute("PRAGMA synchronous=FULL")
                    enter_wal(con)
                except (OSError, sqlite3.Error) as e:
                    if con is not None:
                        con.close()
                    tried.append(f"{path} ({getattr(e, 'strerror', None) or e})")
                    continue
                if path != self.path:
                    self.location = Location(path, "the release folder could not be written")
                self._con = con
                break
            else:
                raise UserError(f"cannot create the {self.WHAT} database: {'; '.join(tried)}; nothing saved")
        if not self._ready:
            try:
                enter_wal(self._con)
                # Checked and created in one write transaction: another process creating the same file
                # at the same moment is never seen half-made (a table without its index) nor raced.
                self._con.execute("BEGIN IMMEDIATE")
                try:
                    refused = foreign_schema(self._con, self.path) or self._check(self._con)
                    if refused:
                        self.problem = refused
                        raise UserError(refused)
                    for statement in filter(str.strip, self.SCHEMA.split(";")):
                        self._con.execute(statement)
                    self._con.execute("COMMIT")
                except BaseException:
                    if self._con.in_transaction:
                        self._con.execute("ROLLBACK")
                    raise
            except sqlite3.Error as e:
                raise UserError(self._describe(e, "the change was not saved")) from None
            self._ready = True

    def _describe(self, e: sqlite3.Error, doing: str) -> str:
        text = str(e)
        what = f"the {self.WHAT} database"
        if "locked" in text or "busy" in text:
            return f"{self.path}: {what} is locked by another program, {doing}"
        if isinstance(e, sqlite3.OperationalError) and "readonly" in text.replace(" ", ""):
            return f"{self.path}: {what} is read-only, {doing}"
        if "not a database" in text or "malformed" in text or "corrupt" in text or \
                isinstance(e, sqlite3.DatabaseError) and not isinstance(e, sqlite3.OperationalError):
            return f"{self.path}: {what} is damaged ({text}) and {doing}; move it away to start afresh"
        return f"{self.path}: {what} error ({text}), {doing}"

    def reopen(self) -> None:
        """Try again after a lock was released or a damaged file was moved away."""
        self.close()
        self.problem = None
        self._open()

    def close(self) -> None:
        """Close the connection; the last one open on the file checkpoints the WAL and removes
        `-wal` and `-shm` (the file is left in rollback mode, which a reader opens without writing)."""
        with self._lock:
            con, self._con, self._ready = self._con, None, False
            if con is None:
                return
            if self.problem is None:
                try:
                    con.execute("PRAGMA busy_timeout=0")        # another connection still open: it does it
                    if con.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                        con.execute("PRAGMA journal_mode=DELETE")
                except sqlite3.Error:
                    pass
            con.close()

    # ------------------------------------------------------------ reading and writing
    def _rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        if self._con is None and self.problem is None and self.path.exists():
            with self._lock:
                if self._con is None:
                    self._open()                 # created since, by another window or process
        if self._con is None:
            return []
        try:
            with self._lock:
                return self._con.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            if isinstance(e, sqlite3.OperationalError) and "no such table" in str(e):
                return []                        # the file holds the other store's table only, so far
            if self.problem is None:
                self.problem = self._describe(e, "cannot be read") + f"; {self.WHAT} are read-only this session"
            return []

    def _transaction(self, apply):
        if self.readonly:
            raise UserError(self.problem)
        with self._lock:
            self._prepare_writing()
            try:
                return immediate_transaction(self._con, apply)
            except sqlite3.Error as e:
                message = self._describe(e, "the change was not saved")
                if not isinstance(e, sqlite3.OperationalError) or "locked" not in str(e):
                    # Damage (not a passing lock): stop writing, keep showing what can be read.
                    self.problem = message + f"; {self.WHAT} are read-only this session"
                raise UserError(message) from None
