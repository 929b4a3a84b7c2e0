"""Screenshots of the plots dock and the comparison filter on the demo at 1600x1000, and of the window at
1280x800 with its Plots tab raised, for the README.

Run: QT_QPA_PLATFORM=offscreen PYTHONPATH=. .venv/bin/python tools/compare_screenshots.py docs/screenshots
"""
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from PyQt6.QtCore import QSettings, Qt

from viewer.assets import assets_dir
from viewer.ui.app import make_app
from viewer.ui.main_window import MainWindow

ANGLE_UID = "scene1_Object_Localization_Egocentric_Direction_visual_potted_plant_yzwbdf_2_pos_15_orient_0_video_0"


def main(out: str) -> None:
    app = make_app()
    docks_and_filters(app, out)
    window_1280(app, out)


def open_demo(app, size: tuple[int, int]):
    """A window on a copy of the demo (flags are kept beside the release), and a `settle(cond)`."""
    tmp = Path(tempfile.mkdtemp())
    root = tmp / "demo"
    shutil.copytree(assets_dir() / "demo", root)
    w = MainWindow(QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat))
    w.resize(*size)
    w.show()
    done = []
    w.sessionLoaded.connect(lambda: done.append(1))
    w.open_release(root, sorted((root / "predictions").glob("*.jsonl")))

    def settle(cond=lambda: w.jobs.pending == 0) -> None:
        start = time.time()
        while not cond() and time.time() - start < 60:
            app.processEvents()
            time.sleep(0.01)
        for _ in range(20):
            app.processEvents()

    settle(lambda: done and w.jobs.pending == 0)
    return w, settle


def docks_and_filters(app, out: str) -> None:
    w, settle = open_demo(app, (1600, 1000))
    s = w.state
    rel = s.session.release
    s.question = next(i for i in range(len(rel)) if rel.questions[i].kind.name == "distance")
    w.plots_dock.raise_()
    w.resizeDocks([w.board_dock], [300], Qt.Orientation.Vertical)
    settle()
    w.plots.brush_range(0.1, 0.6)
    settle()
    w.grab().save(out + "/plots-dock.png")
    w.plots.clear_range()
    s.filter = replace(s.filter, columns=None, compare="a_right_b_wrong", model=2, model_b=0)
    settle()
    w.grab().save(out + "/compare-filter.png")
    w.jobs.shutdown()


def window_1280(app, out: str) -> None:
    """The smaller screen: a direction question, the Plots tab raised."""
    w, settle = open_demo(app, (1280, 800))
    w.state.select_uid(ANGLE_UID)
    w.plots_dock.raise_()
    settle()
    w.grab().save(out + "/window-1280.png")
    w.jobs.shutdown()


if __name__ == "__main__":
    main(sys.argv[1])
