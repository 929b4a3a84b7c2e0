"""Saved views: named browser filters, sort and shown models, kept in the release's SQLite beside the flags.

A view names models by name, not by load order, so it opens on another day
with other prediction files: a model that is no longer loaded is skipped and
`ResolvedView.skipped` says which. It also records each name's stable id (the
file and the name the file gives, `evaluate.model_id`), so a model renamed
since (the Models tab, `-p NAME=PATH`) is still found; a view saved before
the id was recorded finds a renamed model by its former names. The table lives in the flags database
(`review/annotations.py`: `annotations.sqlite` beside the release, else the
user data folder, created at the first save), with the same conventions: WAL
with a busy timeout while written, every write one `BEGIN IMMEDIATE`
transaction, a damaged or locked file leaves the store read-only with
`problem` saying why.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from ..browse import BrowseFilter
from ..diagnostics import UserError
from .annotations import AnnotationStore, annotation_location
from .flags import now

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


def view_document(f: BrowseFilter, sort: tuple, visible, models: tuple[str, ...], ids=()) -> dict:
    """A view as JSON: model indices turned into names; with `ids` (each model's stable id,
    `evaluate.model_id`), "ids" maps each name to its model's id, which a rename keeps."""
    def name(m):
        return models[m] if m is not None and 0 <= m < len(models) else None
    doc = asdict(f)
    doc["columns"] = sorted(f.columns) if f.columns is not None else None
    doc["scenes"] = sorted(f.scenes) if f.scenes is not None else None
    doc["model"], doc["model_b"] = name(f.model), name(f.model_b)
    key, descending = sort
    key = [key[0], name(key[1])] if isinstance(key, tuple) else key
    out = {"format": FORMAT, "filter": doc, "sort": [key, bool(descending)],
           "visible": [models[m] for m in sorted(visible) if 0 <= m < len(models)]}
    if ids:
        out["ids"] = {name: i for name, i in zip(models, ids) if i}
    return out


def resolve_view(name: str, doc: dict, models: tuple[str, ...], identities=()) -> ResolvedView:
    """A stored view for the loaded `models`; names no longer loaded are skipped and listed.

    A name is found by the stable id the view recorded for it (the model renamed since, in the Models tab
    or by `-p NAME=PATH`), else as a loaded model's name, else as a name a loaded model had (a view saved
    before the rename, or before the id was recorded). `identities`: each loaded model's (id, former
    names), `InspectorState.model_identities`."""
    index = {m: k for k, m in enumerate(models)}
    by_id = {i: k for k, (i, _) in enumerate(identities) if i}
    by_alias: dict[str, int] = {}
    for k, (_, aliases) in enumerate(identities):
        for a in aliases:
            by_alias.setdefault(a, k)
    recorded = doc.get("ids") if isinstance(doc.get("ids"), dict) else {}
    skipped: list[str] = []

    def model(n):
        if n is None:
            return None
        found = by_id.get(recorded.get(n))
        if found is None:
            found = index.get(n, by_alias.get(n))
        if found is None:
            if n not in skipped:
                skipped.append(n)
            return None
        return found
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


class ViewStore(AnnotationStore):
    """The saved views of one release."""
    SCHEMA = _SCHEMA
    WHAT = "saved views"

    @classmethod
    def for_release(cls, release_root: str | Path) -> "ViewStore":
        """The release's saved views; nothing is created before the first one is saved."""
        location = annotation_location(release_root)
        return cls(location.path, location)

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
        return self._rows("SELECT name, doc FROM views ORDER BY name COLLATE NOCASE")

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
        self._transaction(lambda con: con.execute(sql, args))
