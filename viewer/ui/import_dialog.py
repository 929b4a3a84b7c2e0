"""File → Import scene…: the `import-scene` command as a small form, run off the GUI thread.

The form fills a `render.scene_import.ImportRequest`; the import runs in a
job (`ui/jobs.py`), and `imported(folder)` is emitted when the folder is
written, so the window can open it on its own.
"""
from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import pyqtSignal
from PyQt6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ..core.diagnostics import collapsed
from ..core.scene.formats import ALIGNMENTS, FORMATS, UP_CHOICES
from .jobs import Jobs

OMNIGIBSON, MESH = "OmniGibson scene file", "Mesh + camera trajectory"


class PathField(QWidget):
    """A path line edit with a Browse… button (file, folder, or a file to save)."""

    def __init__(self, kind: str, caption: str, filter_: str = "", parent=None):
        super().__init__(parent)
        self.kind, self.caption, self.filter = kind, caption, filter_
        self.edit = QLineEdit()
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.edit, 1)
        lay.addWidget(browse)

    def _browse(self) -> None:
        if self.kind == "folder":
            path = QFileDialog.getExistingDirectory(self, self.caption, self.edit.text())
        else:
            path, _ = QFileDialog.getOpenFileName(self, self.caption, self.edit.text(), self.filter)
        if path:
            self.edit.setText(path)

    def value(self) -> str | None:
        return self.edit.text().strip() or None


class ImportSceneDialog(QDialog):
    imported = pyqtSignal(str)          # the written scene folder

    def __init__(self, jobs: Jobs, parent=None):
        super().__init__(parent)
        self.jobs = jobs
        self.setWindowTitle("Import scene")
        self.source = QComboBox()
        self.source.addItems([OMNIGIBSON, MESH])
        self.omnigibson = PathField("file", "OmniGibson scene file", "Scene files (*.json);;All files (*)")
        self.meshes = PathField("folder", "Per-object meshes (optional)")
        og_page = QWidget()
        og_form = QFormLayout(og_page)
        og_form.addRow("Scene file", self.omnigibson)
        og_form.addRow("Object meshes (optional)", self.meshes)
        self.mesh = PathField("file", "Mesh", "Meshes (*.ply *.obj *.glb *.gltf *.stl *.off);;All files (*)")
        self.trajectory = PathField("file", "Camera trajectory")
        self.format = QComboBox()
        self.format.addItem("guess from the file", None)
        for f in FORMATS:
            self.format.addItem(f, f)
        self.up = QComboBox()
        self.up.addItems(UP_CHOICES)           # auto first: decided from the data, and said
        # A trajectory in another frame than the mesh (the import warns): move and scale it onto the mesh.
        self.align = QComboBox(toolTip="center: move the path so its centre is the mesh's (a georeferenced "
                                       "or separately registered trajectory)")
        self.align.addItems(ALIGNMENTS)
        self.trajectory_scale = QDoubleSpinBox(decimals=6, minimum=1e-6, maximum=1e6, value=1.0,
                                               toolTip="the camera centres are scaled by this first (other units)")
        self.video = PathField("file", "Video (optional)", "Videos (*.mp4 *.mov *.avi *.mkv);;All files (*)")
        mesh_page = QWidget()
        mesh_form = QFormLayout(mesh_page)
        mesh_form.addRow("Mesh", self.mesh)
        mesh_form.addRow("Trajectory (optional)", self.trajectory)
        mesh_form.addRow("Trajectory format", self.format)
        mesh_form.addRow("Up axis", self.up)
        mesh_form.addRow("Align trajectory", self.align)
        mesh_form.addRow("Trajectory scale", self.trajectory_scale)
        mesh_form.addRow("Video (optional)", self.video)
        self.pages = QStackedWidget()
        self.pages.addWidget(og_page)
        self.pages.addWidget(mesh_page)
        self.source.currentIndexChanged.connect(self.pages.setCurrentIndex)
        self.out_dir = PathField("folder", "Write the scene into (a new folder)")
        self.status = QLabel("Conventions per format: docs/scene-import.md")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.import_button = self.buttons.addButton("Import", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        top = QFormLayout()
        top.addRow("Source", self.source)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.pages)
        out = QFormLayout()
        out.addRow("Output folder", self.out_dir)
        lay.addLayout(out)
        lay.addWidget(self.status)
        lay.addWidget(self.buttons)
        self.resize(640, 0)

    def request(self):
        """The form as an ImportRequest; ValueError naming what is missing."""
        from ..render.scene_import import ImportRequest
        out = self.out_dir.value()
        if not out:
            raise ValueError("choose the output folder")
        if self.source.currentText() == OMNIGIBSON:
            if not self.omnigibson.value():
                raise ValueError("choose the OmniGibson scene file")
            return ImportRequest(out, omnigibson=self.omnigibson.value(), meshes=self.meshes.value())
        if not self.mesh.value():
            raise ValueError("choose the mesh")
        return ImportRequest(out, mesh=self.mesh.value(), trajectory=self.trajectory.value(),
                             trajectory_format=self.format.currentData(), up=self.up.currentText(),
                             align_trajectory=self.align.currentText(),
                             trajectory_scale=self.trajectory_scale.value(), video=self.video.value())

    def start(self) -> None:
        from ..render.scene_import import import_scene
        try:
            req = self.request()
        except ValueError as e:
            self.status.setText(str(e))
            return
        self.import_button.setEnabled(False)
        self.status.setText(f"importing into {req.out_dir}…")
        self.jobs.submit(import_scene, req, lane="import", label="importing scene", with_progress=True,
                         done=self._done, failed=self._failed)

    def _done(self, result) -> None:
        self.import_button.setEnabled(True)
        notes = collapsed(d for d in result.diagnostics if d.level != "info")     # each said once, counted
        text = result.summary()
        if notes:
            text += f"\n{len(notes)} problems:\n" + "\n".join(notes[:8])
        if result.failed:
            # As the command exits 1: a scene with nothing to draw is not opened.
            self.status.setText(f"not imported: nothing to draw.\n{text}")
            return
        self.status.setText(text)
        self.imported.emit(str(Path(result.folder)))

    def _failed(self, message: str) -> None:
        self.import_button.setEnabled(True)
        self.status.setText(f"not imported: {message}")
