"""Writing one scene's folder: videos, views, maps, option images and scene.json (spec section 3).

scene.json stores poses in the scene's camera convention: OpenCV as
rendered, or OpenGL (camera y and z negated, as USD/OmniGibson write them)
for every second scene, so that readers exercise both.
"""
from __future__ import annotations

import json
import re

import numpy as np

from viewer.core.geometry import opencv_to_opengl

from .drawing import trajectory_on_map, with_target_box, write_image, write_video
from .questions import Needs
from .scenebuild import BuiltScene, DemoConfig

FORMAT = "gst-scene/1"


def _pose_list(s: BuiltScene, pose: np.ndarray) -> list[float]:
    m = opencv_to_opengl(pose) if s.convention == "opengl" else pose
    return [float(v) + 0.0 for v in m.reshape(-1)]        # + 0.0: no "-0.0" in the file


def _appearances(s: BuiltScene, frames: range, min_pixels: int) -> dict:
    """Per object instance: frames (relative to the clip) where it appears, and its best view."""
    out = {}
    sub = s.pixels[frames.start:frames.stop]
    appears = s.appears(min_pixels, slice(frames.start, frames.stop))
    for inst in s.apt.objects():
        i = s.index(inst.id)
        seen = np.flatnonzero(appears[:, i])
        if len(seen) == 0:
            continue
        best = int(seen[np.argmax(sub[seen, i])])
        out[inst.id] = {"appear_frames": [int(k) for k in seen], "best_frame_idx": best,
                        "best_bbox": s.boxes[frames.start + best][i]}
    return out


def _video_entry(s: BuiltScene, file: str, frames: range, cfg: DemoConfig, min_pixels: int) -> dict:
    return {"file": file, "fps": cfg.fps, "intrinsics": dict(s.intrinsics),
            "poses": [_pose_list(s, s.poses[k]) for k in frames],
            "instances": _appearances(s, frames, min_pixels)}


def write_scene(s: BuiltScene, needs: Needs, cfg: DemoConfig, out_root) -> None:
    folder = s.folder
    min_pixels = max(1, int(cfg.appear_fraction * cfg.width * cfg.height))
    for level, image in s.maps.items():
        write_image(folder / "topdown" / f"{level}.png", image)
    write_video(folder / "videos" / "video_0.mp4", s.frames, cfg.fps)
    for target in sorted(needs.boxed):
        i = s.index(target)
        boxed = with_target_box(s.frames, s.boxes, i, s.appear_frames(target, min_pixels))
        write_video(folder / "videos" / f"video0_obj_{target}.mp4", boxed, cfg.fps)
    for k, (a, b) in sorted(needs.subs.items()):
        write_video(folder / "videos" / f"sub_trajectory_{k}.mp4", s.frames[a:b], cfg.fps)
    for k, (a, b) in sorted(needs.traj_options.items()):
        px = s.walk.xy[a:b] @ s.world_to_pixel[:, :2].T + s.world_to_pixel[:, 2]
        write_image(folder / "trajectories" / f"sub_trajectory_{k}.png",
                    trajectory_on_map(s.maps["occupancy"], px))
    for name in sorted(needs.views):
        write_image(folder / "views" / f"{name}.jpg", s.views[name].color)
    for rel, image in sorted(needs.option_images.items()):
        write_image(out_root / rel, image)

    doc = {
        "format": FORMAT,
        "scene": s.id,
        "camera_convention": s.convention,
        "geometry": {"mesh": "scene.glb"},
        "instances": {i.id: {"semantic": i.category, **({"room": i.room} if i.room else {}),
                             "bbox3": i.bbox3()}
                      for i in s.apt.instances},
        "topdown": {level: {"image": f"topdown/{level}.png", "kind": level,
                            "width": cfg.map_width, "height": cfg.map_height,
                            "world_to_pixel": s.world_to_pixel.tolist()}
                    for level in s.maps},
        "videos": {"video_0": _video_entry(s, "videos/video_0.mp4", range(len(s.poses)), cfg, min_pixels)},
        "viewpoints": {name: {"pose": _pose_list(s, s.views[name].pose), "image": f"views/{name}.jpg",
                              "intrinsics": dict(s.intrinsics)}
                       for name in sorted(needs.views, key=_natural)},
    }
    for k, (a, b) in sorted(needs.subs.items()):
        doc["videos"][f"sub_trajectory_{k}"] = _video_entry(s, f"videos/sub_trajectory_{k}.mp4",
                                                            range(a, b), cfg, min_pixels)
    (folder / "scene.json").write_text(readable_json(doc) + "\n", encoding="utf-8")


_NUMBER_LIST = re.compile(r"\[\s*(-?[\d.eE+-]+(?:,\s*-?[\d.eE+-]+)*)\s*\]")


def readable_json(doc) -> str:
    """Indented JSON with lists of numbers (poses, boxes, frames) kept on one line."""
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]",
                            json.dumps(doc, indent=1, ensure_ascii=False))


def _natural(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]
