"""Toy-Bench: a third benchmark defined entirely in this file, as docs/architecture.md's "A new benchmark" says.

It has what a real one has, and nothing of it lives in viewer/:
- its own release layout: a folder holding `toy.json`, `{"toy_bench": 1, "questions": [...]}`, each
  question `{id, room, type, prompt, truth}`;
- its own loader (`ToyBenchmark.detect` / `load`) and column table (`COLUMNS`);
- an answer kind of its own, `toy-colour` (a colour word), beside the generic `distance`;
- a prediction format of its own: a `.toy` text file, `# toy answers: MODEL` then `id = answer` lines;
- an audit check of its own, which applies to its columns only.

`registered()` registers them all and `unregister_all()` takes every one back out, so other tests
never see Toy-Bench.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from viewer.core.answers import EMPTY, OK, STRICT, Parsed
from viewer.core.audit import Check, Finding
from viewer.core.audit import register as register_check
from viewer.core.audit import unregister as unregister_check
from viewer.core.benchmarks.base import Benchmark
from viewer.core.benchmarks.registry import register, unregister
from viewer.core.column import Column, Columns
from viewer.core.diagnostics import Diagnostics, UserError
from viewer.core.kinds import WIDTH, AnswerKind
from viewer.core.kinds import register as register_kind
from viewer.core.kinds import unregister as unregister_kind
from viewer.core.predictions import PredictionFormat, PredictionSet
from viewer.core.release import Question, Release
from viewer.core.textio import read_text

RELEASE_FILE = "toy.json"
COLOURS = ("red", "green", "blue", "yellow")
NO_COLOUR = "no_colour"


# ------------------------------------------------------------------ its answer kind
class ColourKind(AnswerKind):
    """A colour word, the last of COLOURS the answer names; stored as its index."""
    name = "toy-colour"
    convention = "one colour word: red, green, blue or yellow"
    chart = None

    def parse(self, raw, n_options: int = 4, profile: str = STRICT) -> Parsed:
        if raw is None or not str(raw).strip():
            return Parsed(None, EMPTY)
        named = [COLOURS.index(w) for w in re.findall(r"[a-z]+", str(raw).lower()) if w in COLOURS]
        return Parsed(named[-1], OK) if named else Parsed(None, NO_COLOUR)

    def unpack(self, row):
        v = float(row[0])
        return None if np.isnan(v) else int(v)

    def score(self, pred, truth):
        right = pred[:, 0] == truth[:, 0]
        return right.astype(float), (~right).astype(float)

    def chance(self, truth, n_options) -> float:
        return 1.0 / len(COLOURS)

    def format(self, value) -> str:
        return COLOURS[int(value)]

    def text(self, value) -> str:
        return self.format(value)

    def json_value(self, value):
        return None if value is None else self.format(value)

    def error_text(self, error: float) -> str:
        return "right" if error == 0 else "wrong"


COLOUR = ColourKind()

# ------------------------------------------------------------------ its column table
COLUMNS = (
    Column("Wall", "wall_colour", "toy-colour", "Wall colour", False, False, False),
    Column("Door", "door_colour", "toy-colour", "Door colour", False, False, False),
    Column("Width", "room_width", "distance", "Room width", False, False, False),
)


# ------------------------------------------------------------------ its prediction format
ANSWERS_HEADER = "# toy answers:"


def _is_toy_answers(path: Path, head) -> bool:
    return path.suffix == ".toy" or head.first_line.startswith(ANSWERS_HEADER)


def _read_toy_answers(path: Path, head, diags: Diagnostics) -> list[PredictionSet]:
    lines = read_text(path, diags).split("\n")
    model = lines[0].removeprefix(ANSWERS_HEADER).strip() if lines[0].startswith(ANSWERS_HEADER) else path.stem
    s = PredictionSet(model, str(path), format="toy-answers")
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        uid, eq, answer = line.partition("=")
        if not eq:
            s.diagnostics.error("expected `id = answer`", path, n, code="prediction.no_value")
            continue
        s.put(uid.strip(), answer.strip(), n)
    return [s]


TOY_ANSWERS = PredictionFormat("Toy-Bench answers (.toy)", _is_toy_answers, _read_toy_answers, 60)


# ------------------------------------------------------------------ its loader
class ToyBenchmark(Benchmark):
    def detect(self, root: Path) -> bool:
        return root.name == RELEASE_FILE if root.is_file() else (root / RELEASE_FILE).is_file()

    def load(self, root: Path) -> Release:
        file = root if root.is_file() else root / RELEASE_FILE
        if not file.is_file():
            raise UserError(f"{root}: no {RELEASE_FILE}")
        diags = Diagnostics()
        doc = json.loads(read_text(file, diags))
        questions, index = [], {}
        for k, rec in enumerate(doc["questions"]):
            col = self.column_index(rec.get("type"))
            column = self.column(col)
            truth = column.kind.parse_truth(rec.get("truth")) if column else Parsed(None, "unknown_task")
            if column is None:
                diags.warning(f"questions[{k}]: type {rec.get('type')!r} is not a Toy-Bench type", file,
                              code="task.unknown")
            q = Question(uid=str(rec["id"]), task=str(rec.get("type")), scene=str(rec.get("room", "")),
                         column_index=col, answer_raw=rec.get("truth"), truth=truth, texts=[rec.get("prompt", "")],
                         video=None, images=[], meta={"room": rec.get("room")}, target=None, viewpoint=None,
                         video_id=None, topdown=None, source=str(file), line=None, benchmark=self)
            index[q.uid] = len(questions)
            questions.append(q)
        n = len(questions)
        truth = np.full((n, WIDTH), np.nan)
        for i, q in enumerate(questions):
            if q.truth.ok:
                truth[i, :q.kind.width] = q.truth.value
        return Release(file.parent, questions, diags, "toy", index, [q.uid for q in questions],
                       [q.scene for q in questions], np.array([q.column_index for q in questions], np.int16),
                       truth, np.full(n, 4, np.int16), [], self)


TOY = ToyBenchmark(name="toy", title="Toy-Bench", columns=COLUMNS, labels={"Width": "W"},
                   prompt_convention="a colour word, or metres", prediction_formats=(TOY_ANSWERS,))


# ------------------------------------------------------------------ its audit check
class YellowWalls(Check):
    """Flags a wall said to be yellow (a stand-in for a benchmark's own check)."""

    def check_release(self, audit) -> list[Finding]:
        out = []
        for q in audit.release.questions:
            if not self.columns.matches(q.column):
                continue
            if q.truth.ok and COLOURS[q.truth.value] == "yellow":
                audit.tally.flag(self.id)
                out.append(Finding(q.uid, self.id, self.severity, "a yellow wall", {"room": q.scene}))
            else:
                audit.tally.passed(self.id)
        return out


YELLOW_WALLS = YellowWalls("toy_yellow_walls", "info", "wall said to be yellow", Columns(key="Wall"))


# ------------------------------------------------------------------ registering
def registered() -> None:
    register_kind(COLOUR)
    register(TOY)
    register_check(YELLOW_WALLS)


def unregister_all() -> None:
    unregister_check(YELLOW_WALLS.id)
    unregister(TOY)
    unregister_kind(COLOUR.name)


# ------------------------------------------------------------------ a release and a model
QUESTIONS = [
    {"id": "t1", "room": "room_1", "type": "wall_colour", "prompt": "What colour is the wall?", "truth": "blue"},
    {"id": "t2", "room": "room_1", "type": "door_colour", "prompt": "What colour is the door?", "truth": "red"},
    {"id": "t3", "room": "room_1", "type": "room_width", "prompt": "How wide is the room, in metres?", "truth": "4"},
    {"id": "t4", "room": "room_2", "type": "wall_colour", "prompt": "What colour is the wall?", "truth": "yellow"},
    {"id": "t5", "room": "room_2", "type": "door_colour", "prompt": "What colour is the door?", "truth": "green"},
    {"id": "t6", "room": "room_2", "type": "room_width", "prompt": "How wide is the room, in metres?", "truth": "5"},
]
# colour-bot: the walls right, one door right, the other door unreadable; widths 5 (of 4) and 5 (of 5).
ANSWERS = {"t1": "It is blue.", "t2": "red", "t3": "5", "t4": "yellow", "t5": "I cannot tell", "t6": "5"}


def write_release(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RELEASE_FILE).write_text(json.dumps({"toy_bench": 1, "questions": QUESTIONS}))
    return folder


def write_answers(path: Path, model: str = "colour-bot", answers: dict = ANSWERS) -> Path:
    path.write_text(f"{ANSWERS_HEADER} {model}\n" + "".join(f"{k} = {v}\n" for k, v in answers.items()))
    return path

