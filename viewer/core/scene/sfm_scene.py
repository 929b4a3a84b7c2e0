"""A structure-from-motion result served as a scene: aligned to the map by the release's answers.

For a release that ships no 3D metadata (GST-Bench as published), a cached
SfM result of a scene's video (`sfm_result.py`, made by `gst-viewer
reconstruct`) becomes a gst-scene/1 Scene: the video track's poses per frame
and intrinsics, the localised query views as viewpoints, the sparse point
cloud, and the answers' map with the affine of the alignment (`align.py`).
The scene's `provenance` says so on every map and in the 3D tab.

The answers are read generically: each question that has a view asks the
release's benchmark what the other answers say about it (`Benchmark.inferred`:
its view's place and heading on the map, its target's place, the map's size
and scale), so no benchmark's task names appear here. With fewer than 2
usable position answers the scene is served in the model's own frame with no
map (3D only), and its provenance says why.

`SfmCacheSource` is the scene source (`sources.SOURCE_KINDS`): it is asked
after the release's own scene files, so real ones win.
"""
from __future__ import annotations

import os
import threading
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import geometry as geo
from ..column import EGOCENTRIC, Columns
from ..media import within
from .align import Alignment, Anchor, align, floor_frame
from .model import Box3, Instance, Scene, TopdownMap, VideoTrack, Viewpoint
from .sfm_result import (
    PIPELINE_VERSION,
    SfmResult,
    indexed_results,
    load_sfm_result,
    sfm_cache_dir,
    sfm_cache_file,
)
from .walks import Walk, release_walks

MAP_NAME = "answers"            # the map the answers place things on
TARGET_SIZE_M = (0.5, 0.5, 0.8)     # a target placed by its answers has no extent: an estimated box
WEAK_POSITIONS = 3                  # an alignment on fewer agreeing places is said to be weak
MIN_RAY_ANGLE = 15.0                # degrees: rays crossing at less do not place a target
EGO_DIRECTION = Columns(kind="angle", frame=EGOCENTRIC, has_target=True, has_view=True)


@dataclass
class SceneAnswers:
    """What a scene's questions say, gathered per query view for the alignment."""
    anchors: list[Anchor] = field(default_factory=list)
    views: dict[str, tuple[str, str]] = field(default_factory=dict)    # group -> (viewpoint id, image path)
    targets: dict[str, np.ndarray] = field(default_factory=dict)        # target id -> map pixels
    metres_per_px: float | None = None
    map_size: tuple[int, int] | None = None
    map_image: str | None = None
    scale_note: str = ""


def _image_key(path: str, root: Path) -> str:
    return Path(os.path.relpath(path, root)).as_posix()


def query_pose(result: SfmResult, image: str, root: Path):
    """The result's localisation of a query image (by its path relative to the release, else its name)."""
    q = result.queries.get(_image_key(image, root))
    if q is None:
        name = os.path.basename(image)
        found = [v for k, v in result.queries.items() if os.path.basename(k) == name]
        q = found[0] if len(found) == 1 else None
    return q


def scene_answers(release, scene_id: str, result: SfmResult) -> SceneAnswers:
    """Anchors (the localised query views' position and heading answers) and target places of a scene."""
    out = SceneAnswers()
    seen: set = set()                   # views, and (view, target) pairs, already anchored
    rays: dict[str, list] = {}          # target -> (view, its localised pose, the direction answer, uid)
    gp: dict[str, tuple] = {}           # target -> the questions that placed it
    up = basis_up(result) if result.registered.sum() >= 2 else np.array([0.0, 0.0, 1.0])
    # The columnar scene names first (a record without one takes its uid's: built to be sure).
    for i in (k for k, sid in enumerate(release.scene_of) if sid in (scene_id, "")):
        q = release.question_for_now(i)
        if q.scene != scene_id:
            continue
        inf = release.benchmark.inferred(release, i)
        if inf is None:
            continue
        if out.map_size is None and inf.map_size:
            out.map_size = tuple(inf.map_size)
            if inf.map_question is not None:
                ref = release.questions[inf.map_question].role_image("map")
                out.map_image = ref.path if ref is not None and ref.exists else None
        if out.metres_per_px is None and inf.scale is not None:
            out.metres_per_px = float(inf.scale.metres_per_px)
            out.scale_note = f"the map's scale is weak: {inf.scale.describe()}" if inf.scale.weak else ""
        size = np.asarray(out.map_size or (1000, 1000), float)
        if q.target and inf.target is not None and q.target not in out.targets:
            out.targets[q.target] = inf.target / 1000.0 * size
        column = q.column
        view = q.role_image("view") if column is not None and column.has_view else None
        if view is None or not view.path:
            continue
        group = q.viewpoint or view.name
        pose = query_pose(result, view.path, release.root)
        if pose is None or not pose.localised:
            continue
        uids = {w: tuple(u for what, u in inf.sources if what == w) for w in ("position", "heading", "target")}
        direction = bool(q.target) and EGO_DIRECTION.matches(column) and q.truth.ok
        if direction:
            rays.setdefault(q.target, []).append((group, pose.pose, float(q.truth.value), q.uid))
        if q.target and inf.target is not None:
            gp[q.target] = uids["target"]
            if direction and inf.viewpoint is not None and (group, q.target) not in seen:
                seen.add((group, q.target))
                bearing = _bearing(pose.pose, float(q.truth.value), inf.viewpoint / 1000.0 * size,
                                   inf.target / 1000.0 * size, (q.uid,) + uids["position"] + uids["target"],
                                   group, up)
                if bearing is not None:
                    out.anchors.append(bearing)
        if group in seen:
            continue
        seen.add(group)
        out.views[group] = (q.viewpoint or group, view.path)
        if inf.viewpoint is not None:
            out.anchors.append(Anchor("position", group, pose.pose[:3, 3], inf.viewpoint / 1000.0 * size,
                                      uids["position"]))
        if inf.heading is not None:
            out.anchors.append(Anchor("heading", group, pose.pose[:3, 2], float(inf.heading), uids["heading"]))
    if rays:
        out.anchors += _target_anchors(result, rays, out.targets, gp)
    return out


MIN_BEARING_PX = 30.0               # a target nearer its view on the map gives too rough a bearing


def basis_up(result: SfmResult) -> np.ndarray:
    """The model's up (the floor's normal), as the alignment finds it."""
    return floor_frame(result.poses[result.registered])[0][2]


def _bearing(c2w, ego_deg: float, view_px, target_px, uids, group: str, up) -> Anchor | None:
    """The direction from a view to its target: in the model, the view's forward turned by the direction
    answer (left positive, about up); on the map, from the view's place answer to the target's."""
    dx, dy = np.asarray(target_px, float) - np.asarray(view_px, float)
    if np.hypot(dx, dy) < MIN_BEARING_PX:
        return None
    f = c2w[:3, 2] - (c2w[:3, 2] @ up) * up
    if np.linalg.norm(f) < 1e-9:
        return None
    f /= np.linalg.norm(f)
    a = np.radians(ego_deg)
    model = np.cos(a) * f + np.sin(a) * np.cross(up, f)
    return Anchor("bearing", group, model, float(np.degrees(np.arctan2(-dx, -dy))), tuple(uids))


def _target_anchors(result: SfmResult, rays: dict, places: dict, gp: dict) -> list[Anchor]:
    """Targets placed by their GP answers and triangulated in the model from the direction answers of two or
    more localised views (their rays crossing at MIN_RAY_ANGLE or more, in front of each view)."""
    registered = result.registered
    if registered.sum() < 2:
        return []
    basis, origin = floor_frame(result.poses[registered])
    out = []
    for tid, found in rays.items():
        if tid not in places or len({g for g, *_ in found}) < 2:
            continue
        o = np.array([(pose[:3, 3] - origin) @ basis[:2].T for _, pose, _, _ in found])
        fwd = np.array([pose[:3, 2] @ basis[:2].T for _, pose, _, _ in found])
        a = np.arctan2(fwd[:, 1], fwd[:, 0]) + np.radians([deg for *_, deg, _ in found])   # left = CCW from above
        d = np.column_stack([np.cos(a), np.sin(a)])
        # The point nearest every ray (least squares over the rays' normals).
        n = np.column_stack([-d[:, 1], d[:, 0]])
        A, b = n, np.sum(n * o, axis=1)
        spread = np.degrees(np.abs(np.angle(np.exp(1j * (a[:, None] - a[None, :]))))).max()
        if min(spread, 180 - spread) < MIN_RAY_ANGLE:
            continue
        x = np.linalg.lstsq(A, b, rcond=None)[0]
        if np.any(np.sum((x - o) * d, axis=1) <= 0):
            continue                      # behind a view: the answers or the localisations disagree
        model = origin + basis[:2].T @ x
        out.append(Anchor("position", f"target {tid}", model, places[tid],
                          tuple(gp.get(tid, ())) + tuple(u for *_, u in found)))
    return out


def provenance(alignment: Alignment) -> str:
    if alignment.ok:
        return f"reconstructed from the video (structure from motion), aligned by {alignment.answers} answers"
    n = alignment.positions
    why = (f"{n} usable position answer{'s' if n != 1 else ''}, 2 needed" if n < 2
           else "its answers do not fix an alignment")
    return f"reconstructed from the video (structure from motion), not aligned to the map ({why}): 3D only"


def aligned_scene(release, scene_id: str, result: SfmResult, video_ids: list[str]) -> Scene:
    """The scene `result` shows, aligned to the map by the answers of `scene_id`'s questions."""
    answers = scene_answers(release, scene_id, result)
    al = align(result.poses, answers.anchors, answers.metres_per_px, answers.map_size, result.points)
    scene = Scene(scene_id, str(sfm_cache_dir()))
    scene.alignment = al
    scene.localisations = {g: query_pose(result, image, release.root) for g, (_, image) in answers.views.items()}
    scene.provenance = provenance(al)
    if answers.scale_note:
        scene.diagnostics.info(answers.scale_note, result.video, code="sfm.scale_weak")
    if not al.ok:
        scene.diagnostics.warning(f"{scene.provenance}: {al.why}", result.video, code="sfm.not_aligned")
    elif sum(r.inlier for r in al.residuals if r.anchor.kind == "position") < WEAK_POSITIONS or al.why:
        scene.diagnostics.warning(f"the alignment to the map is weak: {al.describe()}", result.video,
                                  code="sfm.alignment_weak")
    move = al.poses_to_world if al.ok else (lambda p: np.asarray(p, float))
    fps = result.stats.get("fps")
    step = int((result.stats.get("settings") or {}).get("step") or 1)
    poses = move(between_samples(result.poses, step))
    track = lambda vid: VideoTrack(vid, result.video, float(fps) if fps else None,   # noqa: E731
                                   result.intrinsics, poses)
    scene.videos = {vid: track(vid) for vid in video_ids}
    scene.points = al.to_world(result.points) if al.ok else result.points.astype(float)
    scene.point_colors = result.colors
    for vid, image in answers.views.values():
        q = query_pose(result, image, release.root)
        scene.viewpoints[vid] = Viewpoint(vid, move(q.pose), image, result.intrinsics)
    if al.ok:
        W = al.world_to_pixel
        w, h = answers.map_size or (None, None)
        scene.topdown[MAP_NAME] = TopdownMap(MAP_NAME, answers.map_image, "answers", w, h, W)
        for tid, px in answers.targets.items():
            xy = geo.pixel_to_world(W, px)
            size = np.array(TARGET_SIZE_M)
            scene.instances[tid] = Instance(tid, tid, None, Box3([xy[0], xy[1], size[2] / 2], size), True)
    return scene


def between_samples(poses: np.ndarray, step: int) -> np.ndarray:
    """The poses with the frames a run did not sample (every `step`-th was) placed between their registered
    neighbours: the centre on the line between them, the rotation blended and made a rotation again. Without
    it a path sampled every 2nd frame is a NaN every other row, which the map draws as no line at all and the
    camera of the playing frame as absent half the time. A gap longer than `step` (frames the run sampled and
    could not place) stays NaN: the path is broken there, as it should be."""
    out = np.array(poses, float)
    if step <= 1:
        return out
    known = np.flatnonzero(np.isfinite(out).all(axis=(1, 2)))
    for a, b in zip(known[:-1], known[1:]):
        if 1 < b - a <= step:
            for k in range(a + 1, b):
                t = (k - a) / (b - a)
                m = (1 - t) * out[a] + t * out[b]
                u, _, vt = np.linalg.svd(m[:3, :3])
                m[:3, :3] = u @ np.diag([1.0, 1.0, np.linalg.det(u @ vt)]) @ vt
                out[k] = m
    return out


def cached_entries() -> list[tuple[str, str]]:
    """(video, scene or "") of each result the cache holds: from the cache's index (one small file), and from
    the header of a result the index does not list (one written before the index was)."""
    import json
    cache = sfm_cache_dir()
    if not cache.is_dir():
        return []
    indexed = indexed_results(cache)
    out = []
    for path in cache.glob("*.npz"):
        if path.name in indexed:
            out.append(indexed[path.name])
            continue
        try:
            with np.load(path, allow_pickle=False) as z:
                out.append((str(json.loads(str(z["meta"])).get("video", "")), ""))
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
            continue                     # not a result: cache_problem names it
    return out


def cached_videos() -> list[str]:
    """The videos the cache holds results for."""
    return [video for video, _ in cached_entries()]


def cache_problem(video: str) -> str | None:
    """Why the cached result of `video` cannot be served though its file is there (damaged, not a result),
    naming the file; None when there is none or it reads (a result made for an older video is no problem:
    it is made again)."""
    try:
        path, key = sfm_cache_file(video, PIPELINE_VERSION)
    except OSError:
        return None
    if not path.is_file():
        return None
    try:
        load_sfm_result(path, key)
    except ValueError as e:
        return f"{e}; the reconstruction of {video} is not shown (reconstruct it again to replace the file)"
    return None


class SfmCacheSource:
    """Scenes from cached structure-from-motion results of the release's videos (`gst-viewer reconstruct`).
    A walk's result serves its red-box copies too (walks.py). A cache file that cannot be read is skipped here;
    `cache_problem` says why, naming it (the window lists it and offers to reconstruct again)."""

    def __init__(self, release_root: str | Path):
        self.root = Path(release_root)
        self._release = None
        self._walks: dict[str, list[Walk]] | None = None
        self._lock = threading.Lock()

    def _release_walks(self) -> dict[str, list[Walk]]:
        """Per scene, its walks (a video with its red-box copies), read once the cache holds a result of one
        of the release's videos (until then the release is not even read)."""
        with self._lock:
            if self._walks is None:
                root = os.path.realpath(self.root)
                if not any(within(os.path.realpath(v), root) for v in cached_videos()):
                    return {}                   # asked again after a run (`forget`)
                from ..release import load_release, loaded_release
                try:
                    self._release = loaded_release(self.root) or load_release(self.root)
                except Exception:                # noqa: BLE001 - not a release this source can read
                    self._walks = {}
                    return self._walks
                self._walks = release_walks(self._release)
            return self._walks

    def forget(self, scene_id: str) -> None:
        """A result of `scene_id` was made or removed: its cache is looked at again."""
        with self._lock:
            if not self._walks:
                self._walks = None

    def _cached(self, scene_id: str) -> tuple[SfmResult, list[str]] | None:
        for walk in self._release_walks().get(scene_id, []):
            for video in walk.files:                # a copy reconstructed on its own serves the walk too
                try:
                    path, key = sfm_cache_file(video, PIPELINE_VERSION)
                except OSError:
                    continue
                if not path.is_file():
                    continue
                try:
                    result = load_sfm_result(path, key)
                except ValueError:
                    continue                    # damaged: cache_problem names it
                if result is not None:
                    return result, walk.ids
        return None

    def available(self) -> list[str]:
        """Scenes with a cache file for one of their videos (read only when loaded). The cache's index names
        the scene of each result a job of this release made, so the release is not read here (the window
        asks on its GUI thread); only a result the index does not place makes it read the release's walks."""
        root = os.path.realpath(self.root)
        mine = [(v, s) for v, s in cached_entries() if within(os.path.realpath(v), root)]
        if all(s for _, s in mine):
            return sorted({s for _, s in mine})

        def cached(video: str) -> bool:
            try:
                return sfm_cache_file(video, PIPELINE_VERSION)[0].is_file()
            except OSError:
                return False
        return sorted(sid for sid, walks in self._release_walks().items()
                      if any(cached(v) for w in walks for v in w.files))

    def load(self, scene_id: str) -> Scene | None:
        found = self._cached(scene_id)
        if found is None:
            return None
        return aligned_scene(self._release, scene_id, *found)

    def mesh(self, scene_id: str):
        return None            # a sparse cloud, no surface: the 3D tab draws its points
