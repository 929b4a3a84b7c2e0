"""Comparing models question by question: which questions A gets right and B wrong, and the like.

A model is *right* on a question when it scores 1 and *wrong* when it scores
below 1 (wrong, unparsed or missing: `wrong_mask`, the browser's "failed"); a question it
cannot be scored on (NaN) is neither, so it is never listed by a comparison.
Everything is a boolean mask over the release's questions, so a comparison
combines with the browser's other filters by `&`.
"""
from __future__ import annotations

import numpy as np

# Comparison filter choices: key -> what it keeps. A is the browser's selected model, B the second one.
COMPARISONS = {
    "none": "no comparison",
    "a_right_b_wrong": "A right, B wrong",
    "b_right_a_wrong": "B right, A wrong",
    "both_wrong": "A and B both wrong",
    "disagree": "the models disagree: some right, some wrong",
    "all_wrong": "every model wrong: hard for everyone",
}
NEEDS_B = frozenset({"a_right_b_wrong", "b_right_a_wrong", "both_wrong"})


def right_mask(score: np.ndarray) -> np.ndarray:
    """Questions a model got fully right."""
    with np.errstate(invalid="ignore"):
        return score >= 1.0 - 1e-12


def wrong_mask(score: np.ndarray) -> np.ndarray:
    """Scored questions a model did not get fully right (NaN = unscorable, not a failure)."""
    with np.errstate(invalid="ignore"):
        return score < 1.0


def comparison_mask(kind: str, scores: list[np.ndarray], a: int | None, b: int | None) -> np.ndarray | None:
    """Questions the comparison `kind` keeps, from the models' score arrays; None when it keeps every one.

    `a` and `b` index `scores`; a comparison that needs a model that is not given keeps nothing
    (the browser says which model is missing) rather than silently everything.
    """
    if kind == "none" or not scores:
        return None
    n = len(scores[0])
    if kind in NEEDS_B:
        if a is None or b is None or not (0 <= a < len(scores) and 0 <= b < len(scores)) or a == b:
            return np.zeros(n, bool)
        sa, sb = scores[a], scores[b]
        if kind == "a_right_b_wrong":
            return right_mask(sa) & wrong_mask(sb)
        if kind == "b_right_a_wrong":
            return right_mask(sb) & wrong_mask(sa)
        return wrong_mask(sa) & wrong_mask(sb)
    rights = np.zeros(n, np.int32)
    wrongs = np.zeros(n, np.int32)
    for s in scores:
        rights += right_mask(s)
        wrongs += wrong_mask(s)
    if kind == "disagree":
        return (rights > 0) & (wrongs > 0)
    if kind == "all_wrong":
        return wrongs == len(scores)
    raise ValueError(f"unknown comparison {kind!r}")


def error_range_mask(error: np.ndarray, low: float | None, high: float | None) -> np.ndarray:
    """Questions whose error lies in [low, high] (None: unbounded); a NaN error is never in range."""
    m = np.isfinite(error)
    with np.errstate(invalid="ignore"):
        if low is not None:
            m &= error >= low
        if high is not None:
            m &= error <= high
    return m
