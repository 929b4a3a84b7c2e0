"""The inspector window's speed (issues 4, 28, 30). Run: `.venv/bin/python benchmarks/bench_ui.py [PART...]`.

Prints medians, each next to a floor measured in the same run:
  * window (fresh processes, interleaved): the floor is a bare window process that imports PyQt6, numpy and
    pyqtgraph and paints; against it, the first painted window and the first sample shown on the six published
    samples (tests/data/gst-bench-page), the first sample shown at paper size (2,762 questions, 22 models, no
    media: bench_score's generator); the next sample on the demo (warm, every question, until all views are
    painted) and switching the browser's selected model through 22 models, each against one full repaint of
    the same window;
  * large (only when named, or `--large`): 200,000 questions x 22 models: the release shown, every model in,
    the window settled, its peak RSS (alone, and with its worker processes), switching the selected model;
    then what a user does next: the plots raised, 40 questions stepped through with them shown, a sort by
    uid, two text searches over every model's answers and the search cleared, the peak RSS after;
  * 3d: the 3D view redrawing a 1M-triangle scene while orbiting (the coarse copy drawn during interaction)
    and at rest, vs. an empty 3D view;
  * browser: scrolling the browser a page at a time over 200,000 questions vs. 2,000.
`--before REV` runs the window and large measures again on a `git worktree` of REV, the two taking turns
(A/B, as other jobs share the cores). Needs a display for the 3D part: run under `xvfb-run -a` (it re-runs
itself there when it finds none). Default parts: window 3d browser.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SAMPLES = ROOT / "tests" / "data" / "gst-bench-page"
POS_UID = "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4"


def median_ms(xs) -> float:
    return 1000 * statistics.median(xs)


def line(label: str, value_ms: float, base_ms: float | None = None, base_label: str = "") -> None:
    ratio = f"   {value_ms / base_ms:5.1f}x {base_label} ({base_ms:.1f} ms)" if base_ms else ""
    print(f"  {label:<58} {value_ms:8.1f} ms{ratio}")


# ------------------------------------------------- the window, fresh processes
# Every window measure runs in a fresh process (a checkout's code: `--before REV` runs each again with a `git
# worktree` of REV, the two taking turns), timed from just before the process is started, and prints one JSON line.
_CHILD_FLOOR = r"""
import json, time
import numpy, pyqtgraph
from PyQt6.QtCore import QEvent, QObject, QTimer
from PyQt6.QtWidgets import QApplication, QLabel
app = QApplication([])
w = QLabel("hello"); w.resize(1600, 1000)
class Paint(QObject):
    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Type.Paint:
            print(json.dumps({"paint": time.time()}), flush=True); QTimer.singleShot(0, app.quit)
        return False
f = Paint(); w.installEventFilter(f); w.show(); app.exec()
"""

# argv: mode release settings.ini uid|- prediction...; modes: start (paint and first sample times), next (every
# question stepped through twice, warm the second time), model (the selected model switched through all of them),
# large (start, the peak memory, a model switch, then what a user does next: `after_ready`).
_CHILD_WINDOW = r"""
import json, statistics, sys, time
from dataclasses import replace
marks = {}
from PyQt6.QtCore import QEvent, QObject, QSettings, QTimer
from viewer.ui.app import make_app
app = make_app()
marks["app"] = time.time()                  # PyQt6, numpy, pyqtgraph imported, the QApplication made
from viewer.ui.main_window import MainWindow
marks["imports"] = time.time()
mode, release, ini, uid, *preds = sys.argv[1:]
w = MainWindow(QSettings(ini, QSettings.Format.IniFormat))
w.resize(1600, 1000)
marks["built"] = time.time()
w.sessionLoaded.connect(lambda: marks.setdefault("loaded", time.time()))
if hasattr(MainWindow, "panelsBuilt"):      # the frame paints first, the panels are built after it
    w.panelsBuilt.connect(lambda: marks.setdefault("panels", time.time()))
class Paint(QObject):
    passes = 0
    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Type.Paint and "paint" not in marks:
            marks["paint"] = time.time()
        elif ev.type() == QEvent.Type.UpdateRequest:
            self.passes += 1                 # one paint pass of the window (its backing store repainted)
            if after_paint:                  # marked once this paint is done
                keys = after_paint[:]
                after_paint.clear()
                QTimer.singleShot(0, lambda: _set_marks(keys))
        return False
f = Paint(); w.installEventFilter(f)

# large: the release shown and every model in, each marked once the window has painted after it, with the CPU
# time then (this process, and its children: worker processes, if any); the memory of the process and its
# children, sampled (/proc) from a thread.
after_paint, cpu_at, family = [], {}, {"peak": 0.0, "hwm": {}, "cpu": {}}

def mark_after_paint(key):
    after_paint.append(key)
    w.update()

def _set_marks(keys):
    for k in keys:
        if k not in marks:
            marks[k] = time.time()
            cpu_at[k] = (time.process_time(), sum(family["cpu"].values()))

def _proc(pid, name):
    try:
        return open(f"/proc/{pid}/{name}").read()
    except OSError:
        return ""

def _kb(status, key):
    return int(status.split(key + ":")[1].split()[0]) if key + ":" in status else 0

def _sample_family():
    import os, threading
    me, tick = os.getpid(), os.sysconf("SC_CLK_TCK")
    def run():
        while True:
            kids = set()
            for t in os.listdir(f"/proc/{me}/task"):
                kids.update(int(x) for x in _proc(me, f"task/{t}/children").split())
            total = _kb(_proc(me, "status"), "VmRSS")
            for k in kids:
                st = _proc(k, "status")
                total += _kb(st, "VmRSS")
                if _kb(st, "VmHWM"):             # an ended child (a zombie) says none: its last one stays
                    family["hwm"][k] = _kb(st, "VmHWM")
                stat = _proc(k, "stat").rsplit(")", 1)[-1].split()
                if len(stat) > 13:
                    family["cpu"][k] = (int(stat[11]) + int(stat[12])) / tick
            family["peak"] = max(family["peak"], total)
            time.sleep(0.05)
    threading.Thread(target=run, daemon=True).start()

if mode == "large":
    _sample_family()
    w.state.events.session.connect(lambda s: s is not None and mark_after_paint("shown"))
    w.sessionLoaded.connect(lambda: mark_after_paint("all_models"))

def pump(cond=lambda: w.jobs.pending == 0, limit=120.0):
    t = time.perf_counter()
    while not cond():
        app.processEvents()
        if time.perf_counter() - t > limit:
            raise TimeoutError("background work did not finish")
    app.processEvents()                      # paints what the last results changed

cpu = []                                     # the process's CPU ms per timed change (all its threads)

def timed(change):
    t0, c0 = time.perf_counter(), time.process_time()
    change()
    pump()
    cpu.append(1000 * (time.process_time() - c0))
    return 1000 * (time.perf_counter() - t0)

def repaint_ms():
    out = []
    for _ in range(15):
        t0 = time.perf_counter(); w.repaint(); out.append(time.perf_counter() - t0)
    return 1000 * statistics.median(out)

def measure():
    out = {**marks,
           "heavy": [m for m in ("cv2", "open3d", "trimesh", "av") if m in sys.modules]}
    try:
        out["peak_mb"] = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024
    except (OSError, IndexError, ValueError):
        pass
    if mode == "large":
        cpu_at["sample"] = (time.process_time(), sum(family["cpu"].values()))
        out["cpu"] = cpu_at
        out["family_peak_mb"] = family["peak"] / 1024                       # sampled: this process + children
        out["family_hwm_mb"] = out.get("peak_mb", 0) + sum(family["hwm"].values()) / 1024   # each one's peak, added
        out["children"] = len(family["hwm"])
    if mode == "next":
        n = w.browser.model.rowCount()
        for warm in (False, True):
            w.browser.select_position(0)
            pump()
            f.passes = 0
            cpu.clear()
            times = [timed(lambda: w.state.step(+1)) for _ in range(n - 1)]
        out["next_ms"], out["switches"] = statistics.median(times), n - 1
        out["next_cpu_ms"] = statistics.median(cpu)  # less sensitive than wall-clock to other jobs' load
        out["passes"] = f.passes / (n - 1)           # the window's paint passes per switch, warm
        out["repaint_ms"] = repaint_ms()
    elif mode in ("model", "large"):
        m = len(w.state.models)
        # Every model twice, the second round measured; at 200,000 questions, 6 models twice.
        shown = [*range(1, m), 0] if mode == "model" else [*range(1, min(m, 6)), 0]
        times = [timed(lambda k=k: setattr(w.state, "filter", replace(w.state.filter, model=k)))
                 for k in shown * 2]
        out["model_ms"], out["models"] = statistics.median(times[len(shown):]), m
        out["repaint_ms"] = repaint_ms()
    if mode == "large":
        after_ready(out)
    print(json.dumps(out), flush=True)

def after_ready(out):
    # What a user does next: the plots raised, questions stepped through with them shown (a change of column
    # redraws them), the browser sorted by uid, two text searches over every model's answers and the search
    # cleared; then the process's peak RSS.
    st = w.state
    pump()                                       # the sorts made ahead (a job) are in
    out["plots_raise_ms"] = timed(w.plots_dock.raise_)
    steps = [timed(lambda: st.step(+1)) for _ in range(40)]
    out["step_plots_ms"], out["step_plots_max_ms"] = statistics.median(steps), max(steps)
    out["sort_uid_ms"] = timed(lambda: setattr(st, "sort", ("uid", False)))
    out["search_ms"] = [timed(lambda t=t: setattr(st, "filter", replace(st.filter, text=t)))
                        for t in ("sofa", "cannot determine", "")]
    out["peak_after_mb"] = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024

def settled():
    if w.session is not None and w.jobs.pending == 0 and "sample" not in marks:
        app.processEvents()
        marks["sample"] = time.time()
        marks["start_cpu_ms"] = 1000 * time.process_time()    # the process's CPU (every thread) to the first sample
        measure()
        app.quit()
w.jobs.settled.connect(settled)
w.sessionLoaded.connect(lambda: w.jobs.pending == 0 and settled())
w.show()
w.open_release(release, preds, None if uid == "-" else uid)
app.exec()
"""


# The start-up's phases, in order, as the window child marks them (seconds since its process was started).
MARKS = {"app": "interpreter, PyQt6, numpy, pyqtgraph imported, QApplication made",
         "imports": "the window's modules imported",
         "built": "the window built (since the start-up work: its frame; its panels come after the first paint)",
         "paint": "first paint",
         "panels": "the panels built after the first paint (the release read meanwhile on a job thread)",
         "loaded": "release read (worker thread), handed to the panels",
         "sample": "first sample shown (its images, map and video frame loaded and drawn)"}
# The large case's marks, each once the window has painted after it.
LARGE_MARKS = {"shown": "the release shown (questions listed, models still arriving)",
               "all_models": "every model in (the last one's columns in the browser)"}


def child_env(root: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("QT_QPA_PLATFORM_PLUGIN_PATH", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)         # bytecode cached, as an installed package has it
    return env


def run_child(root: Path, code: str, *args) -> dict:
    """The child's JSON line, its "paint" and "sample" marks turned into seconds since it was started."""
    t0 = time.time()
    r = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=child_env(root), capture_output=True,
                       text=True, timeout=900, cwd=root)
    lines = [x for x in r.stdout.splitlines() if x.startswith("{")]
    if r.returncode or not lines:
        raise RuntimeError(f"the window child failed ({root}):\n{r.stderr[-3000:]}")
    out = json.loads(lines[-1])
    for k in (*MARKS, *LARGE_MARKS):
        if k in out:
            out[k] -= t0
    return out


def before_checkout(rev: str, tmp: Path) -> Path:
    """A `git worktree` of `rev` (removed by `drop_checkout`)."""
    path = tmp / "before"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path), rev], check=True)
    return path


def drop_checkout(path: Path) -> None:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False)


def paper_release(folder: Path, n: int = 2_762, models: int = 22) -> tuple[Path, list[Path]]:
    """bench_score's generated release (no media) and its prediction files, made once per folder."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import numpy as np
    from bench_score import make_predictions, make_release
    done = folder / "done"
    preds = [folder / f"model_{m:02d}.jsonl" for m in range(models)]
    if not done.exists():
        rng = np.random.default_rng(0)
        recs = make_release(folder, n, rng)
        preds = make_predictions(folder, recs, models, rng)
        done.write_text("")
    return folder, preds


def sides(before: Path | None) -> dict[str, Path]:
    return {"after": ROOT} if before is None else {"before": before, "after": ROOT}


def fmt_ratio(value: float, base: float, what: str) -> str:
    return f"{value / base:5.2f}x {what}"


def window_measures(before: Path | None, tmp: Path, runs: int, only: list[str] | None = None) -> None:
    """The floor and the start-up, next-sample and model-switch measures, every side and case taking turns
    (`only`: these cases alone, e.g. ["next"])."""
    demo = ROOT / "assets" / "demo"
    demo_preds = sorted((demo / "predictions").glob("*.jsonl"))
    paper, paper_preds = paper_release(tmp / "paper")
    cases = {
        "six": ("start", SAMPLES, POS_UID, []),
        "paper": ("model", paper, "-", paper_preds),
        "next": ("next", demo, "-", demo_preds),
    }
    cases = {k: v for k, v in cases.items() if not only or k in only}
    got: dict[tuple[str, str], list[dict]] = {}
    floor: list[float] = []
    for k in range(runs):
        floor.append(run_child(ROOT, _CHILD_FLOOR)["paint"])
        for side, root in sides(before).items():
            for case, (mode, release, uid, preds) in cases.items():
                got.setdefault((side, case), []).append(
                    run_child(root, _CHILD_WINDOW, mode, release, tmp / f"{side}{case}{k}.ini", uid, *preds))
    base = 1000 * statistics.median(floor)
    print(f"The window at 1600x1000, medians of {runs} fresh processes per side, interleaved; the floor, a bare "
          f"window importing PyQt6, numpy, pyqtgraph and painting: {base:.0f} ms")

    def med(side, case, key):
        return statistics.median(r[key] for r in got[(side, case)])

    rows = [("first painted window, six samples", "six", "paint", "floor"),
            ("first sample shown, six samples", "six", "sample", "floor"),
            ("first sample shown, paper size (2,762 q, 22 models)", "paper", "sample", "floor"),
            ("next sample on the demo, warm, all views painted", "next", "next_ms", "repaint"),
            ("switching the selected model, 22 models (paper size)", "paper", "model_ms", "repaint")]
    for label, case, key, against in rows:
        if case not in cases:
            continue
        cells = []
        for side in sides(before):
            v = med(side, case, key) * (1000 if key in ("paint", "sample") else 1)
            b = base if against == "floor" else med(side, case, "repaint_ms")
            what = "the floor" if against == "floor" else f"one full repaint, {b:.1f} ms"
            cells.append(f"{side} {v:7.1f} ms ({fmt_ratio(v, b, what)})")
        print(f"  {label:<54} " + "   ".join(cells))
    if "next" in cases:
        # The figure issues 28 and 30 name (under 30 ms, aim 20 ms), on a line of its own.
        for side in sides(before):
            rs = got[(side, "next")]
            print(f"  NEXT SAMPLE ({side}): median {statistics.median(r['next_ms'] for r in rs):.1f} ms over "
                  f"{len(rs)} processes x {rs[0]['switches']} switches; per process: "
                  + ", ".join(f"{r['next_ms']:.1f}" for r in rs)
                  + f"; CPU ms per switch {statistics.median(r['next_cpu_ms'] for r in rs):.1f}"
                  + f"; window paint passes per switch {statistics.median(r['passes'] for r in rs):.2f}")
    print("  where the start-up went (median ms since the process started; the phase's own ms):")
    for case in [c for c in ("six", "paper") if c in cases]:
        for side in sides(before):
            rs = got[(side, case)]
            cells, last = [], 0.0
            for k in MARKS:
                if all(k in r for r in rs):
                    at = 1000 * statistics.median(r[k] for r in rs)
                    cells.append(f"{k} {at:5.0f} (+{at - last:4.0f})")
                    last = at
            print(f"    {case:<5} {side:<6} " + "  ".join(cells))
    for k, what in MARKS.items():
        print(f"      {k}: {what}")
    # CPU time is steadier than wall-clock time on a shared machine (the floor's own is not subtracted).
    for case in [c for c in ("six", "paper") if c in cases]:
        cells = [f"{side} {statistics.median(r['start_cpu_ms'] for r in got[(side, case)]):6.0f} ms"
                 for side in sides(before) if all("start_cpu_ms" in r for r in got[(side, case)])]
        print(f"  CPU to the first sample ({case}, every thread, from the process's start): " + "   ".join(cells))
    if "six" not in cases:
        return
    heavy = sorted({m for r in got[("after", "six")] for m in r["heavy"]})
    print(f"  heavy modules imported by the first sample: {', '.join(heavy) or 'none (cv2, open3d, trimesh, av lazy)'}")


def large_data(data: Path | None) -> tuple[Path, list[Path]]:
    """The 200,000 x 22 release: `data` (a folder with questions.jsonl, or release/questions.jsonl, and
    model_*.jsonl, or predictions/model_*.jsonl, made by the same generator), else generated once into the
    temp folder (writing it takes over ten minutes here)."""
    if data is None:
        return paper_release(Path(tempfile.gettempdir()) / "gst-bench-ui-200k", 200_000, 22)
    release = data / "release" if (data / "release" / "questions.jsonl").exists() else data
    preds = sorted((data / "predictions").glob("model_*.jsonl")) or sorted(data.glob("model_*.jsonl"))
    if not (release / "questions.jsonl").exists() or not preds:
        raise SystemExit(f"--data {data}: no questions.jsonl or model_*.jsonl there")
    return release, preds


def large_measures(before: Path | None, runs: int, data: Path | None = None) -> None:
    """200,000 questions x 22 models: the release shown, every model in, the window settled (no job left: the
    bench's "sample" mark), each with the CPU time spent by then (this process, and its child processes);
    the peak memory (this process's VmHWM, and with its children's); a model switch."""
    folder, preds = large_data(data)
    got: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(runs):
            for side, root in sides(before).items():
                got.setdefault(side, []).append(
                    run_child(root, _CHILD_WINDOW, "large", folder, f"{tmp}/{side}{k}.ini", "-", *preds))
    print(f"{folder}: {len(preds)} models, medians of {runs} fresh processes per side, interleaved "
          "(wall s since the process started; CPU s: this process + its children):")

    def med(rs, *path):
        def at(r):
            for k in path:
                r = r[k]
            return r
        return statistics.median(map(at, rs))

    for side, rs in got.items():
        cells = []
        for key, what in (("shown", "release shown"), ("all_models", "every model in"), ("sample", "settled")):
            if all(key in r for r in rs):
                cells.append(f"{what} {med(rs, key):5.2f} s (CPU {med(rs, 'cpu', key, 0):5.2f} + "
                             f"{med(rs, 'cpu', key, 1):5.2f})")
        print(f"  {side:<6} " + ";  ".join(cells))
        print(f"  {side:<6} peak RSS {med(rs, 'peak_mb'):6.0f} MB (this process's VmHWM); with its "
              f"{max(r.get('children', 0) for r in rs)} children: sampled total {med(rs, 'family_peak_mb'):6.0f} MB,"
              f" peaks added {med(rs, 'family_hwm_mb'):6.0f} MB; switching the selected model, "
              f"{rs[0]['models']} models {med(rs, 'model_ms'):7.1f} ms")
        print(f"  {side:<6} per run, every model in: " + ", ".join(f"{r.get('all_models', float('nan')):.2f} s"
                                                                for r in rs) + f"; load {os.getloadavg()[0]:.2f}")
        if all("search_ms" in r for r in rs):
            print(f"  {side:<6} then: plots raised {med(rs, 'plots_raise_ms'):6.0f} ms; a question with the plots "
                  f"shown {med(rs, 'step_plots_ms'):6.1f} ms (slowest {med(rs, 'step_plots_max_ms'):.0f}); sort by "
                  f"uid {med(rs, 'sort_uid_ms'):6.0f} ms; searches {med(rs, 'search_ms', 0):6.0f} / "
                  f"{med(rs, 'search_ms', 1):6.0f} / {med(rs, 'search_ms', 2):6.0f} ms (first, two words, "
                  f"cleared); peak RSS after {med(rs, 'peak_after_mb'):6.0f} MB")


# ------------------------------------------------------------------ 3D view
def big_mesh(n_side: int):
    """A wavy floor of 2 n_side^2 triangles with per-face colours, ~13 m across."""
    import numpy as np
    u = np.linspace(0, 13, n_side + 1, dtype=np.float32)
    x, y = np.meshgrid(u, u)
    z = 0.3 * np.sin(x) * np.cos(y)
    v = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1).astype(np.float32)
    i = np.arange(n_side)
    a = (i[:, None] * (n_side + 1) + i[None, :]).ravel()
    t = np.concatenate([np.stack([a, a + 1, a + n_side + 2], 1),
                        np.stack([a, a + n_side + 2, a + n_side + 1], 1)]).astype(np.int32)
    rng = np.random.default_rng(0)
    colors = np.concatenate([rng.uniform(0.3, 1, (len(t), 3)), np.ones((len(t), 1))], axis=1).astype(np.float32)
    return v, t, colors


def redraw_3d(app) -> None:
    import pyqtgraph.opengl as gl
    from OpenGL import GL

    from viewer.render.lod import decimate_to
    from viewer.ui.view3d import LOD_TRIANGLES, headlight_shader, opengl_problem
    problem = opengl_problem()
    if problem:
        print(f"3D view: skipped ({problem}); run under xvfb-run -a")
        return
    renderer = ""
    print("3D view, 1000x700 (software OpenGL here)")

    def timed(view, runs=15):
        """One orbit step and a full redraw into the widget's framebuffer, finished on the GPU."""
        out = []
        view.makeCurrent()
        r = view.devicePixelRatioF()
        GL.glViewport(0, 0, int(view.width() * r), int(view.height() * r))
        for k in range(runs + 3):
            view.orbit(4, 0)
            t0 = time.perf_counter()
            view.paintGL()
            GL.glFinish()
            if k >= 3:
                out.append(time.perf_counter() - t0)
        view.doneCurrent()
        return median_ms(out)

    view = gl.GLViewWidget()
    view.resize(1000, 700)
    view.show()
    app.processEvents()
    view.makeCurrent()
    renderer = GL.glGetString(GL.GL_RENDERER).decode()
    print(f"  renderer: {renderer}")
    view.setCameraPosition(distance=18, elevation=35)
    empty = timed(view)
    v, t, c = big_mesh(708)                                     # 1,002,528 triangles
    item = gl.GLMeshItem(vertexes=v, faces=t, faceColors=c, smooth=False, shader=headlight_shader(),
                         glOptions="opaque")
    view.addItem(item)
    app.processEvents()
    full = timed(view)
    t0 = time.perf_counter()
    lv, lt, kept = decimate_to(v, t, LOD_TRIANGLES)
    decimate = time.perf_counter() - t0
    view.removeItem(item)
    lod = gl.GLMeshItem(vertexes=lv, faces=lt, faceColors=c[kept], smooth=False, shader=headlight_shader(),
                        glOptions="opaque")
    view.addItem(lod)
    app.processEvents()
    coarse = timed(view)
    line(f"orbit redraw, coarse copy while moving ({len(lt):,} triangles)", coarse, empty, "an empty 3D view")
    line(f"redraw at rest, full mesh ({len(t):,} triangles)", full, empty, "an empty 3D view")
    print(f"  building the coarse copy (once per scene, worker thread): {1000 * decimate:.0f} ms")
    view.close()


# ------------------------------------------------------------------ browser
def browser_scroll(app) -> None:
    from dataclasses import replace

    from viewer.core.session import open_session
    from viewer.core.state import InspectorState
    from viewer.ui.browser import BrowserPanel
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import numpy as np
    from bench_score import make_predictions, make_release
    print("Browser: one page down, repainted (table 480x800, one model loaded)")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (2_000, 200_000):
            folder = Path(tmp) / f"r{n}"
            rng = np.random.default_rng(0)
            recs = make_release(folder, n, rng)
            preds = make_predictions(folder, recs, 1, rng)
            session = open_session(folder, preds)
            state = InspectorState()
            panel = BrowserPanel(state)
            panel.resize(480, 800)
            panel.show()
            t0 = time.perf_counter()
            state.open(session)
            app.processEvents()
            load = time.perf_counter() - t0
            sb = panel.table.verticalScrollBar()
            page = sb.pageStep()
            times = []
            for k in range(1, 41):
                t0 = time.perf_counter()
                sb.setValue(min(k * page * (n // 2_000), sb.maximum()))
                panel.table.viewport().repaint()
                times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            from PyQt6.QtCore import Qt
            score_column = next(c for c in range(panel.model.columnCount())
                                if panel.model.key_of_column(c) == ("score", 0))
            panel.table.sortByColumn(score_column, Qt.SortOrder.AscendingOrder)
            sort = time.perf_counter() - t0
            t0 = time.perf_counter()
            state.filter = replace(state.filter, text="orient_3_video_2")
            search = time.perf_counter() - t0
            results[n] = (median_ms(times), 1000 * load, 1000 * search, 1000 * sort)
            assert len(panel.model.rows) < n          # the search did filter
            panel.close()
    small, big = results[2_000], results[200_000]
    line("scroll a page, 200,000 questions", big[0], small[0], "2,000 questions")
    line("show the release in the table, 200,000 questions", big[1], small[1], "2,000 questions")
    line("text search, 200,000 questions", big[2], small[2], "2,000 questions")
    line("sort all rows by the model's score, 200,000 questions", big[3], small[3], "2,000 questions")


def main() -> int:
    if not os.environ.get("DISPLAY") and os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        if shutil.which("xvfb-run"):
            return subprocess.call(["xvfb-run", "-a", "-s", "-screen 0 1920x1200x24", sys.executable, __file__,
                                    *sys.argv[1:]])
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("parts", nargs="*", metavar="PART", help="window, large, 3d, browser")
    ap.add_argument("--before", metavar="REV", help="a commit to compare with, on a git worktree, interleaved")
    ap.add_argument("--large", action="store_true", help="add the 200,000 x 22 part")
    ap.add_argument("--runs", type=int, default=6, help="fresh processes per side and case (6)")
    ap.add_argument("--data", type=Path, help="the 200,000 x 22 release to use for `large` (see large_data)")
    ap.add_argument("--case", action="append", choices=("six", "paper", "next"),
                    help="the window part's cases to run (repeatable; all by default): `--case next` is the next "
                         "sample on the demo alone")
    args = ap.parse_args()
    parts = args.parts or ["window", "3d", "browser"]
    if args.large and "large" not in parts:
        parts.append("large")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min)")
    with tempfile.TemporaryDirectory() as tmp:
        before = before_checkout(args.before, Path(tmp)) if args.before else None
        try:
            if "window" in parts:
                window_measures(before, Path(tmp), args.runs, args.case)
            if "large" in parts:
                large_measures(before, args.runs, args.data)
        finally:
            if before is not None:
                drop_checkout(before)
    from viewer.ui.app import make_app
    app = make_app()
    if "3d" in parts:
        redraw_3d(app)
    if "browser" in parts:
        browser_scroll(app)
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
