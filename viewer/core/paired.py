"""Two models on the same questions: the difference per leaderboard column and Avg, its bootstrap
interval, a paired permutation test and Holm's correction across the columns.

The difference is A's leaderboard value minus B's, so it is a linear function
of the per-question differences d = a - b. Its interval resamples the
questions exactly as core/intervals.py does (the same draws), applied to d.
The test is the paired sign-flip permutation test: under "A and B are
exchangeable on each question", each d keeps its size and has either sign, so
the observed difference is compared with those of random sign flips (the
flips of a column's questions drawn together for its value, and Avg's
recomputed from the flipped columns). The p-value, two-sided, is
(1 + flips at least as far from 0) / (1 + flips): never 0, and 1 when A and B
score alike on every question. Holm's step-down correction controls the
family-wise error over the leaderboard's columns; Avg is one test of its own.

Questions a model did not answer score as the benchmark scores them (0) and
are counted per column (`missing_a`, `missing_b`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .answers import MISSING
from .intervals import DRAWS_AT_ONCE, Bootstrap, ColumnLayout, json_number
from .release import Release

PERMUTATIONS = 10_000
ALPHA = 0.05
_TIE = 1e-9        # points: a flipped difference this close to the observed one counts as as far


@dataclass(frozen=True)
class Difference:
    """A minus B on one leaderboard column (or Avg), in points; None where the column has no questions."""
    a: float | None
    b: float | None
    difference: float | None
    low: float | None                 # its bootstrap interval
    high: float | None
    p: float | None                   # paired permutation test, two-sided
    p_holm: float | None              # Holm-adjusted over the leaderboard columns; Avg's is its own p
    n: int
    missing_a: int = 0
    missing_b: int = 0

    def significant(self, alpha: float = ALPHA) -> bool:
        p = self.p_holm if self.p_holm is not None else self.p
        return p is not None and p < alpha

    def json(self) -> dict:
        num = json_number
        return {"a": num(self.a), "b": num(self.b), "difference": num(self.difference), "ci_low": num(self.low),
                "ci_high": num(self.high), "p": num(self.p), "p_holm": num(self.p_holm),
                "significant": self.significant(), "n": self.n, "missing_a": self.missing_a,
                "missing_b": self.missing_b}


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    columns: dict[str, Difference]
    avg: Difference
    method: Bootstrap
    permutations: int
    subcolumns: dict[str, Difference] = field(default_factory=dict)

    def json(self) -> dict:
        out = {"a": self.a, "b": self.b, "columns": {k: d.json() for k, d in self.columns.items()}}
        if self.subcolumns:
            out["subcolumns"] = {k: d.json() for k, d in self.subcolumns.items()}
        out["avg"] = self.avg.json()
        out["method"] = {**self.method.json(), "test": "paired sign-flip permutation test, two-sided",
                         "permutations": self.permutations, "correction": "Holm over the leaderboard columns",
                         "alpha": ALPHA}
        return out


def holm(p: dict[str, float]) -> dict[str, float]:
    """Holm's step-down adjusted p-values."""
    out, running = {}, 0.0
    order = sorted(p, key=p.get)
    for i, k in enumerate(order):
        running = max(running, min(1.0, (len(order) - i) * p[k]))
        out[k] = running
    return out


def _sign_flips(layout: ColumnLayout, d: np.ndarray, permutations: int, seed: int) -> np.ndarray:
    """(permutations, 1, present columns) column means (0-100) of d with random signs."""
    out = np.zeros((permutations, 1, len(layout.present)))
    for j, c in enumerate(layout.present):
        q = layout.questions[c]
        nz = d[q][d[q] != 0] * (100.0 / len(q))     # a zero difference flips to itself
        if not len(nz):
            continue
        rng = np.random.default_rng([seed, c, 1])     # a stream apart from the bootstrap's
        rows = max(1, DRAWS_AT_ONCE // len(nz))
        for start in range(0, permutations, rows):
            r = min(rows, permutations - start)
            out[start:start + r, 0, j] = np.where(rng.random((r, len(nz))) < 0.5, -1.0, 1.0) @ nz
    return out


def compare_models(release: Release, a, b, method: Bootstrap = Bootstrap(),
                   permutations: int = PERMUTATIONS) -> Comparison:
    """A against B (ModelResults on `release`), on the questions both are scored on (in Table 1: all of them,
    as whether a question can be scored depends on the release, not on the model)."""
    if permutations < 1:
        raise ValueError("the permutation test needs at least one permutation")
    counted = release.in_leaderboard & ~np.isnan(a.score) & ~np.isnan(b.score)
    layout = ColumnLayout(release, counted)
    sa, sb = np.where(counted, a.score, 0.0), np.where(counted, b.score, 0.0)
    d = sa - sb
    va, vb, obs = layout.point(sa), layout.point(sb), layout.point(d)
    reps = layout.outputs(layout.replicate_means(d[None], method.replicates, method.seed))[:, 0]
    low, high = np.percentile(reps, method.percentiles, axis=0)
    flips = np.abs(layout.outputs(_sign_flips(layout, d, permutations, method.seed))[:, 0])
    p = [None if o is None else float((1 + np.count_nonzero(flips[:, k] >= abs(o) - _TIE)) / (1 + permutations))
         for k, o in enumerate(obs)]
    family = {key: p[k] for k, (part, key) in enumerate(layout.keys) if part == "columns" and p[k] is not None}
    adjusted = holm(family)
    miss_a, miss_b = a.status == MISSING, b.status == MISSING
    parts: dict[str, dict[str, Difference]] = {"columns": {}, "subcolumns": {}, "avg": {}}
    for k, ((part, key), n) in enumerate(zip(layout.keys, layout.n())):
        q = layout.members(key, part) if n else np.zeros(0, int)
        ok = obs[k] is not None
        parts[part][key] = Difference(
            va[k], vb[k], obs[k], float(low[k]) if ok else None, float(high[k]) if ok else None, p[k],
            adjusted.get(key) if part == "columns" else None, n, int(miss_a[q].sum()), int(miss_b[q].sum()))
    return Comparison(a.model, b.model, parts["columns"], parts["avg"]["avg"], method, permutations,
                      parts["subcolumns"])
