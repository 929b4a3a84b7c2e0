"""Confidence intervals for the leaderboard: a percentile bootstrap over questions, and Wilson's.

A column's score is the mean of its questions' scores, so the uncertainty
reported is that of which questions were drawn. Each bootstrap replicate
resamples, with replacement, the questions of every benchmark column on its
own (each column keeps its n), takes each column's mean, and then the
leaderboard's columns and Avg through the benchmark's own aggregation
(`Benchmark.table` and `overall`: VSI-Bench's direction column is the mean of
its three resampled sub-columns). The interval is the replicates' central
`level` percentiles. Questions a model did not answer are scored as the
benchmark scores them (0; evaluate.score_all) and counted as `missing`.

The draws depend only on the seed, the column and its n (`column_draws`), so
every model of a release is resampled on the same questions: the replicates of
two models are paired, as core/paired.py needs.

Speed: `table` and `overall` average the columns that have questions, a linear
map once it is known which do. `ColumnLayout` probes that map from the
benchmark with unit vectors and checks it at one more point against the
benchmark's own functions; B x models replicates are then aggregated by one
matrix product (a benchmark whose aggregation is not linear gets every
replicate passed through it instead). A column's replicate means are a
(B, n) matrix of draw counts times its (n, models) scores. docs/intervals.md
says how to read the results.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from .answers import MISSING
from .release import Release

LEVEL = 0.95
REPLICATES = 2_000
SEED = 0
FEW = 30                  # a column with fewer questions is marked: its interval rests on little
FEW_MARK = "†"
DRAWS_AT_ONCE = 1 << 20   # draws generated at a time (bounds the memory at 200,000 questions)


@dataclass(frozen=True)
class Bootstrap:
    """How the intervals are computed; `json()` is what `score --json --ci` reports."""
    replicates: int = REPLICATES
    level: float = LEVEL
    seed: int = SEED

    def __post_init__(self):
        if self.replicates < 1:
            raise ValueError("the bootstrap needs at least one replicate")
        if not 0.0 < self.level < 1.0:
            raise ValueError(f"confidence level {self.level} is not between 0 and 1")

    @property
    def percentiles(self) -> tuple[float, float]:
        return 50.0 * (1.0 - self.level), 50.0 * (1.0 + self.level)

    def json(self) -> dict:
        return {"method": "percentile bootstrap over questions, resampled within each column; Avg recomputed "
                          "from the resampled columns",
                "level": self.level, "replicates": self.replicates, "seed": self.seed,
                "analytic": "Wilson score interval for columns whose questions score 0 or 1 "
                            "(wilson_low, wilson_high)",
                "few": FEW}


@dataclass(frozen=True)
class Interval:
    """A leaderboard value (0-100) with its interval; everything None where the column has no questions."""
    value: float | None
    low: float | None
    high: float | None
    n: int                                       # questions counted
    missing: int = 0                             # of them, questions the model did not answer (scored 0)
    wilson: tuple[float, float] | None = None    # analytic interval, for hit-or-miss columns

    @property
    def few(self) -> bool:
        return self.n < FEW

    @property
    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2.0

    def text(self) -> str:
        """ "41.9 ± 2.3": the value and half the interval's width (the interval may be asymmetric)."""
        if self.value is None:
            return "-"
        if self.half_width is None:
            return f"{self.value:.1f}"
        return f"{self.value:.1f} ± {self.half_width:.1f}"

    def json(self) -> dict:
        out = {"ci_low": json_number(self.low), "ci_high": json_number(self.high), "n": self.n, "missing": self.missing}
        if self.wilson is not None:
            out["wilson_low"], out["wilson_high"] = (json_number(w) for w in self.wilson)
        return out


@dataclass(frozen=True)
class ModelIntervals:
    model: str
    columns: dict[str, Interval]                 # the leaderboard's columns
    avg: Interval
    subcolumns: dict[str, Interval] = field(default_factory=dict)   # a group's members (VSI-Bench)

    def json(self) -> dict:
        out = {"columns": {k: v.json() for k, v in self.columns.items()}}
        if self.subcolumns:
            out["subcolumns"] = {k: v.json() for k, v in self.subcolumns.items()}
        out["avg"] = self.avg.json()
        return out


def json_number(v: float | None) -> float | None:
    # Ten decimals: the JSON stays the same on every machine, where the last bits of a sum may not.
    return None if v is None else round(float(v), 10)


def count_text(n: int) -> str:
    """A column's n for tables: "284", or "12†" below FEW."""
    return f"{n}{FEW_MARK}" if n < FEW else str(n)


def interval_note(method: dict) -> str:
    """What "±" and "†" mean, under a table (`method`: `Bootstrap.json()`, as the board carries it)."""
    return (f"± half the {method['level']:.0%} interval's width (percentile bootstrap over questions, "
            f"B = {method['replicates']:,}, seed {method['seed']}); {FEW_MARK} fewer than {FEW} questions")


# ------------------------------------------------------------------ the draws
def column_draws(seed: int, column: int, n: int, replicates: int) -> Iterator[np.ndarray]:
    """The bootstrap's draws for one benchmark column of n questions: chunks of rows of positions in
    [0, n), which put together are the (replicates, n) resamples. A function of its arguments only."""
    rng = np.random.default_rng([seed, column])
    rows = max(1, DRAWS_AT_ONCE // max(n, 1))
    for start in range(0, replicates, rows):
        yield rng.integers(0, n, size=(min(rows, replicates - start), n))


def _draw_counts(seed: int, column: int, n: int, replicates: int) -> Iterator[tuple[slice, np.ndarray]]:
    """(replicate rows, (rows, n) float counts of each question in each resample), chunk by chunk."""
    start = 0
    for pos in column_draws(seed, column, n, replicates):
        r = len(pos)
        flat = (pos + (np.arange(r) * n)[:, None]).ravel()
        yield slice(start, start + r), np.bincount(flat, minlength=r * n).reshape(r, n).astype(np.float64)
        start += r


# ------------------------------------------------------------------ the layout
def _output_keys(benchmark) -> list[tuple[str, str]]:
    """What the aggregation gives, in order: leaderboard columns, a group's members, then Avg."""
    subs = [m for g in benchmark.table_keys if g in benchmark.groups for m in benchmark.groups[g]]
    return [("columns", k) for k in benchmark.table_keys] + [("subcolumns", m) for m in subs] + [("avg", "avg")]


def aggregate(benchmark, per_column: dict[str, float | None]) -> list[float | None]:
    """Per-column means (0-100, None: no questions) to the `_output_keys` values, by the benchmark's rule."""
    table, sub = benchmark.table(per_column)
    return [table[k] if part == "columns" else sub[k] if part == "subcolumns" else benchmark.overall(table, sub)
            for part, k in _output_keys(benchmark)]


class ColumnLayout:
    """The questions each benchmark column counts (`counted`: Table 1's, with a score), and the linear map
    from the columns' means to the leaderboard's columns and Avg (None when the aggregation is not linear)."""

    def __init__(self, release: Release, counted: np.ndarray):
        b = self.benchmark = release.benchmark
        self.release = release
        self.counted = counted
        self.questions = [np.flatnonzero((release.column == i) & counted) for i in range(len(b.columns))]
        self.present = [i for i, q in enumerate(self.questions) if len(q)]
        self.keys = _output_keys(b)
        self.weights, self.defined = self._probe()

    def _values(self, means) -> dict[str, float | None]:
        vals = {k: None for k in self.benchmark.keys}
        for i, m in zip(self.present, means):
            vals[self.benchmark.keys[i]] = float(m)
        return vals

    def _probe(self) -> tuple[np.ndarray | None, np.ndarray]:
        zero = aggregate(self.benchmark, self._values(np.zeros(len(self.present))))
        defined = np.array([v is not None for v in zero])
        w = np.zeros((len(self.keys), len(self.present)))
        for j in range(len(self.present)):
            w[:, j] = [v or 0.0 for v in aggregate(self.benchmark, self._values(np.eye(len(self.present))[j]))]
        point = np.linspace(3.0, 97.0, len(self.present))
        got = aggregate(self.benchmark, self._values(point))
        linear = all((v is None) == (not d) and (v is None or (abs(v - e) < 1e-9 and z == 0))
                     for v, e, d, z in zip(got, w @ point, defined, zero))
        return (w if linear else None), defined

    def n(self) -> list[int]:
        """Questions behind each output: a group counts its members', Avg every column's."""
        per = {k: len(q) for k, q in zip(self.benchmark.keys, self.questions)}
        return [sum(per[m] for m in self.benchmark.groups.get(k, (k,))) if part != "avg" else sum(per.values())
                for part, k in self.keys]

    def members(self, key: str, part: str) -> np.ndarray:
        """The questions behind one output."""
        keys = self.benchmark.keys
        names = keys if part == "avg" else self.benchmark.groups.get(key, (key,))
        return np.concatenate([self.questions[keys.index(m)] for m in names])

    def point(self, score: np.ndarray) -> list[float | None]:
        """The leaderboard's values for one score array (as evaluate.column_means and the benchmark compute them)."""
        return aggregate(self.benchmark, self._values([100.0 * score[self.questions[i]].mean() for i in self.present]))

    def replicate_means(self, scores: np.ndarray, replicates: int, seed: int) -> np.ndarray:
        """(replicates, models, present columns) resampled column means (0-100) of `scores` (models, questions)."""
        out = np.empty((replicates, len(scores), len(self.present)))
        for j, c in enumerate(self.present):
            q = self.questions[c]
            s = scores[:, q].T * (100.0 / len(q))
            for rows, counts in _draw_counts(seed, c, len(q), replicates):
                out[rows, :, j] = counts @ s
        return out

    def outputs(self, means: np.ndarray) -> np.ndarray:
        """(R, models, present columns) means to (R, models, outputs) values; NaN where an output is undefined."""
        if self.weights is not None:
            out = means @ self.weights.T
        else:
            out = np.array([[[np.nan if v is None else v for v in aggregate(self.benchmark, self._values(m))]
                             for m in rep] for rep in means])
        out[..., ~self.defined] = np.nan
        return out


# ------------------------------------------------------------------ intervals
def wilson(hits: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's score interval for a proportion of hits out of n, in points (0-100)."""
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    p = hits / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0 or n hits the interval ends at 0 or 1 exactly (the formula's rounding leaves ~1e-15).
    low = 0.0 if hits <= 0 else max(0.0, centre - half)
    high = 1.0 if hits >= n else min(1.0, centre + half)
    return 100.0 * low, 100.0 * high


def model_intervals(release: Release, results: list, method: Bootstrap = Bootstrap()) -> dict[str, ModelIntervals]:
    """Per model (in `results` order) its leaderboard columns' and Avg's intervals."""
    groups: dict[bytes, tuple[np.ndarray, list]] = {}
    for r in results:      # every model of a release counts the same questions; grouped in case one does not
        counted = release.in_leaderboard & ~np.isnan(r.score)
        groups.setdefault(counted.tobytes(), (counted, []))[1].append(r)
    out = {}
    for counted, group in groups.values():
        layout = ColumnLayout(release, counted)
        scores = np.where(counted, np.stack([r.score for r in group]), 0.0)
        reps = layout.outputs(layout.replicate_means(scores, method.replicates, method.seed))
        low, high = np.percentile(reps, method.percentiles, axis=0)
        for m, r in enumerate(group):
            out[r.model] = _intervals(layout, r, low[m], high[m], method.level)
    return {r.model: out[r.model] for r in results}


def _intervals(layout: ColumnLayout, result, low: np.ndarray, high: np.ndarray, level: float) -> ModelIntervals:
    b = layout.benchmark
    missing = result.status == MISSING
    parts: dict[str, dict[str, Interval]] = {"columns": {}, "subcolumns": {}, "avg": {}}
    for o, ((part, key), value, n) in enumerate(zip(layout.keys, layout.point(result.score), layout.n())):
        q = layout.members(key, part) if n else np.zeros(0, int)
        one_column = part != "avg" and key not in b.groups
        w = None
        if value is not None and one_column and b.columns[b.keys.index(key)].kind.hit_or_miss:
            w = wilson(float(result.score[q].sum()), len(q), level)
        defined = value is not None and math.isfinite(low[o])
        parts[part][key] = Interval(value, float(low[o]) if defined else None, float(high[o]) if defined else None,
                                    n, int(missing[q].sum()), w)
    return ModelIntervals(result.model, parts["columns"], parts["avg"]["avg"], parts["subcolumns"])


def add_to_board(board: dict, intervals: dict[str, ModelIntervals], method: Bootstrap) -> dict:
    """The `score --json` document with each model's "intervals" and the method's description (--ci)."""
    for model, mi in intervals.items():
        board["models"][model]["intervals"] = mi.json()
    board["intervals"] = method.json()
    return board
