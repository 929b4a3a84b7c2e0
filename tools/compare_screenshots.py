"""Screenshots of the plots dock and the comparison filter on the demo at 1600x1000, for the README.

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


def main(out: str) -> None:
    app = make_app()
    tmp = Path(tempfile.mkdtemp())
    root = tmp / "demo"
    shutil.copytree(assets_dir() / "demo", root)
    w = MainWindow(QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat))
    w.resize(1600, 1000)
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


if __name__ == "__main__":
    main(sys.argv[1])
