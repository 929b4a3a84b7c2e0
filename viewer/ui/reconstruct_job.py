"""The window's structure-from-motion job: "Reconstruct the camera path from the video" for the question's scene.

On a release without 3D the map shows what the answers infer, and no camera path. This controller offers to
recover the path from the question's walkthrough video (`render/sfm`, pycolmap: the [sfm] extra): from the
File menu and the command palette, and as a button on the map's bar where the path would be. It runs through
the window's `Jobs` (on the long-work thread; scope "session": the user may look at other questions meanwhile,
another release drops it and stops the run), says its stage and per cent on that button and in the status bar,
and is cancelled by the button, the menu or the status bar's Cancel. The result is cached where `gst-viewer
reconstruct` caches it (`cached_reconstruction`, written only when a run finished, so a cancelled one leaves
nothing); a red-box copy's question runs its walk's original (core/scene/walks.py). When it finishes, the scene
is read again (`GeometryLoader.scene_changed`), so the map and the 3D tab show the path at once. A failure
(pycolmap missing, too few features, an undecodable video) is said naming the file, on the status bar and in
Problems, and the window goes on; so is a cached result that cannot be read (`sfm_scene.cache_problem`).
"""
from __future__ import annotations

import os
import time
from dataclasses import replace

from PyQt6.QtCore import QObject, QTimer, pyqtSignal
from PyQt6.QtGui import QAction
from PyQt6.QtWidgets import QToolButton

from ..core.diagnostics import UserError
from ..core.state import InspectorState
from .geometry_loader import GeometryLoader
from .jobs import CANCELLED, Cancelled, Jobs

START_TEXT = "Reconstruct the camera path from the video"
BUTTON_TEXT = "Reconstruct the path"


def reconstruct_walk(release, scene: str, video: str, progress, cancelled):
    """Worker: the walk of `scene` holding `video` reconstructed (or read from the cache), as (job, result,
    cached); UserError naming the file when it cannot be."""
    from ..core.scene.walks import walk_jobs
    from ..render.sfm import Cancelled as SfmCancelled
    from ..render.sfm import SfmError, SfmSettings, cached_reconstruction
    from ..render.video import same_frame_count
    progress(0, 0, "finding the walk")
    jobs = walk_jobs(release, {scene}, video, same_walk=same_frame_count)
    if not jobs:
        raise UserError(f"{video}: no question of scene {scene} shows this video")
    job = jobs[0]
    settings = replace(SfmSettings(), intrinsics=job["intrinsics"])
    try:
        result, cached = cached_reconstruction(job["video"], job["queries"], settings,
                                               progress=lambda stage, done, total: progress(done, total, stage),
                                               cancel=cancelled)
    except SfmCancelled:
        raise Cancelled() from None
    except SfmError as e:
        text = str(e)
        raise UserError(text if job["video"] in text else f"{job['video']}: {text}") from None
    from ..core.scene.sfm_result import note_scene
    note_scene(job["video"], scene)            # the scene source then finds it without reading the release
    return job, result, cached


class ReconstructJob(QObject):
    message = pyqtSignal(str)            # for the status bar
    problem = pyqtSignal(str, str)       # (level, text) for Problems
    ended = pyqtSignal(str)              # "done", "cancelled" or the failure's message

    def __init__(self, state: InspectorState, jobs: Jobs, loader: GeometryLoader, button: QToolButton,
                 parent: QObject):
        super().__init__(parent)
        self.state, self.jobs, self.loader, self.button = state, jobs, loader, button
        self.token: int | None = None
        self.running: tuple[str, str] | None = None        # (scene, video file) of the run under way
        self.progress_text = ""
        self._summary: tuple[str, str] | None = None       # (scene, what the finished run found)
        self._stage, self._started = "", 0.0
        # Some stages report only their start (pycolmap's feature extraction and matching run as one call):
        # the time since the run began, every second, says it is alive.
        self._clock = QTimer(self, interval=1000)
        self._clock.timeout.connect(self._tick)
        self._said: set[str] = set()                        # cache problems already listed this session
        self.start_action = QAction(START_TEXT, parent)
        self.start_action.setToolTip("Structure from motion on the question's walkthrough video (pycolmap); "
                                     "the result is cached and shown on the map and in 3D")
        self.start_action.triggered.connect(lambda _=False: self.start())
        self.start_action.setEnabled(False)                # until a question without a path is shown
        self.cancel_action = QAction("Cancel the reconstruction", parent, enabled=False)
        self.cancel_action.triggered.connect(lambda _=False: self.cancel())
        button.clicked.connect(lambda _=False: self.cancel() if self.token is not None else self.start())
        button.hide()
        # Before the views (priority): the browser shows the new release's first question within the same
        # emission, and a cache problem said for it must not be forgotten after (it was said twice).
        state.events.session.connect(self._session_changed, priority=1)
        state.events.geometry.connect(lambda _g: self._show())

    # ------------------------------------------------------------ what is offered
    def _offer(self) -> tuple[str, str] | None:
        """(scene, video) the shown question can be reconstructed from: it has a video and its scene has no
        3D of its own and no reconstruction served yet (a scene's geometry arrives first)."""
        q, g = self.state.current, self.state.geometry
        if q is None or g is None or q.video is None or not q.video.exists or not q.video.path:
            return None
        return (q.scene, q.video.path) if g.scene is None else None

    def _show(self) -> None:
        q, g = self.state.current, self.state.geometry
        if self._summary is not None and q is not None and g is not None and g.scene is not None \
                and q.scene == self._summary[0]:
            self.message.emit(self._summary[1])
            self._summary = None
        if self.token is not None:
            self.button.setText(f"Cancel ({self.progress_text})" if self.progress_text else "Cancel")
            self.button.setToolTip(f"reconstructing {os.path.basename(self.running[1])}: {self.progress_text}; "
                                   "click to cancel (nothing is cached)")
            self.button.show()
            return
        offer = self._offer()
        self.start_action.setEnabled(offer is not None)
        self.button.setVisible(offer is not None)
        if offer is None:
            return
        self.button.setText(BUTTON_TEXT)
        self.button.setToolTip(f"No camera path: this release has no 3D for {offer[0]}. Recover it from "
                               f"{os.path.basename(offer[1])} by structure from motion (a few minutes; cached)")
        from ..core.scene.sfm_scene import cache_problem
        problem = cache_problem(offer[1])       # a stat and, when a file is there, its header
        if problem:
            self.button.setToolTip(f"{problem}. {self.button.toolTip()}")
            if problem not in self._said:
                self._said.add(problem)
                self.problem.emit("error", problem)
                self.message.emit(problem)

    # ------------------------------------------------------------ the run
    def start(self) -> None:
        if self.token is not None:
            self.message.emit(f"already reconstructing {self.running[1]} ({self.progress_text})")
            return
        offer = self._offer()
        if offer is None:
            q = self.state.current
            g = self.state.geometry
            why = ("select a question with a video" if q is None or q.video is None or not q.video.exists
                   else f"scene {q.scene} has its camera path already" if g is not None and g.scene is not None
                   else "the question's scene is still being read")
            self.message.emit(f"nothing to reconstruct: {why}")
            return
        scene, video = offer
        self.running = (scene, video)
        self._stage, self._started = "starting", time.monotonic()
        self.progress_text = self._stage
        self._clock.start()
        self.token = self.jobs.submit(reconstruct_walk, self.state.session.release, scene, video,
                                      scope="session", label=f"reconstructing {os.path.basename(video)}",
                                      with_progress=True, with_cancel=True, long=True,
                                      progressed=self._progressed, done=self._done, failed=self._failed)
        self.cancel_action.setEnabled(True)
        self.start_action.setEnabled(False)
        self.message.emit(f"reconstructing {video} (structure from motion)…")
        self._show()

    def cancel(self) -> None:
        if self.token is not None:
            self.jobs.cancel(self.token)           # calls _failed(CANCELLED) now; the run stops at its next check
        if self.token is not None:                 # its release was closed: Jobs dropped it unsaid
            self._finish()
            self._show()

    def _progressed(self, done: int, total: int, stage: str) -> None:
        self._stage = f"{stage} {100 * done // total} %" if total > 1 or total and done else stage
        self._tick()

    def _tick(self) -> None:
        if self.running is None:
            return
        seconds = int(time.monotonic() - self._started)
        self.progress_text = f"{self._stage} · {seconds // 60}:{seconds % 60:02d}"
        self.message.emit(f"reconstructing {os.path.basename(self.running[1])}: {self.progress_text}")
        self._show()

    def _finish(self) -> tuple[str, str]:
        ran = self.running
        self.token, self.running, self.progress_text = None, None, ""
        self._clock.stop()
        self.cancel_action.setEnabled(False)
        return ran

    def _done(self, payload) -> None:
        scene, _ = self._finish()
        job, result, cached = payload
        s = result.stats
        name = os.path.basename(job["video"])
        localised = sum(q.localised for q in result.queries.values())
        copies = f"; it serves its {len(job['copies'])} red-box copies too" if job["copies"] else ""
        how = "read from the cache" if cached else f"{s.get('wall_seconds', 0):.0f} s"
        sampled = int(s.get("sampled_frames") or result.frame_count)
        summary = (f"{name}: {int(result.registered.sum())} of {sampled} sampled frames placed, "
                   f"{localised} of {len(result.queries)} query views localised ({how}){copies}")
        self.message.emit(summary)
        self._summary = (scene, summary)           # said again once the scene is shown (after its problems)
        self.loader.scene_changed(scene)
        self._show()
        self.ended.emit("done")

    def _failed(self, message: str) -> None:
        _, video = self._finish()
        if message == CANCELLED:
            self.message.emit(f"reconstruction of {video} cancelled; nothing cached")
        else:
            text = message if video in message else f"{video}: {message}"
            self.message.emit(f"cannot reconstruct: {text}")
            self.problem.emit("error", f"cannot reconstruct the camera path: {text}")
        self._show()
        self.ended.emit(message)

    def _session_changed(self) -> None:
        self._said.clear()
        self._summary = None
        self.cancel()                 # another release: its result would be dropped anyway
