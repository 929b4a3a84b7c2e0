"""Comparing models at scale (issue 16). Run: `.venv/bin/python benchmarks/bench_compare.py`.

200,000 questions × 5 models, a browser and the linked plots bound to one state
(offscreen). Prints medians, each next to a baseline measured in the same run:
  * brushing an error range on the histogram until the browser has refiltered
    (target < 100 ms) vs. choosing another column in the browser (a refilter, and the plots of a
    column not drawn before);
  * switching the selected model until every plot is redrawn (target < 150 ms),
    vs. the same column change;
  * the A-right-B-wrong comparison filter vs. the same column change.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

N_QUESTIONS = 200_000
N_MODELS = 5


def median_ms(xs) -> float:
    return 1000 * statistics.median(xs)


def line(label: str, value_ms: float, base_ms: float, base_label: str, target_ms: float | None = None) -> None:
    verdict = "" if target_ms is None else ("   ok" if value_ms < target_ms else f"   OVER {target_ms:.0f} ms")
    print(f"  {label:<52} {value_ms:8.1f} ms   {value_ms / base_ms:5.1f}x {base_label} ({base_ms:.1f} ms){verdict}")


def main() -> int:
    import numpy as np
    from bench_score import make_predictions, make_release

    from viewer.core.session import open_session
    from viewer.core.state import InspectorState
    from viewer.ui.app import make_app
    from viewer.ui.browser import BrowserPanel
    from viewer.ui.plots_dock import PlotsPanel
    app = make_app()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "big"
        rng = np.random.default_rng(0)
        recs = make_release(folder, N_QUESTIONS, rng)
        preds = make_predictions(folder, recs, N_MODELS, rng)
        session = open_session(folder, preds)
        state = InspectorState()
        browser = BrowserPanel(state)
        plots = PlotsPanel(state)
        browser.resize(560, 800)
        plots.resize(1100, 260)
        browser.show()
        plots.show()
        state.open(session, str(folder))
        app.processEvents()
        rel = session.release
        angle_col = next(c for c, col in enumerate(rel.benchmark.columns) if col.kind_name == "angle")
        state.question = int(np.flatnonzero(rel.column == angle_col)[0])
        app.processEvents()
        print(f"{N_QUESTIONS:,} questions × {N_MODELS} models; the plots show column "
              f"{rel.benchmark.columns[angle_col].key} ({int((rel.column == angle_col).sum()):,} questions)")

        def timed(change, runs: int = 15) -> float:
            times = []
            for k in range(runs):
                t0 = time.perf_counter()
                change(k)
                app.processEvents()
                times.append(time.perf_counter() - t0)
            return median_ms(times)

        present = [c for c in np.unique(rel.column).tolist() if c >= 0]

        def column_change(k):
            state.filter = replace(state.filter, columns=frozenset({present[k % len(present)]}),
                                   error_min=None, error_max=None)
        base = timed(column_change)

        def brush(k):
            lo = float(k % 10) * 5.0
            plots.brush_range(lo, lo + 30.0)
        brushed = timed(brush)

        def switch_model(k):
            state.filter = replace(state.filter, model=(k % (N_MODELS - 1)) + 1 if k % 2 else 0)
        switched = timed(switch_model)
        assert plots._model_shown == state.filter.model

        def compare(k):
            state.filter = replace(state.filter, compare="a_right_b_wrong" if k % 2 == 0 else "none",
                                   model=0, model_b=1 + k % (N_MODELS - 1))
        compared = timed(compare)
        print("Medians (15 runs), each until the browser and the plots are updated:")
        line("brush an error range: browser refiltered", brushed, base, "a column chosen", 100)
        line("switch the selected model: every plot redrawn", switched, base, "a column chosen", 150)
        line("A right, B wrong: browser refiltered", compared, base, "a column chosen")
    return 0


if __name__ == "__main__":
    sys.exit(main())
