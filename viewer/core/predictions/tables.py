"""VLMEvalKit result tables: TSV/CSV, or XLSX when openpyxl is installed; told by the file's extension.

A table needs an `index` (or `uid`) column and a `prediction` column; an index that is not a uid is
matched by position.

Guarded as files from anywhere: a text table in UTF-16 or UTF-32 is named as such (by its BOM or its
pattern of NUL bytes) rather than read as garbled UTF-8; a cell over the csv module's field limit loses
its row, and one that spans lines (a quote left open) ends the reading with one error; an XLSX's zip members
are held to a decompressed size before openpyxl reads them, and a workbook with no sheet, or a cell
openpyxl cannot convert, is refused with the file's name.
"""
from __future__ import annotations

import csv
import io
import zipfile
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


def wide_encoding(head: bytes) -> str | None:
    """"UTF-16 (little-endian)" etc. when a file's first bytes are UTF-16 or UTF-32 text, by BOM or by the
    NUL bytes that ASCII characters leave in those encodings; None otherwise."""
    for bom, name in ((b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"), (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
                      (b"\xff\xfe", "UTF-16 (little-endian)"), (b"\xfe\xff", "UTF-16 (big-endian)")):
        if head.startswith(bom):
            return name
    for width, name in ((4, "UTF-32"), (2, "UTF-16")):
        n = len(head) // width * width
        if n < 2 * width:
            continue
        zeros = [head[k:n:width].count(0) / (n // width) for k in range(width)]
        for order, lanes in (("little-endian", range(1, width)), ("big-endian", range(width - 1))):
            text_lane = width - 1 if order == "big-endian" else 0
            if all(zeros[k] > 0.9 for k in lanes) and zeros[text_lane] < 0.1:
                return f"{name} ({order})"
    return None


def _read_text_table(path: Path, head: Head, diags: Diagnostics) -> list[PredictionSet]:
    with open(path, "rb") as f:          # a regular file: load_predictions has checked
        encoding = wide_encoding(f.read(4096))
    if encoding:
        raise UserError(f"{path}: the file is {encoding} text, not UTF-8: save it as UTF-8 "
                        f"(in Excel: \"CSV UTF-8\")")
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
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:                       # a cell over the size limit, a NUL
            if "field limit" in str(e) and reader.line_num > start:
                # A quote left open: the cell ran on over the following lines, and every line after it
                # would be one more error. What follows cannot be trusted: the reading stops here, said once.
                diags.error(f"a cell from line {start} runs over {reader.line_num - start + 1} lines past "
                            f"{csv.field_size_limit():,} characters (a quote left open?); the file is read "
                            f"up to line {start - 1} only", path, start, code="prediction.bad_row")
                return
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
    _check_xlsx_sizes(path)
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as e:   # openpyxl raises many types for a bad file
        raise UserError(f"{path}: not a readable XLSX file ({e})") from None
    try:
        if not wb.worksheets:
            raise UserError(f"{path}: the workbook has no sheet")
        rows = _xlsx_rows(path, wb.worksheets[0].iter_rows(values_only=True))
        header = next(rows, None)
        if header is None:
            raise UserError(f"{path}: prediction file is empty")
        return [_table_set(path, header[1], rows, "vlmevalkit-xlsx")]
    finally:
        wb.close()


def _xlsx_rows(path: Path, it) -> Iterable[tuple[int, list[Any]]]:
    """The sheet's non-empty rows (the header always) with their row number; openpyxl converts cells as it
    goes and raises what it meets ("NaN" in a numeric cell is a ValueError): that is a UserError here."""
    line = 0
    while True:
        try:
            r = next(it)
        except StopIteration:
            return
        except Exception as e:
            raise UserError(f"{path}: row {line + 1}: a cell openpyxl cannot read ({type(e).__name__}: {e})") \
                from None
        line += 1
        if line == 1 or any(c is not None for c in r):
            yield line, list(r)


# An XLSX is a zip of XML: a sheet of 200,000 predictions is tens of MB inflated, compressing 5-20 times.
XLSX_MAX_BYTES = 512 * 1024**2
XLSX_MAX_RATIO = 200


def _check_xlsx_sizes(path: Path) -> None:
    """UserError when the zip's members declare more than XLSX_MAX_BYTES in all, or one inflates more than
    XLSX_MAX_RATIO times (a zip bomb). Python's zipfile stops a member at its declared size, so the
    declared sizes are the ones openpyxl can be made to inflate."""
    try:
        with zipfile.ZipFile(path) as z:
            members = z.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        raise UserError(f"{path}: not a readable XLSX file ({e})") from None
    total = sum(m.file_size for m in members)
    if total > XLSX_MAX_BYTES:
        raise UserError(f"{path}: its parts inflate to {total / 1024**2:,.0f} MB, over the "
                        f"{XLSX_MAX_BYTES / 1024**2:.0f} MB limit for a prediction table (a zip bomb?)")
    for m in members:
        if m.file_size > 1024**2 and m.file_size > XLSX_MAX_RATIO * max(1, m.compress_size):
            raise UserError(f"{path}: its part {m.filename} inflates {m.file_size // max(1, m.compress_size):,} "
                            f"times ({m.file_size / 1024**2:,.0f} MB), more than any sheet does (a zip bomb?)")


TEXT_TABLE = register_format(PredictionFormat("VLMEvalKit table (TSV/CSV)", _is_text_table, _read_text_table, 50))
XLSX = register_format(PredictionFormat("VLMEvalKit table (XLSX)", _is_xlsx, _read_xlsx, 50))
