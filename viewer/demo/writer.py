"""Writing one scene's folder: videos, views, maps, option images and scene.json (spec section 3).

scene.json stores poses in the scene's camera convention: OpenCV as
rendered, or OpenGL (camera y and z negated, as USD/OmniGibson write them)
for every second scene, so that readers exercise both; the one gst-scene/1
writer (`viewer.core.scene.writer`) does the conversion.
"""
from __future__ import annotations

import re

import numpy as np

from ..core.scene.model import Box3, Instance, Intrinsics, Scene, TopdownMap, VideoTrack, Viewpoint
from ..core.scene.writer import write_scene as write_scene_json
from .drawing import trajectory_on_map, with_target_box, write_image, write_video
from .questions import Needs
from .scenebuild import BuiltScene, DemoConfig


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


def _video_track(s: BuiltScene, vid: str, frames: range, cfg: DemoConfig, min_pixels: int) -> VideoTrack:
    return VideoTrack(vid, f"videos/{vid}.mp4", cfg.fps, Intrinsics.from_dict(s.intrinsics),
                      np.array([s.poses[k] for k in frames]), _appearances(s, frames, min_pixels))


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

    intrinsics = Intrinsics.from_dict(s.intrinsics)
    videos = [_video_track(s, "video_0", range(len(s.poses)), cfg, min_pixels)]
    videos += [_video_track(s, f"sub_trajectory_{k}", range(a, b), cfg, min_pixels)
               for k, (a, b) in sorted(needs.subs.items())]
    views = sorted(needs.views, key=_natural)
    write_scene_json(Scene(
        s.id, str(folder), s.convention, mesh="scene.glb",
        instances={i.id: Instance(i.id, i.category, i.room or None, Box3(**i.bbox3())) for i in s.apt.instances},
        topdown={level: TopdownMap(level, f"topdown/{level}.png", level, cfg.map_width, cfg.map_height,
                                   s.world_to_pixel) for level in s.maps},
        videos={track.id: track for track in videos},
        viewpoints={name: Viewpoint(name, s.views[name].pose, f"views/{name}.jpg", intrinsics) for name in views}))


def _natural(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]
