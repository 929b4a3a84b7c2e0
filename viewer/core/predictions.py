"""Reading model predictions in the formats people actually have.

- plain JSON Lines: `{"uid", "prediction", "model"?}` with the spec's aliases;
- lmms-eval sample logs: JSON Lines (new layout) or a JSON object with a
  `logs` list (old layout) of `{doc_id, doc, resps, filtered_resps}`;
- VLMEvalKit result tables: TSV/CSV, or XLSX when openpyxl is installed.

Predictions are kept raw (the model's text); parsing happens at scoring
time because it depends on each question's answer type.
"""
from __future__ import annotations

import csv
import io
import operator
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any, Iterable

from .diagnostics import Diagnostics, UserError
from .textio import no_gc, parse_json_document, read_text, regular_file_size, stream_json_lines

UID_KEYS = ("uid", "id", "question_id")
PREDICTION_KEYS = ("prediction", "response", "output", "text", "answer")


@dataclass
class PredictionSet:
    model: str
    source: str
    raw: dict[str, Any] = field(default_factory=dict)       # uid (or position) -> raw answer
    lines: dict[str, int] = field(default_factory=dict)     # where each came from
    # lmms-eval doc_ids and VLMEvalKit indices may be positions in the
    # release rather than uids; those are matched by position as a fallback.
    positional: bool = False
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    format: str = "jsonl"

    def put(self, key: str, value: Any, line: int | None) -> None:
        if key in self.raw:
            prev = self.lines.get(key)
            self.diagnostics.warning(
                f"duplicate prediction for {key!r}" + (f" (first at line {prev})" if prev else "")
                + "; the last one wins", self.source, line, code="prediction.duplicate")
        self.raw[key] = value
        if line:
            self.lines[key] = line


def load_predictions(path: str | Path) -> list[PredictionSet]:
    """One PredictionSet per model found in the file (usually one).

    Raises UserError when the file cannot be read at all; record-level
    problems are in each set's diagnostics.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise UserError(f"{path}: no such prediction file")
    regular_file_size(path)                          # a folder or a named pipe: said, never opened
    with no_gc():
        return _load(path)


def _load(path: Path) -> list[PredictionSet]:
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return [_load_xlsx(path)]
    diags = Diagnostics()
    if suffix in (".tsv", ".csv", ".json"):
        text = read_text(path, diags)
        if not text.strip():
            raise UserError(f"{path}: prediction file is empty")
        if suffix == ".json":
            sets = _load_json(path, text, diags)
        else:
            sets = [_load_table(path, text, "\t" if suffix == ".tsv" else ",", diags)]
    else:
        sets = _load_jsonl(path, diags)
    for s in sets:
        s.diagnostics.items[:0] = diags.items
    if not any(s.raw for s in sets):
        msgs = "; ".join(str(d) for d in diags.items[:3])
        raise UserError(f"{path}: no predictions found" + (f" ({msgs})" if msgs else ""))
    return sets


def _default_model(path: Path) -> str:
    stem = path.stem
    # lmms-eval names its logs samples_<task>_<date>.jsonl inside a model folder.
    if stem.startswith("samples_") and path.parent.name:
        return path.parent.name
    return stem


def _load_jsonl(path: Path, diags: Diagnostics) -> list[PredictionSet]:
    """A JSON Lines file, streamed (textio.stream_json_lines): only each record's uid and answer are kept,
    so memory follows the number of questions, not the size of the file (lmms-eval logs repeat every doc)."""
    plain = _plain_records(path, diags)
    if plain is not None:
        return [plain]
    del diags.items[:]                      # read again as records: its problems are reported again
    records = ((n, v) for numbers, values in stream_json_lines(path, diags) for n, v in zip(numbers, values))
    sets = _from_records(path, records, diags)
    if diags.with_code("file.empty"):
        raise UserError(f"{path}: prediction file is empty")
    return sets


def _plain_records(path: Path, diags: Diagnostics) -> PredictionSet | None:
    """The common file, all plain {"uid", "prediction"} lines, a chunk of lines at a time; else None."""
    from .records import PlainPrediction
    raw: dict[str, Any] = {}
    count = 0
    for _, values in stream_json_lines(path, diags, (PlainPrediction,)):
        if type(values[0]) is PlainPrediction:           # decoded as such: every value of the chunk is one
            raw.update(zip(map(_UID, values), map(_PREDICTION, values)))
        else:
            # Checks written as C-level maps: this runs once per line of every file.
            try:
                chunk = {r["uid"]: r["prediction"] for r in values}
            except (KeyError, TypeError):
                return None
            if set(map(type, chunk)) - {str} or any(map(operator.contains, values, repeat("model"))):
                return None
            raw.update(chunk)
        count += len(values)
    if diags.with_code("file.empty"):
        raise UserError(f"{path}: prediction file is empty")
    if "" in raw:
        return None
    s = PredictionSet(_default_model(path), str(path))
    s.raw = raw
    if len(raw) < count:                 # duplicates: read again to report them with their lines
        first: dict[str, int] = {}
        for numbers, values in stream_json_lines(path, Diagnostics(), (PlainPrediction,)):
            for n, r in zip(numbers, values):
                uid = r.uid if type(r) is PlainPrediction else r["uid"]
                if uid in first:
                    s.diagnostics.warning(f"duplicate prediction for {uid!r} (first at line {first[uid]}); "
                                          "the last one wins", path, n, code="prediction.duplicate")
                else:
                    first[uid] = n
    return s


_UID = operator.attrgetter("uid")
_PREDICTION = operator.attrgetter("prediction")


def _load_json(path: Path, text: str, diags: Diagnostics) -> list[PredictionSet]:
    doc = parse_json_document(text, path, diags)
    if doc is None:
        raise UserError(str(diags.items[-1]).removeprefix("error: "))
    from .benchmarks.vsi.predictions import is_scene_responses, scene_response_sets
    if is_scene_responses(doc):                                       # VSI-Bench per-scene answers
        return scene_response_sets(path, doc)
    if isinstance(doc, dict) and isinstance(doc.get("logs"), list):     # lmms-eval, old layout
        return _from_records(path, ((None, r) for r in doc["logs"]), diags)
    if isinstance(doc, list):
        return _from_records(path, ((None, r) for r in doc), diags)
    if isinstance(doc, dict) and all(isinstance(v, (str, int, float)) for v in doc.values()):
        s = PredictionSet(_default_model(path), str(path), format="json-map")
        for k, v in doc.items():
            s.put(str(k), v, None)
        return [s]
    raise UserError(f"{path}: not a prediction file (expected a list of records, "
                    "an lmms-eval log with 'logs', or a uid -> prediction object)")


def _from_records(path: Path, records: Iterable[tuple[int | None, Any]],
                  diags: Diagnostics) -> list[PredictionSet]:
    sets: dict[str, PredictionSet] = {}
    default = _default_model(path)
    for line, rec in records:
        if not isinstance(rec, dict):
            diags.error(f"a prediction must be a JSON object, got {type(rec).__name__}", path, line,
                        code="prediction.not_object")
            continue
        model = rec.get("model") if isinstance(rec.get("model"), str) and rec.get("model") else default
        lmms = "doc_id" in rec or "resps" in rec or "filtered_resps" in rec
        if lmms:
            key, value = _lmms_record(rec)
        else:
            key = next((rec[k] for k in UID_KEYS if k in rec), None)
            value = next((rec[k] for k in PREDICTION_KEYS if k in rec), _NO_VALUE)
        if key is None or (isinstance(key, str) and not key):
            diags.error("record without a uid (looked for " + ", ".join(UID_KEYS) + ")", path, line,
                        code="prediction.no_uid")
            continue
        if value is _NO_VALUE:
            diags.error(f"record {key!r} has no prediction (looked for "
                        + ", ".join(PREDICTION_KEYS) + ")", path, line, code="prediction.no_value")
            continue
        s = sets.get(model)
        if s is None:
            s = sets[model] = PredictionSet(model, str(path), format="lmms-eval" if lmms else "jsonl")
        if lmms and not _has_uid(rec):
            s.positional = True
        s.put(str(key), value, line)
    return list(sets.values())


_NO_VALUE = object()


def _has_uid(rec: dict) -> bool:
    doc = rec.get("doc")
    return isinstance(doc, dict) and any(isinstance(doc.get(k), str) or type(doc.get(k)) is int for k in UID_KEYS)


def _lmms_record(rec: dict) -> tuple[Any, Any]:
    doc = rec.get("doc") if isinstance(rec.get("doc"), dict) else {}
    key = next((doc[k] for k in UID_KEYS if isinstance(doc.get(k), str)), None)
    if key is None:     # VSI-Bench docs carry an integer id
        key = next((str(doc[k]) for k in UID_KEYS if type(doc.get(k)) is int), rec.get("doc_id"))
    value = _first_text(rec.get("filtered_resps"))
    if value is None:
        value = _first_text(rec.get("resps"))
    return key, ("" if value is None else value)


def _first_text(x: Any) -> Any:
    """lmms-eval nests responses as [text] or [[text]]."""
    while isinstance(x, list):
        if not x:
            return None
        x = x[0]
    return x


def _table_set(path: Path, header: list[str], rows: Iterable[tuple[int, list[Any]]],
               fmt: str) -> PredictionSet:
    cols = {str(h).strip().lower(): i for i, h in enumerate(header)}
    key_col = next((cols[k] for k in ("uid", "index", "id", "question_id") if k in cols), None)
    val_col = cols.get("prediction")
    if key_col is None or val_col is None:
        raise UserError(f"{path}: a VLMEvalKit table needs 'index' (or 'uid') and 'prediction' "
                        f"columns; found {', '.join(map(str, header))}")
    s = PredictionSet(_default_model(path), str(path), format=fmt)
    s.positional = "uid" not in cols
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
    return s


def _load_table(path: Path, text: str, delimiter: str, diags: Diagnostics) -> PredictionSet:
    # newline="": the csv module itself reads \r\n, \n and a lone \r (old Mac files) as line ends.
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise UserError(f"{path}: prediction file is empty") from None
    except csv.Error as e:
        raise UserError(f"{path}:1: unreadable header row ({e})") from None
    return _table_set(path, header, _table_rows(reader, path, diags), "vlmevalkit-tsv")


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


def _load_xlsx(path: Path) -> PredictionSet:
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
    return s
