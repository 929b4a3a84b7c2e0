"""Saved views: named browser filters, sort and shown models, kept in the release's SQLite beside the flags.

A view names models by name, not by load order, so it opens on another day
with other prediction files: a model that is no longer loaded is skipped and
`ResolvedView.skipped` says which. The table lives in the flags database
(`flags.annotations_path`: `annotations.sqlite` beside the release, else the
user data folder), with the same conventions: WAL with a busy timeout, every
write one `BEGIN IMMEDIATE` transaction, a damaged or locked file leaves the
store read-only with `problem` saying why.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from ..browse import BrowseFilter
from ..diagnostics import UserError
from .flags import BUSY_SECONDS, annotations_path, immediate_transaction, now

_SCHEMA = """
CREATE TABLE IF NOT EXISTS views(
    name  TEXT PRIMARY KEY,
    doc   TEXT NOT NULL,
    at    TEXT NOT NULL
);
"""
FORMAT = "gst-view/1"


@dataclass(frozen=True)
class ResolvedView:
    """A saved view as this session can show it."""
    name: str
    filter: BrowseFilter
    sort: tuple                              # (key, descending); a model key is ("score", model index)
    visible: frozenset[int]
    skipped: tuple[str, ...]                 # models the view names that are not loaded


def view_document(f: BrowseFilter, sort: tuple, visible, models: tuple[str, ...]) -> dict:
    """A view as JSON: model indices turned into names."""
    def name(m):
        return models[m] if m is not None and 0 <= m < len(models) else None
    doc = asdict(f)
    doc["columns"] = sorted(f.columns) if f.columns is not None else None
    doc["scenes"] = sorted(f.scenes) if f.scenes is not None else None
    doc["model"], doc["model_b"] = name(f.model), name(f.model_b)
    key, descending = sort
    key = [key[0], name(key[1])] if isinstance(key, tuple) else key
    return {"format": FORMAT, "filter": doc, "sort": [key, bool(descending)],
            "visible": [models[m] for m in sorted(visible) if 0 <= m < len(models)]}


def resolve_view(name: str, doc: dict, models: tuple[str, ...]) -> ResolvedView:
    """A stored view for the loaded `models`; names no longer loaded are skipped and listed."""
    index = {m: k for k, m in enumerate(models)}
    skipped: list[str] = []

    def model(n):
        if n is None:
            return None
        if n not in index:
            if n not in skipped:
                skipped.append(n)
            return None
        return index[n]
    known = {f.name for f in fields(BrowseFilter)}
    raw = {k: v for k, v in (doc.get("filter") or {}).items() if k in known}
    raw["columns"] = frozenset(raw["columns"]) if raw.get("columns") is not None else None
    raw["scenes"] = frozenset(raw["scenes"]) if raw.get("scenes") is not None else None
    raw["model"], raw["model_b"] = model(raw.get("model")), model(raw.get("model_b"))
    f = replace(BrowseFilter(), **raw)
    key, descending = (doc.get("sort") or ["row", False])
    if isinstance(key, list):
        m = model(key[1])
        key = (key[0], m) if m is not None else "row"
    visible = frozenset(k for k in map(model, doc.get("visible") or []) if k is not None)
    return ResolvedView(name, f, (key, bool(descending)), visible, tuple(skipped))


class ViewStore:
    """The saved views of one release."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.problem: str | None = None
        self._lock = threading.Lock()
        self._con: sqlite3.Connection | None = None
        try:
            con = sqlite3.connect(str(self.path), timeout=BUSY_SECONDS, isolation_level=None,
                                  check_same_thread=False)
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=FULL")
            con.executescript(_SCHEMA)
            self._con = con
        except sqlite3.Error as e:
            self.problem = f"{self.path}: saved views cannot be opened ({e}); they are read-only"

    @classmethod
    def for_release(cls, release_root: str | Path) -> "ViewStore":
        path = annotations_path(release_root)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            store = cls.__new__(cls)
            store.path, store._con, store._lock = path, None, threading.Lock()
            store.problem = f"{path.parent}: cannot create the folder for saved views ({e.strerror or e})"
            return store
        return cls(path)

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None

    def names(self) -> list[str]:
        return [name for name, _ in self._read()]

    def documents(self) -> dict[str, dict]:
        out = {}
        for name, text in self._read():
            try:
                out[name] = json.loads(text)
            except ValueError:
                continue                    # a row written by something else: not a view we can show
        return out

    def _read(self) -> list[tuple[str, str]]:
        if self._con is None:
            return []
        try:
            with self._lock:
                return self._con.execute("SELECT name, doc FROM views ORDER BY name COLLATE NOCASE").fetchall()
        except sqlite3.Error as e:
            self.problem = f"{self.path}: saved views cannot be read ({e})"
            return []

    def save(self, name: str, doc: dict) -> None:
        """Store (or replace) the view `name`."""
        name = name.strip()
        if not name:
            raise UserError("a saved view needs a name")
        self._write("INSERT INTO views(name, doc, at) VALUES (?, ?, ?) "
                    "ON CONFLICT(name) DO UPDATE SET doc = excluded.doc, at = excluded.at",
                    (name, json.dumps(doc, sort_keys=True), now()))

    def delete(self, name: str) -> None:
        self._write("DELETE FROM views WHERE name = ?", (name,))

    def _write(self, sql: str, args: tuple) -> None:
        if self._con is None:
            raise UserError(self.problem or f"{self.path}: saved views are read-only")
        with self._lock:
            try:
                immediate_transaction(self._con, lambda con: con.execute(sql, args))
            except sqlite3.Error as e:
                raise UserError(f"{self.path}: the view was not saved ({e})") from None
