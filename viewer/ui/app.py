"""Starting the window, and `--screenshot`: render once the sample has loaded, save, exit."""
from __future__ import annotations

import re
import sys

from PyQt6.QtCore import QCoreApplication, Qt, QTimer
from PyQt6.QtWidgets import QApplication

from ..core.diagnostics import UserError

QUIET_MS = 400            # no background work for this long = the window is complete
SCREENSHOT_TIMEOUT_MS = 120_000


def parse_size(size: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", size or "")
    if not m:
        raise UserError(f"--size {size!r}: expected WIDTHxHEIGHT, e.g. 1600x1000")
    w, h = int(m.group(1)), int(m.group(2))
    if not (200 <= w <= 10000 and 200 <= h <= 10000):
        raise UserError(f"--size {size!r}: each side must be between 200 and 10000 pixels")
    return w, h


def _quiet_qt_messages() -> None:
    """Drop Qt's chatter that says nothing to a user (headless platform limitations)."""
    from PyQt6.QtCore import qInstallMessageHandler

    noise = ("propagateSizeHints",)
    previous = {}

    def handler(mode, context, message):
        if any(n in message for n in noise):
            return
        sys.stderr.write(message + "\n")
    previous["h"] = qInstallMessageHandler(handler)


def make_app() -> QApplication:
    app = QApplication.instance()
    if app is None:
        _quiet_qt_messages()
        # Docked/tabbed OpenGL widgets need shared contexts, set before the app exists.
        QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
        app = QApplication(sys.argv[:1])
    app.setApplicationName("gst-viewer")
    app.setOrganizationName("gst-viewer")
    import pyqtgraph as pg
    pg.setConfigOptions(antialias=True)
    return app


class ScreenshotWhenSettled:
    """Saves the window once the release is open and no background work is left."""

    def __init__(self, window, out: str, on_done, uid: str | None = None):
        self.window, self.out, self.on_done, self.uid = window, out, on_done, uid
        self.quiet = QTimer(singleShot=True, interval=QUIET_MS)
        self.quiet.timeout.connect(self._check)
        self.deadline = QTimer(singleShot=True, interval=SCREENSHOT_TIMEOUT_MS)
        self.deadline.timeout.connect(lambda: self._save(timed_out=True))
        self._loaded = False
        window.sessionLoaded.connect(self._session_loaded)
        window.loadFailed.connect(self._failed)
        window.jobs.settled.connect(lambda: self._loaded and self.quiet.start())
        self.deadline.start()

    def _session_loaded(self) -> None:
        if self.uid is not None and self.window.session.release.get(self.uid) is None:
            self._failed(f"--uid {self.uid}: no such question in {self.window.release_path}")
            return
        self._loaded = True
        self.quiet.start()

    def _check(self) -> None:
        if self.window.jobs.pending == 0:
            self._save()

    def _failed(self, message: str) -> None:
        print(f"gst-viewer: {message}", file=sys.stderr)
        self.deadline.stop()
        self.on_done(2)

    def _save(self, timed_out: bool = False) -> None:
        self.deadline.stop()
        self.quiet.stop()
        if timed_out:
            print("gst-viewer: background work did not finish in time; saving the window as it is",
                  file=sys.stderr)
        QApplication.processEvents()
        if not self.window.grab().save(self.out):
            print(f"gst-viewer: {self.out}: cannot write the image", file=sys.stderr)
            self.on_done(2)
            return
        self.on_done(0)


def run_app(release, predictions: list, uid: str | None = None, screenshot: str | None = None,
            size: str = "1600x1000", scene: str | None = None, benchmark: str | None = None,
            frames=None) -> int:
    """Open the window on `release`, or on one `scene` folder alone (exit code when it closes),
    or save a screenshot and exit. `frames` (core.frames.FramePolicies): each model's frame policy."""
    width, height = parse_size(size)
    app = make_app()
    from PyQt6.QtCore import QSettings

    from .main_window import MainWindow
    if not screenshot:
        window = MainWindow()
    else:
        # A screenshot neither uses nor changes the user's remembered layout.
        import tempfile
        scratch = tempfile.TemporaryDirectory(prefix="gst-viewer-")
        window = MainWindow(QSettings(f"{scratch.name}/settings.ini", QSettings.Format.IniFormat))
        window.resize(width, height)
        exit_code = {"code": 0}

        def done(code: int) -> None:
            exit_code["code"] = code
            window.close()
            app.exit(code)
        shot = ScreenshotWhenSettled(window, screenshot, done, uid)
    if frames is not None:
        window.set_frame_policies(frames)
    window.show()
    if scene is not None:
        window.open_scene(scene)
    else:
        window.open_release(release, predictions, uid, benchmark=benchmark)
    code = app.exec()
    if screenshot:
        del shot
        scratch.cleanup()
        return exit_code["code"]
    return code
