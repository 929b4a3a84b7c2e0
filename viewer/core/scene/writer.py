"""Writing gst-scene/1 (scene.json, spec section 3): the one writer, used by the demo, the
self-test and the tests.

`scene_document` turns a Scene (typed values) into the JSON document;
`write_scene_document` writes a document, atomically, as readable JSON;
`write_scene` does both. A test that needs a broken file edits the
document between the two.

Poses are OpenCV camera-to-world in the Scene and are written in its
declared convention (OpenGL: camera y and z negated, as USD/OmniGibson
write them). Paths are written relative to the scene folder; a Scene may
hold them absolute (as loaded) or relative. A Python int stays an int
(fps 10 is written `10`); every other number is written as a float,
never as -0.0.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

from ..atomic import atomic_write_bytes, atomic_write_text
from ..geometry import opencv_to_opengl
from .model import SCENE_FILE, Box3, Instance, Intrinsics, Scene, TopdownMap, VideoTrack, Viewpoint
from .reader import SCENE_FORMAT


def scene_document(scene: Scene, imported: dict | None = None) -> dict:
    """The gst-scene/1 document of `scene`, keys in the order the spec lists them. `imported`: what
    `import-scene` decided ({"up": {"axis", "source", "why"}, "trajectory": {"scale", "translation"}}),
    written last as `import`; readers ignore it (docs/scene-import.md)."""
    doc = {"format": SCENE_FORMAT, "scene": scene.id, "camera_convention": scene.camera_convention}
    if scene.mesh:
        doc["geometry"] = {"mesh": _declared(scene.mesh, scene.folder)}
    doc["instances"] = {iid: _instance(inst) for iid, inst in scene.instances.items()}
    doc["topdown"] = {name: _topdown(m, scene.folder) for name, m in scene.topdown.items()}
    doc["videos"] = {vid: _video(track, scene) for vid, track in scene.videos.items()}
    doc["viewpoints"] = {vid: _viewpoint(vp, scene) for vid, vp in scene.viewpoints.items()}
    if scene.points is not None and len(scene.points):
        doc["points"] = POINTS_FILE                  # written beside scene.json by write_scene
    if scene.provenance:
        doc["provenance"] = scene.provenance
    if imported:
        doc["import"] = imported
    return doc


def write_scene_document(folder: str | Path, doc: dict) -> Path:
    """Write `doc` as `folder`/scene.json (folders made as needed); returns the file."""
    path = Path(folder) / SCENE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, readable_json(doc) + "\n")
    return path


POINTS_FILE = "points.npy"


def write_scene(scene: Scene) -> Path:
    """Write `scene` as scene.json in its folder (and its point cloud as points.npy); returns the file."""
    if scene.points is not None and len(scene.points):
        import io
        pts = np.asarray(scene.points, np.float32).reshape(-1, 3)
        rgb = (np.asarray(scene.point_colors, np.float32).reshape(-1, 3) if scene.point_colors is not None
               and len(scene.point_colors) == len(pts) else np.full((len(pts), 3), 128, np.float32))
        buf = io.BytesIO()
        np.save(buf, np.concatenate([pts, rgb], axis=1), allow_pickle=False)
        Path(scene.folder).mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(Path(scene.folder) / POINTS_FILE, buf.getvalue())
    return write_scene_document(scene.folder, scene_document(scene))


_NUMBER_LIST = re.compile(r"\[\s*(-?[\d.eE+-]+(?:,\s*-?[\d.eE+-]+)*)\s*\]")


def readable_json(doc) -> str:
    """Indented JSON with lists of numbers (poses, boxes, frames) kept on one line."""
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]",
                            json.dumps(doc, indent=1, ensure_ascii=False))


def _instance(inst: Instance) -> dict:
    out: dict = {"semantic": inst.semantic}
    if inst.room:
        out["room"] = inst.room
    if inst.bbox is not None:
        out["bbox3"] = _box(inst.bbox)
    if inst.size_estimated:
        out["size_estimated"] = True
    return out


def _box(box: Box3) -> dict:
    return {"translation": _floats(box.translation), "size": _floats(box.size), "rotation": _floats(box.rotation)}


def _topdown(m: TopdownMap, folder: str) -> dict:
    out: dict = {}
    if m.image:
        out["image"] = _declared(m.image, folder)
    out["kind"] = m.kind
    if m.width is not None and m.height is not None:
        out["width"], out["height"] = int(m.width), int(m.height)
    if m.world_to_pixel is not None:
        out["world_to_pixel"] = [_floats(row) for row in m.world_to_pixel]
    return out


def _video(track: VideoTrack, scene: Scene) -> dict:
    out: dict = {}
    if track.file:
        out["file"] = _declared(track.file, scene.folder)
    if track.fps is not None:
        out["fps"] = _number(track.fps)
    if track.intrinsics is not None:
        out["intrinsics"] = _intrinsics(track.intrinsics)
    out["poses"] = _poses(track.poses, scene.camera_convention)
    out["instances"] = {iid: dict(rec) for iid, rec in track.instances.items()}
    return out


def _viewpoint(vp: Viewpoint, scene: Scene) -> dict:
    out: dict = {"pose": _poses(vp.pose[None], scene.camera_convention)[0]}
    if vp.image:
        out["image"] = _declared(vp.image, scene.folder)
    if vp.intrinsics is not None:
        out["intrinsics"] = _intrinsics(vp.intrinsics)
    return out


def _intrinsics(k: Intrinsics) -> dict:
    return {"width": int(k.width), "height": int(k.height),
            "fx": _float(k.fx), "fy": _float(k.fy), "cx": _float(k.cx), "cy": _float(k.cy)}


def _poses(poses: np.ndarray, convention: str) -> list[list[float]]:
    """(N, 4, 4) OpenCV camera-to-world as N rows of 16 numbers in the file's convention."""
    poses = np.asarray(poses, float)
    if convention == "opengl":
        poses = opencv_to_opengl(poses)
    return [_floats(p.reshape(-1)) for p in poses]


def _declared(path: str, folder: str) -> str:
    """A path as scene.json names it: relative to the scene folder, with forward slashes."""
    if os.path.isabs(path):
        rel = os.path.relpath(path, folder)
        if rel == ".." or rel.startswith(".." + os.sep):
            raise ValueError(f"{path} is outside the scene folder {folder}")
        path = rel
    return path.replace(os.sep, "/")


def _floats(values) -> list[float]:
    return [_float(v) for v in values]


def _float(v) -> float:
    return float(v) + 0.0            # + 0.0: no "-0.0" in the file


def _number(v) -> int | float:
    return int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else _float(v)
