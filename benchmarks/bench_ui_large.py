"""The window on a training-set-size release (issue 30): 200,000 questions x 22 models.

Run by hand: `.venv/bin/python benchmarks/bench_ui_large.py [--before REV] [--repeats 3]`.

Each run is a fresh process that opens the window (1600x1000, offscreen) on the release with its 22
prediction files, as `gst-viewer REL -p P... ` does, and measures:
  * release shown: from the process's start to the release in the state and the window painted (the
    questions listed; since the models are scored after the release is shown, they may still be arriving);
  * window ready: from the process's start to the release shown with every model in, no background work
    left and the window painted (the moment `--screenshot` would take its picture, less its quiet wait);
  * peak RSS: the process's largest resident set (getrusage), at the end of the run;
  * switching the selected model: the state's selected model (the browser's model box) set to each of the
    22 models in turn, each until every event it caused is processed, the changed views' paints among
    them (median over the switches);
  * then what a user does next: the plots dock raised, 40 questions stepped through with it shown (median
    and slowest), the browser sorted by uid, two text searches and the search cleared, the peak RSS after.
Prints the median of the runs' figures, each with its CPU time (the process's at ready, the GUI thread's
for a switch): on a shared machine the steadier figure. With --before REV (a commit), a worktree of REV is made in the
temp folder and each run there is interleaved with a run here, so both sides see the same machine load.

The release is bench_memory.py's (bench_score.py's generator: 200,000 questions in 50 scenes, no media),
made once (a few minutes) and kept in the temp folder.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

_CHILD = r"""
import json, resource, statistics, sys, time
from dataclasses import replace
t0 = float(sys.argv[1])
from PyQt6.QtCore import QSettings
from viewer.ui.app import make_app
app = make_app()
from viewer.ui.main_window import MainWindow
w = MainWindow(QSettings(sys.argv[2], QSettings.Format.IniFormat))
w.resize(1600, 1000)
out = {}

def switch():
    st = w.state
    n = len(st.session.results)
    times, cpu = [], []
    for k in list(range(1, n)) + [0]:
        t, c = time.perf_counter(), time.thread_time()
        st.filter = replace(st.filter, model=k)
        app.processEvents()           # every event it caused, the changed views' paints among them
        times.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
    out["switch_ms"] = 1000 * statistics.median(times)
    out["switch_cpu_ms"] = 1000 * statistics.median(cpu)
    out["switch_max_ms"] = 1000 * max(times)

def pump():
    while w.jobs.pending:
        app.processEvents()
    app.processEvents()

def timed(change):
    t = time.perf_counter()
    change()
    pump()
    return 1000 * (time.perf_counter() - t)

def use():
    # What a user does next: the plots raised, questions stepped through with them shown (a change of
    # column redraws them), the browser sorted by uid, a text search over every model's answers.
    st = w.state
    pump()                                       # the sorts made ahead (a job) are in
    out["plots_raise_ms"] = timed(w.plots_dock.raise_)
    steps = [timed(lambda: st.step(+1)) for _ in range(40)]
    out["step_plots_ms"], out["step_plots_max_ms"] = statistics.median(steps), max(steps)
    out["sort_uid_ms"] = timed(lambda: setattr(st, "sort", ("uid", False)))
    out["search_ms"] = [timed(lambda t=t: setattr(st, "filter", replace(st.filter, text=t)))
                        for t in ("sofa", "cannot determine", "")]
    out["rss_used_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def settled():
    if w.session is None or w.jobs.pending or "ready" in out:
        return
    app.processEvents()
    w.repaint()
    out["ready"] = time.time() - t0
    ru = resource.getrusage(resource.RUSAGE_SELF)
    out["ready_cpu"] = ru.ru_utime + ru.ru_stime
    out["rss_ready_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    switch()
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    use()
    print(json.dumps(out), flush=True)
    app.quit()

def shown(session):
    # The release listed in the window (its models may still be arriving): the first paint after it.
    if session is None or "shown" in out:
        return
    w.repaint()
    out["shown"] = time.time() - t0
    ru = resource.getrusage(resource.RUSAGE_SELF)
    out["shown_cpu"] = ru.ru_utime + ru.ru_stime

w.state.events.session.connect(shown)
w.jobs.settled.connect(settled)
w.sessionLoaded.connect(settled)
w.show()
w.open_release(sys.argv[3], sys.argv[4:])
app.exec()
"""


def run(tree: Path, release: Path, preds: list[Path]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), QT_QPA_PLATFORM="offscreen")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="bench-ui-large-") as scratch:
        t0 = time.time()
        p = subprocess.run([sys.executable, "-c", _CHILD, repr(t0), f"{scratch}/settings.ini", str(release),
                            *map(str, preds)], env=env, cwd=tree, capture_output=True, text=True)
    lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
    if p.returncode or not lines:
        raise SystemExit(f"{tree}: the window run failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
    r = json.loads(lines[-1])
    r["load"] = os.getloadavg()[0]
    return r


def worktree(rev: str) -> Path:
    """A worktree of `rev` in the temp folder, made once."""
    path = Path(tempfile.gettempdir()) / f"gst-viewer-bench-ui-large-{rev}"
    if not path.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev], check=True,
                       capture_output=True)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", metavar="REV", help="a commit to measure too, interleaved (the baseline)")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per side (default 3)")
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "gst-viewer-bench-memory",
                    help="where the generated release is kept (bench_memory.py's, by default)")
    args = ap.parse_args()
    from bench_memory import N_MODELS, N_QUESTIONS, prepare
    release, preds = prepare(args.data)
    sides = {"after": ROOT}
    if args.before:
        sides = {"before": worktree(args.before), **sides}
    print(f"window on {N_QUESTIONS:,} questions x {N_MODELS} models; {os.cpu_count()} CPUs; "
          f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    runs: dict[str, list[dict]] = {s: [] for s in sides}
    for k in range(args.repeats):
        for side, tree in sides.items():
            r = run(tree, release, preds)
            runs[side].append(r)
            print(f"  run {k + 1} {side:6s}: release shown {r['shown']:5.1f} s (CPU {r['shown_cpu']:5.1f} s), "
                  f"ready {r['ready']:5.1f} s (CPU {r['ready_cpu']:5.1f} s), peak RSS "
                  f"{r['rss_mb']:5.0f} MB ({r['rss_ready_mb']:.0f} MB when ready), switch median "
                  f"{r['switch_ms']:6.1f} ms (CPU {r['switch_cpu_ms']:5.1f} ms, max {r['switch_max_ms']:.0f} ms), "
                  f"load {r['load']:.1f}", flush=True)
            print(f"      then: plots raised {r['plots_raise_ms']:.0f} ms, a question with the plots shown median "
                  f"{r['step_plots_ms']:.0f} ms (max {r['step_plots_max_ms']:.0f}), sort by uid "
                  f"{r['sort_uid_ms']:.0f} ms, searches " + ", ".join(f"{x:.0f}" for x in r["search_ms"])
                  + f" ms (first, two words, cleared), peak RSS after {r['rss_used_mb']:.0f} MB", flush=True)
    for r in (r for rs in runs.values() for r in rs):
        r["search_first_ms"] = r["search_ms"][0]
    keys = ("shown", "shown_cpu", "ready", "ready_cpu", "rss_mb", "switch_ms", "switch_cpu_ms", "step_plots_ms",
            "sort_uid_ms", "search_first_ms", "rss_used_mb")
    med = {s: {k: statistics.median(r[k] for r in rs) for k in keys} for s, rs in runs.items()}
    for side, m in med.items():
        print(f"{side:6s}  release shown: {m['shown']:6.2f} s (CPU {m['shown_cpu']:.1f} s)   "
              f"window ready, 200k x 22: {m['ready']:6.2f} s (CPU {m['ready_cpu']:.1f} s)   peak RSS: "
              f"{m['rss_mb']:6.0f} MB   switching the selected model, 22 models: {m['switch_ms']:7.1f} ms "
              f"(CPU {m['switch_cpu_ms']:.1f} ms)  (medians of {args.repeats})")
        print(f"        then: a question with the plots shown {m['step_plots_ms']:6.1f} ms, sort by uid "
              f"{m['sort_uid_ms']:6.0f} ms, first search {m['search_first_ms']:6.0f} ms, peak RSS after "
              f"{m['rss_used_mb']:6.0f} MB")
    if "before" in med:
        b, a = med["before"], med["after"]
        print("before / after: " + ", ".join(f"{k} {b[k] / a[k]:.2f} x" for k in keys))
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
