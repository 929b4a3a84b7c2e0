"""Prediction formats as a registry: each format says which files it reads, the best one reads the file.

A `PredictionFormat` has a label (what a person calls it), `identify(path, head)` and a priority;
the format of highest priority whose `identify` accepts the file reads it (glue's
`data_factory(label, identifier, priority)` is the model). `head` is a `Head`: the file's first
characters, and for the formats that are one JSON document the document itself, parsed once for
all of them. A file no format identifies gets one message listing the formats tried.

The generic formats register in json_records.py and tables.py; a benchmark's own formats are its
`Benchmark.prediction_formats`, registered with the benchmark (benchmarks/registry.py).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..diagnostics import Diagnostics, UserError
from ..textio import no_gc, parse_json_document, read_text, regular_file_size

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
    # The file's own question or prompt text of its first rows (key -> text), when it has one: a file matched
    # by position is matched only where these agree with the release's questions (evaluate.match_by_position).
    questions: dict[str, str] = field(default_factory=dict)
    read_as: str = ""            # the label of the format it was read as ("VLMEvalKit table (TSV/CSV)")
    # The name the file itself gives the model, before a `NAME=PATH` renames it: with the file's path, what
    # a rename leaves (`evaluate.model_id`), so that saved views and frame policies still find the model.
    own_name: str = ""

    def note_question(self, key: str, text: Any) -> None:
        """Keep the file's question text of a row, for the first QUESTION_SAMPLE rows that have one."""
        if isinstance(text, str) and text.strip() and len(self.questions) < QUESTION_SAMPLE:
            self.questions[key] = text

    def put(self, key: str, value: Any, line: int | None) -> None:
        if key in self.raw:
            prev = self.lines.get(key)
            self.diagnostics.warning(
                f"duplicate prediction for {key!r}" + (f" (first at line {prev})" if prev else "")
                + "; the last one wins", self.source, line, code="prediction.duplicate")
        self.raw[key] = value
        if line:
            self.lines[key] = line


class AnswersInOrder(Mapping):
    """A `PredictionSet.raw` read from a file that gives each uid once: its uids and answers as two lists in
    file order. `evaluate` matches them to a release whose uids come in the same order with one list
    comparison; the uid -> answer dict (hashing every uid again) is made only if something looks one up."""

    __slots__ = ("uids", "answers", "_dict")

    def __init__(self, uids: list, answers: list):
        self.uids, self.answers, self._dict = uids, answers, None

    def _map(self) -> dict:
        if self._dict is None:
            self._dict = dict(zip(self.uids, self.answers))
        return self._dict

    def __getitem__(self, key):
        return self._map()[key]

    def __contains__(self, key) -> bool:
        return key in self._map()

    def __iter__(self) -> Iterator:
        return iter(self.uids)

    def __len__(self) -> int:
        return len(self.uids)

    def values(self):                       # what evaluate reads: the list, not a view built per item
        return self.answers

    def __repr__(self) -> str:
        return f"AnswersInOrder({self._map()!r})"


QUESTION_SAMPLE = 200      # rows whose own question text is kept, to check a match by position
HEAD_BYTES = 4096
_BOM = b"\xef\xbb\xbf"
_UNREAD = object()


class Head:
    """What `identify` looks at: `text`, the file's first HEAD_BYTES decoded (a BOM dropped, bad bytes
    replaced); `first_line`, its first non-blank line (cut at the head's end); `document()`, the whole
    file as one JSON document (None when it is not one; why is in `diagnostics`), read on first call."""

    def __init__(self, path: Path, diagnostics: Diagnostics):
        self.path, self.diagnostics = path, diagnostics
        try:
            with open(path, "rb") as f:
                data = f.read(HEAD_BYTES)
        except OSError as e:
            raise UserError(f"{path}: cannot read ({e.strerror or e})") from None
        self.complete = len(data) < HEAD_BYTES           # the head is the whole file
        self.text = data.removeprefix(_BOM).decode("utf-8", "replace")
        self.first_line = next((ln.strip() for ln in self.text.split("\n") if ln.strip()), "")
        self._document: Any = _UNREAD

    def document(self) -> Any:
        if self._document is _UNREAD:
            self._document = parse_json_document(read_text(self.path, self.diagnostics), self.path,
                                                 self.diagnostics)
        return self._document

    def json_document(self) -> Any:
        """The document of a `.json` file, None for any other (its whole text is never parsed to find out)."""
        return self.document() if self.path.suffix.lower() == ".json" else None


@dataclass(frozen=True)
class PredictionFormat:
    label: str                                                      # "lmms-eval sample log (JSON Lines)"
    identify: Callable[[Path, Head], bool]
    read: Callable[[Path, Head, Diagnostics], list[PredictionSet]]  # problems of the whole file go to the
    priority: int = 0                                               # Diagnostics, which every set then holds


FORMATS: list[PredictionFormat] = []


def register_format(fmt: PredictionFormat) -> PredictionFormat:
    if fmt not in FORMATS:
        FORMATS.append(fmt)
    return fmt


def unregister_format(fmt: PredictionFormat) -> None:
    if fmt in FORMATS:
        FORMATS.remove(fmt)


def format_of(path: Path, head: Head) -> PredictionFormat | None:
    """The format of highest priority that identifies the file (the first registered among equals)."""
    return next((f for f in sorted(FORMATS, key=lambda f: -f.priority) if f.identify(path, head)), None)


def named_path(arg: str | Path) -> tuple[str | None, Path]:
    """A prediction argument: `NAME=PATH` names the file's model NAME (rather than the name the file
    gives, often its file name); a plain PATH, or a file whose own name has '=' in it, names none."""
    text = str(arg)
    path = Path(text).expanduser()
    if "=" in text and not path.exists():
        name, _, rest = text.partition("=")
        if name.strip() and rest:
            return name.strip(), Path(rest).expanduser()
    return None, path


def load_predictions(path: str | Path) -> list[PredictionSet]:
    """One PredictionSet per model found in the file (usually one); `NAME=PATH` names it (`named_path`;
    a file of several models gives NAME/model).

    Raises UserError when the file cannot be read at all; record-level
    problems are in each set's diagnostics.
    """
    name, path = named_path(path)
    if not path.exists():
        raise UserError(f"{path}: no such prediction file")
    regular_file_size(path)                          # a folder or a named pipe: said, never opened
    from .. import benchmarks  # noqa: F401  (the built-in benchmarks register their own formats)
    with no_gc():
        sets = _load(path)
    for s in sets:
        s.own_name = s.own_name or s.model
    if name is not None:
        for s in sets:
            s.model = name if len(sets) == 1 else f"{name}/{s.model}"
    return sets


def _load(path: Path) -> list[PredictionSet]:
    diags = Diagnostics()
    head = Head(path, diags)
    if head.complete and not head.text.strip():
        raise UserError(f"{path}: prediction file is empty")
    fmt = format_of(path, head)
    if fmt is None:
        raise UserError(_unidentified(path, head))
    sets = fmt.read(path, head, diags)
    for s in sets:
        s.diagnostics.items[:0] = diags.items
        s.read_as = s.read_as or fmt.label
    if not any(s.raw for s in sets):
        msgs = "; ".join(str(d) for d in diags.items[:3])
        raise UserError(f"{path}: no predictions found" + (f" ({msgs})" if msgs else ""))
    return sets


def _unidentified(path: Path, head: Head) -> str:
    tried = ", ".join(f.label for f in sorted(FORMATS, key=lambda f: -f.priority))
    errors = head.diagnostics.of_level("error")
    problem = next((d for d in errors if d.code.startswith("json.")), errors[0] if errors else None)
    if problem is not None:                          # a JSON document that does not parse: where and why
        return f"{str(problem).removeprefix('error: ')}; no prediction format reads it (tried: {tried})"
    return f"{path}: not a prediction file: no prediction format identifies it (tried: {tried})"


def default_model(path: Path) -> str:
    """The model a file names when its records do not: lmms-eval's model folder, else the file's stem."""
    stem = path.stem
    # lmms-eval names its logs samples_<task>_<date>.jsonl inside a model folder.
    if stem.startswith("samples_") and path.parent.name:
        return path.parent.name
    return stem
