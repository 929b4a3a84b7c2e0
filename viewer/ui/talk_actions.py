"""The window's talk actions: Export figure…, Export clip…, Build task gallery…, Presentation mode (F5).

They work on the question shown in the window, with every loaded model
(the colours are the window's). Exports paint on the GUI thread behind a
cancellable progress dialog; the work itself is in `viewer.figures`.
"""
from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QMessageBox,
    QProgressDialog,
)

from ..core.diagnostics import UserError

FIGURE_FILTER = "PNG image (*.png);;SVG vector (*.svg);;PDF vector (*.pdf)"
CLIP_FILTER = "MP4 video (*.mp4);;GIF animation (*.gif)"


class FigureOptions(QDialog):
    """Layout, scale (PNG) and, for the 3D still, the camera."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Export figure")
        self.layout_box = QComboBox()
        self.layout_box.addItem("panel: video strip, view, map or options, answers", "panel")
        self.layout_box.addItem("map: the map with every overlay and a legend", "map")
        self.layout_box.addItem("3d: a ray-cast still of the scene", "3d")
        self.camera_box = QComboBox()
        for key, label in (("overview", "above the scene"), ("query", "the current view")):
            self.camera_box.addItem(label, key)
        self.scale = QDoubleSpinBox(minimum=0.5, maximum=8.0, value=2.0, singleStep=0.5, suffix=" ×")
        form = QFormLayout(self)
        form.addRow("Layout", self.layout_box)
        form.addRow("3D camera", self.camera_box)
        form.addRow("PNG scale", self.scale)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class TalkActions:
    def __init__(self, window):
        self.window = window
        self.presentation = None
        file_menu, view_menu = self._menu("&File"), self._menu("&View")
        quit_ = next((a for a in file_menu.actions() if a.text() == "&Quit"), None)
        for text, slot, key in (("Export figure…", self.choose_figure, "Ctrl+E"),
                                ("Export clip…", self.choose_clip, "Ctrl+Shift+E"),
                                ("Build task gallery…", self.choose_gallery, None)):
            a = window._action(file_menu, text, slot, key)
            if quit_ is not None:          # keep Quit last
                file_menu.insertAction(quit_, a)
        if quit_ is not None:
            file_menu.insertSeparator(quit_)
        view_menu.addSeparator()
        self.present_action = window._action(view_menu, "Presentation mode", self.present, "F5")

    def _menu(self, title: str):
        bar = self.window.menuBar()
        for a in bar.actions():
            if a.text() == title and a.menu() is not None:
                return a.menu()
        return bar.addMenu(title)

    # ------------------------------------------------------------ helpers
    def _subject(self, frames: bool = True):
        w = self.window
        qi = w.sample_view.qi
        if w.session is None or qi is None:
            w.show_status("select a question first")
            return None
        from ..figures.layouts import prepare
        return prepare(w.session, qi, None, w.sample_view.scenes, w.sample_view.assets, frames=frames)

    def _default_name(self, suffix: str) -> str:
        w = self.window
        uid = w.session.release.uids[w.sample_view.qi] if w.session and w.sample_view.qi is not None else "figure"
        folder = Path(w.release_path or ".").parent
        return str(folder / f"{uid[:80]}{suffix}")

    def _fail(self, message: str) -> None:
        self.window.show_status(message)
        QMessageBox.warning(self.window, "gst-viewer", message)

    def _progress(self, title: str, total: int) -> QProgressDialog:
        dlg = QProgressDialog(title, "Cancel", 0, total, self.window)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(300)
        return dlg

    # ------------------------------------------------------------- figure
    def choose_figure(self) -> None:
        opts = FigureOptions(self.window)
        if opts.exec() != QDialog.DialogCode.Accepted:
            return
        path, _ = QFileDialog.getSaveFileName(self.window, "Export figure", self._default_name(".png"), FIGURE_FILTER)
        if path:
            self.export_figure(path, opts.layout_box.currentData(), opts.scale.value(), opts.camera_box.currentData())

    def export_figure(self, path: str, layout: str = "panel", scale: float = 2.0, camera: str = "overview") -> bool:
        from ..figures.layouts import export_figure
        subject = self._subject(frames=layout == "panel")
        if subject is None:
            return False
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            written = export_figure(subject, layout, Path(path), scale, camera)
        except UserError as e:
            self._fail(str(e))
            return False
        finally:
            QApplication.restoreOverrideCursor()
            subject.close()
        self.window.show_status(f"figure written: {written}")
        return True

    # --------------------------------------------------------------- clip
    def choose_clip(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Export clip", self._default_name(".mp4"), CLIP_FILTER)
        if path:
            self.export_clip(path)

    def export_clip(self, path: str, seconds: float = 10.0, fps: float = 15.0, size=None) -> bool:
        from ..figures.clip_export import ExportCancelled, export_clip
        subject = self._subject()
        if subject is None:
            return False
        dlg = self._progress("Writing the clip…", int(round(seconds * fps)))

        def progress(done: int, total: int) -> None:
            dlg.setMaximum(total)
            dlg.setValue(done)
            QApplication.processEvents()
        try:
            result = export_clip(subject, Path(path), seconds, fps, size, progress=progress,
                                 cancelled=dlg.wasCanceled)
        except ExportCancelled:
            self.window.show_status("clip export cancelled; nothing written")
            return False
        except UserError as e:
            self._fail(str(e))
            return False
        finally:
            dlg.close()
            subject.close()
        note = f" ({result.note})" if result.note else ""
        self.window.show_status(f"clip written: {result.path}, {result.frames} frames, {result.codec}{note}")
        return True

    # ------------------------------------------------------------ gallery
    def choose_gallery(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.window, "Folder for the task gallery",
                                                  str(Path(self.window.release_path or ".").parent))
        if folder:
            self.build_gallery(folder)

    def build_gallery(self, folder: str) -> bool:
        from ..figures.clip_export import ExportCancelled
        from ..figures.gallery import build_gallery
        w = self.window
        if w.session is None:
            w.show_status("open a release first")
            return False
        dlg = self._progress("Building the task gallery…", 13)

        def progress(done: int, total: int) -> None:
            dlg.setMaximum(total)
            dlg.setValue(done)
            QApplication.processEvents()
        try:
            result = build_gallery(w.session, Path(folder), progress=progress, cancelled=dlg.wasCanceled)
        except ExportCancelled:
            w.show_status("gallery cancelled")
            return False
        except UserError as e:
            self._fail(str(e))
            return False
        finally:
            dlg.close()
        w.show_status(f"task gallery: {len(result.slides)} slides and {result.grid}")
        return True

    # ------------------------------------------------------- presentation
    def present(self, full_screen: bool = True):
        from .presentation import PresentationWindow
        subject = self._subject()
        if subject is None:
            return None
        if self.presentation is not None:
            self.presentation.close()
        self.presentation = PresentationWindow(subject)
        self.presentation.questionStep.connect(self._present_step)
        self.presentation.closed.connect(self._presentation_closed)
        if full_screen:
            self.presentation.showFullScreen()
        else:
            self.presentation.show()
        self.presentation.setFocus()
        return self.presentation

    def _present_step(self, delta: int) -> None:
        self.window.browser.step(delta)
        subject = self._subject()
        if subject is not None and self.presentation is not None:
            self.presentation.set_subject(subject)

    def _presentation_closed(self) -> None:
        self.presentation = None
