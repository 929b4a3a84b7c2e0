"""A tiny release with 3D scene metadata, built in a temp folder, with hand-checkable answers.

World: one room, x 0..9.5 m, y 0..4.5 m. The query camera stands at (2, 1, 1.5)
looking along +x; the target armchair's box is centred at (2, 3, 0.5), straight
to its left: direction +90, distance sqrt(2^2 + 1^2) = 2.2 m. The map is 200 x 100
pixels, 20 px per metre, image up = world +y.

Also the tests' way to write any scene folder: `write_scene_folder` (the
`make_scene` fixture) through the one gst-scene/1 writer.
"""
from __future__ import annotations

import dataclasses
import json
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from viewer.core.scene.model import Box3, Instance, Intrinsics, Scene, TopdownMap, VideoTrack, Viewpoint
from viewer.core.scene.writer import scene_document, write_scene_document

SCENE = "scene_1"
TARGET = "armchair_abcdef_0"
VIEW = "pos_1_orient_0"
W = [[20.0, 0.0, 10.0], [0.0, -20.0, 90.0]]
MAP_SIZE = (200, 100)
CAMERA = np.array([2.0, 1.0, 1.5])
N_FRAMES = 12

UIDS = {
    "ED_v": f"scene1_Object_Localization_Egocentric_Direction_visual_{TARGET}_{VIEW}_video_0",
    "EDist_v": f"scene1_Object_Localization_Egocentric_Distance_visual_{TARGET}_{VIEW}_video_0",
    "GP_v": f"scene1_Object_Localization_Global_Position_visual_{TARGET}_video_0",
    "Pos": f"scene1_Egocentric_Localization_Global_Position_{VIEW}_video_0",
    "Ori": f"scene1_Self_Localization_Global_Orientation_{VIEW}_video_0",
    "TDS_E": "scene1_Topdown_Selection_Easy_video_0",
}
TASKS = {
    "ED_v": "Object_Localization_Egocentric_Direction_visual",
    "EDist_v": "Object_Localization_Egocentric_Distance_visual",
    "GP_v": "Object_Localization_Global_Position_visual",
    "Pos": "Self_Localization_Global_Position",
    "Ori": "Self_Localization_Global_Orientation",
    "TDS_E": "Global_Structure_Understanding_Topdown_Selection_Easy",
}
ANSWERS = {"ED_v": "90", "EDist_v": 2.2, "GP_v": "<point>250 300</point>", "Pos": "<point>250 700</point>",
           "Ori": "-90", "TDS_E": "B"}
PREDICTIONS = {"ED_v": "75", "EDist_v": "3.0", "GP_v": "<point>300 300</point>", "Pos": "no idea",
               "Ori": "-80", "TDS_E": "B"}


def looking_along_x(position) -> np.ndarray:
    """OpenCV camera-to-world: right = -y, down = -z, forward = +x."""
    c2w = np.eye(4)
    c2w[:3, :3] = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])
    c2w[:3, 3] = position
    return c2w


def write_png(path: Path, rgb: np.ndarray) -> None:
    """A PNG from an (h, w, 3) uint8 array, without image libraries."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)


def write_video(path: Path, n_frames: int = N_FRAMES) -> bool:
    """A short H.264 MP4 (PyAV) whose frame k is a grey level 20 k; False when no encoder is available."""
    from viewer.render.clip_writer import open_av_writer
    from viewer.render.video import import_av
    av = import_av()
    if av is None or "libx264" not in av.codecs_available:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    out = open_av_writer(path, 10, (64, 48))
    for k in range(n_frames):
        out.write(np.full((48, 64, 3), 20 * k % 256, np.uint8))
    out.close()
    return path.is_file() and path.stat().st_size > 0


def write_scene_folder(root: Path, scene: Scene, *, edit: Callable[[dict], object] | None = None,
                       text: str | None = None, placeholders: bool = False) -> Path:
    """Write `scene` as `root`/scenes/<id>/scene.json through the one writer; returns the folder.

    placeholders: a stub file for each file the scene names that is not there yet;
    edit(doc): change the document before it is written (a broken file, on purpose);
    text: write this instead of the document (malformed JSON, on purpose).
    """
    folder = Path(root) / "scenes" / scene.id
    scene = dataclasses.replace(scene, folder=str(folder))
    if placeholders:
        for rel in named_files(scene):
            path = folder / rel
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"x")
    if text is not None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "scene.json").write_text(text)
        return folder
    doc = scene_document(scene)
    if edit is not None:
        edit(doc)
    write_scene_document(folder, doc)
    return folder


def named_files(scene: Scene) -> list[str]:
    """The files a scene names, as written (relative to its folder)."""
    names = [scene.mesh] + [m.image for m in scene.topdown.values()]
    names += [v.file for v in scene.videos.values()] + [v.image for v in scene.viewpoints.values()]
    return [n for n in names if n]


def write_release_with_scene(root: Path, scene: Scene, records: list[dict], **scene_options) -> Path:
    """A release: `scene` (see write_scene_folder) and the questions `records`; returns root."""
    write_scene_folder(root, scene, **scene_options)
    (Path(root) / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return Path(root)


def scene(video: bool = True) -> Scene:
    """The hand-worked scene (see the top of this file)."""
    intr = Intrinsics.from_dict({"width": 64, "height": 48, "fx": 32.0, "fy": 32.0, "cx": 32.0, "cy": 24.0})
    poses = [looking_along_x([1.0 + 7.0 * k / (N_FRAMES - 1), 1.0, 1.5]) for k in range(N_FRAMES)]
    return Scene(
        SCENE, "", "opencv",
        instances={
            TARGET: Instance(TARGET, "armchair", "living_room_0", Box3([2.0, 3.0, 0.5], [1.0, 1.0, 1.0])),
            "floors_abcdef_0": Instance("floors_abcdef_0", "floors", None, Box3([4.75, 2.25, -0.05], [9.5, 4.5, 0.1])),
        },
        topdown={"occupancy": TopdownMap("occupancy", "topdown/occupancy.png", "occupancy", *MAP_SIZE, W)},
        videos={"video_0": VideoTrack("video_0", "videos/video_0.mp4" if video else None, 10, intr, poses,
                                      {TARGET: {"appear_frames": [3, 4, 5], "best_frame_idx": 4,
                                                "best_bbox": [10, 10, 30, 30]}})},
        viewpoints={VIEW: Viewpoint(VIEW, looking_along_x(CAMERA), f"views/{VIEW}.png", intr)})


def build(root: Path, video: bool = True) -> Path:
    """Write the release under `root`; returns root."""
    scene_dir = root / "scenes" / SCENE
    occupancy = np.full((MAP_SIZE[1], MAP_SIZE[0], 3), 255, np.uint8)
    occupancy[:, :10] = occupancy[:, 200 - 10:] = 0
    write_png(scene_dir / "topdown" / "occupancy.png", occupancy)
    write_png(scene_dir / "views" / f"{VIEW}.png", np.full((48, 64, 3), 128, np.uint8))
    for k in range(4):
        write_png(root / "options" / f"option_{k}.png", np.full((50, 60, 3), 60 * k, np.uint8))
    has_video = video and write_video(scene_dir / "videos" / "video_0.mp4")
    write_scene_folder(root, scene(video=has_video))
    records = []
    for key, uid in UIDS.items():
        rec = {"task": TASKS[key], "uid": uid, "scene": SCENE, "answer": ANSWERS[key],
               "texts": ["This is the exploration video:", "Your current view is :", "Question?"],
               "copied_video_path": f"scenes/{SCENE}/videos/video_0.mp4",
               "images": [{"index": 1, "copied_path": f"scenes/{SCENE}/views/{VIEW}.png"}],
               "meta": {"video": "video_0", "topdown": "occupancy"}}
        if key in ("ED_v", "EDist_v", "GP_v"):
            rec["meta"]["target"] = TARGET
        if key in ("ED_v", "EDist_v", "Pos", "Ori"):
            rec["meta"]["viewpoint"] = VIEW
        if key == "TDS_E":
            rec["texts"] = ["Video:", "Which one? A.", "\nB.", "\nC.", "\nD."]
            rec["images"] = [{"index": k + 1, "copied_path": f"options/option_{k}.png"} for k in range(4)]
        if key == "GP_v":
            rec["texts"] = ["Video:", "The top-down image of the scene is:", "Where is the armchair?"]
            rec["images"] = [{"index": 1, "copied_path": f"scenes/{SCENE}/topdown/occupancy.png"}]
        records.append(json.dumps(rec))
    (root / "questions.jsonl").write_text("\n".join(records) + "\n")
    preds = [json.dumps({"uid": UIDS[k], "model": "m1", "prediction": v}) for k, v in PREDICTIONS.items()]
    (root / "m1.jsonl").write_text("\n".join(preds) + "\n")
    return root
