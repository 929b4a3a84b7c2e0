"""Frames of a question's exploration video: decoded from its file, or ray cast from its poses.

Exports (figures, clips, slides) need video frames even from a release that
ships no video: when the scene metadata has the video's camera poses and
intrinsics and the scene has geometry, the frames are rendered from the
scene instead, and the export says so. When neither works, `open_frames`
says why in one line.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.scene.model import QuestionGeometry
from .video import VideoError, VideoReader

RENDER_MAX_SIDE = 640          # rendered frames: enough for a half-screen pane


@dataclass
class FrameSource:
    kind: str                    # "video" or "rendered"
    n_frames: int
    fps: float
    note: str                    # shown on exports: where the frames come from, and what is wrong with them
    problem: str = ""            # what is wrong with the question's video file ("" when nothing): said on stderr

    def frame(self, k: int) -> np.ndarray:   # (h, w, 3) uint8 RGB
        raise NotImplementedError

    def close(self) -> None:
        pass


class VideoFrames(FrameSource):
    def __init__(self, path: str, fps_hint: float | None = None):
        self.reader = VideoReader(path)
        fps = self.reader.fps if self.reader.fps > 0 else (fps_hint or 10.0)
        problem = f"{path}: {self.reader.problem}" if self.reader.problem else ""
        super().__init__("video", self.reader.n_frames, fps, problem, problem)

    def frame(self, k: int) -> np.ndarray:
        """Frame k; one that cannot be decoded after all is drawn black, and said in `problem`."""
        try:
            return self.reader.frame(k)
        except VideoError as e:
            if str(e) not in self.problem:
                self.problem = self.note = "; ".join(p for p in (self.problem, str(e)) if p)
            return np.zeros((max(1, self.reader.height), max(1, self.reader.width), 3), np.uint8)

    def close(self) -> None:
        self.reader.close()


class RenderedFrames(FrameSource):
    """Frames ray cast from the video track's poses (invalid poses repeat the last good frame)."""

    def __init__(self, raycaster, poses: np.ndarray, intrinsics, fps: float):
        from .raycast import as_intrinsics
        w, h, fx, fy, cx, cy = as_intrinsics(intrinsics)
        s = min(1.0, RENDER_MAX_SIDE / max(w, h))
        self.intr = (max(1, round(w * s)), max(1, round(h * s)), fx * s, fy * s, cx * s, cy * s)
        self.raycaster = raycaster
        self.poses = poses
        self._last: tuple[int, np.ndarray] | None = None
        super().__init__("rendered", len(poses), fps,
                         "no video file: frames rendered from the scene at the video's poses")

    def frame(self, k: int) -> np.ndarray:
        k = min(max(int(k), 0), self.n_frames - 1)
        if self._last is not None and self._last[0] == k:
            return self._last[1]
        valid = np.flatnonzero(np.isfinite(self.poses[: k + 1]).all(axis=(1, 2)))
        if not len(valid):
            img = np.zeros((self.intr[1], self.intr[0], 3), np.uint8)
        else:
            img = self.raycaster.render_view(self.poses[valid[-1]], self.intr).color
        self._last = (k, img)
        return img


def open_frames(question, geometry: QuestionGeometry | None, assets=None) -> tuple[FrameSource | None, str]:
    """The question's video frames and "" — or None and why there are none.

    Order: the question's own video file; the scene's video track file; frames
    rendered from the track's poses (needs `assets`, a SceneAssets, for the mesh).
    """
    problems = []
    track = geometry.video if geometry is not None else None
    paths = []
    if question.video is not None and question.video.exists:
        paths.append(question.video.path)
    elif question.video is not None:
        problems.append(f"video {question.video.name!r}: {question.video.problem or 'missing'}")
    if track is not None and track.file:
        paths.append(track.file)
    for path in paths:
        try:
            return VideoFrames(path, track.fps if track is not None else None), ""
        except VideoError as e:
            problems.append(str(e))
    if question.video is None and not paths:
        problems.append("the question names no video")
    if track is None:
        problems.append("no video track in the scene metadata to render frames from")
    elif not np.isfinite(track.poses).all(axis=(1, 2)).any() or track.intrinsics is None:
        problems.append(f"video track {track.id!r} has no usable poses and intrinsics to render frames from")
    elif assets is None or geometry.scene is None:
        problems.append("no scene geometry to render frames from")
    else:
        from ..core.diagnostics import UserError
        from .raycast import Raycaster
        try:
            mesh = assets.mesh(geometry.scene)
        except UserError as e:
            problems.append(f"frames cannot be rendered: {e}")
        else:
            caster = mesh._cache.get("view_raycaster")
            if caster is None:
                caster = mesh._cache["view_raycaster"] = Raycaster(mesh)
            rendered = RenderedFrames(caster, track.poses, track.intrinsics, track.fps or 10.0)
            if paths:                     # a video was there but cannot be read: never in its place unsaid
                rendered.problem = "; ".join(dict.fromkeys(problems))
                rendered.note = f"{rendered.problem}: frames rendered from the scene at the video's poses instead"
            return rendered, ""
    return None, "; ".join(dict.fromkeys(problems))
