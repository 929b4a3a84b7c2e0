"""The settings strip: a question's Global, Local-Video and Local-Image variants side by side.

Bound to the InspectorState (docs/architecture.md, "A new panel"): when the
question or the shown models change, it loads the family's media in a job
(figures.layouts.settings_subjects: each member's view, answers and map
overlay) and draws the `settings` figure, the one `render --layout settings`
writes, so the window and the talks show the same thing: three columns (view,
answers, scores) over one map where every setting's answers are arrows,
solid, dashed and dotted (core/settings_overlay.py).
"""
from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QPixmap
from PyQt6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from ..core.scene.alone import is_scene_alone
from ..core.settings_table import family_of
from ..core.state import InspectorState

NO_VARIANTS = "This question has no Local-Video or Local-Image variant (docs/data-format.md, Settings)."
NO_QUESTION = "No question is open: the settings compare a question's variants."
SCENE_ALONE = "A scene opened alone has no questions, so no settings to compare."


class SettingsStrip(QWidget):
    def __init__(self, state: InspectorState, jobs, assets, parent=None):
        super().__init__(parent)
        self.state, self.jobs, self.assets = state, jobs, assets
        self.message = QLabel(NO_QUESTION)
        self.message.setWordWrap(True)
        self.image = QLabel()
        self.image.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.image)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.message)
        layout.addWidget(scroll, 1)
        self.figure = None                       # the QImage shown, for tests and screenshots
        state.events.question.connect(self.refresh)
        state.events.visible_models.connect(self.refresh)

    def refresh(self) -> None:
        state = self.state
        session, qi = state.session, state.question
        family = family_of(session.release, qi) if session is not None and qi is not None else None
        self.figure = None
        self.image.clear()
        if family is None:
            self.message.setText(NO_VARIANTS if qi is not None else SCENE_ALONE if is_scene_alone(session)
                                 else NO_QUESTION)
            self.message.show()
            return
        self.message.setText("loading the variants…")
        models = sorted(state.visible_models)
        self.jobs.submit(self._figure, session, qi, models, lane="settings", scope="question",
                         label="settings strip", done=self._show, failed=self._failed)

    def _figure(self, session, qi: int, models: list[int]):
        from ..figures.canvas import raster
        from ..figures.layouts import prepare, settings_figure
        subject = prepare(session, qi, models, assets=self.assets, frames=False)
        try:
            size, paint = settings_figure(subject)
            return raster(size, paint, 1.0)
        finally:
            subject.close()

    def _show(self, image) -> None:
        self.figure = image
        self.message.hide()
        self.image.setPixmap(QPixmap.fromImage(image).scaledToWidth(
            max(400, self.width() - 30), Qt.TransformationMode.SmoothTransformation))

    def _failed(self, why: str) -> None:
        self.message.setText(f"settings strip: {why}")
        self.message.show()
