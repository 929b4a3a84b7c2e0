"""A synthetic GST-Bench release of chosen column sizes, and models given as per-question scores, for the
interval and paired-comparison tests."""
from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path

import numpy as np

from viewer.core.benchmarks.gst.columns import COLUMN_BY_KEY
from viewer.core.evaluate import evaluate
from viewer.core.intervals import column_draws
from viewer.core.predictions import PredictionSet
from viewer.core.release import Release, load_release

ANSWERS = {"angle": "30", "distance": 2.0, "point": "<point>500 500</point>", "choice": "A"}


def write_release(root: Path, sizes: dict[str, int]) -> Release:
    """`sizes`: column key -> number of questions; the other columns have none."""
    recs = []
    for key, n in sizes.items():
        col = COLUMN_BY_KEY[key]
        recs += [{"uid": f"{key}_{i}", "task": col.task, "scene": "scene_1", "answer": ANSWERS[col.kind_name],
                  "texts": ["a", "b"]} for i in range(n)]
    root.mkdir(parents=True, exist_ok=True)
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return load_release(root)


def scored_model(release: Release, name: str, score: np.ndarray):
    """A ModelResult with these per-question scores (as if every question had been answered)."""
    base = evaluate(release, PredictionSet(name, f"{name}.jsonl"))
    return replace(base, score=np.asarray(score, float), status=np.full(len(release), "ok", dtype=object))


# ------------------------------------------------------------------ an independent bootstrap, in plain Python
def percentile(values: list[float], q: float) -> float:
    """numpy's default rule: linear interpolation between the closest ranks."""
    s = sorted(values)
    h = (len(s) - 1) * q / 100.0
    lo = math.floor(h)
    return s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def plain_bootstrap(release: Release, score, replicates: int, seed: int, level: float = 0.95,
                    same_draws: bool = True) -> dict[str, tuple[float, float]]:
    """Leaderboard column -> (low, high), and "avg", written out loop by loop: each column's questions
    resampled (with the module's own draws, or with `random`), a group the mean of its members that have
    questions, Avg the mean of the leaderboard columns."""
    b = release.benchmark
    values: dict[int, list[float]] = {}
    for i in range(len(release)):
        c = int(release.column[i])
        if c >= 0 and release.in_leaderboard[i] and not math.isnan(score[i]):
            values.setdefault(c, []).append(float(score[i]))
    means: dict[str, list[float]] = {}
    for c, vals in values.items():
        n = len(vals)
        if same_draws:
            rows = [row for chunk in column_draws(seed, c, n, replicates) for row in chunk.tolist()]
        else:
            rnd = random.Random(seed * 1_000 + c)
            population = range(n)
            rows = [rnd.choices(population, k=n) for _ in range(replicates)]
        means[b.keys[c]] = [100.0 * sum(vals[p] for p in row) / n for row in rows]
    table: dict[str, list[float]] = {}
    for key in b.table_keys:
        members = [m for m in b.groups.get(key, (key,)) if m in means]
        if members:
            table[key] = [sum(means[m][r] for m in members) / len(members) for r in range(replicates)]
    columns = list(table)
    table["avg"] = [sum(table[k][r] for k in columns) / len(columns) for r in range(replicates)]
    lo, hi = 50.0 * (1 - level), 50.0 * (1 + level)
    return {k: (percentile(v, lo), percentile(v, hi)) for k, v in table.items()}
