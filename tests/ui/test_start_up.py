"""The window's start-up (issue 30): what it does before the first sample is shown, and what it leaves for
later. No timings here (benchmarks/bench_ui.py window); these say what work is done, and when."""
from __future__ import annotations

from pathlib import Path

from ui_helpers import open_release

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "gst-bench-page"
POS_UID = "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4"


def test_a_release_opened_on_a_uid_shows_that_question_first(qtbot, make_inspector, monkeypatch):
    """`gst-viewer RELEASE --uid U`: the first question shown is U's; the first listed question, which
    the browser would otherwise pick, is never shown, so none of its images is read (they were: four
    option images decoded, ~0.5 s of the two job threads, before U's)."""
    import viewer.ui.images as images
    read = []
    real = images.read_image
    monkeypatch.setattr(images, "read_image", lambda path, max_side=0: read.append(path) or real(path, max_side))
    win, state = make_inspector()
    shown = []
    state.events.question.connect(lambda qi: qi is not None and shown.append(state.uid))
    open_release(qtbot, win, SAMPLES, (), POS_UID)
    assert shown == [POS_UID] and state.uid == POS_UID
    assert read and all(Path(p).parent.name == "06_Self_Localization_Global_Position" for p in read), read


def test_a_uid_the_release_lacks_still_opens_the_first_listed(qtbot, make_inspector):
    win, state = make_inspector()
    open_release(qtbot, win, SAMPLES, (), "no-such-uid")
    assert state.question == int(state.order[0])
    assert "no-such-uid" in win.status_label.text()


# The window's first paint, in a fresh interpreter (the modules a test session imported would hide what the
# window imports): what is on screen then, and which of our modules it has not imported yet.
_FIRST_PAINT = r"""
import json, sys
from PyQt6.QtCore import QEvent, QObject, QSettings, QTimer
from viewer.ui.app import make_app
app = make_app()
import threading
import viewer.ui.main_window as mw
# A release read faster than the frame paints (a loaded machine) is shown at once, building the panels then:
# here the read waits for the first paint, so what is painted first is seen every time.
painted, read = threading.Event(), mw.open_session
mw.open_session = lambda *a, **k: painted.wait(60) and read(*a, **k)
w = mw.MainWindow(QSettings(sys.argv[1], QSettings.Format.IniFormat))
w.show()
w.open_release(sys.argv[2], [], None)
seen = {}
class FirstPaint(QObject):
    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Type.Paint and not seen:
            painted.set()
            seen["modules"] = sorted(m for m in sys.modules if m.startswith("viewer."))
            seen["built"] = w._built
            seen["docks"] = [d.windowTitle() for d in (w.browser_dock, w.board_dock, w.problems_dock)]
            seen["menus"] = [m.title() for m in w._menus.values()]
            seen["status"] = w.status_label.text()
        return False
f = FirstPaint(); w.installEventFilter(f)
w.sessionLoaded.connect(lambda: QTimer.singleShot(0, app.quit))
app.exec()
seen["after"] = {"built": w._built, "uid": w.state.uid, "central": type(w.centralWidget()).__name__}
print(json.dumps(seen), flush=True)
import os
os._exit(0)                 # as gst-viewer ends (viewer/cli.py): Qt's teardown by the interpreter can crash
"""

# The panels' modules, imported after the window's frame has painted (the release's own, core.session and
# core.release, are imported meanwhile by the job thread that reads it).
LATER = ("viewer.core.state", "viewer.ui.sample_view", "viewer.ui.browser", "viewer.ui.leaderboard",
         "viewer.ui.map_view", "viewer.ui.plots_dock", "viewer.render.scene_assets", "pyqtgraph.opengl")


def test_the_window_paints_its_frame_before_its_panels_are_built_or_imported(tmp_path):
    import json
    import os
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(root))
    r = subprocess.run([sys.executable, "-c", _FIRST_PAINT, str(tmp_path / "s.ini"), str(SAMPLES)], env=env,
                       capture_output=True, text=True, timeout=300, cwd=root)
    assert r.returncode == 0, r.stderr[-3000:]
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    assert seen["built"] is False
    imported = [m for m in LATER if m in seen["modules"]]
    assert not imported, imported
    assert seen["docks"] == ["Samples", "Leaderboard", "Problems"]
    assert seen["menus"] == ["&File", "&Go", "&View", "V&iews", "&Help"]
    assert seen["status"].startswith("opening ") and "gst-bench-page" in seen["status"]
    # Then the panels were built and the release shown in them.
    assert seen["after"] == {"built": True, "uid": seen["after"]["uid"], "central": "SampleView"}
    assert seen["after"]["uid"]


def test_a_panel_asked_for_before_the_first_paint_is_built_then(qtbot, settings):
    """Tests and scripts touch the panels right after `MainWindow()`: the one build runs then (the same
    `_build` the first paint runs), and the first paint builds nothing again."""
    from viewer.ui.app import make_app
    from viewer.ui.main_window import MainWindow
    from viewer.ui.sample_view import SampleView
    make_app()
    win = MainWindow(settings)
    qtbot.addWidget(win)
    assert not win._built
    view = win.sample_view
    assert win._built and isinstance(view, SampleView) and win.centralWidget() is view
    assert win.browser_dock.widget() is win.browser and win.board_dock.widget() is win.leaderboard
    assert [a.text() for a in win._menus["go"].actions()][:2] == ["Next sample", "Previous sample"]
    win.show()
    qtbot.waitExposed(win)
    qtbot.wait(20)
    assert win.sample_view is view and win.centralWidget() is view
    assert getattr(win, "no_such_attribute", None) is None       # an unknown name stays an AttributeError


def test_an_image_is_checked_for_damage_while_qt_decodes_it(tmp_path, monkeypatch):
    """The first sample's view (a 1920x1536 PNG) was inflated by Qt, then again by the damage check, one after
    the other on the same job thread; the check now runs on its own thread while Qt decodes, and says the
    same: nothing for a whole file, why for a cut one."""
    import threading

    import numpy as np
    from PyQt6.QtGui import QImage

    import viewer.ui.images as images
    threads = []
    real = images._why
    monkeypatch.setattr(images, "_why", lambda path: threads.append(threading.current_thread().name) or real(path))
    rgb = np.random.default_rng(0).integers(0, 255, (300, 400, 3), np.uint8)
    whole = tmp_path / "whole.png"
    assert images.array_to_qimage(rgb).save(str(whole))
    img = images.read_image(str(whole))
    assert img.size().width() == 400 and images.image_text(img) == ""
    assert threads and all(t.startswith("gst-viewer-image-check") for t in threads), threads
    cut = tmp_path / "cut.png"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size * 2 // 3])
    try:
        said = images.image_text(images.read_image(str(cut)))
    except images.ImageError as e:
        said = str(e)
    assert "truncated" in said and "cut.png" in said, said
    assert QImage(str(whole)).width() == 400



def test_the_audit_dock_behind_another_tab_lists_no_check_until_raised(qtbot, make_inspector):
    """Listing the checks imports every check module (~30 ms). Qt shows a dock tabbed behind another off
    screen, so the audit panel's show at start listed them, and opening a release did it again (its empty
    report): both before the first sample. They are listed when the panel is first painted, its tab raised."""
    from viewer.core.audit import CHECKS
    win, state = make_inspector(SAMPLES, (), POS_UID)
    panel = win.audit_panel
    assert panel.isVisible() and panel.visibleRegion().isEmpty()        # shown, behind the Leaderboard tab
    assert panel.check_box.count() == 0 and panel.status.text() == "not run yet"
    win.audit_dock.raise_()
    qtbot.waitUntil(lambda: panel.check_box.count() == 1 + len(CHECKS.ids()))
    assert panel.check_box.itemData(0) is None
    win.board_dock.raise_()
    open_release(qtbot, win, SAMPLES, (), POS_UID)                      # listed once: refilled, not again
    assert [panel.check_box.itemData(i) for i in range(panel.check_box.count())] == [None, *CHECKS.ids()]


def test_the_leaderboard_sizes_its_headers_once_it_is_filled(qtbot, make_inspector, tmp_path, monkeypatch):
    """Table 1 sized its headers to their contents at every header item and colour set, each asking every
    row's header item again: rows² reads (11,110 at 22 models, ~60 ms of the first sample at paper size).
    Filled with the sizing off, then sized once: a few reads per row, and the same widths."""
    import json

    import viewer.ui.leaderboard as lb
    from viewer.ui.leaderboard import LazyTipItem
    preds = []
    for m in range(12):
        p = tmp_path / f"model_{m:02d}.jsonl"
        p.write_text("".join(json.dumps({"uid": POS_UID, "prediction": f"<point>{100 + m} 500</point>"}) + "\n"))
        preds.append(p)
    win, state = make_inspector(SAMPLES, preds, POS_UID)
    board = win.leaderboard
    widths = [board.horizontalHeader().sectionSize(c) for c in range(board.columnCount())]
    heights = [board.verticalHeader().sectionSize(r) for r in range(board.rowCount())]
    reads = []
    real = LazyTipItem.data
    monkeypatch.setattr(lb.LazyTipItem, "data", lambda self, role: reads.append(role) or real(self, role))
    board.set_session(state.session)
    assert board.rowCount() == 13 and len(reads) <= 20 * board.rowCount(), len(reads)
    assert [board.horizontalHeader().sectionSize(c) for c in range(board.columnCount())] == widths
    assert [board.verticalHeader().sectionSize(r) for r in range(board.rowCount())] == heights
