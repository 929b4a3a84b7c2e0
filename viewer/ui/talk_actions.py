"""The window's talk actions: Export figure…, Export clip…, Build task gallery…, Presentation mode (F5).

They work on the state's question with its visible models (the colours are
the window's). Every export runs through one `ExportProgress`
(ui/export_progress.py): its dialog, Cancel and error box; the work itself is
in `viewer.figures`. The window puts the actions in its menus.
"""
from __future__ import annotations

import os
from pathlib import Path

from PyQt6.QtCore import QObject, pyqtSignal
from PyQt6.QtGui import QAction, QKeySequence
from PyQt6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..core.state import InspectorState
from .export_progress import ExportProgress

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


CLIP_SIZES = ((1280, 720), (1920, 1080), (960, 540), (800, 450), (640, 360))


class ClipOptions(QDialog):
    """Length, size, frame rate, theme and the models a clip compares (the visible ones checked)."""

    def __init__(self, model_names: list[str], visible: set[int], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Export clip")
        self.seconds = QDoubleSpinBox(minimum=2.0, maximum=120.0, value=10.0, singleStep=1.0, suffix=" s")
        self.fps = QSpinBox(minimum=5, maximum=60, value=15, suffix=" fps")
        self.size_box = QComboBox()
        for w, h in CLIP_SIZES:
            self.size_box.addItem(f"{w} × {h}", (w, h))
        self.theme_box = QComboBox()
        for key, label in (("dark", "dark (talks)"), ("light", "light"), ("paper", "paper")):
            self.theme_box.addItem(label, key)
        self.model_boxes: list[QCheckBox] = []
        models = QWidget()
        column = QVBoxLayout(models)
        column.setContentsMargins(0, 0, 0, 0)
        for i, name in enumerate(model_names):
            box = QCheckBox(name, checked=i in visible)
            self.model_boxes.append(box)
            column.addWidget(box)
        form = QFormLayout(self)
        form.addRow("Length", self.seconds)
        form.addRow("Size", self.size_box)
        form.addRow("Frame rate", self.fps)
        form.addRow("Theme", self.theme_box)
        form.addRow("Models", models if model_names else QWidget())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def models(self) -> list[int]:
        return [i for i, box in enumerate(self.model_boxes) if box.isChecked()]

    def size(self) -> tuple[int, int]:
        return self.size_box.currentData()


class TalkActions(QObject):
    message = pyqtSignal(str)             # for the status bar

    def __init__(self, state: InspectorState, assets, window):
        """`assets`: the window's render.scene_assets.SceneAssets; `window`: the parent of dialogs."""
        super().__init__(window)
        self.state, self.assets, self.window = state, assets, window
        self.presentation = None
        self.exports = ExportProgress(window)
        self.exports.message.connect(self.message)
        self.figure_action = self._action("Export figure…", self.choose_figure, "Ctrl+E")
        self.clip_action = self._action("Export clip…", self.choose_clip, "Ctrl+Shift+E")
        self.gallery_action = self._action("Build task gallery…", self.choose_gallery)
        self.present_action = self._action("Presentation mode", self.present, "F5")

    def _action(self, text: str, slot, shortcut: str | None = None) -> QAction:
        a = QAction(text, self.window)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        a.triggered.connect(lambda _=False: slot())
        return a

    @property
    def file_actions(self) -> list[QAction]:
        return [self.figure_action, self.clip_action, self.gallery_action]

    # ------------------------------------------------------------ helpers
    def _subject(self, frames: bool = True, models: list[int] | None = None):
        if self.state.current is None:
            self.message.emit("select a question first")
            return None
        return self._subject_of(self.state.question, frames, models)

    def _subject_of(self, qi: int, frames: bool = True, models: list[int] | None = None):
        from ..figures.layouts import prepare
        s = self.state
        # The figure shows the map the window shows, when the user chose one.
        source = s.map_source if qi == s.question else None
        return prepare(s.session, qi, sorted(s.visible_models) if models is None else models, s.scenes,
                       self.assets, frames=frames, map_source=source)

    def _save_folder(self) -> Path:
        """Beside the release, unless the release is the app's own (bundled demo): then the user's home."""
        from ..assets import assets_dir
        release = Path(self.state.release_path or ".").resolve()
        try:
            inside_app = release.is_relative_to(assets_dir().resolve())
        except (OSError, ValueError):
            inside_app = False
        if inside_app or not os.access(release.parent, os.W_OK):
            pictures = Path.home() / "Pictures"
            return pictures if pictures.is_dir() else Path.home()
        return release.parent

    def _default_name(self, suffix: str) -> str:
        uid = self.state.uid or "figure"
        return str(self._save_folder() / f"{uid[:80]}{suffix}")

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
        try:            # one step, no progress to report: a wait cursor, and the error if it fails
            written = self.exports.run("Writing the figure…", None,
                                       lambda progress, cancelled: export_figure(subject, layout, Path(path),
                                                                                 scale, camera), "figure")
        finally:
            subject.close()
        if written is None:
            return False
        self.message.emit(f"figure written: {written}")
        return True

    # --------------------------------------------------------------- clip
    def clip_options(self) -> ClipOptions:
        session = self.state.session
        names = [r.model for r in session.results] if session is not None else []
        return ClipOptions(names, set(self.state.visible_models), self.window)

    def choose_clip(self) -> None:
        opts = self.clip_options()
        if opts.exec() != QDialog.DialogCode.Accepted:
            return
        path, _ = QFileDialog.getSaveFileName(self.window, "Export clip", self._default_name(".mp4"), CLIP_FILTER)
        if path:
            self.export_clip(path, opts.seconds.value(), float(opts.fps.value()), opts.size(), opts.models(),
                             opts.theme_box.currentData())

    def export_clip(self, path: str, seconds: float = 10.0, fps: float = 15.0, size=None,
                    models: list[int] | None = None, theme: str = "dark") -> bool:
        """`models`: the models the clip compares (default: the visible ones)."""
        from ..figures.clip_export import export_clip
        from ..figures.theme import THEMES
        subject = self._subject(models=models)
        if subject is None:
            return False
        try:
            result = self.exports.run(
                "Writing the clip…", int(round(seconds * fps)),
                lambda progress, cancelled: export_clip(subject, Path(path), seconds, fps, size, THEMES[theme],
                                                        progress=progress, cancelled=cancelled), "clip export")
        finally:
            subject.close()
        if result is None:
            return False
        note = f" ({result.note})" if result.note else ""
        self.message.emit(f"clip written: {result.path}, {result.frames} frames, {result.codec}{note}")
        return True

    # ------------------------------------------------------------ gallery
    def choose_gallery(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.window, "Folder for the task gallery",
                                                  str(Path(self.state.release_path or ".").parent))
        if folder:
            self.build_gallery(folder)

    def build_gallery(self, folder: str) -> bool:
        from ..figures.gallery import build_gallery
        session = self.state.session
        if session is None:
            self.message.emit("open a release first")
            return False
        result = self.exports.run(
            "Building the task gallery…", len(session.release.benchmark.keys) + 1,
            lambda progress, cancelled: build_gallery(session, Path(folder), progress=progress,
                                                      cancelled=cancelled), "task gallery")
        if result is None:
            return False
        self.message.emit(f"task gallery: {len(result.slides)} slides and {result.grid}")
        return True

    # ------------------------------------------------------- presentation
    def present(self, full_screen: bool = True):
        from .presentation import PresentationWindow
        if self.state.current is None:
            self.message.emit("select a question first")
            return None
        if self.presentation is not None:
            self.presentation.close()
        self.presentation = PresentationWindow(self.state, self._subject_of)
        self.presentation.closed.connect(self._presentation_closed)
        if full_screen:
            self.presentation.showFullScreen()
        else:
            self.presentation.show()
        self.presentation.setFocus()
        return self.presentation

    def _presentation_closed(self) -> None:
        self.presentation = None
