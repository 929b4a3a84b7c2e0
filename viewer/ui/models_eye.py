"""The model's eye: the frames a model's sampling policy gives it from the question's video, as a contact
sheet at the model's input resolution, with the red target box outlined (docs/frames.md).

The strip shows the model the browser selected, under its own policy (the state's `frame_policies`, set by
the window's `--frames [NAME=]POLICY`; a prediction record's `frames` field wins for its question); a
policy typed or picked here changes that model's only. The frames are decoded, resized and searched for the
red box in a background job (render/frames_scan.model_sheet, cancellable, with progress), and the scrubber
marks the sampled frames.
"""
from __future__ import annotations

from functools import partial

from PyQt6.QtCore import QRectF, Qt
from PyQt6.QtGui import QColor, QPainter, QPen
from PyQt6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from ..core.frames.sampling import PolicyError, parse_policy
from ..core.state import InspectorState
from ..core.timeline import marked_in_video, video_path
from ..render.video import VideoError
from .images import array_to_qimage
from .jobs import Jobs

POLICIES = ("uniform:8", "uniform:16", "uniform:32", "uniform:8@448", "uniform:32,vlmevalkit", "fps:1",
            "fps:2,max:32", "all")
MIN_THUMB_HEIGHT = 56                   # a short dock: smaller thumbnails, their labels still under them
LABEL_ROOM = 24
OUTLINE = QColor(0, 230, 255)           # the found box, over the red one drawn in the video
SEEN_BG = QColor(255, 235, 235)


class _Sheet(QWidget):
    """The thumbnails side by side: frame number under each, the box outlined, target frames tinted."""

    def __init__(self):
        super().__init__()
        self.sheet = None
        self._images = []
        self.setMinimumHeight(MIN_THUMB_HEIGHT + LABEL_ROOM)

    def set_sheet(self, sheet) -> None:
        self.sheet = sheet
        self._images = [array_to_qimage(im) for im in sheet.images] if sheet is not None else []
        self.setMinimumWidth(self._width())
        self.update()

    def thumb_x(self, k: int) -> int | None:
        """The left edge of frame k's thumbnail, when it is shown."""
        if self.sheet is None or k not in self.sheet.shown:
            return None
        return 4 + self.sheet.shown.index(k) * (self._thumb_width() + 6)

    def _thumb_height(self) -> int:
        """The thumbnails fill the strip's height (the dock's), the frame labels kept under them."""
        return max(MIN_THUMB_HEIGHT, self.height() - LABEL_ROOM)

    def _thumb_width(self) -> int:
        if self.sheet is None:
            return 0
        w, h = self.sheet.size
        return max(1, round(self._thumb_height() * w / h))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.setMinimumWidth(self._width())     # taller, so wider: the strip scrolls across, never down

    def _width(self) -> int:
        return 8 + len(self._images) * (self._thumb_width() + 6)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        if self.sheet is None:
            p.end()
            return
        tw, th = self._thumb_width(), self._thumb_height()
        w, h = self.sheet.size
        target = set(self.sheet.target or ())
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        for i, (img, box, k) in enumerate(zip(self._images, self.sheet.boxes, self.sheet.shown)):
            x = 4 + i * (tw + 6)
            rect = QRectF(x, 4, tw, th)
            if k in target:
                p.fillRect(rect.adjusted(-3, -3, 3, 20), SEEN_BG)
            p.drawImage(rect, img)
            if box is not None:
                s = tw / w
                p.setPen(QPen(OUTLINE, 2, Qt.PenStyle.DashLine))
                p.drawRect(QRectF(x + box[0] * s, 4 + box[1] * s, (box[2] - box[0]) * s, (box[3] - box[1]) * s))
            p.setPen(QColor(40, 40, 40))
            # frame: the box's size at the model's input (short: it must fit under a small thumbnail)
            label = f"{k}" + (f": {round(box[2] - box[0])}×{round(box[3] - box[1])}" if box else "")
            p.drawText(QRectF(x, 6 + th, tw, 16), Qt.AlignmentFlag.AlignCenter, label)
        p.end()


class ModelsEyePanel(QWidget):
    """Policy picker for the selected model, what it gives (n of N frames at W x H, target in k), and the
    contact sheet."""

    def __init__(self, state: InspectorState, jobs: Jobs, slider=None):
        super().__init__()
        self.state, self.jobs, self.slider = state, jobs, slider
        self.policy = QComboBox(editable=True)
        self.policy.addItems(POLICIES)
        self.policy.setToolTip("The selected model's frame sampling: uniform:N[,vlmevalkit], fps:F[,max:N], "
                               "all, list:FILE; @SIDE or @WxH for its input resolution (docs/frames.md). "
                               "Changes this model's policy only")
        self.policy.lineEdit().editingFinished.connect(self._policy_edited)
        self.policy.activated.connect(lambda _i: self._policy_edited())
        self.model_label = QLabel("Frames")
        self.status = QLabel("")
        self.status.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        top = QHBoxLayout()
        top.addWidget(self.model_label)
        top.addWidget(self.policy)
        top.addWidget(self.status, 1)
        self.sheet = _Sheet()
        self.scroll = scroll = QScrollArea()
        scroll.setWidget(self.sheet)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(scroll, 1)
        self._model: str | None = None
        self._indices_only = False            # the last sheet asked for holds no frames (it was off screen)
        self._on_screen = False               # its dock's tab raised (set_on_screen)
        self._show_policy()
        state.events.question.connect(self.refresh)
        state.events.session.connect(self._model_changed)
        state.events.models.connect(self._model_changed)
        state.events.filter.connect(lambda _f: self._model_changed() if self.state.selected_model != self._model
                                    else None)
        state.events.frame_policies.connect(self._model_changed)

    def set_on_screen(self, shown: bool) -> None:
        """Its dock's tab raised or not (QDockWidget.visibilityChanged: a tabified dock behind another
        still says isVisible()). Raised, the frames not read while it was behind are read now."""
        self._on_screen = shown
        if shown and self._indices_only:
            self.refresh()

    def policy_text(self) -> str:
        """The policy the selected model is given (the state's; the box shows it)."""
        p = self.state.frame_policies.policy_of(self.state.selected_model)
        return p.text if p is not None else ""

    def _show_policy(self) -> None:
        self._model = self.state.selected_model
        self.model_label.setText(f"Frames of {self._model}" if self._model else "Frames")
        if self.policy.currentText() != self.policy_text():
            self.policy.setCurrentText(self.policy_text())

    def _model_changed(self, *_) -> None:
        self._show_policy()
        self.refresh()

    def _policy_edited(self) -> None:
        """The typed or picked policy becomes the selected model's (the others keep theirs)."""
        text = self.policy.currentText().strip()
        if text == self.policy_text():
            return
        try:
            policy = parse_policy(text)
        except PolicyError as e:
            self._show(None, str(e))
            return
        self.state.frame_policies = self.state.frame_policies.with_policy(self.state.selected_model, policy)

    def _show(self, sheet, why: str = "") -> None:
        self.sheet.set_sheet(sheet)
        if self.slider is not None:
            self.slider.set_sampled(sheet.sampled if sheet is not None else ())
        if sheet is None:
            self.status.setText(why)
            return
        w, h = sheet.size
        first = next((k for k in sheet.shown if k in set(sheet.target or ())), None)
        x = self.sheet.thumb_x(first) if first is not None else None
        if x is not None:                    # the first sampled frame that shows the target, in view
            self.scroll.ensureVisible(x, 0, self.sheet._thumb_width() + 40, 0)
        k = sheet.k
        seen = "" if k is None else (f"; target in {k} of the {len(sheet.sampled)} sampled frames"
                                     + (" (the model never saw it)" if k == 0 else ""))
        self.status.setText(f"{len(sheet.sampled)} of {sheet.n_frames} frames at {w}x{h}{seen}"
                            + (f"  ({sheet.note})" if sheet.note else ""))

    def refresh(self, *_) -> None:
        q = self.state.current
        path = video_path(q) if q is not None else None
        if path is None:
            self._show(None, "this question has no video" if q is not None else "")
            return
        try:
            policy, explicit, logged = self.state.model_frames(self.state.selected_model).for_question(q.uid)
        except PolicyError as e:
            self._show(None, str(e))
            return
        if policy is None and explicit is None:
            self._show(None, "no frame policy for this model")
            return
        from ..render.frames_scan import facts_known, model_sheet
        # Off screen (another tab raised): the sampled indices alone, for the scrubber's ticks; the frames are
        # decoded when the sheet comes on screen (set_on_screen), not on every question.
        self._indices_only = not self._on_screen
        if self._indices_only and facts_known(path):
            # A video measured before: the indices are arithmetic, shown now. A job would land after the
            # question's first paint and repaint the window (scrubber, status bar's busy bar) once more.
            self.jobs.cancel_lane("models_eye")          # a job still running for this lane is stale
            try:
                sheet = model_sheet(path, policy, marked_in_video(q), logged=logged, explicit=explicit,
                                    images=False)
            except (PolicyError, VideoError) as e:
                self._show(None, str(e))
                return
            self._show(sheet)
            return
        self.status.setText("reading frames…")
        self.jobs.submit(partial(model_sheet, logged=logged, explicit=explicit, images=not self._indices_only),
                         path, policy, marked_in_video(q),
                         lane="models_eye", scope="question", with_progress=True, label="the model's eye",
                         done=self._show, failed=lambda msg: self._show(None, msg))
