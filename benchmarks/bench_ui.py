"""The inspector window's speed (issue 4). Run: `.venv/bin/python benchmarks/bench_ui.py`.

Prints medians, each next to a baseline measured in the same run:
  * cold start to the first painted window, and to the first sample fully shown
    (a new Python process each time), vs. a bare PyQt6 label window;
  * switching to the next sample on the demo until every view is updated, vs.
    one full repaint of the window;
  * the 3D view redrawing a 1M-triangle scene while orbiting (the coarse copy
    drawn during interaction) and at rest, vs. an empty 3D view;
  * scrolling the browser a page at a time over 200,000 questions vs. 2,000.
Needs a display for the 3D part: run under `xvfb-run -a` (it re-runs itself
there when it finds none). Arguments pick parts: start switch 3d browser.
"""
from __future__ import annotations

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
FIXTURES = ROOT.parent / "shared" / "fixtures" / "gst-bench-page"
POS_UID = "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4"


def median_ms(xs) -> float:
    return 1000 * statistics.median(xs)


def line(label: str, value_ms: float, base_ms: float | None = None, base_label: str = "") -> None:
    ratio = f"   {value_ms / base_ms:5.1f}x {base_label} ({base_ms:.1f} ms)" if base_ms else ""
    print(f"  {label:<58} {value_ms:8.1f} ms{ratio}")


# --------------------------------------------------------------- cold start
_CHILD_WINDOW = r"""
import sys, time
from PyQt6.QtCore import QEvent, QObject, QSettings
from viewer.ui.app import make_app
app = make_app()
from viewer.ui.main_window import MainWindow
w = MainWindow(QSettings(sys.argv[2], QSettings.Format.IniFormat))
w.resize(1600, 1000)
marks = {}
class Paint(QObject):
    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Type.Paint and "paint" not in marks:
            marks["paint"] = time.time()
        return False
f = Paint(); w.installEventFilter(f)
def settled():
    if w.session is not None and w.jobs.pending == 0 and "sample" not in marks:
        app.processEvents()
        marks["sample"] = time.time()
        heavy = [m for m in ("cv2", "open3d", "trimesh") if m in sys.modules]
        print(marks["paint"], marks["sample"], ",".join(heavy) or "-", flush=True)
        app.quit()
w.jobs.settled.connect(settled)
w.sessionLoaded.connect(lambda: w.jobs.pending == 0 and settled())
w.show()
w.open_release(sys.argv[1], [], sys.argv[3])
app.exec()
"""

_CHILD_BARE = r"""
import time
from PyQt6.QtCore import QEvent, QObject, QTimer
from PyQt6.QtWidgets import QApplication, QLabel
app = QApplication([])
w = QLabel("hello"); w.resize(1600, 1000)
class Paint(QObject):
    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Type.Paint:
            print(time.time(), flush=True); QTimer.singleShot(0, app.quit)
        return False
f = Paint(); w.installEventFilter(f); w.show(); app.exec()
"""


def cold_start(runs: int = 5) -> None:
    print("Cold start (new process each run; the six published samples, opening the Pos sample)")
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM_PLUGIN_PATH", None)
    paint, sample, bare = [], [], []
    heavy = set()
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(runs):
            t0 = time.time()
            out = subprocess.run([sys.executable, "-c", _CHILD_BARE], env=env, capture_output=True,
                                 text=True, timeout=120).stdout.split()
            bare.append(float(out[0]) - t0)
            t0 = time.time()
            r = subprocess.run([sys.executable, "-c", _CHILD_WINDOW, str(FIXTURES), f"{tmp}/s{k}.ini", POS_UID],
                               env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
            p, s, h = r.stdout.split()
            paint.append(float(p) - t0)
            sample.append(float(s) - t0)
            heavy.update(x for x in h.split(",") if x != "-")
    line("first painted window", median_ms(paint), median_ms(bare), "a bare PyQt6 window")
    line("first sample shown (release read, map, view image drawn)", median_ms(sample), median_ms(bare),
         "a bare PyQt6 window")
    print(f"  heavy modules imported by then: {', '.join(sorted(heavy)) or 'none (cv2, open3d, trimesh all lazy)'}")


# ------------------------------------------------------------ sample switch
def pump_until(app, cond, limit=60.0) -> None:
    t = time.perf_counter()
    while not cond():
        app.processEvents()
        if time.perf_counter() - t > limit:
            raise TimeoutError("background work did not finish")


def sample_switch(app, demo: Path) -> None:
    from PyQt6.QtCore import QSettings

    from viewer.ui.main_window import MainWindow
    print(f"Next sample on the demo ({demo}), window 1600x1000")
    with tempfile.TemporaryDirectory() as tmp:
        w = MainWindow(QSettings(f"{tmp}/s.ini", QSettings.Format.IniFormat))
        w.resize(1600, 1000)
        w.show()
        preds = sorted((demo / "predictions").glob("*.jsonl"))
        w.open_release(demo, preds)
        pump_until(app, lambda: w.session is not None and w.jobs.pending == 0)
        n = w.browser.model.rowCount()
        for label in ("first visit (images and maps read from disk)", "second visit (caches warm)"):
            w.browser.select_position(0)
            pump_until(app, lambda: w.jobs.pending == 0)
            sync, full = [], []
            for _ in range(n - 1):
                t0 = time.perf_counter()
                w.state.step(+1)
                app.processEvents()
                t1 = time.perf_counter()
                pump_until(app, lambda: w.jobs.pending == 0)
                app.processEvents()            # paints what the last results changed
                t2 = time.perf_counter()
                sync.append(t1 - t0)
                full.append(t2 - t0)
            repaint = []
            for _ in range(15):
                t0 = time.perf_counter()
                w.repaint()
                repaint.append(time.perf_counter() - t0)
            base = median_ms(repaint)
            print(f"  {label}, {n - 1} switches:")
            line("  on the GUI thread (table, prompt, answers, charts, overlays)", median_ms(sync), base,
                 "one full window repaint")
            line("  until every view is updated and painted", median_ms(full), base, "one full window repaint")
        w.close()


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
    from viewer.assets import default_release
    from viewer.ui.app import make_app
    parts = sys.argv[1:] or ["start", "switch", "3d", "browser"]
    if "start" in parts:
        cold_start()
    app = make_app()
    if "switch" in parts:
        sample_switch(app, default_release())
    if "3d" in parts:
        redraw_3d(app)
    if "browser" in parts:
        browser_scroll(app)
    return 0


if __name__ == "__main__":
    sys.exit(main())
