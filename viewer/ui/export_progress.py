"""One way to run an export in the window: its progress dialog, its Cancel button and its error, in one place.

napari's `utils/progress.py` is the model. The work is a plain function of two
callbacks that know nothing of Qt, `progress(done, total)` and `cancelled()`,
as `figures.clip_export.export_clip` and `figures.gallery.build_gallery` take
them; `ExportProgress.run` gives it the dialog behind them and says how it
ended: the work's result, or None when the user cancelled (the work raised
`ExportCancelled` and left no half-written file) or when it failed (the
message, which names the file, in a box and on the status bar). Exports paint
on the GUI thread; the dialog keeps the window responsive between steps.
"""
from __future__ import annotations

from typing import Callable, TypeVar

from PyQt6.QtCore import QObject, Qt, pyqtSignal
from PyQt6.QtWidgets import QApplication, QMessageBox, QProgressDialog, QWidget

from ..core.diagnostics import UserError

T = TypeVar("T")
Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]

SHOW_AFTER_MS = 300          # a quick export never flashes a dialog


class ExportProgress(QObject):
    message = pyqtSignal(str)                # for the status bar
    progressed = pyqtSignal(int, int)        # (done, total) after each step the work reports

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window
        self.dialog: QProgressDialog | None = None      # the running export's, else None
        self.error_box: QMessageBox | None = None       # the last failure's, until dismissed

    def run(self, label: str, total: int | None, work: Callable[[Progress, Cancelled], T], what: str) -> T | None:
        """`work(progress, cancelled)` behind a cancellable dialog titled `label`, over `total` steps (the
        work may correct it), or, with `total` None, one step under a wait cursor; `what` names the export
        in the status bar ("clip export", "task gallery")."""
        from ..figures.clip_export import ExportCancelled
        try:
            if total is None:
                return self._one_step(work)
            return self._with_dialog(label, total, work)
        except ExportCancelled:
            self.message.emit(f"{what} cancelled; nothing written")
        except UserError as e:
            self.fail(str(e))
        except OSError as e:               # the work's own messages name the file; an OSError names it too
            self.fail(f"{e.filename or what}: cannot write ({e.strerror or e})")
        return None

    def _one_step(self, work: Callable[[Progress, Cancelled], T]) -> T:
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            return work(lambda done, steps: None, lambda: False)
        finally:
            QApplication.restoreOverrideCursor()

    def _with_dialog(self, label: str, total: int, work: Callable[[Progress, Cancelled], T]) -> T:
        dlg = self.dialog = QProgressDialog(label, "Cancel", 0, max(total, 1), self.window)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(SHOW_AFTER_MS)
        dlg.setAutoClose(False)           # the work says when it is done, not the last step's value
        dlg.setAutoReset(False)

        def progress(done: int, steps: int) -> None:
            dlg.setMaximum(max(steps, 1))
            dlg.setValue(done)
            self.progressed.emit(done, steps)
            QApplication.processEvents()  # paints the dialog and takes the click on Cancel
        try:
            return work(progress, dlg.wasCanceled)
        finally:
            dlg.close()
            dlg.deleteLater()             # with its show timer: a closed dialog never pops up later
            self.dialog = None

    def fail(self, message: str) -> None:
        """`message` on the status bar and in a warning over the window (open, not exec: the window's
        event loop goes on, and a test reads `error_box`)."""
        self.message.emit(message)
        box = self.error_box = QMessageBox(QMessageBox.Icon.Warning, "gst-viewer", message,
                                           QMessageBox.StandardButton.Ok, self.window)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(lambda _=0: setattr(self, "error_box", None))
        box.open()
