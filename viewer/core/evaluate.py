"""Scoring a model's predictions against a release, and the Table 1 leaderboard."""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from .answers import MISSING, OK, parse_many
from .diagnostics import Diagnostics
from .predictions import PredictionSet
from .release import Release
from .scoring import (
    random_angle_score,
    random_choice_score,
    random_distance_score,
    random_point_score,
    score_angle,
    score_choice,
    score_distance,
    score_point,
)
from .tasks import COLUMN_KEYS, COLUMNS, AnswerType


@dataclass
class ModelResult:
    """One model on one release, aligned with `release.questions`."""
    model: str
    source: str
    raw: np.ndarray                # raw answer per question (object array), None when missing
    status: np.ndarray             # parse status per question (object array of str)
    value: np.ndarray              # parsed scalar (angle, distance, option index) or NaN
    point: np.ndarray              # parsed point (n, 2) or NaN
    score: np.ndarray              # in [0, 1]; NaN where the question cannot be scored
    error: np.ndarray              # degrees, relative error, normalised units, 0/1; NaN if none
    unknown_uids: list[str] = field(default_factory=list)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)

    @property
    def missing(self) -> np.ndarray:
        return np.flatnonzero(self.status == MISSING)

    @property
    def unparsed(self) -> int:
        """Predictions present but not parseable for their task."""
        return int(np.sum((self.status != OK) & (self.status != MISSING)
                          & (self.status != "unscored")))

    def column_scores(self, release: Release) -> dict[str, float | None]:
        return column_means(release, self.score)

    def column_counts(self, release: Release) -> dict[str, int]:
        return {k: int(np.sum((release.column == i) & ~np.isnan(self.score)))
                for i, k in enumerate(COLUMN_KEYS)}


def column_means(release: Release, score: np.ndarray) -> dict[str, float | None]:
    """100 x mean score per Table 1 column; None for a column without questions."""
    out: dict[str, float | None] = {}
    for i, k in enumerate(COLUMN_KEYS):
        s = score[(release.column == i) & ~np.isnan(score)]
        out[k] = float(100.0 * s.mean()) if len(s) else None
    return out


def average(columns: dict[str, float | None]) -> float | None:
    vals = [v for v in columns.values() if v is not None]
    return float(np.mean(vals)) if vals else None


def evaluate(release: Release, preds: PredictionSet,
             parse_cache: dict[AnswerType, dict] | None = None) -> ModelResult:
    """Score one model. Pass the same `parse_cache` when scoring several models:
    their answers repeat, and each distinct one is then parsed once."""
    n = len(release)
    keys = list(preds.raw)
    answers = list(preds.raw.values())
    get = release.index.get
    found = np.fromiter(map(get, keys, repeat(-1)), np.int64, len(keys))
    unknown = []
    for j in np.flatnonzero(found < 0).tolist():
        key = keys[j]
        if preds.positional and key.isdigit() and int(key) < n:
            found[j] = int(key)
        else:
            unknown.append(key)
    ok = found >= 0
    raw = np.full(n, None, dtype=object)
    kept = answers if ok.all() else [a for a, good in zip(answers, ok.tolist()) if good]
    # fromiter keeps each answer whole, even one that is a JSON list.
    raw[found[ok]] = np.fromiter(kept, dtype=object, count=len(kept))
    present = np.zeros(n, bool)
    present[found[ok]] = True

    status = np.full(n, MISSING, dtype=object)
    value = np.full(n, np.nan)
    point = np.full((n, 2), np.nan)
    types = answer_types(release)
    status[present & (types < 0)] = "unscored"
    for code, at in enumerate(AnswerType):
        idx = np.flatnonzero(present & (types == code))
        if not len(idx):
            continue
        cache = None if parse_cache is None else parse_cache.setdefault(at, {})
        vals, stats = parse_many(raw[idx].tolist(), at,
                                 release.n_options[idx].tolist(), cache)
        status[idx] = stats
        if at is AnswerType.POINT:
            point[idx] = vals
        else:
            value[idx] = vals

    score, error = score_all(release, value, point)
    diags = Diagnostics()
    diags.extend(preds.diagnostics)
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        diags.warning(f"{len(unknown)} predictions name questions not in this release: {shown}",
                      preds.source, code="prediction.unknown_uid")
    n_missing = int(np.sum(~present & (release.column >= 0)))
    if n_missing:
        diags.warning(f"{n_missing} questions have no prediction from {preds.model!r}; "
                      "they score 0", preds.source, code="prediction.missing")
    if preds.positional and any(k not in release.index for k in preds.raw):
        diags.info("some predictions carry no uid and were matched by their position "
                   "(doc_id / index) in the release", preds.source, code="prediction.matched_by_position")
    return ModelResult(preds.model, preds.source, raw, status, value, point, score, error,
                       unknown, diags)


_TYPE_CODES = {at: k for k, at in enumerate(AnswerType)}
_COLUMN_TYPE_CODES = np.array([_TYPE_CODES[c.answer_type] for c in COLUMNS] + [-1])


def answer_types(release: Release) -> np.ndarray:
    """Per question, the index of its AnswerType in `AnswerType`, or -1 (unknown task)."""
    return _COLUMN_TYPE_CODES[release.column]      # column -1 picks the trailing -1


def score_all(release: Release, value: np.ndarray, point: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised scores for every question; missing/unparsed score 0 (error NaN).

    Questions whose ground truth is invalid or whose task is unknown get
    NaN scores: they cannot be scored and are left out of the means.
    """
    n = len(release)
    score = np.full(n, np.nan)
    error = np.full(n, np.nan)
    types = answer_types(release)
    for at, fn in ((AnswerType.ANGLE, score_angle), (AnswerType.DISTANCE, score_distance),
                   (AnswerType.CHOICE, score_choice)):
        m = (types == _TYPE_CODES[at]) & ~np.isnan(release.truth_value)
        s, e = fn(value[m], release.truth_value[m])
        score[m], error[m] = s, e
    m = (types == _TYPE_CODES[AnswerType.POINT]) & ~np.isnan(release.truth_point).any(axis=1)
    s, e = score_point(point[m], release.truth_point[m])
    score[m], error[m] = s, e
    return score, error


def random_baseline(release: Release) -> dict[str, float | None]:
    """Analytic expected score of uniform guessing, per column (0-100)."""
    out: dict[str, float | None] = {}
    for i, c in enumerate(COLUMNS):
        m = release.column == i
        if c.answer_type is AnswerType.POINT:
            t = release.truth_point[m & ~np.isnan(release.truth_point).any(axis=1)]
            out[c.key] = float(100 * random_point_score(t).mean()) if len(t) else None
            continue
        t = release.truth_value[m & ~np.isnan(release.truth_value)]
        if not len(t):
            out[c.key] = None
        elif c.answer_type is AnswerType.ANGLE:
            out[c.key] = 100 * random_angle_score()
        elif c.answer_type is AnswerType.CHOICE:
            opts = release.n_options[m & ~np.isnan(release.truth_value)]
            out[c.key] = float(100 * np.mean([random_choice_score(int(k)) for k in opts]))
        else:
            out[c.key] = float(100 * random_distance_score(t, float(t.max())).mean())
    return out


def leaderboard(release: Release, results: list[ModelResult]) -> dict:
    """The `score --json` document: per model, the 12 columns, Avg, counts, unparsed."""
    models = {}
    for r in results:
        cols = r.column_scores(release)
        models[r.model] = {"columns": cols, "avg": average(cols),
                           "counts": r.column_counts(release), "unparsed": r.unparsed}
    return {"models": models}
