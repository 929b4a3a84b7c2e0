"""What the linked plots draw, per Table-1 column and model: numbers only, for any plotting library.

* `error_histogram`: the model's errors on the column's questions;
* `scatter`: predicted against truth, as the column's kind reads it (circular
  for angles, log-log for distances, an error-vector field on the map for points);
* `status_counts`: how many answers are scored, flagged, unparsed or missing.

A question without a plottable value (NaN error, unparsed or missing answer,
invalid truth, a distance ≤ 0 on a log axis) is never drawn at 0: it is
counted in `not_plotted`, by reason, and the plots say how many.
Every result keeps `rows`, the release's question index of each point, so a
click or a brush maps back to questions.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .answers import MISSING, OK, scored_mask
from .evaluate import ModelResult
from .release import Release

HISTOGRAM_BINS = 30
# The parse-status bar's groups, in drawing order.
STATUS_GROUPS = ("scored", "flagged", "unparsed", "missing")
# How a column's kind is drawn as predicted-vs-truth (kinds without an entry have no scatter).
SCATTER_MODES = {"angle": "circular", "distance": "loglog", "mra": "loglog", "mra-eleven": "loglog",
                 "point": "vectors"}


@dataclass
class Histogram:
    edges: np.ndarray                      # (bins + 1,)
    counts: np.ndarray                     # (bins,)
    rows: np.ndarray                       # questions drawn
    values: np.ndarray                     # their errors
    not_plotted: dict[str, int] = field(default_factory=dict)


@dataclass
class Scatter:
    mode: str                              # "circular", "loglog" or "vectors"
    x: np.ndarray                          # truth (vectors: the truth point's x)
    y: np.ndarray                          # prediction (circular: truth + the wrapped error; vectors: truth y)
    rows: np.ndarray
    u: np.ndarray | None = None            # vectors: the prediction point
    v: np.ndarray | None = None
    not_plotted: dict[str, int] = field(default_factory=dict)


def column_rows(release: Release, column: int) -> np.ndarray:
    """The release's questions of one Table-1 column."""
    return np.flatnonzero(release.column == column)


def _unplotted(result: ModelResult, rows: np.ndarray, drawn: np.ndarray) -> dict[str, int]:
    """Why the questions of `rows` not `drawn` are left out, counted."""
    status = result.status[rows]
    left = ~drawn
    missing = left & (status == MISSING)
    unparsed = left & ~missing & ~scored_mask(status)
    other = left & ~missing & ~unparsed
    out = {"missing": int(missing.sum()), "unparsed": int(unparsed.sum()), "no value": int(other.sum())}
    return {k: v for k, v in out.items() if v}


def error_histogram(result: ModelResult, rows: np.ndarray, bins: int = HISTOGRAM_BINS,
                    upper: float | None = None) -> Histogram:
    """The errors on `rows`; `upper` caps the range (a long tail otherwise squeezes every bar into one)."""
    errors = result.error[rows]
    ok = np.isfinite(errors) & scored_mask(result.status[rows])
    values = errors[ok]
    hi = upper if upper is not None else (float(np.percentile(values, 99)) if len(values) else 1.0)
    hi = hi if hi > 0 else 1.0
    counts, edges = np.histogram(np.minimum(values, hi), bins=bins, range=(0.0, hi))
    return Histogram(edges, counts, rows[ok], values, _unplotted(result, rows, ok))


def _wrap180(d: np.ndarray) -> np.ndarray:
    return (d + 180.0) % 360.0 - 180.0


def scatter(release: Release, result: ModelResult, rows: np.ndarray, kind_name: str) -> Scatter | None:
    """Predicted against truth on `rows` (one column's questions); None for kinds drawn without one."""
    mode = SCATTER_MODES.get(kind_name)
    if mode is None:
        return None
    truth = release.truth[rows]
    pred = result.answer[rows]
    ok = scored_mask(result.status[rows]) & np.isfinite(pred[:, 0]) & np.isfinite(truth[:, 0])
    if mode == "vectors":
        ok &= np.isfinite(pred[:, 1]) & np.isfinite(truth[:, 1])
        return Scatter(mode, truth[ok, 0], truth[ok, 1], rows[ok], pred[ok, 0], pred[ok, 1],
                       _unplotted(result, rows, ok))
    t, p = truth[:, 0], pred[:, 0]
    if mode == "loglog":
        with np.errstate(invalid="ignore"):
            positive = (t > 0) & (p > 0)
        drawn = ok & positive
        counts = _unplotted(result, rows, ok)
        if (ok & ~positive).any():
            counts["≤ 0 on a log axis"] = int((ok & ~positive).sum())
        return Scatter(mode, t[drawn], p[drawn], rows[drawn], not_plotted=counts)
    # circular: the prediction drawn at its nearest turn to the truth, so -179° and 179° sit together.
    return Scatter(mode, t[ok], t[ok] + _wrap180(p[ok] - t[ok]), rows[ok], not_plotted=_unplotted(result, rows, ok))


def status_counts(result: ModelResult, rows: np.ndarray) -> dict[str, int]:
    """The answers on `rows` by `STATUS_GROUPS` (questions the model is not scored on are left out)."""
    status = result.status[rows]
    scored = scored_mask(status)
    missing = status == MISSING
    unscored = status == "unscored"
    return {"scored": int((scored & (status == OK)).sum()), "flagged": int((scored & (status != OK)).sum()),
            "unparsed": int((~scored & ~missing & ~unscored).sum()), "missing": int(missing.sum())}


def nearest_point(x: np.ndarray, y: np.ndarray, at: tuple[float, float], scale: tuple[float, float]) -> int | None:
    """Index of the point nearest `at`, distances measured in `scale` units per axis (the view's size)."""
    if not len(x):
        return None
    dx = (x - at[0]) / (scale[0] or 1.0)
    dy = (y - at[1]) / (scale[1] or 1.0)
    return int(np.argmin(dx * dx + dy * dy))
