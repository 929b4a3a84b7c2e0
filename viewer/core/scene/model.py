"""3D scene metadata (spec section 3): the Scene types, the release's scene library, question linking.

Scenes come from scene sources (`scene/sources.py`): the first is the
`<release>/scenes/<scene>/scene.json` folders. A scene file is user data:
every problem in it is reported in the Scene's diagnostics (file + JSON path
+ what), the offending part is left out, and the rest still loads, so the
question still shows in 2D.

Poses are stored camera-to-world in the OpenCV convention whatever the file
declares; a pose that is not rigid is reported and replaced by NaN, so frame
k of a video stays pose k (appear_frames index frames).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..diagnostics import Diagnostics
from ..geometry import quaternion_to_matrix

if TYPE_CHECKING:
    from .sources import SceneSource

SCENES_FOLDER = "scenes"
SCENE_FILE = "scene.json"


MAX_IMAGE_SIDE = 16384      # pixels; larger intrinsics are refused when read


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
        vals = {k: number(d[k], f"intrinsics.{k}") for k in ("width", "height", "fx", "fy", "cx", "cy")}
        for k in ("width", "height", "fx", "fy"):
            if vals[k] <= 0:
                raise ValueError(f"intrinsics.{k} must be positive, got {d[k]!r}")
        # Images are cast ray by ray: a 1e9-pixel camera would take hours, and is surely a unit slip.
        for k in ("width", "height"):
            if vals[k] > MAX_IMAGE_SIDE:
                raise ValueError(f"intrinsics.{k} = {d[k]!r} is beyond {MAX_IMAGE_SIDE} pixels; refused")
        return cls(int(vals["width"]), int(vals["height"]), vals["fx"], vals["fy"], vals["cx"], vals["cy"])


@dataclass
class Box3:
    translation: np.ndarray      # (3,) centre, world
    size: np.ndarray             # (3,) full extents along the box axes
    rotation: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 0.0, 1.0]))   # [qx, qy, qz, qw]

    def __post_init__(self):     # lists welcome: whoever builds a scene by hand writes numbers
        self.translation = np.asarray(self.translation, float)
        self.size = np.asarray(self.size, float)
        self.rotation = np.asarray(self.rotation, float)

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
    size_estimated: bool = False            # the box's size is a guess (an import had no extents)


@dataclass
class TopdownMap:
    name: str
    image: str | None                       # absolute path, None when absent or refused
    kind: str
    width: int | None
    height: int | None
    world_to_pixel: np.ndarray | None       # (2, 3); None: shown, but points cannot be placed

    def __post_init__(self):
        if self.world_to_pixel is not None:
            self.world_to_pixel = np.asarray(self.world_to_pixel, float).reshape(2, 3)


@dataclass
class VideoTrack:
    id: str
    file: str | None                        # absolute path, None when absent or refused
    fps: float | None
    intrinsics: Intrinsics | None
    poses: np.ndarray                       # (N, 4, 4) OpenCV camera-to-world; NaN where invalid
    instances: dict[str, dict] = field(default_factory=dict)   # id -> {appear_frames, best_frame_idx, best_bbox}

    def __post_init__(self):                # also accepts a list of 16-number poses
        self.poses = np.asarray(self.poses, float).reshape(-1, 4, 4)

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

    def __post_init__(self):
        self.pose = np.asarray(self.pose, float).reshape(4, 4)


@dataclass(frozen=True)
class ImportedUp:
    """How `import-scene` decided an imported scene's up axis (scene.json `import.up`), for the window to say."""
    axis: str             # "y", "-y", ... : the file's axis that became the viewer's z
    source: str           # "format", "cameras", "path", "geometry", "default" or "given"
    why: str              # "glTF is y-up by its specification"


@dataclass
class Scene:
    """One scene's metadata. Paths (mesh, images, video files) are absolute once
    loaded; a scene built to be written may name them relative to `folder`."""
    id: str
    folder: str
    camera_convention: str = "opencv"       # as declared; poses here are already OpenCV
    mesh: str | None = None                 # the mesh file, when the geometry is one file
    instances: dict[str, Instance] = field(default_factory=dict)
    topdown: dict[str, TopdownMap] = field(default_factory=dict)
    videos: dict[str, VideoTrack] = field(default_factory=dict)
    viewpoints: dict[str, Viewpoint] = field(default_factory=dict)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    # Entries present in the file but unusable, with the reason, so a question
    # naming one can say why rather than "not found".
    rejected: dict[str, str] = field(default_factory=dict)   # "viewpoint:<id>" -> reason
    # What `import-scene` decided about up (scene.json `import.up`); None for a scene not imported.
    imported_up: ImportedUp | None = None
    # Where the geometry came from when not from the release's scene files, said on every map and in 3D
    # ("reconstructed from the video (structure from motion), aligned by 12 answers"); "" for a scene file.
    provenance: str = ""
    # A sparse point cloud (world, metres) and its RGB colours; none for most scenes (scene.json `points`).
    points: np.ndarray | None = None
    point_colors: np.ndarray | None = None
    # How a reconstructed scene was tied to the map (core/scene/align.Alignment), for the audit.
    alignment: Any = field(default=None, repr=False, compare=False)
    # Its query views as structure from motion localised them (view id -> sfm_result.QueryPose): the evidence.
    localisations: dict = field(default_factory=dict, repr=False, compare=False)
    # The source that loaded it (set by SceneLibrary): the render layer asks it for the mesh.
    source: SceneSource | None = field(default=None, repr=False, compare=False)

    @property
    def file(self) -> str:
        """Where its scene.json is (or is written)."""
        return os.path.join(self.folder, SCENE_FILE)


def scene_file(release_root: str | Path, scene_id: str) -> Path:
    return Path(release_root) / SCENES_FOLDER / scene_id / SCENE_FILE


def load_scene(release_root: str | Path, scene_id: str) -> Scene | None:
    """The scene from the release's scene sources, uncached (one-off use, worker processes);
    None when no source has it."""
    from .sources import SceneLibrary  # the sources read this module's types
    return SceneLibrary(release_root).load(scene_id)


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
    on_map = column is not None and column.on_map        # the answer is placed on a top-down map
    if scene is None:
        return QuestionGeometry(None, None, None, None, None,
                                [f"no scenes/{question.scene}/scene.json in the release"])
    problems: list[str] = []
    where = f"scene {scene.id}"

    video = None
    if question.video_id:
        video = scene.videos.get(question.video_id)
        if video is None and question.video_id == scene.id and len(scene.videos) == 1:
            # A question whose video is named after its scene (VSI-Bench: the scan's own recording)
            # takes the scene's one video, whatever an import named it ("trajectory").
            video = next(iter(scene.videos.values()))
        if video is None:
            problems.append(_absent(scene, "video", question.video_id, where))

    viewpoint = None
    if question.viewpoint:
        viewpoint = scene.viewpoints.get(question.viewpoint)
        if viewpoint is None:
            problems.append(_absent(scene, "viewpoint", question.viewpoint, where))
    elif column is not None and column.has_view:
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
    elif on_map:
        problems.append(f"{where} has no top-down map")
    if topdown is not None and topdown.world_to_pixel is None and on_map:
        problems.append(f"top-down map {topdown.name!r} has no world_to_pixel; "
                        "points cannot be placed on it")
    return QuestionGeometry(scene, video, viewpoint, target, topdown, problems)


def _absent(scene: Scene, kind: str, name: str, where: str) -> str:
    reason = scene.rejected.get(f"{kind}:{name}")
    if reason:
        return f"{kind} {name!r} of {where} is unusable: {reason}"
    return f"{kind} {name!r} is not in {where}"


def number(v: Any, what: str) -> float:
    """A finite JSON number as float; ValueError naming `what` otherwise."""
    try:
        ok = not isinstance(v, bool) and isinstance(v, (int, float)) and np.isfinite(float(v))
    except OverflowError:            # a JSON integer beyond float range
        ok = False
    if not ok:
        raise ValueError(f"{what} must be a finite number, got {str(v)[:40]}")
    return float(v)


def vector(v: Any, n: int, what: str) -> np.ndarray:
    if not isinstance(v, (list, tuple)) or len(v) != n:
        raise ValueError(f"{what} must be a list of {n} numbers, got {v!r}")
    return np.array([number(x, what) for x in v])
