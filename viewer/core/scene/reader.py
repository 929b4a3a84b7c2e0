"""Parsing a gst-scene/1 file (scene.json) into a `viewer.core.scene.Scene`, reporting every problem.

Each part of the file is validated on its own; a bad part is reported (the
scene.json path plus the JSON path inside it, e.g. `videos.video_3.poses[4]`)
and left out, and the rest still loads.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..diagnostics import UserError
from ..geometry import opengl_to_opencv, rigid_problems
from ..media import within
from ..textio import parse_json_document, read_text
from .model import Box3, ImportedUp, Instance, Intrinsics, Scene, TopdownMap, VideoTrack, Viewpoint, number, vector

SCENE_FORMAT = "gst-scene/1"
CONVENTIONS = ("opencv", "opengl")


def read_scene_file(path: str | Path, scene_id: str) -> Scene:
    """The scene in a gst-scene/1 file; its folder is the file's, its problems are in its diagnostics."""
    path = Path(path)
    scene = Scene(scene_id, os.path.normpath(os.path.abspath(path.parent)))
    diags = scene.diagnostics
    try:
        doc = parse_json_document(read_text(path, diags), path, diags)
    except UserError as e:
        diags.error(str(e).split(": ", 1)[-1], path, code="file.unreadable")
        return scene
    if doc is None:
        return scene
    if not isinstance(doc, dict):
        diags.error(f"scene.json must be a JSON object, got {type(doc).__name__}", path, code="scene.not_object")
        return scene
    SceneReader(scene, str(path)).read(doc)
    return scene


class SceneReader:
    """Fills a Scene from a parsed scene.json, reporting into its diagnostics."""

    def __init__(self, scene: Scene, path: str):
        self.scene, self.path = scene, path
        self.d = scene.diagnostics

    def error(self, msg: str, *, code: str) -> None:
        self.d.error(msg, self.path, code=code)

    def warning(self, msg: str, *, code: str) -> None:
        self.d.warning(msg, self.path, code=code)

    def read(self, doc: dict) -> None:
        s = self.scene
        fmt = doc.get("format")
        if fmt is not None and fmt != SCENE_FORMAT:
            self.warning(f"format {fmt!r} is not {SCENE_FORMAT!r}; reading it as {SCENE_FORMAT}",
                         code="scene.unknown_format")
        if isinstance(doc.get("scene"), str) and doc["scene"] != s.id:
            self.warning(f"'scene' says {doc['scene']!r} but the file is in the folder of {s.id!r}",
                         code="scene.id_mismatch")
        conv = doc.get("camera_convention")
        if conv is None:
            self.warning("no 'camera_convention'; assuming 'opencv'", code="scene.no_camera_convention")
        elif not isinstance(conv, str) or conv.lower() not in CONVENTIONS:
            self.error(f"camera_convention {conv!r} is not 'opencv' or 'opengl'; assuming 'opencv'",
                       code="scene.bad_camera_convention")
        else:
            s.camera_convention = conv.lower()
        geom = doc.get("geometry")
        if isinstance(geom, dict) and geom.get("mesh") is not None:
            s.mesh = self.path_in_scene(geom["mesh"], "geometry.mesh")
        elif geom is not None and not isinstance(geom, dict):
            self.error("'geometry' must be an object", code="scene.bad_geometry")
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
        s.imported_up = self.imported_up(doc.get("import"))
        if isinstance(doc.get("provenance"), str):
            s.provenance = doc["provenance"]
        if doc.get("points") is not None:
            self.points(doc["points"])

    def points(self, declared: Any) -> None:
        """`points`: an .npy of (N, 6) floats, x y z (world) and r g b (0..255); a bad one is left out."""
        path = self.path_in_scene(declared, "points")
        if path is None:
            return
        try:
            arr = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as e:
            self.error(f"points: {declared!r} is not a readable .npy ({e}); left out", code="scene.bad_points")
            return
        if arr.ndim != 2 or arr.shape[1] != 6 or not np.issubdtype(arr.dtype, np.number):
            self.error(f"points: {declared!r} must hold (N, 6) numbers (x y z r g b), got {arr.dtype} "
                       f"{arr.shape}; left out", code="scene.bad_points")
            return
        arr = arr[np.isfinite(arr).all(axis=1)].astype(float)
        self.scene.points = arr[:, :3]
        self.scene.point_colors = np.clip(arr[:, 3:], 0, 255).astype(np.uint8)

    def imported_up(self, raw: Any) -> ImportedUp | None:
        """`import.up`, written by import-scene; only the window shows it, so a bad one is a warning."""
        from .formats.up import UP_AXES
        up = raw.get("up") if isinstance(raw, dict) else raw
        if up is None:
            return None
        fields = [up.get(k) for k in ("axis", "source", "why")] if isinstance(up, dict) else []
        if len(fields) != 3 or not all(isinstance(v, str) for v in fields) or fields[0] not in UP_AXES:
            self.warning(f"import.up must be {{\"axis\": one of {', '.join(UP_AXES)}, \"source\": ..., \"why\": ...}}, "
                         f"got {str(up)[:80]}; ignored", code="scene.bad_import")
            return None
        return ImportedUp(*fields)

    def table(self, doc: dict, key: str) -> dict:
        raw = doc.get(key)
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            self.error(f"'{key}' must be an object keyed by id, got {type(raw).__name__}; ignored",
                       code="scene.bad_table")
            return {}
        return raw

    def path_in_scene(self, declared: Any, what: str) -> str | None:
        """Absolute path of a file named in scene.json; None (reported) if refused or missing."""
        if not isinstance(declared, str) or not declared.strip():
            self.error(f"{what}: expected a relative path, got {declared!r}", code="scene.bad_path")
            return None
        if os.path.isabs(declared):
            self.error(f"{what}: absolute path {declared!r} refused (paths are relative to the scene folder)",
                       code="scene.absolute_path")
            return None
        path = os.path.normpath(os.path.join(self.scene.folder, declared))
        # Judged on the resolved path too: a symbolic link must not lead out of the scene's folder.
        if not within(path, self.scene.folder) or not within(os.path.realpath(path),
                                                              os.path.realpath(self.scene.folder)):
            self.error(f"{what}: path {declared!r} escapes the scene folder; refused", code="scene.path_escapes")
            return None
        if not os.path.isfile(path):
            self.warning(f"{what}: file {declared!r} not found", code="scene.file_missing")
            return None
        return path

    def instances(self, doc: dict) -> None:
        if "instances" not in doc:
            self.error("no 'instances': objects cannot be located in this scene", code="scene.no_instances")
            return
        for iid, raw in self.table(doc, "instances").items():
            what = f"instances.{iid}"
            if not isinstance(raw, dict):
                self.error(f"{what} must be an object; skipped", code="scene.bad_instance")
                continue
            sem = raw.get("semantic")
            room = raw.get("room")
            bbox = None
            if "bbox3" not in raw:
                self.warning(f"{what} has no bbox3; it cannot be located", code="scene.no_bbox")
            else:
                try:
                    bbox = self.box(raw["bbox3"], f"{what}.bbox3")
                except ValueError as e:
                    self.error(f"{e}; the instance cannot be located", code="scene.bad_bbox")
            self.scene.instances[iid] = Instance(
                iid, sem if isinstance(sem, str) else "", room if isinstance(room, str) else None, bbox,
                size_estimated=raw.get("size_estimated") is True)

    def box(self, raw: Any, what: str) -> Box3:
        if not isinstance(raw, dict):
            raise ValueError(f"{what} must be an object")
        t = vector(raw.get("translation"), 3, f"{what}.translation")
        size = vector(raw.get("size"), 3, f"{what}.size")
        if (size < 0).any():
            raise ValueError(f"{what}.size must not be negative, got {size.tolist()}")
        q = vector(raw.get("rotation", [0, 0, 0, 1]), 4, f"{what}.rotation")
        n = np.linalg.norm(q)
        if n < 1e-9:
            raise ValueError(f"{what}.rotation is a zero quaternion")
        return Box3(t, size, q / n)

    def topdown(self, name: str, raw: Any) -> TopdownMap:
        what = f"topdown.{name}"
        if not isinstance(raw, dict):
            self.error(f"{what} must be an object", code="scene.bad_topdown")
            return TopdownMap(name, None, name, None, None, None)
        image = self.path_in_scene(raw["image"], f"{what}.image") if "image" in raw else None
        kind = raw.get("kind") if isinstance(raw.get("kind"), str) else name
        width = height = None
        try:
            width = int(number(raw.get("width"), f"{what}.width"))
            height = int(number(raw.get("height"), f"{what}.height"))
            if width <= 0 or height <= 0:
                raise ValueError(f"{what} width and height must be positive")
        except ValueError as e:
            self.error(f"{e}; points cannot be normalised on this map", code="scene.bad_map_size")
            width = height = None
        W = None
        if raw.get("world_to_pixel") is None:
            self.warning(f"{what} has no world_to_pixel; the map shows but points cannot be placed on it",
                         code="scene.no_world_to_pixel")
        else:
            try:
                rows = raw["world_to_pixel"]
                if not isinstance(rows, list) or len(rows) != 2:
                    raise ValueError(f"{what}.world_to_pixel must be 2 rows of 3 numbers")
                W = np.stack([vector(r, 3, f"{what}.world_to_pixel") for r in rows])
                if abs(np.linalg.det(W[:, :2])) < 1e-12:
                    raise ValueError(f"{what}.world_to_pixel is singular (not invertible)")
            except ValueError as e:
                self.error(f"{e}; points cannot be placed on this map", code="scene.bad_world_to_pixel")
                W = None
        return TopdownMap(name, image, kind, width, height, W)

    def intrinsics(self, raw: Any, what: str) -> Intrinsics | None:
        if raw is None:
            return None
        try:
            return Intrinsics.from_dict(raw)
        except ValueError as e:
            self.error(f"{what}: {e}", code="scene.bad_intrinsics")
            return None

    def poses(self, raw: Any, what: str, single: bool = False) -> np.ndarray:
        """(N, 4, 4) OpenCV camera-to-world; bad poses reported and set to NaN."""
        if not isinstance(raw, list):
            self.error(f"{what} must be a list of 16-number poses", code="scene.bad_poses")
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
            self.error(f"{label}: pose {problems[i]}; dropped", code="scene.bad_pose")
        if len(bad) > 5:
            self.error(f"{what}: {len(bad) - 5} more invalid poses dropped "
                       f"({len(bad)} of {len(arr)} in all)", code="scene.bad_pose_summary")
        arr[bad] = np.nan
        if self.scene.camera_convention == "opengl":
            arr = opengl_to_opencv(arr)
        return arr

    def video(self, vid: str, raw: Any) -> VideoTrack | None:
        what = f"videos.{vid}"
        if not isinstance(raw, dict):
            self.error(f"{what} must be an object; skipped", code="scene.bad_video")
            self.scene.rejected[f"video:{vid}"] = "its entry is not an object"
            return None
        file = self.path_in_scene(raw["file"], f"{what}.file") if "file" in raw else None
        fps = None
        if raw.get("fps") is not None:
            try:
                fps = number(raw["fps"], f"{what}.fps")
                if fps <= 0:
                    raise ValueError(f"{what}.fps must be positive")
            except ValueError as e:
                self.error(str(e), code="scene.bad_fps")
                fps = None
        intr = self.intrinsics(raw.get("intrinsics"), f"{what}.intrinsics")
        poses = self.poses(raw.get("poses", []), f"{what}.poses")
        inst = raw.get("instances") or {}
        if not isinstance(inst, dict):
            self.error(f"{what}.instances must be an object keyed by instance id; ignored",
                       code="scene.bad_video_instances")
            inst = {}
        inst = {k: v for k, v in inst.items() if isinstance(v, dict)}
        unknown = sorted(set(inst) - set(self.scene.instances))
        if unknown and self.scene.instances:
            self.warning(f"{what}.instances names {len(unknown)} ids not in 'instances', "
                         f"e.g. {unknown[0]!r}", code="scene.unknown_instance")
        n = len(poses)
        for iid, rec in inst.items():
            frames = rec.get("appear_frames")
            if isinstance(frames, list) and n and any(
                    not isinstance(f, int) or not 0 <= f < n for f in frames):
                self.warning(f"{what}.instances.{iid}.appear_frames has frames outside 0..{n - 1}",
                             code="scene.bad_appear_frames")
        return VideoTrack(vid, file, fps, intr, poses, inst)

    def viewpoint(self, vid: str, raw: Any) -> Viewpoint | None:
        what = f"viewpoints.{vid}"
        if not isinstance(raw, dict) or "pose" not in raw:
            self.error(f"{what} has no pose; skipped", code="scene.bad_viewpoint")
            self.scene.rejected[f"viewpoint:{vid}"] = "it has no pose"
            return None
        pose = self.poses([raw["pose"]], f"{what}.pose", single=True)[0]
        if not np.isfinite(pose).all():
            self.scene.rejected[f"viewpoint:{vid}"] = "its pose is invalid (see the scene's diagnostics)"
            return None
        image = self.path_in_scene(raw["image"], f"{what}.image") if "image" in raw else None
        return Viewpoint(vid, pose, image, self.intrinsics(raw.get("intrinsics"), f"{what}.intrinsics"))
