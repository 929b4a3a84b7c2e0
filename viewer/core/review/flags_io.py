"""Flags out of and into the SQLite store: CSV and JSON, round-trippable.

An export holds the current state per sample (uid, verdict, note, who and
when of the latest change). Importing it into another store records each
value as a change with the exported author and time, so exporting again
gives the same file.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from ..diagnostics import Diagnostics, UserError
from ..textio import read_text
from .flags import VERDICTS, FlagStore

COLUMNS = ("uid", "verdict", "note", "author", "at")
FORMATS = ("csv", "json")


def export_flags(store: FlagStore, fmt: str, history: bool = False) -> str:
    if fmt not in FORMATS:
        raise UserError(f"unknown format {fmt!r}; expected csv or json")
    flags = sorted(store.all().values(), key=lambda f: f.uid)
    if fmt == "json":
        doc = {"flags": [{"uid": f.uid, "verdict": f.verdict, "note": f.note, "author": f.author, "at": f.at}
                         for f in flags]}
        if history:
            doc["history"] = [c.__dict__ for c in store.history()]
        return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if history:
        raise UserError("--history needs --format json")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for f in flags:
        writer.writerow([f.uid, f.verdict or "", f.note, f.author, f.at])
    return out.getvalue()


def read_flag_file(path: str | Path, diags: Diagnostics) -> list[tuple[int | None, dict]]:
    """(line or record number, row) from an exported CSV or JSON file."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    text = read_text(path, diags)
    if path.suffix.lower() == ".json":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise UserError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
        except (RecursionError, ValueError) as e:
            what = "nested too deeply" if isinstance(e, RecursionError) else f"has an unreadable value ({e})"
            raise UserError(f"{path}: JSON {what}") from None
        rows = doc.get("flags") if isinstance(doc, dict) else doc
        if not isinstance(rows, list):
            raise UserError(f"{path}: expected a list of flags or an object with a 'flags' list")
        return [(k + 1, r) for k, r in enumerate(rows)]
    reader = csv.DictReader(io.StringIO(text))
    try:
        if reader.fieldnames is None or "uid" not in reader.fieldnames:
            raise UserError(f"{path}: a flags CSV needs a 'uid' column (columns: {', '.join(COLUMNS)})")
        return [(reader.line_num, row) for row in reader]
    except csv.Error as e:                          # a cell over the field size limit, a stray NUL
        raise UserError(f"{path}:{reader.line_num}: not a readable CSV row ({e})") from None


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def import_flags(store: FlagStore, path: str | Path) -> tuple[int, Diagnostics]:
    """Apply an exported file in one transaction; returns the number of changes made and the
    problems of the rows left out (each named by its line or record number)."""
    diags = Diagnostics()
    changes = []
    for where, row in read_flag_file(path, diags):
        if not isinstance(row, dict) or not isinstance(row.get("uid"), str) or not row["uid"]:
            diags.error("row without a uid; skipped", path, where, code="flags.no_uid")
            continue
        bad = [k for k in ("verdict", "note", "author", "at") if row.get(k) is not None and not isinstance(row[k], str)]
        if bad:
            diags.error(f"{', '.join(bad)} of {row['uid']} must be text, got "
                        f"{', '.join(type(row[k]).__name__ for k in bad)}; skipped", path, where,
                        code="flags.not_text")
            continue
        if not all(_utf8(v) for v in row.values() if isinstance(v, str)):
            diags.error(f"a text of {row['uid']!r} holds a lone surrogate, which no file or database can store; "
                        "skipped", path, where, code="flags.not_text")
            continue
        verdict = row.get("verdict") or None
        if verdict is not None and verdict not in VERDICTS:
            diags.error(f"unknown verdict {verdict!r} for {row['uid']}; expected one of "
                        f"{', '.join(VERDICTS)}; skipped", path, where, code="flags.unknown_verdict")
            continue
        author, at = row.get("author") or None, row.get("at") or None
        changes += [(row["uid"], "verdict", verdict, author, at), (row["uid"], "note", row.get("note") or None,
                                                                    author, at)]
    return store.record_many(changes), diags
