"""The exploration video: play/pause, frame step, scrubber, speed; frames decoded lazily off the GUI thread.

The frame on screen is the state's `frame` (the map and 3D view follow it);
setting `frame` seeks the video.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

from PyQt6.QtCore import QTimer, pyqtSignal
from PyQt6.QtGui import QImage
from PyQt6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from ..core.state import InspectorState
from .image_pane import ImagePane
from .images import array_to_qimage
from .jobs import Jobs
from .timeline import TimelineSlider

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)


class FrameSource:
    """Open video readers by path, used from pool threads one decode at a time."""

    def __init__(self, max_open: int = 4, max_first: int = 256):
        self._readers: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()
        self._max_open = max_open
        # First frames by path, so coming back to a sample shows its video at once.
        self._first: OrderedDict[str, tuple] = OrderedDict()
        self._first_lock = threading.Lock()
        self._max_first = max_first

    def first_frame(self, path: str) -> tuple[int, QImage, int, float] | None:
        with self._first_lock:
            return self._first.get(path)

    def decode(self, path: str, index: int) -> tuple[int, QImage, int, float, str | None]:
        """(index actually decoded, frame, frame count, fps, what is wrong with the file); VideoError when it
        cannot."""
        from ..render.video import VideoReader
        with self._lock:
            reader = self._readers.get(path)
            if reader is None:
                reader = VideoReader(path)
                self._readers[path] = reader
                while len(self._readers) > self._max_open:
                    self._readers.popitem(last=False)[1].close()
            self._readers.move_to_end(path)
            frame = reader.frame(index)
            index = min(max(index, 0), reader.n_frames - 1)
            result = (index, array_to_qimage(frame), reader.n_frames, reader.fps, reader.problem)
        if index == 0:
            with self._first_lock:
                self._first[path] = result
                if len(self._first) > self._max_first:
                    self._first.popitem(last=False)
        return result


class VideoPlayer(QWidget):
    # (level, text) for the Problems list: a video that is cut or cannot be played, once per file.
    problem = pyqtSignal(str, str)

    def __init__(self, state: InspectorState, jobs: Jobs, parent=None):
        super().__init__(parent)
        self._said: set[str] = set()
        self.state = state
        self.jobs = jobs
        self.source = FrameSource()
        self.path: str | None = None
        self.n_frames = 0
        self.fps = 10.0
        self.current = -1               # frame on screen
        self._wanted: int | None = None
        self._in_flight = False
        self._boxes: dict[int, tuple] = {}

        self.pane = ImagePane("no video")
        self.play_button = QToolButton(text="▶", toolTip="Play / pause (space)")
        self.back_button = QToolButton(text="◀|", toolTip="Previous frame (,)")
        self.next_button = QToolButton(text="|▶", toolTip="Next frame (.)")
        self.slider = TimelineSlider()            # marks where the target is seen (ui/timeline.py)
        self.slider.setRange(0, 0)
        self.speed = QComboBox(toolTip="Playback speed")
        for s in SPEEDS:
            self.speed.addItem(f"{s:g}×", s)
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.label = QLabel("–")
        self.label.setMinimumWidth(130)
        # What is wrong with the file on screen ("frames 1–154 of 337 decodable; the file is cut").
        self.notice = QLabel(wordWrap=True)
        self.notice.setStyleSheet("color: #b35c00;")
        self.notice.hide()

        # The scrubber on its own row, as wide as the video (a few hundred frames need the pixels);
        # the buttons, the frame count and the speed under it.
        scrub = QHBoxLayout()
        scrub.setContentsMargins(4, 0, 4, 0)
        scrub.addWidget(self.slider, 1)
        controls = QHBoxLayout()
        controls.setContentsMargins(4, 0, 4, 0)
        for w in (self.back_button, self.play_button, self.next_button):
            controls.addWidget(w)
        controls.addWidget(self.label, 1)
        controls.addWidget(self.speed)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.pane, 1)
        lay.addWidget(self.notice)
        lay.addLayout(scrub)
        lay.addLayout(controls)

        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)
        self.play_button.clicked.connect(self.toggle_play)
        self.back_button.clicked.connect(lambda: self.step(-1))
        self.next_button.clicked.connect(lambda: self.step(+1))
        self.slider.valueChanged.connect(self.seek)
        self.speed.currentIndexChanged.connect(lambda _: self._retime())
        self._set_enabled(False)
        state.events.frame.connect(self._frame_wanted)
        state.events.session.connect(lambda *_: self._said.clear())     # a new session's Problems list is new

    def _frame_wanted(self, index: int) -> None:
        if self.n_frames and index != self.current:
            self.seek(index)

    # -------------------------------------------------------------- source
    def set_video(self, path: str | None, message: str = "", fps: float | None = None,
                  boxes: dict[int, tuple] | None = None) -> None:
        """Show a video, or `message` saying why there is none."""
        self.pause()
        self._boxes = dict(boxes or {})
        if path == self.path and path is not None and self.n_frames:
            self.seek(0)
            return
        self.path, self.n_frames, self.current, self._wanted = path, 0, -1, None
        self.state.frame = 0
        self.fps = fps or 10.0
        first = self.source.first_frame(path) if path is not None else None
        if first is not None:
            # Decoded before: shown now, the controls left enabled and the scrubber's range set once (turned
            # off and on again, the buttons, the speed box and the scrubber each repainted at every question).
            self._show(*first)
            return
        self.slider.blockSignals(True)
        self.slider.setRange(0, 0)
        self.slider.setValue(0)
        self.slider.blockSignals(False)
        self._set_enabled(False)
        self._set_notice(None)
        if path is None:
            self.pane.set_message(message or "no video")
            self.label.setText("–")
            return
        self.pane.set_message("decoding…")
        self._request(0)

    def set_boxes(self, boxes: dict[int, tuple]) -> None:
        """Target boxes to draw, by frame index (image pixels x0, y0, x1, y1)."""
        self._boxes = dict(boxes)
        self.pane.set_box(self._boxes.get(self.current))

    def _set_enabled(self, on: bool) -> None:
        for w in (self.play_button, self.back_button, self.next_button, self.slider, self.speed):
            w.setEnabled(on)

    # ------------------------------------------------------------ controls
    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def toggle_play(self) -> None:
        self.pause() if self.playing else self.play()

    def play(self) -> None:
        if not self.n_frames:
            return
        if self.current >= self.n_frames - 1:
            self.seek(0)
        self._retime()
        self.timer.start()
        self.play_button.setText("❚❚")

    def pause(self) -> None:
        self.timer.stop()
        self.play_button.setText("▶")

    def _retime(self) -> None:
        self.timer.setInterval(max(int(1000 / (self.fps * self.speed.currentData())), 5))

    def step(self, delta: int) -> None:
        if self.n_frames:
            self.seek(min(max(self.slider.value() + delta, 0), self.n_frames - 1))

    def seek(self, index: int) -> None:
        if self.path is None:
            return
        if self.slider.value() != index:
            self.slider.blockSignals(True)
            self.slider.setValue(index)
            self.slider.blockSignals(False)
        self._request(index)

    def _tick(self) -> None:
        if self._in_flight:
            return                                   # decoding is behind: drop this tick
        if self.current >= self.n_frames - 1:
            self.pause()
            return
        self.seek(self.current + 1)

    # ------------------------------------------------------------ decoding
    def _request(self, index: int) -> None:
        self._wanted = index
        if self._in_flight:
            return                                   # the newest request is sent when this one lands
        if index == 0 and self.path is not None:
            first = self.source.first_frame(self.path)
            if first is not None:
                # The next question of the same video starts at its first frame, decoded before: shown now,
                # in the question's one paint, rather than by a job landing after it.
                self._wanted = None
                self._show(*first)
                return
        self._in_flight = True
        path = self.path
        self.jobs.submit(self.source.decode, path, index, label="decoding video",
                         done=lambda res, p=path: self._decoded(p, res),
                         failed=lambda msg, p=path: self._failed(p, msg))

    def _decoded(self, path: str, result) -> None:
        self._in_flight = False
        if path != self.path:
            if self.path is not None and self._wanted is not None:
                self._request(self._wanted)
            return
        self._show(*result)
        if self._wanted is not None and min(self._wanted, self.n_frames - 1) != self.current:
            self._request(self._wanted)

    def _set_notice(self, problem: str | None) -> None:
        self.notice.setText(f"⚠ {problem}" if problem else "")
        self.notice.setVisible(bool(problem))
        if problem and self.path is not None:
            self.notice.setToolTip(self.path)
            self._say(f"{self.path}: {problem}")

    def _say(self, text: str) -> None:
        if text not in self._said:
            self._said.add(text)
            self.problem.emit("error", text)

    def _show(self, index: int, image: QImage, n_frames: int, fps: float, problem: str | None = None) -> None:
        if problem != (self.notice.text()[2:] or None):
            self._set_notice(problem)
        first = not self.n_frames
        self.n_frames = n_frames
        if first:
            self.fps = fps or self.fps
            self.slider.blockSignals(True)
            self.slider.setRange(0, n_frames - 1)
            self.slider.setValue(index)
            self.slider.blockSignals(False)
            self._set_enabled(True)
        self.current = index
        self.pane.set_image(image)
        self.pane.set_box(self._boxes.get(index))
        seconds = index / self.fps if self.fps else 0
        self.label.setText(f"{index + 1} / {n_frames}  ·  {seconds:.1f} s")
        self.state.frame = index

    def _failed(self, path: str, message: str) -> None:
        self._in_flight = False
        if path != self.path:
            if self.path is not None and self._wanted is not None:
                self._request(self._wanted)
            return
        self.pause()
        if self.n_frames:
            self.label.setText(f"frame {self._wanted}: cannot decode")
            self._set_notice(message.removeprefix(f"{path}: "))
        else:
            self.pane.set_message(f"The video cannot be played.\n{message}")
            self._set_enabled(False)
            self._say(message if path in message else f"{path}: {message}")
        self._wanted = None
