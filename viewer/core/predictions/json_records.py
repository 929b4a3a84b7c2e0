"""The JSON prediction formats: records one a line, lmms-eval sample logs, a JSON list or a uid map.

- JSON Lines records: `{"uid", "prediction", "model"?}` with the spec's aliases (UID_KEYS,
  PREDICTION_KEYS); the common file, exactly `{"uid", "prediction"}` a line, is read by a fast path;
- lmms-eval sample logs: JSON Lines (new layout) or a JSON object with a `logs` list (old
  layout) of `{doc_id, doc, resps, filtered_resps}`;
- a JSON list of records, or a JSON object mapping uids to predictions.

JSON Lines are streamed (textio.stream_json_lines): only each record's uid and answer are kept, so
memory follows the number of questions, not the size of the file (lmms-eval logs repeat every doc).
"""
from __future__ import annotations

import operator
import reprlib
from contextvars import ContextVar
from itertools import repeat
from pathlib import Path
from typing import Any, Iterable

from ..diagnostics import Diagnostics, UserError
from ..textio import stream_json_lines
from .formats import (
    PREDICTION_KEYS,
    UID_KEYS,
    AnswersInOrder,
    Head,
    PredictionFormat,
    PredictionSet,
    default_model,
    register_format,
)

_LMMS_KEYS = ("doc_id", "resps", "filtered_resps")


# ------------------------------------------------------------------ identifying
def _is_json_lines(path: Path, head: Head) -> bool:
    """A `.jsonl` file, or one whose first line is a JSON object (closed, or running past the head)."""
    if path.suffix.lower() == ".jsonl":
        return True
    line = head.first_line
    cut = not head.complete and "\n" not in head.text.lstrip()
    return line.startswith("{") and (line.endswith("}") or cut)


def _is_lmms_lines(path: Path, head: Head) -> bool:
    return _is_json_lines(path, head) and any(f'"{k}"' in head.first_line for k in _LMMS_KEYS)


def _is_lmms_document(path: Path, head: Head) -> bool:
    doc = head.json_document()
    return isinstance(doc, dict) and isinstance(doc.get("logs"), list)


def _is_list(path: Path, head: Head) -> bool:
    return isinstance(head.json_document(), list)


def _is_map(path: Path, head: Head) -> bool:
    doc = head.json_document()
    return isinstance(doc, dict) and all(isinstance(v, (str, int, float)) for v in doc.values())


# ------------------------------------------------------------------ reading
def read_json_lines(path: Path, head: Head, diags: Diagnostics) -> list[PredictionSet]:
    """A JSON Lines file: the plain fast path, else record by record."""
    plain = _plain_records(path, diags)
    if plain is not None:
        return [plain]
    del diags.items[:]                      # read again as records: its problems are reported again
    return read_record_lines(path, head, diags)


def read_record_lines(path: Path, head: Head, diags: Diagnostics) -> list[PredictionSet]:
    """A JSON Lines file record by record (plain records and lmms-eval samples alike)."""
    records = ((n, v) for numbers, values in stream_json_lines(path, diags) for n, v in zip(numbers, values))
    sets = from_records(path, records, diags)
    if diags.with_code("file.empty"):
        raise UserError(f"{path}: prediction file is empty")
    return sets


# Distinct uids, none empty, that the file's are expected to be, in this order (a release's, in a scoring
# worker: core/scoring_pool.py): a file that gives exactly these keeps this list rather than its own copy,
# and is known to name each uid once without hashing them. Reading is the same either way.
EXPECTED_UIDS: ContextVar[list | None] = ContextVar("expected_uids", default=None)


def _plain_records(path: Path, diags: Diagnostics) -> PredictionSet | None:
    """The common file, all plain {"uid", "prediction"} lines, a chunk of lines at a time; else None."""
    from ..records import PlainPrediction
    uids: list = []
    answers: list = []
    expected = EXPECTED_UIDS.get()
    agreed = 0 if expected is not None else -1        # uids read so far that are `expected`'s, in its order
    for _, values in stream_json_lines(path, diags, (PlainPrediction,)):
        if type(values[0]) is PlainPrediction:           # decoded as such: every value of the chunk is one
            chunk_uids = list(map(_UID, values))
            answers += map(_PREDICTION, values)
        else:
            # Checks written as C-level maps: this runs once per line of every file.
            try:
                chunk_uids = list(map(_UID_KEY, values))
                chunk_answers = list(map(_PREDICTION_KEY, values))
            except (KeyError, TypeError):
                return None
            if set(map(type, chunk_uids)) - {str} or any(map(operator.contains, values, repeat("model"))):
                return None
            answers += chunk_answers
        if agreed >= 0:
            if chunk_uids == expected[agreed:agreed + len(chunk_uids)]:
                agreed += len(chunk_uids)
                continue
            uids, agreed = expected[:agreed], -1
        uids += chunk_uids
    if diags.with_code("file.empty"):
        raise UserError(f"{path}: prediction file is empty")
    if agreed >= 0 and agreed == len(expected):
        raw = AnswersInOrder(expected, answers)          # `expected`'s uids: distinct, none empty
    else:
        if agreed >= 0:
            uids = expected[:agreed]
        distinct = set(uids)
        if "" in distinct:
            return None
        # Each uid once (the usual file): the two lists are the set's answers, in file order (AnswersInOrder).
        raw = AnswersInOrder(uids, answers) if len(distinct) == len(uids) else dict(zip(uids, answers))
        del distinct
    s = PredictionSet(default_model(path), str(path))
    s.raw = raw
    if type(raw) is dict:                    # duplicates: read again to report them with their lines
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
_UID_KEY = operator.itemgetter("uid")
_PREDICTION_KEY = operator.itemgetter("prediction")


def _read_lmms_document(path: Path, head: Head, diags: Diagnostics) -> list[PredictionSet]:
    return from_records(path, ((None, r) for r in head.document()["logs"]), diags)


def _read_list(path: Path, head: Head, diags: Diagnostics) -> list[PredictionSet]:
    return from_records(path, ((None, r) for r in head.document()), diags)


def _read_map(path: Path, head: Head, diags: Diagnostics) -> list[PredictionSet]:
    s = PredictionSet(default_model(path), str(path), format="json-map")
    for k, v in head.document().items():
        s.put(str(k), v, None)
    return [s]


def from_records(path: Path, records: Iterable[tuple[int | None, Any]],
                 diags: Diagnostics) -> list[PredictionSet]:
    """Records (line, value) of plain predictions or lmms-eval samples, one set per model."""
    sets: dict[str, PredictionSet] = {}
    default = default_model(path)
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
        if lmms and not isinstance(value, str):     # a model's response is text: anything else is not scored
            diags.error(f"record {key!r}: its response is {_kind(value)} ({reprlib.repr(value)}), not text; "
                        "not scored",
                        path, line, code="prediction.not_text")
            continue
        s = sets.get(model)
        if s is None:
            s = sets[model] = PredictionSet(model, str(path), format="lmms-eval" if lmms else "jsonl")
        if lmms and not _has_uid(rec):
            s.positional = True
            s.note_question(str(key), _lmms_question(rec))
        s.put(str(key), value, line)
    return list(sets.values())


_NO_VALUE = object()


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", dict: "an object",
            list: "a list"}.get(type(value), f"a {type(value).__name__}")


def _has_uid(rec: dict) -> bool:
    doc = rec.get("doc")
    return isinstance(doc, dict) and any(isinstance(doc.get(k), str) or type(doc.get(k)) is int for k in UID_KEYS)


def _lmms_record(rec: dict) -> tuple[Any, Any]:
    doc = rec.get("doc") if isinstance(rec.get("doc"), dict) else {}
    key = next((doc[k] for k in UID_KEYS if isinstance(doc.get(k), str)), None)
    if key is None:     # some benchmarks' docs carry an integer id
        key = next((str(doc[k]) for k in UID_KEYS if type(doc.get(k)) is int), rec.get("doc_id"))
    value = _first_text(rec.get("filtered_resps"))
    if value is None:
        value = _first_text(rec.get("resps"))
    return key, ("" if value is None else value)


def _lmms_question(rec: dict) -> Any:
    """The question an lmms-eval record asked: its doc's question or prompt, else the prompt it was given."""
    doc = rec.get("doc") if isinstance(rec.get("doc"), dict) else {}
    for k in ("question", "prompt", "text"):
        if isinstance(doc.get(k), str):
            return doc[k]
    if isinstance(rec.get("input"), str):
        return rec["input"]
    args = rec.get("arguments")
    while isinstance(args, (list, dict)) and args:
        args = args[0] if isinstance(args, list) else next(iter(args.values()))
    return args if isinstance(args, str) else None


def _first_text(x: Any) -> Any:
    """lmms-eval nests responses as [text] or [[text]]."""
    while isinstance(x, list):
        if not x:
            return None
        x = x[0]
    return x


# A JSON document's shapes rank above JSON Lines (a one-line `.json` object is a map, not a record),
# and the `logs` object above the map it would otherwise not be.
JSON_LINES = register_format(PredictionFormat("JSON Lines records", _is_json_lines, read_json_lines, 0))
LMMS_LINES = register_format(PredictionFormat("lmms-eval sample log (JSON Lines)", _is_lmms_lines,
                                              read_record_lines, 5))
JSON_MAP = register_format(PredictionFormat("JSON object of uid -> prediction", _is_map, _read_map, 10))
JSON_LIST = register_format(PredictionFormat("JSON list of records", _is_list, _read_list, 20))
LMMS_DOCUMENT = register_format(PredictionFormat("lmms-eval sample log (JSON with 'logs')", _is_lmms_document,
                                                 _read_lmms_document, 30))
