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

Where, and when the file is created: `review/annotations.py` (beside the
release, or in the user data folder when the release folder cannot be
written; nothing is written before the first flag). A corrupt or locked
database leaves the store read-only with `problem` saying why; nothing
raises a traceback at the user.
"""
from __future__ import annotations

import getpass
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..diagnostics import UserError
from .annotations import (  # noqa: F401  (re-exported: where flags live is asked of this module)
    BUSY_SECONDS,
    DB_NAME,
    MAX_CELL,
    AnnotationStore,
    annotation_location,
    annotations_path,
    cell_text,
    immediate_transaction,
    user_data_dir,
)

VERDICTS = {"ok": "ok", "bad_gt": "bad ground truth", "ambiguous": "ambiguous", "bad_media": "bad media"}
FIELDS = ("verdict", "note")
_COLUMNS = ("id", "uid", "field", "value", "previous", "author", "at", "undoes")


def _unknown_columns(con: sqlite3.Connection) -> list[str]:
    """Columns of `changes` this version does not write (a newer schema would refuse our inserts)."""
    return [row[1] for row in con.execute("PRAGMA table_info(changes)") if row[1] not in _COLUMNS]


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


# The columns as read: every text cut to MAX_CELL in SQLite (a 300 MB cell never reaches Python), then made
# text by `_row` whatever its type (a shipped file may hold BLOBs or numbers where we write text).
_TEXT = "substr({0}, 1, %d)" % MAX_CELL
_READ = {c: (c if c == "id" else _TEXT.format(c)) for c in _COLUMNS}


def _select(*columns: str) -> str:
    return ", ".join(_READ[c] for c in columns)


def _row(row: tuple) -> tuple:
    """A row as text, but for a leading `id` (an INTEGER PRIMARY KEY: always an integer)."""
    return tuple(v if k == 0 and type(v) is int else cell_text(v) for k, v in enumerate(row))


def _number(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


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


class FlagStore(AnnotationStore):
    SCHEMA = _SCHEMA
    WHAT = "flags"

    def __init__(self, path: str | Path, author: str | None = None, location=None):
        self.author = author or default_author()
        self._undo: list[int] = []
        super().__init__(path, location)

    @classmethod
    def for_release(cls, release_root: str | Path, author: str | None = None) -> "FlagStore":
        """The release's flags; nothing is created before the first one is set."""
        location = annotation_location(release_root)
        return cls(location.path, author, location)

    def _check(self, con: sqlite3.Connection) -> str | None:
        bad = con.execute("PRAGMA quick_check(1)").fetchone()[0]
        if bad != "ok":
            raise sqlite3.DatabaseError(bad)
        unknown = _unknown_columns(con)
        if unknown:
            return (f"{self.path}: the flags database was written by a newer gst-viewer (columns "
                    f"{', '.join(unknown)}); flags are read-only here, and the file is fine")
        return None

    # ------------------------------------------------------------ reading
    def all(self) -> dict[str, Flag]:
        """Every sample with a verdict or a note, by uid."""
        rows = self._rows(
            f"SELECT {_select('uid', 'field', 'value', 'author', 'at')} FROM changes c JOIN "
            "(SELECT max(id) AS id FROM changes GROUP BY uid, field) m ON c.id = m.id ORDER BY c.id")
        state: dict[str, dict] = {}
        for uid, field, value, author, at in map(_row, rows):
            if field not in FIELDS or uid is None:
                continue
            s = state.setdefault(uid, {"verdict": None, "note": "", "author": author or "", "at": at or ""})
            s[field] = value if field == "verdict" else (value or "")
            s["author"], s["at"] = author or "", at or ""      # rows come in id order: the last one wins
        return {uid: Flag(uid, s["verdict"], s["note"], s["author"], s["at"])
                for uid, s in state.items() if s["verdict"] or s["note"]}

    def get(self, uid: str) -> Flag | None:
        rows = self._rows(f"SELECT {_select('field', 'value', 'author', 'at')} FROM changes WHERE uid = ? AND "
                          "id IN (SELECT max(id) FROM changes WHERE uid = ? GROUP BY field) ORDER BY id", (uid, uid))
        rows = [r for r in map(_row, rows) if r[0] in FIELDS]
        if not rows:
            return None
        s = {"verdict": None, "note": ""}
        for field, value, _author, _at in rows:
            s[field] = value if field == "verdict" else (value or "")
        if not s["verdict"] and not s["note"]:
            return None
        return Flag(uid, s["verdict"], s["note"], rows[-1][2] or "", rows[-1][3] or "")

    def verdicts(self) -> dict[str, str]:
        """uid -> verdict, for filtering the sample browser."""
        return {uid: f.verdict for uid, f in self.all().items() if f.verdict}

    def history(self, uid: str | None = None) -> list[Change]:
        sql = f"SELECT {_select(*_COLUMNS)} FROM changes"
        rows = self._rows(sql + (" WHERE uid = ? ORDER BY id" if uid is not None else " ORDER BY id"),
                          (uid,) if uid is not None else ())
        return [Change(*r[:7], _number(r[7])) for r in map(_row, rows)]

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
