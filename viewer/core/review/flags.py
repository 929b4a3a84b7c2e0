"""Reviewer flags: a verdict and a note per sample, kept in SQLite with their full history.

Every change is one row (who, when, the value before and after) written in
its own transaction, so a killed process loses nothing it reported as saved,
and undo is a new row restoring the earlier value. The current state of a
sample is its latest row per field.

Two windows on one release share the file: the journal is WAL with a busy
timeout, and every write reads the current value and appends the new one
inside one `BEGIN IMMEDIATE` transaction, so concurrent writers queue
rather than overwrite each other unseen. A writer that edited from a stale
value (a note typed while another window changed it) passes `expected` and
gets a FlagConflict instead of silently replacing the other edit.

Where: `annotations.sqlite` beside the release, or in the user data folder
when the release folder cannot be written. A corrupt or locked database
leaves the store read-only with `problem` saying why; nothing raises a
traceback at the user.
"""
from __future__ import annotations

import getpass
import hashlib
import os
import sqlite3
import sys
import tempfile
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..diagnostics import UserError

DB_NAME = "annotations.sqlite"
VERDICTS = {"ok": "ok", "bad_gt": "bad ground truth", "ambiguous": "ambiguous", "bad_media": "bad media"}
FIELDS = ("verdict", "note")
BUSY_SECONDS = 5.0
_COLUMNS = ("id", "uid", "field", "value", "previous", "author", "at", "undoes")


def _unknown_columns(con: sqlite3.Connection) -> list[str]:
    """Columns of `changes` this version does not write (a newer schema would refuse our inserts)."""
    return [row[1] for row in con.execute("PRAGMA table_info(changes)") if row[1] not in _COLUMNS]


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


def _writable(path: Path) -> bool:
    """Whether SQLite may write the file and, for its journal, its folder."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS changes(
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    uid      TEXT NOT NULL,
    field    TEXT NOT NULL CHECK (field IN ('verdict', 'note')),
    value    TEXT,
    previous TEXT,
    author   TEXT NOT NULL,
    at       TEXT NOT NULL,
    undoes   INTEGER REFERENCES changes(id)
);
CREATE INDEX IF NOT EXISTS changes_by_uid ON changes(uid, field, id);
"""


class FlagConflict(UserError):
    """The value changed (in another window) since the caller read it."""


@dataclass(frozen=True)
class Flag:
    uid: str
    verdict: str | None
    note: str
    author: str                 # who made the latest change
    at: str                     # when, ISO 8601 UTC


@dataclass(frozen=True)
class Change:
    id: int
    uid: str
    field: str
    value: str | None
    previous: str | None
    author: str
    at: str
    undoes: int | None


def default_author() -> str:
    try:
        return os.environ.get("GST_VIEWER_USER") or getpass.getuser()
    except Exception:          # no login name (containers): still record something
        return "unknown"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def user_data_dir() -> Path:
    if os.environ.get("GST_VIEWER_DATA"):
        return Path(os.environ["GST_VIEWER_DATA"])
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "gst-viewer"


def _folder_writable(folder: Path) -> bool:
    # os.access says yes to root on a read-only mount; creating a file is the real test.
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


# The app's own bundled releases (the demo): in a checkout, assets/; installed, viewer/_assets/.
_BUNDLED_FOLDERS = (Path(__file__).resolve().parents[3] / "assets",
                    Path(__file__).resolve().parents[2] / "_assets")


def _is_bundled(root: Path) -> bool:
    return any(root == b or b in root.parents for b in _BUNDLED_FOLDERS)


def annotations_path(release_root: str | Path) -> Path:
    """annotations.sqlite beside the release, else a per-release file in the user data folder.

    The bundled demo always uses the user data folder: the app's own files
    (and a source checkout's assets/) are never written to.
    """
    root = Path(release_root).expanduser().resolve()
    if root.is_file():
        root = root.parent
    if not _is_bundled(root) and _folder_writable(root):
        return root / DB_NAME
    digest = hashlib.sha1(str(root).encode("utf-8")).hexdigest()[:12]
    return user_data_dir() / "annotations" / f"{root.name}-{digest}.sqlite"


class FlagStore:
    def __init__(self, path: str | Path, author: str | None = None):
        self.path = Path(path)
        self.author = author or default_author()
        self.problem: str | None = None
        self._con: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._undo: list[int] = []
        self._open()

    @classmethod
    def for_release(cls, release_root: str | Path, author: str | None = None) -> "FlagStore":
        path = annotations_path(release_root)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            store = cls.__new__(cls)
            store.path, store.author, store._con, store._undo = path, author or default_author(), None, []
            store._lock = threading.Lock()
            store.problem = f"{path.parent}: cannot create the folder for flags ({e.strerror or e}); read-only"
            return store
        return cls(path, author)

    @property
    def readonly(self) -> bool:
        return self.problem is not None

    # ------------------------------------------------------------ opening
    def _open(self) -> None:
        try:
            con = sqlite3.connect(str(self.path), timeout=BUSY_SECONDS, isolation_level=None,
                                  check_same_thread=False)
        except sqlite3.Error as e:
            self.problem = f"{self.path}: cannot open the flags database ({e}); flags are read-only"
            return
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=FULL")
            con.executescript(_SCHEMA)
            bad = con.execute("PRAGMA quick_check(1)").fetchone()[0]
            if bad != "ok":
                raise sqlite3.DatabaseError(bad)
            unknown = _unknown_columns(con)
        except sqlite3.Error as e:
            con.close()
            self.problem = self._describe(e, "cannot be opened") + "; flags are read-only this session"
            self._con = self._read_only_connection()
            return
        self._con = con
        # Said now, not at the first verdict set: a file or folder we may not write, a newer schema.
        if unknown:
            self.problem = (f"{self.path}: the flags database was written by a newer gst-viewer (columns "
                            f"{', '.join(unknown)}); flags are read-only here, and the file is fine")
        elif not _writable(self.path):
            self.problem = f"{self.path}: the flags database is read-only (no permission to write it or its folder)"

    def _read_only_connection(self) -> sqlite3.Connection | None:
        """Whatever can still be read, for showing; None when nothing can."""
        try:
            con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=0.5,
                                  isolation_level=None, check_same_thread=False)
            con.execute("SELECT count(*) FROM changes").fetchone()
            return con
        except sqlite3.Error:
            return None

    def _describe(self, e: sqlite3.Error, doing: str) -> str:
        text = str(e)
        if "locked" in text or "busy" in text:
            return f"{self.path}: the flags database is locked by another program, {doing}"
        if isinstance(e, sqlite3.OperationalError) and "readonly" in text.replace(" ", ""):
            return f"{self.path}: the flags database is read-only, {doing}"
        if "not a database" in text or "malformed" in text or "corrupt" in text or \
                isinstance(e, sqlite3.DatabaseError) and not isinstance(e, sqlite3.OperationalError):
            return f"{self.path}: the flags database is damaged ({text}) and {doing}; move it away to start afresh"
        return f"{self.path}: flags database error ({text}), {doing}"

    def reopen(self) -> None:
        """Try again after a lock was released or a damaged file was moved away."""
        self.close()
        self.problem = None
        self._open()

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None

    # ------------------------------------------------------------ reading
    def _rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        if self._con is None:
            return []
        try:
            with self._lock:
                return self._con.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            if self.problem is None:
                self.problem = self._describe(e, "cannot be read") + "; flags are read-only this session"
            return []

    def all(self) -> dict[str, Flag]:
        """Every sample with a verdict or a note, by uid."""
        rows = self._rows(
            "SELECT c.uid, c.field, c.value, c.author, c.at, c.id FROM changes c JOIN "
            "(SELECT max(id) AS id FROM changes GROUP BY uid, field) m ON c.id = m.id ORDER BY c.id")
        state: dict[str, dict] = {}
        for uid, field, value, author, at, _ in rows:
            s = state.setdefault(uid, {"verdict": None, "note": "", "author": author, "at": at})
            s[field] = value if field == "verdict" else (value or "")
            s["author"], s["at"] = author, at          # rows come in id order: the last one wins
        return {uid: Flag(uid, s["verdict"], s["note"], s["author"], s["at"])
                for uid, s in state.items() if s["verdict"] or s["note"]}

    def get(self, uid: str) -> Flag | None:
        rows = self._rows("SELECT field, value, author, at FROM changes WHERE uid = ? AND id IN "
                          "(SELECT max(id) FROM changes WHERE uid = ? GROUP BY field) ORDER BY id", (uid, uid))
        if not rows:
            return None
        s = {"verdict": None, "note": ""}
        for field, value, _author, _at in rows:
            s[field] = value if field == "verdict" else (value or "")
        if not s["verdict"] and not s["note"]:
            return None
        return Flag(uid, s["verdict"], s["note"], rows[-1][2], rows[-1][3])

    def verdicts(self) -> dict[str, str]:
        """uid -> verdict, for filtering the sample browser."""
        return {uid: f.verdict for uid, f in self.all().items() if f.verdict}

    def history(self, uid: str | None = None) -> list[Change]:
        sql = "SELECT id, uid, field, value, previous, author, at, undoes FROM changes"
        rows = self._rows(sql + (" WHERE uid = ? ORDER BY id" if uid is not None else " ORDER BY id"),
                          (uid,) if uid is not None else ())
        return [Change(*r) for r in rows]

    # ------------------------------------------------------------ writing
    def set_verdict(self, uid: str, verdict: str | None) -> Change | None:
        """Set (or with None, clear) the verdict; None when it already was that."""
        if verdict is not None and verdict not in VERDICTS:
            raise UserError(f"unknown verdict {verdict!r}; expected one of {', '.join(VERDICTS)}")
        return self._write(uid, "verdict", verdict)

    def set_note(self, uid: str, note: str, expected: str | None | object = ...) -> Change | None:
        """Set the note. With `expected` (the note as the caller last read it), refuse with
        FlagConflict when someone else changed it since."""
        return self._write(uid, "note", note or None, expected=expected)

    def record_many(self, changes: list[tuple[str, str, str | None, str | None, str | None]]) -> int:
        """(uid, field, value, author, at) changes, all in one transaction: all are saved or none.

        Values equal to the current one are not recorded; returns how many were.
        """
        for uid, field, value, _author, _at in changes:
            if field not in FIELDS:
                raise UserError(f"unknown flag field {field!r}")
            if field == "verdict" and value is not None and value not in VERDICTS:
                raise UserError(f"unknown verdict {value!r}; expected one of {', '.join(VERDICTS)}")
            if not isinstance(uid, str) or not uid:
                raise UserError("a flag needs a sample uid")

        def apply(con: sqlite3.Connection) -> int:
            made = 0
            for uid, field, value, author, at in changes:
                row = con.execute("SELECT value FROM changes WHERE uid = ? AND field = ? "
                                  "ORDER BY id DESC LIMIT 1", (uid, field)).fetchone()
                current = row[0] if row else None
                if current != value:
                    self._insert(con, uid, field, value, current, author=author, at=at)
                    made += 1
            return made

        return self._transaction(apply)

    @property
    def readable(self) -> bool:
        """Whether the flags can be read at all (a damaged or locked file may still be read-only)."""
        return self._con is not None

    @property
    def can_undo(self) -> bool:
        return bool(self._undo) and not self.readonly

    def undo(self) -> Change | None:
        """Undo this store's latest change, unless the value changed again since (FlagConflict)."""
        if not self._undo:
            return None
        cid = self._undo[-1]

        def apply(con: sqlite3.Connection) -> Change | None:
            row = con.execute("SELECT uid, field, value, previous FROM changes WHERE id = ?", (cid,)).fetchone()
            if row is None:
                return None
            uid, field, value, previous = row
            latest = con.execute("SELECT value, author, at FROM changes WHERE uid = ? AND field = ? "
                                 "ORDER BY id DESC LIMIT 1", (uid, field)).fetchone()
            # Undoable while the value is still what that change left (later undos of ours
            # restore it); a different value means someone else changed it since.
            if latest[0] != value:
                raise FlagConflict(f"the {field} of {uid} was changed again by {latest[1]} at {latest[2]}; "
                                   "not undone")
            return self._insert(con, uid, field, previous, value, undoes=cid)

        try:
            change = self._transaction(apply)
        except FlagConflict:
            self._undo.pop()
            raise
        self._undo.pop()
        return change

    def _write(self, uid: str, field: str, value: str | None, expected: object = ...,
               author: str | None = None, at: str | None = None) -> Change | None:
        if not isinstance(uid, str) or not uid:
            raise UserError("a flag needs a sample uid")

        def apply(con: sqlite3.Connection) -> Change | None:
            row = con.execute("SELECT value, author, at FROM changes WHERE uid = ? AND field = ? "
                              "ORDER BY id DESC LIMIT 1", (uid, field)).fetchone()
            current = row[0] if row else None
            if expected is not ... and (current or None) != (expected or None):
                raise FlagConflict(f"the {field} of {uid} was changed by {row[1]} at {row[2]} "
                                   "since you opened it")
            if current == value:
                return None
            return self._insert(con, uid, field, value, current, author=author, at=at)

        change = self._transaction(apply)
        if change is not None:
            self._undo.append(change.id)
        return change

    def _insert(self, con, uid, field, value, previous, undoes=None, author=None, at=None) -> Change:
        author, at = author or self.author, at or now()
        cur = con.execute("INSERT INTO changes(uid, field, value, previous, author, at, undoes) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?)", (uid, field, value, previous, author, at, undoes))
        return Change(cur.lastrowid, uid, field, value, previous, author, at, undoes)

    def _transaction(self, apply):
        if self.readonly or self._con is None:
            raise UserError(self.problem or f"{self.path}: flags are read-only")
        with self._lock:
            try:
                return immediate_transaction(self._con, apply)
            except sqlite3.Error as e:
                message = self._describe(e, "the change was not saved")
                if not isinstance(e, sqlite3.OperationalError) or "locked" not in str(e):
                    # Damage (not a passing lock): stop writing, keep showing what can be read.
                    self.problem = message + "; flags are read-only this session"
                raise UserError(message) from None
