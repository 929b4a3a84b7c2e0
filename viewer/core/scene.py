"""3D scene metadata: `<release>/scenes/<scene>/scene.json` (spec section 3).

A scene file is user data: every problem in it is reported in the Scene's
diagnostics (file + JSON path + what), the offending part is left out, and
the rest still loads, so the question still shows in 2D.

Poses are stored camera-to-world in the OpenCV convention whatever the file
declares; a pose that is not rigid is reported and replaced by NaN, so frame
k of a video stays pose k (appear_frames index frames).
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .diagnostics import Diagnostics, UserError
from .geometry import opengl_to_opencv, quaternion_to_matrix, rigid_problems
from .media import within
from .textio import parse_json_document, read_text

SCENE_FORMAT = "gst-scene/1"
SCENES_FOLDER = "scenes"
SCENE_FILE = "scene.json"
CONVENTIONS = ("opencv", "opengl")
# Tasks whose answer is placed on a top-down map.
_MAP_KEYS = {"GP_v", "GP_s", "Pos", "Ori"}
_VIEW_KEYS = {"ED_v", "ED_s", "EDist_v", "EDist_s", "Pos", "Ori"}


@dataclass
class Intrinsics:
    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @classmethod
    def from_dict(cls, d: Any) -> "Intrinsics":
        """Raises ValueError with a readable reason when `d` is not valid intrinsics."""
        if not isinstance(d, dict):
            raise ValueError(f"intrinsics must be an object, got {type(d).__name__}")
        missing = [k for k in ("width", "height", "fx", "fy", "cx", "cy") if k not in d]
        if missing:
            raise ValueError(f"intrinsics lack {', '.join(missing)}")
        vals = {k: _number(d[k], f"intrinsics.{k}") for k in ("width", "height", "fx", "fy", "cx", "cy")}
        for k in ("width", "height", "fx", "fy"):
            if vals[k] <= 0:
                raise ValueError(f"intrinsics.{k} must be positive, got {d[k]!r}")
        return cls(int(vals["width"]), int(vals["height"]), vals["fx"], vals["fy"], vals["cx"], vals["cy"])


@dataclass
class Box3:
    translation: np.ndarray      # (3,) centre, world
    size: np.ndarray             # (3,) full extents along the box axes
    rotation: np.ndarray         # (4,) [qx, qy, qz, qw], unit

    @property
    def R(self) -> np.ndarray:
        return quaternion_to_matrix(self.rotation)

    @property
    def center(self) -> np.ndarray:
        return self.translation

    def corners(self) -> np.ndarray:
        """(8, 3) world corners; bit i of the index picks -/+ half size on axis i."""
        signs = np.array([[(k >> i & 1) * 2 - 1 for i in range(3)] for k in range(8)], float)
        return (signs * (self.size / 2)) @ self.R.T + self.translation


@dataclass
class Instance:
    id: str
    semantic: str
    room: str | None
    bbox: Box3 | None


@dataclass
class TopdownMap:
    name: str
    image: str | None                       # absolute path, None when absent or refused
    kind: str
    width: int | None
    height: int | None
    world_to_pixel: np.ndarray | None       # (2, 3); None: shown, but points cannot be placed


@dataclass
class VideoTrack:
    id: str
    file: str | None                        # absolute path, None when absent or refused
    fps: float | None
    intrinsics: Intrinsics | None
    poses: np.ndarray                       # (N, 4, 4) OpenCV camera-to-world; NaN where invalid
    instances: dict[str, dict]              # instance id -> {appear_frames, best_frame_idx, best_bbox}

    @property
    def valid(self) -> np.ndarray:
        """(N,) mask of frames whose pose is usable."""
        return np.isfinite(self.poses).all(axis=(1, 2))


@dataclass
class Viewpoint:
    id: str
    pose: np.ndarray                        # (4, 4) OpenCV camera-to-world
    image: str | None
    intrinsics: Intrinsics | None


@dataclass
class Scene:
    id: str
    folder: str
    camera_convention: str                  # as declared; poses here are already OpenCV
    mesh: str | None
    instances: dict[str, Instance]
    topdown: dict[str, TopdownMap]
    videos: dict[str, VideoTrack]
    viewpoints: dict[str, Viewpoint]
    diagnostics: Diagnostics
    # Entries present in the file but unusable, with the reason, so a question
    # naming one can say why rather than "not found".
    rejected: dict[str, str] = field(default_factory=dict)   # "viewpoint:<id>" -> reason

    @property
    def file(self) -> str:
        return os.path.join(self.folder, SCENE_FILE)


def scene_file(release_root: str | Path, scene_id: str) -> Path:
    return Path(release_root) / SCENES_FOLDER / scene_id / SCENE_FILE


def load_scene(release_root: str | Path, scene_id: str) -> Scene | None:
    """The scene's metadata, or None when the release has no scene.json for it."""
    if not scene_id or scene_id in (".", "..") or any(s in scene_id for s in ("/", "\\", "\0")):
        return None
    path = scene_file(release_root, scene_id)
    if not path.is_file():
        return None
    folder = os.path.normpath(os.path.abspath(path.parent))
    diags = Diagnostics()
    scene = Scene(scene_id, folder, "opencv", None, {}, {}, {}, {}, diags)
    try:
        doc = parse_json_document(read_text(path, diags), path, diags)
    except UserError as e:
        diags.error(str(e).split(": ", 1)[-1], path)
        return scene
    if doc is None:
        return scene
    if not isinstance(doc, dict):
        diags.error(f"scene.json must be a JSON object, got {type(doc).__name__}", path)
        return scene
    _Reader(scene, str(path)).read(doc)
    return scene


class SceneLibrary:
    """Scenes of one release, loaded on first use and cached (also the absent ones)."""

    def __init__(self, release_root: str | Path):
        self.root = Path(release_root)
        self._cache: dict[str, Scene | None] = {}
        self._lock = threading.Lock()

    def get(self, scene_id: str) -> Scene | None:
        with self._lock:
            if scene_id not in self._cache:
                self._cache[scene_id] = load_scene(self.root, scene_id)
            return self._cache[scene_id]

    def available(self) -> list[str]:
        """Scene ids that have a scene.json, without loading them."""
        folder = self.root / SCENES_FOLDER
        try:
            return sorted(e.name for e in os.scandir(folder)
                          if e.is_dir() and os.path.isfile(os.path.join(e.path, SCENE_FILE)))
        except OSError:
            return []


@dataclass
class QuestionGeometry:
    scene: Scene | None
    video: VideoTrack | None
    viewpoint: Viewpoint | None
    target: Instance | None
    topdown: TopdownMap | None
    problems: list[str] = field(default_factory=list)


def link_question(question, scene: Scene | None) -> QuestionGeometry:
    """The scene objects a question names (via meta or uid), and what is missing."""
    column = question.column
    key = column.key if column else None
    if scene is None:
        return QuestionGeometry(None, None, None, None, None,
                                [f"no scenes/{question.scene}/scene.json in the release"])
    problems: list[str] = []
    where = f"scene {scene.id}"

    video = None
    if question.video_id:
        video = scene.videos.get(question.video_id)
        if video is None:
            problems.append(_absent(scene, "video", question.video_id, where))

    viewpoint = None
    if question.viewpoint:
        viewpoint = scene.viewpoints.get(question.viewpoint)
        if viewpoint is None:
            problems.append(_absent(scene, "viewpoint", question.viewpoint, where))
    elif key in _VIEW_KEYS:
        problems.append("the question names no viewpoint (neither meta nor uid)")

    target = None
    if question.target:
        target = scene.instances.get(question.target)
        if target is None:
            problems.append(f"target {question.target!r} is not an instance of {where}")
        elif target.bbox is None:
            problems.append(f"target {question.target!r} has no usable bbox3 in {where}")
    elif column is not None and column.has_target:
        problems.append("the question names no target (neither meta nor uid)")

    topdown = None
    if question.topdown:
        topdown = scene.topdown.get(question.topdown)
        if topdown is None:
            problems.append(f"top-down map {question.topdown!r} is not in {where}")
    elif scene.topdown:
        topdown = next(iter(scene.topdown.values()))
    elif key in _MAP_KEYS:
        problems.append(f"{where} has no top-down map")
    if topdown is not None and topdown.world_to_pixel is None and key in _MAP_KEYS:
        problems.append(f"top-down map {topdown.name!r} has no world_to_pixel; "
                        "points cannot be placed on it")
    return QuestionGeometry(scene, video, viewpoint, target, topdown, problems)


def _absent(scene: Scene, kind: str, name: str, where: str) -> str:
    reason = scene.rejected.get(f"{kind}:{name}")
    if reason:
        return f"{kind} {name!r} of {where} is unusable: {reason}"
    return f"{kind} {name!r} is not in {where}"


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
        raise ValueError(f"{what} must be a finite number, got {v!r}")
    return float(v)


def _vector(v: Any, n: int, what: str) -> np.ndarray:
    if not isinstance(v, (list, tuple)) or len(v) != n:
        raise ValueError(f"{what} must be a list of {n} numbers, got {v!r}")
    return np.array([_number(x, what) for x in v])


class _Reader:
    """Fills a Scene from a parsed scene.json, reporting into its diagnostics."""

    def __init__(self, scene: Scene, path: str):
        self.scene, self.path = scene, path
        self.d = scene.diagnostics

    def error(self, msg: str) -> None:
        self.d.error(msg, self.path)

    def warning(self, msg: str) -> None:
        self.d.warning(msg, self.path)

    def read(self, doc: dict) -> None:
        s = self.scene
        fmt = doc.get("format")
        if fmt is not None and fmt != SCENE_FORMAT:
            self.warning(f"format {fmt!r} is not {SCENE_FORMAT!r}; reading it as {SCENE_FORMAT}")
        if isinstance(doc.get("scene"), str) and doc["scene"] != s.id:
            self.warning(f"'scene' says {doc['scene']!r} but the file is in the folder of {s.id!r}")
        conv = doc.get("camera_convention")
        if conv is None:
            self.warning("no 'camera_convention'; assuming 'opencv'")
        elif not isinstance(conv, str) or conv.lower() not in CONVENTIONS:
            self.error(f"camera_convention {conv!r} is not 'opencv' or 'opengl'; assuming 'opencv'")
        else:
            s.camera_convention = conv.lower()
        geom = doc.get("geometry")
        if isinstance(geom, dict) and geom.get("mesh") is not None:
            s.mesh = self.path_in_scene(geom["mesh"], "geometry.mesh")
        elif geom is not None and not isinstance(geom, dict):
            self.error("'geometry' must be an object")
        self.instances(doc)
        for name, raw in self.table(doc, "topdown").items():
            s.topdown[name] = self.topdown(name, raw)
        for vid, raw in self.table(doc, "videos").items():
            track = self.video(vid, raw)
            if track is not None:
                s.videos[vid] = track
        for vid, raw in self.table(doc, "viewpoints").items():
            vp = self.viewpoint(vid, raw)
            if vp is not None:
                s.viewpoints[vid] = vp

    def table(self, doc: dict, key: str) -> dict:
        raw = doc.get(key)
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            self.error(f"'{key}' must be an object keyed by id, got {type(raw).__name__}; ignored")
            return {}
        return raw

    def path_in_scene(self, declared: Any, what: str) -> str | None:
        """Absolute path of a file named in scene.json; None (reported) if refused or missing."""
        if not isinstance(declared, str) or not declared.strip():
            self.error(f"{what}: expected a relative path, got {declared!r}")
            return None
        if os.path.isabs(declared):
            self.error(f"{what}: absolute path {declared!r} refused (paths are relative to the scene folder)")
            return None
        path = os.path.normpath(os.path.join(self.scene.folder, declared))
        if not within(path, self.scene.folder):
            self.error(f"{what}: path {declared!r} escapes the scene folder; refused")
            return None
        if not os.path.isfile(path):
            self.warning(f"{what}: file {declared!r} not found")
            return None
        return path

    def instances(self, doc: dict) -> None:
        if "instances" not in doc:
            self.error("no 'instances': objects cannot be located in this scene")
            return
        for iid, raw in self.table(doc, "instances").items():
            what = f"instances.{iid}"
            if not isinstance(raw, dict):
                self.error(f"{what} must be an object; skipped")
                continue
            sem = raw.get("semantic")
            room = raw.get("room")
            bbox = None
            if "bbox3" not in raw:
                self.warning(f"{what} has no bbox3; it cannot be located")
            else:
                try:
                    bbox = self.box(raw["bbox3"], f"{what}.bbox3")
                except ValueError as e:
                    self.error(f"{e}; the instance cannot be located")
            self.scene.instances[iid] = Instance(
                iid, sem if isinstance(sem, str) else "", room if isinstance(room, str) else None, bbox)

    def box(self, raw: Any, what: str) -> Box3:
        if not isinstance(raw, dict):
            raise ValueError(f"{what} must be an object")
        t = _vector(raw.get("translation"), 3, f"{what}.translation")
        size = _vector(raw.get("size"), 3, f"{what}.size")
        if (size < 0).any():
            raise ValueError(f"{what}.size must not be negative, got {size.tolist()}")
        q = _vector(raw.get("rotation", [0, 0, 0, 1]), 4, f"{what}.rotation")
        n = np.linalg.norm(q)
        if n < 1e-9:
            raise ValueError(f"{what}.rotation is a zero quaternion")
        return Box3(t, size, q / n)

    def topdown(self, name: str, raw: Any) -> TopdownMap:
        what = f"topdown.{name}"
        if not isinstance(raw, dict):
            self.error(f"{what} must be an object")
            return TopdownMap(name, None, name, None, None, None)
        image = self.path_in_scene(raw["image"], f"{what}.image") if "image" in raw else None
        kind = raw.get("kind") if isinstance(raw.get("kind"), str) else name
        width = height = None
        try:
            width = int(_number(raw.get("width"), f"{what}.width"))
            height = int(_number(raw.get("height"), f"{what}.height"))
            if width <= 0 or height <= 0:
                raise ValueError(f"{what} width and height must be positive")
        except ValueError as e:
            self.error(f"{e}; points cannot be normalised on this map")
            width = height = None
        W = None
        if raw.get("world_to_pixel") is None:
            self.warning(f"{what} has no world_to_pixel; the map shows but points cannot be placed on it")
        else:
            try:
                rows = raw["world_to_pixel"]
                if not isinstance(rows, list) or len(rows) != 2:
                    raise ValueError(f"{what}.world_to_pixel must be 2 rows of 3 numbers")
                W = np.stack([_vector(r, 3, f"{what}.world_to_pixel") for r in rows])
                if abs(np.linalg.det(W[:, :2])) < 1e-12:
                    raise ValueError(f"{what}.world_to_pixel is singular (not invertible)")
            except ValueError as e:
                self.error(f"{e}; points cannot be placed on this map")
                W = None
        return TopdownMap(name, image, kind, width, height, W)

    def intrinsics(self, raw: Any, what: str) -> Intrinsics | None:
        if raw is None:
            return None
        try:
            return Intrinsics.from_dict(raw)
        except ValueError as e:
            self.error(f"{what}: {e}")
            return None

    def poses(self, raw: Any, what: str, single: bool = False) -> np.ndarray:
        """(N, 4, 4) OpenCV camera-to-world; bad poses reported and set to NaN."""
        if not isinstance(raw, list):
            self.error(f"{what} must be a list of 16-number poses")
            return np.zeros((0, 4, 4))
        try:
            arr = np.array(raw, dtype=float).reshape(len(raw), 4, 4)
        except (ValueError, TypeError):
            arr = np.full((len(raw), 4, 4), np.nan)
            for i, p in enumerate(raw):
                try:
                    arr[i] = np.array(p, dtype=float).reshape(4, 4)
                except (ValueError, TypeError):
                    pass     # stays NaN, reported below as not finite
        problems = rigid_problems(arr) if len(arr) else []
        bad = [i for i, p in enumerate(problems) if p is not None]
        for i in bad[:5]:
            label = what if single else f"{what}[{i}]"
            self.error(f"{label}: pose {problems[i]}; dropped")
        if len(bad) > 5:
            self.error(f"{what}: {len(bad) - 5} more invalid poses dropped "
                       f"({len(bad)} of {len(arr)} in all)")
        arr[bad] = np.nan
        if self.scene.camera_convention == "opengl":
            arr = opengl_to_opencv(arr)
        return arr

    def video(self, vid: str, raw: Any) -> VideoTrack | None:
        what = f"videos.{vid}"
        if not isinstance(raw, dict):
            self.error(f"{what} must be an object; skipped")
            self.scene.rejected[f"video:{vid}"] = "its entry is not an object"
            return None
        file = self.path_in_scene(raw["file"], f"{what}.file") if "file" in raw else None
        fps = None
        if raw.get("fps") is not None:
            try:
                fps = _number(raw["fps"], f"{what}.fps")
                if fps <= 0:
                    raise ValueError(f"{what}.fps must be positive")
            except ValueError as e:
                self.error(str(e))
                fps = None
        intr = self.intrinsics(raw.get("intrinsics"), f"{what}.intrinsics")
        poses = self.poses(raw.get("poses", []), f"{what}.poses")
        inst = raw.get("instances") or {}
        if not isinstance(inst, dict):
            self.error(f"{what}.instances must be an object keyed by instance id; ignored")
            inst = {}
        inst = {k: v for k, v in inst.items() if isinstance(v, dict)}
        unknown = sorted(set(inst) - set(self.scene.instances))
        if unknown and self.scene.instances:
            self.warning(f"{what}.instances names {len(unknown)} ids not in 'instances', "
                         f"e.g. {unknown[0]!r}")
        n = len(poses)
        for iid, rec in inst.items():
            frames = rec.get("appear_frames")
            if isinstance(frames, list) and n and any(
                    not isinstance(f, int) or not 0 <= f < n for f in frames):
                self.warning(f"{what}.instances.{iid}.appear_frames has frames outside 0..{n - 1}")
        return VideoTrack(vid, file, fps, intr, poses, inst)

    def viewpoint(self, vid: str, raw: Any) -> Viewpoint | None:
        what = f"viewpoints.{vid}"
        if not isinstance(raw, dict) or "pose" not in raw:
            self.error(f"{what} has no pose; skipped")
            self.scene.rejected[f"viewpoint:{vid}"] = "it has no pose"
            return None
        pose = self.poses([raw["pose"]], f"{what}.pose", single=True)[0]
        if not np.isfinite(pose).all():
            self.scene.rejected[f"viewpoint:{vid}"] = "its pose is invalid (see the scene's diagnostics)"
            return None
        image = self.path_in_scene(raw["image"], f"{what}.image") if "image" in raw else None
        return Viewpoint(vid, pose, image, self.intrinsics(raw.get("intrinsics"), f"{what}.intrinsics"))
