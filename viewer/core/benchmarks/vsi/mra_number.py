"""A number scored by mean relative accuracy, read and scored as VSI-Bench's upstream scorer does.

lmms-eval's `vsibench`: the text up to the first space (trailing dots and
whitespace stripped) is read with Python's `float()`, else the answer scores
0; "3.5 meters" reads 3.5, "about 3" reads nothing. MRA is the share of the
thresholds theta with |pred - truth| / truth <= 1 - theta, over
`np.linspace(.5, .95, int((.95 - .5) / .05 + 2))`, which is 10 values
0.50..0.95 because the float division rounds down. A ground truth of 0 (upstream
divides by it) scores 0.

`mra-eleven` is the same kind with 1.0 as an 11th threshold, the rule of the
public Gemini study (`--scoring-variant eleven-thresholds`).
"""
from __future__ import annotations

import math

import numpy as np

from ...answers import EMPTY, NO_NUMBER, NOT_FINITE, OK, STRICT, Parsed
from ...kinds.base import WIDTH, AnswerKind, register
from ...scoring import random_distance_score
from .option_text import first_token

UPSTREAM_THRESHOLDS = np.linspace(.5, .95, int((.95 - .5) / .05 + 2))


def _study_thresholds() -> np.ndarray:
    """The study's loop: 0.5 stepped by 0.05 while <= 0.95 (rounded to 10 places), then 1.0."""
    out, current = [], 0.5
    while current <= 0.95 + 1e-9:
        out.append(round(current, 10))
        current += 0.05
    return np.array(out + [1.0])


ELEVEN_THRESHOLDS = _study_thresholds()


class MraNumberKind(AnswerKind):
    name = "mra"
    thresholds = UPSTREAM_THRESHOLDS
    truth_symbol = "truth-line"
    convention = "a number first, e.g. \"3.5 meters\" or \"3\""
    chart = "bars"

    @property
    def bands(self) -> tuple[float, ...]:
        return tuple(float(t) for t in self.thresholds if t < 1.0)

    def parse(self, raw, n_options: int = 4, profile: str = STRICT) -> Parsed:
        # Upstream's rule, whatever the profile: these kinds reproduce published VSI-Bench numbers.
        if raw is None or isinstance(raw, bool):
            return Parsed(None, EMPTY if raw is None else NO_NUMBER)
        token = first_token(raw)
        if not token:
            return Parsed(None, EMPTY)
        try:
            v = float(token)
        except ValueError:
            return Parsed(None, NO_NUMBER)
        return Parsed(v, OK) if math.isfinite(v) else Parsed(None, NOT_FINITE)

    def parse_many(self, raws, n_options, cache, profile: str = STRICT):
        out = np.full((len(raws), WIDTH), np.nan)
        statuses = []
        for j, r in enumerate(raws):
            p = self.parse(r)
            if p.ok:
                out[j, 0] = p.value
            statuses.append(p.status)
        return out, statuses

    def in_domain(self, value) -> bool:
        return value > 0

    def score(self, pred, truth):
        p, t = pred[:, 0], truth[:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.abs(p - t) / t                  # upstream's abs_dist_norm: divided by the truth itself
        rel = np.where(t == 0, np.inf, rel)
        s = (rel[:, None] <= 1 - self.thresholds).mean(axis=1)
        return np.where(np.isnan(rel), 0.0, s), rel

    def chance(self, truth, n_options) -> float:
        # As for GST distances: the column's largest truth bounds a uniform guess.
        t = truth[:, 0]
        return float(random_distance_score(t, float(t.max())).mean()) if len(t) else 0.0

    def convention_for(self, column, scale=None) -> str:
        # The example in the question's own unit: a size asked in centimetres is not "3.5 meters".
        return f"a number first, e.g. \"{scale.example()}\"" if scale is not None else self.convention

    def text(self, value) -> str:
        return f"{value:g}"

    def error_text(self, error: float) -> str:
        return "∞" if math.isinf(error) else f"{100 * error:.0f}%"


class MraElevenKind(MraNumberKind):
    name = "mra-eleven"
    thresholds = ELEVEN_THRESHOLDS


MRA = register(MraNumberKind())
MRA_ELEVEN = register(MraElevenKind())
