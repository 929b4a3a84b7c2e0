"""VLMEvalKit result tables: TSV/CSV, or XLSX when openpyxl is installed; told by the file's extension.

A table needs an `index` (or `uid`) column and a `prediction` column; an index that is not a uid is
matched by position.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Iterable

from ..diagnostics import Diagnostics, UserError
from ..textio import read_text
from .formats import Head, PredictionFormat, PredictionSet, default_model, register_format

_DELIMITERS = {".tsv": "\t", ".csv": ","}


def _is_text_table(path: Path, head: Head) -> bool:
    return path.suffix.lower() in _DELIMITERS


def _is_xlsx(path: Path, head: Head) -> bool:
    return path.suffix.lower() == ".xlsx"


def _table_set(path: Path, header: list[str], rows: Iterable[tuple[int, list[Any]]],
               fmt: str) -> PredictionSet:
    cols = {str(h).strip().lower(): i for i, h in enumerate(header)}
    key_col = next((cols[k] for k in ("uid", "index", "id", "question_id") if k in cols), None)
    val_col = cols.get("prediction")
    if key_col is None or val_col is None:
        raise UserError(f"{path}: a VLMEvalKit table needs 'index' (or 'uid') and 'prediction' "
                        f"columns; found {', '.join(map(str, header))}")
    s = PredictionSet(default_model(path), str(path), format=fmt)
    s.positional = "uid" not in cols
    question_col = cols.get("question")
    for line, row in rows:
        if len(row) <= max(key_col, val_col):
            s.diagnostics.error(f"row has {len(row)} cells, expected at least "
                                f"{max(key_col, val_col) + 1}", path, line, code="prediction.short_row")
            continue
        key = row[key_col]
        if isinstance(key, float) and key.is_integer():
            key = int(key)
        if key is None or str(key).strip() == "":
            s.diagnostics.error("row without an index", path, line, code="prediction.no_uid")
            continue
        s.put(str(key).strip(), "" if row[val_col] is None else row[val_col], line)
        if s.positional and question_col is not None and question_col < len(row):
            s.note_question(str(key).strip(), row[question_col])
    return s


def _read_text_table(path: Path, head: Head, diags: Diagnostics) -> list[PredictionSet]:
    text = read_text(path, diags)
    if not text.strip():
        raise UserError(f"{path}: prediction file is empty")
    # newline="": the csv module itself reads \r\n, \n and a lone \r (old Mac files) as line ends.
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_DELIMITERS[path.suffix.lower()])
    try:
        header = next(reader)
    except StopIteration:
        raise UserError(f"{path}: prediction file is empty") from None
    except csv.Error as e:
        raise UserError(f"{path}:1: unreadable header row ({e})") from None
    return [_table_set(path, header, _table_rows(reader, path, diags), "vlmevalkit-tsv")]


def _table_rows(reader, path: Path, diags: Diagnostics) -> Iterable[tuple[int, list[Any]]]:
    """The reader's non-empty rows with their line; a row the csv module cannot read is reported and skipped."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:                       # a cell over the size limit, a NUL
            diags.error(f"unreadable row ({e}); skipped", path, reader.line_num, code="prediction.bad_row")
            continue
        if row:
            yield reader.line_num, row


def _read_xlsx(path: Path, head: Head, diags: Diagnostics) -> list[PredictionSet]:
    try:
        import openpyxl
    except ImportError:
        raise UserError(f"{path}: reading XLSX needs openpyxl (pip install openpyxl), "
                        "or export the sheet as TSV") from None
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as e:   # openpyxl raises many types for a bad file
        raise UserError(f"{path}: not a readable XLSX file ({e})") from None
    ws = wb.worksheets[0]
    it = ws.iter_rows(values_only=True)
    header = next(it, None)
    if header is None:
        raise UserError(f"{path}: prediction file is empty")
    rows = ((i + 2, list(r)) for i, r in enumerate(it) if any(c is not None for c in r))
    s = _table_set(path, list(header), rows, "vlmevalkit-xlsx")
    wb.close()
    return [s]


TEXT_TABLE = register_format(PredictionFormat("VLMEvalKit table (TSV/CSV)", _is_text_table, _read_text_table, 50))
XLSX = register_format(PredictionFormat("VLMEvalKit table (XLSX)", _is_xlsx, _read_xlsx, 50))
