"""What a benchmark is: its question columns, its leaderboard and how it aggregates.

A `Benchmark` names one column per question type (each naming its answer kind,
viewer/core/kinds/), which the release's `column` array indexes. Its
leaderboard columns are those columns, except that a `group` averages several
of them into one (VSI-Bench's three direction sub-types). A `ScoringVariant`
reproduces a known deviation from the benchmark's own rule by swapping answer
kinds and, optionally, averaging the grouped sub-columns into the overall.

It also reads its own files: `detect(root)` says whether a path holds its
release and `load(root)` reads it (the registry, benchmarks/registry.py, tries
each benchmark's `detect` in order); `prediction_formats` are its own
prediction readers (core/predictions: registered with the benchmark), and
`merge_predictions` joins sets that are one model's answers split over files.
Each of these does nothing by default.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import ClassVar

import numpy as np

from ..column import UNKNOWN_COLUMN, Column, Columns
from ..diagnostics import UserError


@dataclass(frozen=True)
class ScoringVariant:
    name: str
    description: str
    kind_swaps: dict[str, str] = field(default_factory=dict)   # kind name -> kind name
    average_subcolumns: bool = False   # the overall also averages each group's members


@dataclass(frozen=True)
class Scale:
    """What a numeric answer measures and in which unit, for labelling charts ("size", "cm")."""
    quantity: str          # "count", "distance", "size", "area"
    unit: str = ""         # "" for counts, "m", "cm", "m²"
    decimals: int | None = None   # always this many ("4.0 m"); None: up to 2, trailing zeros cut

    @property
    def axis(self) -> str:
        return f"{self.quantity} ({self.unit})" if self.unit else self.quantity

    def text(self, value: float) -> str:
        """A value for people, in this unit: "3.5 m", "120 cm", "4" (a count has no unit)."""
        if not math.isfinite(value) or abs(value) >= 1e6:
            digits = f"{value:.3g}"
        elif self.decimals is not None:
            digits = f"{value:.{self.decimals}f}"
        else:
            digits = f"{value:.2f}".rstrip("0").rstrip(".")
        return f"{digits} {self.unit}" if self.unit else digits

    def example(self) -> str:
        """How an answer in this unit is written, for the hint under a question: "3.5 m", "3" for a count."""
        return self.text(3.5) if self.unit else "3"


# A distance as GST-Bench's charts have always written it ("4.0 m"): what a number without a scale of
# its own is labelled in (charts in the window and in figures).
METRES = Scale("distance", "m", decimals=1)


@dataclass(frozen=True)
class Benchmark:
    name: str                      # "gst", "vsi": what --benchmark accepts
    title: str
    columns: tuple[Column, ...]    # one per question type; Release.column indexes this
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)  # leaderboard key -> member column keys
    labels: dict[str, str] = field(default_factory=dict)    # short leaderboard headers; default: the key
    task_aliases: dict[str, str] = field(default_factory=dict)  # other spellings of a task -> column key
    prompt_convention: str = ""
    variants: tuple[ScoringVariant, ...] = ()
    variant: ScoringVariant | None = None
    # Questions whose ground truth cannot be read: left out of the means (GST) or scored 0, as
    # upstream does when it cannot read a number (VSI).
    invalid_truth_scores_zero: bool = False
    # The audit checks (by id) that judge this benchmark's questions; None: every check whose columns
    # match some of its columns (core/audit/run.applies_to).
    audit_checks: frozenset[str] | None = None
    # Its own prediction formats (core/predictions.PredictionFormat), registered with the benchmark.
    prediction_formats: tuple = ()

    # ------------------------------------------------------------ columns
    @cached_property
    def keys(self) -> tuple[str, ...]:
        """Every column's key, in column order."""
        return tuple(c.key for c in self.columns)

    def column_keys(self, kind: str | None = None, **properties) -> frozenset[str]:
        """Keys of the columns of an answer kind and with the given properties (`core.column.Columns`),
        e.g. `column_keys("angle", has_view=True)`."""
        return Columns(kind=kind, **properties).keys(self.columns)

    @cached_property
    def _by_task(self) -> dict[str, int]:
        out = {c.task.lower(): i for i, c in enumerate(self.columns)}
        for alias, key in self.task_aliases.items():
            out[alias.lower()] = self.keys.index(key)
        return out

    def column_index(self, task) -> int:
        """Index of the column for a task name (case-insensitive), or UNKNOWN_COLUMN."""
        if not isinstance(task, str):
            return UNKNOWN_COLUMN
        return self._by_task.get(task.strip().lower(), UNKNOWN_COLUMN)

    def column(self, i: int) -> Column | None:
        return self.columns[i] if 0 <= i < len(self.columns) else None

    @cached_property
    def kind_codes(self) -> tuple[list, np.ndarray]:
        """The distinct answer kinds of the columns, and each column's index among them (-1 appended)."""
        kinds = list(dict.fromkeys(c.kind for c in self.columns))
        return kinds, np.array([kinds.index(c.kind) for c in self.columns] + [-1])

    # ------------------------------------------------------------ leaderboard
    @cached_property
    def table_keys(self) -> tuple[str, ...]:
        """The leaderboard's columns: each column, a group in place of its first member."""
        member_of = {m: g for g, ms in self.groups.items() for m in ms}
        return tuple(dict.fromkeys(member_of.get(k, k) for k in self.keys))

    def label(self, key: str) -> str:
        return self.labels.get(key, key)

    def members(self, key: str) -> tuple[int, ...]:
        """Column indices a leaderboard column covers."""
        keys = self.groups.get(key, (key,))
        return tuple(self.keys.index(k) for k in keys)

    def table(self, per_column: dict[str, float | None]) -> tuple[dict, dict]:
        """Leaderboard columns and sub-columns from per-column means (None = no questions).

        A group is the mean of its members that have questions (upstream lmms-eval requires all
        three; thinking-in-space counts a missing one as 0; the Gemini study skips it, as here).
        """
        table, sub = {}, {}
        for key in self.table_keys:
            if key in self.groups:
                vals = [per_column[m] for m in self.groups[key] if per_column[m] is not None]
                table[key] = float(np.mean(vals)) if vals else None
                sub.update({m: per_column[m] for m in self.groups[key]})
            else:
                table[key] = per_column[key]
        return table, sub

    def overall(self, table: dict, sub: dict) -> float | None:
        vals = [v for v in table.values() if v is not None]
        if self.variant is not None and self.variant.average_subcolumns:
            vals += [v for v in sub.values() if v is not None]
        return float(np.mean(vals)) if vals else None

    def own_checks(self) -> tuple:
        """Audit checks of this benchmark's own (core/audit/registry.Check), registered with the built-in
        ones; their columns say which questions they judge."""
        return ()

    def inferred(self, release, i: int):
        """What the other questions' answers say about question i's geometry (core/inferred.Inferred), for a
        release that ships no scene metadata; None when this benchmark infers nothing."""
        return None

    def published_rows(self, page: bool):
        """Published results to show beside the loaded models (core/reference_rows.ReferenceRow): the paper's
        rows, and with `page` also those only its project page lists; None when none are bundled."""
        return None

    def short_uid(self, question) -> str:
        """The part of a question's uid that tells it from its neighbours in a list (the browser's uid
        column): by default the uid without its scene's name in front."""
        uid, scene = question.uid, question.scene
        if scene and uid.startswith(scene) and len(uid) > len(scene):
            return uid[len(scene):].lstrip("_") or uid
        return uid

    def scale(self, question) -> Scale | None:
        """What a numeric question's answer measures and its unit; None: as its answer kind labels it."""
        return None

    def question_text(self, question) -> str | None:
        """The question as people read it, whole (figures, slides, clips), when the benchmark stores it apart
        from the prompt's boilerplate; None: taken from the prompt (`core/talk/showcase.question_sentence`)."""
        return None

    def objects_overlay(self, release, question):
        """The question's objects drawn from above on a canvas of their own (an `Overlay` in its pixels, with
        `width` and `height`), for a question with no map; None when the benchmark knows no objects."""
        return None

    # ------------------------------------------------------------ variants
    def with_variant(self, name: str | None) -> Benchmark:
        if not name:
            return self
        found = next((v for v in self.variants if v.name == name), None)
        if found is None:
            known = ", ".join(v.name for v in self.variants) or "none"
            raise UserError(f"{self.title} has no scoring variant {name!r} (known: {known})")
        cols = tuple(dataclasses.replace(c, kind_name=found.kind_swaps.get(c.kind_name, c.kind_name))
                     for c in self.columns)
        return dataclasses.replace(self, columns=cols, variant=found)

    # ------------------------------------------------------------ its files
    def detect(self, root: Path) -> bool:
        """Whether `root` (a folder, or one of its files) holds this benchmark's release; cheap: names and
        the first bytes, never the whole release. Default: never."""
        return False

    def describe_release(self, root: Path) -> str:
        """What marks `root` as one of its releases, for a message ("5 `*_questions.json` files"); "" unsaid."""
        return ""

    def names_a_release(self, path: Path) -> bool:
        """Whether a command-line path is, by its names alone, one of this benchmark's releases, so that a
        swapped argument (a release given as predictions) is said before anything loads. Default: a folder
        that `detect` recognises (a file may be a prediction file with the same fields)."""
        return path.is_dir() and self.detect(path)

    def load(self, root: Path):
        """The release at `root` (core/release.Release, `benchmark=self`); UserError when nothing can be read."""
        raise UserError(f"{root}: {self.title} has no release loader")

    def owns_record(self, record) -> bool:
        """Whether a question record that another benchmark's loader cannot read is one of this benchmark's
        (that loader then refuses the release as mixed, core/release.refuse_mixed). Default: no."""
        return False

    # ------------------------------------------------------------ predictions
    def prepare_predictions(self, release, preds):
        """Predictions keyed as this benchmark's files key them, re-keyed by uid (default: as they are)."""
        return preds

    # Whether merge_predictions makes several files' sets one: then a session reads every file before it
    # scores any; otherwise it scores each file as it is read and lets its answers go (open_session).
    merges_predictions: ClassVar[bool] = False

    def merge_predictions(self, sets: list) -> list:
        """The prediction sets of a session, with those that are one model's answers split over several
        files made one (default: as they are)."""
        return sets
