"""Presentation mode: one question full screen, revealed step by step with the arrow keys.

Stages (viewer.core.storyboard.TALK_STAGES): the question, the exploration
video (playing, the camera moving on the map), the models' answers, the
truth. Right / Space / Page Down step forward, Left / Page Up back, Home and
End jump, Up / Down change question, T switches dark and light, Escape
leaves. Each moment is painted by the same StoryPainter as exported clips,
in large type and thick strokes.

The stage is the state's `stage`, and the question its `question`: Up and
Down step through the browser's order, and a question chosen in the window
is presented from its first stage.
"""
from __future__ import annotations

from typing import Callable

from PyQt6.QtCore import QRectF, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QPainter
from PyQt6.QtWidgets import QWidget

from ..core.state import InspectorState
from ..core.talk.storyboard import QUESTION, TALK_STAGES, VIDEO
from ..figures.story_frame import StoryPainter
from ..figures.theme import TALK_DARK, TALK_LIGHT

MAX_PLAY_FPS = 30.0


class PresentationWindow(QWidget):
    closed = pyqtSignal()

    def __init__(self, state: InspectorState, make_subject: Callable, theme: str = "dark", parent=None):
        """`make_subject(question index)` is the figures' Subject of that question (figures.layouts.prepare)."""
        super().__init__(parent)
        self.setWindowTitle("gst-viewer — presentation")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.BlankCursor)
        self.state = state
        self.make_subject = make_subject
        self.theme = TALK_LIGHT if theme == "light" else TALK_DARK
        self.frame = 0
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._advance_video)
        self.subject = None
        self.painter = None
        state.events.stage.connect(self._stage_changed)
        state.events.question.connect(self._question_changed)
        self._question_changed(state.question)

    # ------------------------------------------------------------ content
    def _question_changed(self, question: int | None) -> None:
        if question is None:
            return
        if self.subject is not None:
            self.subject.close()
        self.subject = self.make_subject(question)
        self.painter = StoryPainter(self.subject)
        if self.state.stage != QUESTION:
            self.state.stage = QUESTION          # its listener draws
        else:
            self._stage_changed(QUESTION)

    @property
    def stage(self) -> str:
        return self.state.stage

    def _stage_changed(self, stage: str) -> None:
        self.timer.stop()
        self.frame = 0
        src = self.subject.media.frames
        if stage == VIDEO and src is not None and src.n_frames > 1:
            fps = min(src.fps or 10.0, MAX_PLAY_FPS)
            self._step = max(1, round((src.fps or 10.0) / fps))
            self.timer.start(int(1000 / fps))
        self.update()

    def toggle_theme(self) -> None:
        self.theme = TALK_LIGHT if self.theme is TALK_DARK else TALK_DARK
        self.update()

    def _advance_video(self) -> None:
        src = self.subject.media.frames
        if src is None or self.frame >= src.n_frames - 1:
            self.timer.stop()
            return
        self.frame = min(self.frame + self._step, src.n_frames - 1)
        self.update()

    # ------------------------------------------------------------- events
    def keyPressEvent(self, event) -> None:
        key = event.key()
        K = Qt.Key
        if key in (K.Key_Right, K.Key_Space, K.Key_PageDown, K.Key_Return, K.Key_Enter):
            self.state.step_stage(+1)
        elif key in (K.Key_Left, K.Key_PageUp, K.Key_Backspace):
            self.state.step_stage(-1)
        elif key == K.Key_Home:
            self.state.stage = TALK_STAGES[0]
        elif key == K.Key_End:
            self.state.stage = TALK_STAGES[-1]
        elif key == K.Key_Down:
            self.state.step(+1)
        elif key == K.Key_Up:
            self.state.step(-1)
        elif key == K.Key_T:
            self.toggle_theme()
        elif key in (K.Key_Escape, K.Key_F5, K.Key_Q):
            self.close()
        else:
            super().keyPressEvent(event)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        src = self.subject.media.frames
        time_text = ""
        if self.stage == VIDEO and src is not None and src.fps:
            time_text = f"{self.frame / src.fps:.1f} s / {src.n_frames / src.fps:.0f} s"
        self.painter.paint(p, QRectF(self.rect()), self.stage, self.frame if self.stage == VIDEO else None,
                           self.theme, time_text)
        p.end()

    def closeEvent(self, event) -> None:
        self.timer.stop()
        self.state.events.stage.disconnect(self._stage_changed, missing_ok=True)
        self.state.events.question.disconnect(self._question_changed, missing_ok=True)
        if self.subject is not None:
            self.subject.close()
        self.closed.emit()
        super().closeEvent(event)
