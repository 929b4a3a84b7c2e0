"""Confidence intervals at paper size (issue 32). Run by hand: `.venv/bin/python benchmarks/bench_intervals.py`.

2,762 questions x 22 models (bench_score.py's generated release and predictions). Prints medians,
each next to plain scoring measured in the same run:
  * the bootstrap of every model's 12 columns and Avg, B = 2,000 (target < 2 s on one core);
  * one paired comparison (bootstrap B = 2,000 and 10,000 sign-flip permutations);
  * plain scoring: reading the 22 prediction files, parsing, scoring and the leaderboard (`score --json`'s work).
numpy's own threads are limited to one, as the target is for one core.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_score import make_predictions, make_release, median_time  # noqa: E402

from viewer.core.intervals import Bootstrap, model_intervals  # noqa: E402
from viewer.core.paired import compare_models  # noqa: E402
from viewer.core.session import open_session  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--replicates", type=int, default=2_000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        release_dir = Path(tmp) / "release"
        recs = make_release(release_dir, 2_762, rng)
        preds = make_predictions(Path(tmp), recs, 22, rng)
        session = open_session(release_dir, preds)
        method = Bootstrap(replicates=args.replicates)
        print(f"{len(session.release):,} questions x {len(session.results)} models, B = {method.replicates:,}")
        scoring = median_time(lambda: open_session(release_dir, preds).leaderboard(), args.repeats)
        boot = median_time(lambda: model_intervals(session.release, session.results, method), args.repeats)
        a, b = session.results[:2]
        paired = median_time(lambda: compare_models(session.release, a, b, method), args.repeats)
    print(f"  plain scoring (read, parse, score, leaderboard)  {scoring * 1e3:8.0f} ms")
    print(f"  bootstrap, every model, columns and Avg         {boot * 1e3:8.0f} ms   "
          f"{boot / scoring:.2f}x plain scoring   (target < 2,000 ms)")
    print(f"  paired comparison of two models                 {paired * 1e3:8.0f} ms   "
          f"{paired / scoring:.2f}x plain scoring")


if __name__ == "__main__":
    main()
