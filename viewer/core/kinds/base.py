"""What an answer kind is, and the registry that names them.

An answer kind (angle, distance, map point, option letter) owns everything
that depends on the shape of an answer: reading it from text, the domain its
ground truth must lie in, scoring a prediction, the chance level, writing it
back as the benchmark does or for people, its tolerance bands, what it draws
on a map and in 3D, and which chart shows it. Columns name their kind; code
elsewhere asks the kind instead of branching on it.

Answers are stored uniformly as rows of `WIDTH` = 2 floats (NaN when absent):
a kind of `width` 1 uses the first, a map point both.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..answers import OK, OUT_OF_RANGE, SCORED, SEVERAL_NUMBERS, STRICT, Parsed, parse_number, parse_numbers_many

if TYPE_CHECKING:
    from ..overlays import MapContext, SceneContext

WIDTH = 2


class AnswerKind:
    name: str = ""
    width: int = 1               # numbers per answer: 1, or 2 for a map point
    unit: str = ""
    truth_symbol: str = "truth-star"   # its truth's legend symbol (primitives.LEGEND_ORDER)
    convention: str = ""         # how the benchmark writes it, for people
    chart: str | None = None     # the chart beside the map ("dial", "bars", "option-texts") or None
    bands: tuple[float, ...] = ()
    # The error at which an answer stops scoring (its loosest tolerance): the browser ranks errors of
    # columns in different units together as shares of it. None: errors are shares already (0 or 1).
    error_scale: float | None = None
    error_unit: str = ""         # the unit of the error as stored, which "error > X" shows
    # Where every coordinate of an answer lies (inclusive); None: anywhere. A truth outside it is
    # invalid; a prediction outside it is scored as read and flagged `out_of_range`.
    domain: tuple[float, float] | None = None
    # Whether a talk may show the video's path while only the question is asked: not when the
    # path leads the eye to the answer (a place, a direction), yes for options that are whole maps.
    path_gives_nothing_away: bool = False
    picks_an_option: bool = False      # the answer is one of the question's option images
    # Every question scores 0 or 1, so a column's mean is a binomial proportion (core/intervals.py
    # then adds a Wilson interval).
    hit_or_miss: bool = False

    def convention_for(self, column) -> str:
        """How an answer of this column is written, in one line for people."""
        return self.convention

    # ---------------------------------------------------------------- parsing
    def parse(self, raw: Any, n_options: int = 4, profile: str = STRICT) -> Parsed:
        """Read one answer under a parse profile (answers.PROFILES); the status says how."""
        raise NotImplementedError

    def parse_many(self, raws: list, n_options: list[int], cache: dict | None,
                   profile: str = STRICT) -> tuple[np.ndarray, list[str]]:
        """parse() over a list: (n, WIDTH) values (NaN where not scored) and statuses."""
        parsed = [self.parse(r, k, profile) for r, k in zip(raws, n_options)]
        out = np.full((len(raws), WIDTH), np.nan)
        for j, p in enumerate(parsed):
            if p.status in SCORED:
                out[j, :self.width] = p.value
        return out, [p.status for p in parsed]

    def in_domain(self, value) -> bool:
        """Whether a parsed value lies where this kind's answers can."""
        if self.domain is None:
            return True
        lo, hi = self.domain
        # A plain tuple test where it can be (np.atleast_1d costs more than the comparison): truths call it.
        values = value if type(value) is tuple else (value,) if type(value) in (float, int) else np.atleast_1d(value)
        return all(lo <= c <= hi for c in values)

    def checked(self, p: Parsed) -> Parsed:
        """`p`, flagged `out_of_range` when it is scored but outside the domain."""
        if p.status in SCORED and not self.in_domain(p.value):
            return Parsed(p.value, OUT_OF_RANGE)
        return p

    def flag_out_of_range(self, values: np.ndarray, statuses: list[str]) -> list[str]:
        """`checked` over parse_many's output, vectorised: statuses, out-of-domain rows flagged."""
        if self.domain is None:
            return statuses
        lo, hi = self.domain
        with np.errstate(invalid="ignore"):
            bad = ((values[:, :self.width] < lo) | (values[:, :self.width] > hi)).any(axis=1)
        for j in np.flatnonzero(bad).tolist():      # NaN rows (not scored) compare False
            statuses[j] = OUT_OF_RANGE
        return statuses

    # Whether parse_many reads exactly as parse() with `checked` does (the domain flagged), so that a truth is
    # valid where its status is ok or several_numbers: the loader then reads a release's truths in bulk.
    truths_in_bulk: bool = False

    def parse_truth(self, raw: Any, n_options: int = 4) -> Parsed:
        """The ground truth, read strictly: valid (`ok`) when a value is found inside the domain."""
        p = self.parse(raw, n_options)
        if p.status == SEVERAL_NUMBERS:
            p = Parsed(p.value, OK)        # a truth is checked for its domain only, as it always was
        if p.ok and not self.in_domain(p.value):
            return Parsed(p.value, OUT_OF_RANGE)
        return p

    # ---------------------------------------------------------------- storage
    def pack(self, value) -> np.ndarray:
        row = np.full(WIDTH, np.nan)
        if value is not None:
            row[:self.width] = value
        return row

    def unpack(self, row) -> Any:
        """A stored row as the parsed value (float, (x, y) or option index); None if absent."""
        v = float(row[0])
        return None if math.isnan(v) else v

    # ---------------------------------------------------------------- scoring
    def score(self, pred: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Scores in [0, 1] and errors for (m, WIDTH) predictions against (m, WIDTH) truths."""
        raise NotImplementedError

    def chance(self, truth: np.ndarray, n_options: np.ndarray) -> float:
        """Expected score (0..1) of a uniform guess over a column's valid (m, WIDTH) truths."""
        raise NotImplementedError

    # ------------------------------------------------------------- formatting
    def format(self, value) -> str:
        """The value as the benchmark writes answers."""
        return f"{value:g}"

    def text(self, value) -> str:
        """The value for people, with its unit."""
        return f"{value:g}{self.unit}"

    def json_value(self, value) -> Any:
        """The value typed for JSON output: a number here; a point gives [x, y], a choice its letter."""
        return None if value is None else float(value)

    def error_text(self, error: float) -> str:
        return f"{error:g}"


    # ---------------------------------------------------------------- drawing
    def map_overlay(self, ctx: MapContext) -> None:
        """Add the truth's and the answers' primitives to `ctx.overlay` (map pixels)."""

    def scene_overlay(self, ctx: SceneContext) -> None:
        """Add the truth's and the answers' primitives to `ctx.overlay` (world metres)."""

    def needs_map(self, column) -> bool:
        """Whether the answer itself is a place on the map (shown even before a scene is read)."""
        return False


class NumberKind(AnswerKind):
    """A kind whose answer is one number, read as the first number in the final answer (angles, distances).

    `rescues` are the lenient profile's rescues for this kind (functions of an answers.Reading).
    """
    rescues: tuple = ()
    truths_in_bulk = True

    def parse(self, raw: Any, n_options: int = 4, profile: str = STRICT) -> Parsed:
        return self.checked(parse_number(raw, profile, self.rescues))

    def parse_many(self, raws: list, n_options: list[int], cache: dict | None,
                   profile: str = STRICT) -> tuple[np.ndarray, list[str]]:
        values, statuses = parse_numbers_many(raws, cache, profile, self.rescues)
        out = np.full((len(raws), WIDTH), np.nan)
        out[:, 0] = values
        return out, self.flag_out_of_range(out, statuses)


_KINDS: dict[str, AnswerKind] = {}


def register(kind: AnswerKind) -> AnswerKind:
    """Make a kind known by its name; columns (and benchmarks) then refer to it by that name."""
    if not kind.name:
        raise ValueError("an answer kind needs a name")
    _KINDS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    _KINDS.pop(name, None)


def get_kind(name: str) -> AnswerKind:
    try:
        return _KINDS[name]
    except KeyError:
        raise KeyError(f"no answer kind {name!r}; known: {', '.join(_KINDS)}") from None


def kinds() -> list[AnswerKind]:
    return list(_KINDS.values())


__all__ = ["AnswerKind", "NumberKind", "WIDTH", "register", "unregister", "get_kind", "kinds", "OK"]
