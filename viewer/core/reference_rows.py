"""Published results shown beside the loaded models: the paper's Table 1, the project page's extra
entries, or the user's own CSV.

A reference row is a set of leaderboard numbers with where they come from and
nothing else: no per-question data, so no interval and no paired test. The
published rows are the benchmark's (`Benchmark.published_rows`; GST-Bench's
in benchmarks/gst/published.py). A user's file is a CSV with a "Model" column,
the benchmark's leaderboard columns (by key or by label) and optionally "Avg"
(else Avg is computed by the benchmark's rule).
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import Diagnostics, UserError
from .textio import read_text

PAGE_ONLY = "project page only"
CHOICES = ("paper", "page")       # the paper's rows; those and the project page's others


@dataclass(frozen=True)
class ReferenceRow:
    name: str
    columns: dict[str, float | None]
    avg: float | None
    source: str                 # where the numbers were read, with its date
    origin: str                 # for tables: "paper", PAGE_ONLY, or the user file's name
    family: str = ""

    def json(self) -> dict:
        return {"name": self.name, "origin": self.origin, "family": self.family, "columns": self.columns,
                "avg": self.avg, "source": self.source}


def label_of(row: dict) -> str:
    """A reference row's name in tables, from its JSON: "GPT-5 (paper)", "X (project page only)"."""
    return f"{row['name']} ({row['origin']})"


def reference_rows(which: str, benchmark) -> list[ReferenceRow]:
    """`which`: "paper" (the paper's models, Random and Human), "page" (also the entries only the project
    page lists) or the path of a CSV file."""
    if which not in CHOICES:
        return read_reference_csv(which, benchmark)
    rows = benchmark.published_rows(which == "page")
    if rows is None:
        raise UserError(f"no published results are bundled for {benchmark.title}; give a CSV file instead")
    return rows


def read_reference_csv(path: str | Path, benchmark) -> list[ReferenceRow]:
    """Rows from a CSV: "Model", the leaderboard's columns (keys or labels), optionally "Avg"; UserError
    naming the file and line for anything it cannot read."""
    path = Path(path)
    text = read_text(path, Diagnostics())        # UserError when it cannot be read
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        lines = [(k + 1, row) for k, row in enumerate(reader) if any(cell.strip() for cell in row)]
    except csv.Error as e:
        raise UserError(f"{path}: not a CSV file ({e})") from None
    if not lines:
        raise UserError(f"{path}: empty reference file")
    line, header = lines[0]
    by_name = {name.lower(): k for k in benchmark.table_keys for name in (k, benchmark.label(k))}
    fields = [h.strip() for h in header]
    if not fields or fields[0].lower() != "model":
        raise UserError(f"{path}:{line}: the first column must be \"Model\"")
    keys = []
    for h in fields[1:]:
        if h.lower() == "avg":
            keys.append("avg")
        elif h.lower() in by_name:
            keys.append(by_name[h.lower()])
        else:
            raise UserError(f"{path}:{line}: unknown column {h!r} (known: {', '.join(benchmark.table_keys)}, Avg)")
    missing = [k for k in benchmark.table_keys if k not in keys]
    if missing:
        raise UserError(f"{path}:{line}: the columns {', '.join(missing)} are missing")
    out = []
    for line, row in lines[1:]:
        if len(row) != len(fields):
            raise UserError(f"{path}:{line}: {len(row)} cells, the header has {len(fields)}")
        values = {}
        for key, name, cell in zip(keys, fields[1:], row[1:]):
            values[key] = _number(cell, path, line, name)
        table = {k: values[k] for k in benchmark.table_keys}
        avg = values["avg"] if "avg" in values else benchmark.overall(table, {})
        out.append(ReferenceRow(row[0].strip(), table, avg, str(path), path.name))
    return out


def _number(cell: str, path: Path, line: int, key: str) -> float | None:
    cell = cell.strip()
    if cell in ("", "-", "–"):
        return None
    try:
        value = float(cell)
    except ValueError:
        raise UserError(f"{path}:{line}: {key} is {cell!r}, not a number") from None
    if not 0.0 <= value <= 100.0:
        raise UserError(f"{path}:{line}: {key} is {value}, outside 0-100")
    return value


def add_to_board(board: dict, rows: list[ReferenceRow]) -> dict:
    """The `score --json` document with the reference rows (`score --reference`)."""
    board["reference"] = [r.json() for r in rows]
    return board
