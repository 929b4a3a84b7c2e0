"""The video scrubber's marks: where the question's target is seen, its best frame, and the current view.

`TimelineSlider` is the player's slider, painting the marks under its groove.
`TimelineMarks` binds them to the state through `core.timeline.target_frames`
(the release's `appear_frames` / `best_frame_idx`, else ray-cast visibility
when the scene is known, run as a job so the GUI never waits); the current
view's nearest video frame is marked too. B jumps to the best frame.
"""
from __future__ import annotations

from PyQt6.QtCore import QLine, QPointF, QRect, Qt
from PyQt6.QtGui import QColor, QPainter, QPen, QPolygonF
from PyQt6.QtWidgets import QSlider, QStyle, QStyleOptionSlider

from ..core.state import InspectorState
from ..core.timeline import TargetFrames, can_search, nearest_frame, target_frames
from . import style

SEEN = QColor(style.TARGET)
BEST = QColor(style.TARGET).darker(140)
VIEW = QColor(style.VIEWPOINT)
SAMPLED = QColor(60, 60, 60)             # the frames the model's policy samples (ui/models_eye.py)


class TimelineSlider(QSlider):
    """A horizontal slider with marks: target-seen frames (thin red ticks), the best frame (a tall red tick)
    and the current view's nearest frame (a blue triangle)."""

    def __init__(self, parent=None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.seen: tuple[int, ...] = ()
        self.best: int | None = None
        self.view_frame: int | None = None
        self.sampled: tuple[int, ...] = ()
        self.setMinimumHeight(26)

    def set_sampled(self, frames=()) -> None:
        """The frames a model's sampling policy gives it (ui/models_eye.py): short ticks above the groove."""
        self.sampled = tuple(frames)
        self.update()

    def set_marks(self, seen=(), best: int | None = None, view_frame: int | None = None) -> None:
        self.seen, self.best, self.view_frame = tuple(seen), best, view_frame
        self.update()

    def frame_x(self, k: int) -> int:
        """The x of frame k's tick, in widget pixels (as the handle would stand)."""
        return self._frame_xs([k])[0]

    def _frame_xs(self, frames) -> list[int]:
        """The x of each frame's tick; the style's groove and handle are asked once, not per tick (a paint
        draws one tick per frame seen or sampled, hundreds on a long video)."""
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        groove = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                             QStyle.SubControl.SC_SliderGroove, self)
        handle = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                             QStyle.SubControl.SC_SliderHandle, self)
        span = max(groove.width() - handle.width(), 1)
        x0, lo, hi = groove.left() + handle.width() // 2, self.minimum(), self.maximum()
        return [x0 + QStyle.sliderPositionFromValue(lo, hi, k, span) for k in frames]

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self.maximum() <= self.minimum():
            return
        p = QPainter(self)
        h = self.height()
        lo, hi = self.minimum(), self.maximum()
        p.setPen(QPen(SEEN, 1))
        p.drawLines([QLine(x, h - 5, x, h - 1) for x in self._frame_xs([k for k in self.seen if lo <= k <= hi])])
        p.setPen(QPen(SAMPLED, 1))
        p.drawLines([QLine(x, 7, x, 11) for x in self._frame_xs([k for k in self.sampled if lo <= k <= hi])])
        if self.best is not None and self.minimum() <= self.best <= self.maximum():
            x = self.frame_x(self.best)
            p.fillRect(QRect(x - 1, h - 9, 3, 9), BEST)
        if self.view_frame is not None and self.minimum() <= self.view_frame <= self.maximum():
            x = self.frame_x(self.view_frame)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(VIEW)
            p.drawPolygon(QPolygonF([QPointF(x - 4, 0), QPointF(x + 4, 0), QPointF(x, 6)]))
        p.end()


class TimelineMarks:
    """Keeps the player's slider marks right for the state's question.

    It follows `geometry` alone: the state clears it whenever the question or
    the release changes, before any widget hears of them, and the geometry
    loader sets the new question's. Listening to `question` too would make the
    marks depend on which listener runs first: a scene read before links the
    new question while `question` is still being announced, so a clear on
    `question` could come after the marks (issue 28: only a scene's first
    question had its marks and B).
    """

    def __init__(self, state: InspectorState, jobs, slider: TimelineSlider):
        self.state, self.jobs, self.slider = state, jobs, slider
        self.target: TargetFrames | None = None
        self.view_frame: int | None = None
        state.events.geometry.connect(self._geometry)

    def _clear(self) -> None:
        self.target, self.view_frame = None, None
        self.slider.set_marks()

    def _geometry(self, g) -> None:
        q = self.state.current
        self._clear()
        if g is None or q is None:
            return
        if g.video is not None:
            self.view_frame = nearest_frame(g.video.poses, g.viewpoint.pose if g.viewpoint is not None else None)
        self.target = target_frames(q, g)
        self._show()
        if self.target is None and can_search(q, g):
            # the red box in a visual question's video (a release without 3D has no other), else ray casting
            from ..render.target_frames import find_target_frames
            self.jobs.submit(find_target_frames, q, g, lane="timeline", scope="question", with_progress=True,
                             label="finding the target in the video",
                             done=lambda frames, g=g: self._ray_cast(g, frames), failed=lambda _msg: None)

    def _ray_cast(self, g, frames: TargetFrames | None) -> None:
        if self.state.geometry is not g:
            return                       # another question's, or the same one shown again since
        self.target = frames
        self._show()

    def _show(self) -> None:
        t = self.target
        self.slider.set_marks(t.frames if t else (), t.best if t else None, self.view_frame)

    def jump_to_best(self) -> tuple[bool, str]:
        """Show the target's best frame: (done, what the status bar says either way)."""
        t = self.target
        if t is None or t.best is None:
            return False, "no frame of this video is known to show the target"
        self.state.frame = t.best
        return True, f"frame {t.best + 1}: the target seen best, by {t.source_text} " \
                     f"({len(t.frames)} frame{'s' if len(t.frames) != 1 else ''} show it)"
