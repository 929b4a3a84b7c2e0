"""The window step of `gst-viewer --selftest`: open the release in the main window, offscreen."""
from __future__ import annotations

import tempfile
import time

import numpy as np
from PyQt6.QtCore import QEventLoop, QSettings, QTimer, qVersion
from PyQt6.QtGui import QImage
from PyQt6.QtWidgets import QApplication

LOAD_TIMEOUT_S = 90          # opening the release and scoring on the worker threads
SETTLE_TIMEOUT_S = 60        # drawing the first sample (maps, 3D) after that


def _wait(condition, timeout_s: float) -> bool:
    """Process events until `condition()` holds or the time is up."""
    app = QApplication.instance()
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.01)
    return True


def _check_3d(window) -> str:
    """Draw the first sample's scene in the 3D tab when OpenGL works here (a desktop, Xvfb)."""
    from ..selftest import SelftestFailure
    from .view3d import opengl_problem
    problem = opengl_problem()
    if problem is not None:
        return f"3D view not checked ({problem})"
    sample = window.sample_view
    if not _wait(lambda: sample.tabs.isTabEnabled(1), SETTLE_TIMEOUT_S):
        return "3D view not checked (the first sample has no scene)"
    sample.tabs.setCurrentIndex(1)
    if not _wait(lambda: window.jobs.pending == 0 and "triangles" in sample.view3d.info.text(), SETTLE_TIMEOUT_S):
        raise SelftestFailure(f"the 3D view did not draw the scene: {sample.view3d.info.text()!r}")
    for _ in range(10):
        QApplication.processEvents()
    frame = sample.view3d.view.grabFramebuffer().convertToFormat(QImage.Format.Format_RGB32)
    bits = frame.constBits()
    bits.setsize(frame.sizeInBytes())
    pixels = np.frombuffer(bits, np.uint8)
    if frame.isNull() or pixels.std() < 1.0:
        raise SelftestFailure("the 3D view's OpenGL frame is empty")
    return f"3D view (OpenGL) drew {sample.view3d.info.text().split(';')[0]}"


def check_window(release, predictions: list, expected_models: int) -> str:
    """Open `release` in a MainWindow and wait for it to settle; a one-line summary, or raises."""
    from ..selftest import SelftestFailure
    from .app import make_app
    from .main_window import MainWindow

    app = make_app()
    scratch = tempfile.TemporaryDirectory(prefix="gst-viewer-selftest-qt-")
    window = MainWindow(QSettings(f"{scratch.name}/settings.ini", QSettings.Format.IniFormat))
    state: dict = {}
    window.sessionLoaded.connect(lambda: state.setdefault("loaded", True))
    window.loadFailed.connect(lambda msg: state.setdefault("failed", msg))
    try:
        window.resize(1280, 800)
        window.show()
        window.open_release(release, predictions)
        if not _wait(lambda: state, LOAD_TIMEOUT_S):
            raise SelftestFailure(f"the window did not open the release within {LOAD_TIMEOUT_S} s")
        if "failed" in state:
            raise SelftestFailure(f"the window could not open the release: {state['failed']}")
        settled = _wait(lambda: window.jobs.pending == 0, SETTLE_TIMEOUT_S)
        QTimer.singleShot(0, lambda: None)
        app.processEvents()
        n_models = len(window.session.results)
        if n_models != expected_models:
            raise SelftestFailure(f"the window scored {n_models} models, expected {expected_models}")
        image = window.grab().toImage()
        if image.isNull() or image.width() < 100:
            raise SelftestFailure("grabbing the window gave no image")
        three_d = _check_3d(window)
        return (f"Qt {qVersion()} on platform '{app.platformName()}': {len(window.session.release)} questions, "
                f"{n_models} models, window {image.width()}x{image.height()}; {three_d}"
                + ("" if settled else f"; background work still running after {SETTLE_TIMEOUT_S} s"))
    finally:
        window.close()
        window.jobs.wait(30000)
        window.deleteLater()
        app.processEvents()
        scratch.cleanup()
