"""A small release for audit tests: one walled room split by a partition, boxes as furniture.

World (metres, z up): room x 0..10, y 0..6; a partition wall at x = 5 from
y = 0 to 4 (a gap to its north). The query view pos_1 stands at (2, 1.5)
heading -20 deg (0 = +x, counter-clockwise): the partition hides the chair
(8, 2.5) behind it, and the lamp (8.5, 5.3) is out of the frame. The video (50 frames, 10 fps) first turns on the spot
at (1.2, 5.2) from looking south to looking +x, walks along y = 5.2 to
x = 7 (seeing the chair through the gap), then turns to look south.
pos_2 (Pos/Ori questions) stands at (7, 0.8) heading 120 deg, far from the walk.

`build` writes questions whose answers come from the geometry, so a fresh
release is clean; tests then break one thing at a time and call `refresh`
to recompute the answers they did not mean to break.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
from scene_release import write_png, write_scene_folder

from viewer.core.scene.model import Box3, Instance, Intrinsics, Scene, TopdownMap, VideoTrack, Viewpoint
from viewer.core.scene.writer import scene_document, write_scene_document

SCENE = "scene_1"
INTR = {"width": 64, "height": 48, "fx": 32.0, "fy": 32.0, "cx": 32.0, "cy": 24.0}
W = [[50.0, 0.0, 0.0], [0.0, -50.0, 300.0]]
MAP = (500, 300)
FPS = 10
CHAIR, LAMP, TABLE = "chair_abcdef_0", "lamp_mnopqr_0", "table_ghijkl_0"
TASKS = {
    "ED_v": "Object_Localization_Egocentric_Direction_visual",
    "EDist_v": "Object_Localization_Egocentric_Distance_visual",
    "GP_v": "Object_Localization_Global_Position_visual",
    "ED_s": "Object_Localization_Egocentric_Direction_semantic",
    "EDist_s": "Object_Localization_Egocentric_Distance_semantic",
    "GP_s": "Object_Localization_Global_Position_semantic",
    "Pos": "Self_Localization_Global_Position",
    "Ori": "Self_Localization_Global_Orientation",
    "TDS_E": "Global_Structure_Understanding_Topdown_Selection_Easy",
}
# key -> (target, viewpoint)
LINKS = {"ED_v": (CHAIR, "pos_1"), "EDist_v": (CHAIR, "pos_1"), "GP_v": (CHAIR, None),
         "ED_s": (LAMP, "pos_1"), "EDist_s": (LAMP, "pos_1"), "GP_s": (LAMP, None),
         "Pos": (None, "pos_2"), "Ori": (None, "pos_2"), "TDS_E": (None, None)}


@functools.lru_cache(maxsize=1)
def tiny_mp4() -> bytes:
    """A real H.264 MP4 of the video's 50 frames at 10 fps, 64 x 48 (the audit decodes its first and last
    frames: a header alone is reported as unreadable)."""
    import io

    import av
    buf = io.BytesIO()
    with av.open(buf, "w", format="mp4") as c:
        s = c.add_stream("libx264", rate=FPS)
        s.width, s.height, s.pix_fmt = 64, 48, "yuv420p"
        for k in range(50):
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), 5 * k, np.uint8), format="rgb24")
            for packet in s.encode(frame):
                c.mux(packet)
        for packet in s.encode():
            c.mux(packet)
    return buf.getvalue()


def uid(key: str, scene: str = SCENE) -> str:
    return f"{scene}_{key}"


def heading_pose(x: float, y: float, heading_deg: float, z: float = 1.2) -> np.ndarray:
    """OpenCV camera-to-world at (x, y, z) looking horizontally along `heading_deg` (0 = +x, ccw)."""
    h = np.radians(heading_deg)
    c, s = np.cos(h), np.sin(h)
    m = np.eye(4)
    m[:3, 0] = [s, -c, 0.0]          # image right
    m[:3, 1] = [0.0, 0.0, -1.0]      # image down
    m[:3, 2] = [c, s, 0.0]           # forward
    m[:3, 3] = [x, y, z]
    return m


def instances() -> dict[str, Instance]:
    boxes = {   # id: (semantic, centre, size), all in living_room_0
        "walls_aaaaaa_0": ("walls", (5, -0.05, 1.25), (10.2, 0.1, 2.5)),
        "walls_aaaaaa_1": ("walls", (5, 6.05, 1.25), (10.2, 0.1, 2.5)),
        "walls_aaaaaa_2": ("walls", (-0.05, 3, 1.25), (0.1, 6.2, 2.5)),
        "walls_aaaaaa_3": ("walls", (10.05, 3, 1.25), (0.1, 6.2, 2.5)),
        "walls_aaaaaa_4": ("walls", (5, 2, 1.25), (0.1, 4, 2.5)),
        "floors_bbbbbb_0": ("floors", (5, 3, -0.05), (10, 6, 0.1)),
        CHAIR: ("chair", (8, 2.5, 0.45), (0.6, 0.6, 0.9)),
        LAMP: ("lamp", (8.5, 5.3, 0.8), (0.3, 0.3, 1.6)),
        TABLE: ("table", (2.5, 4.6, 0.4), (1.2, 0.8, 0.8)),
    }
    return {iid: Instance(iid, semantic, "living_room_0", Box3(centre, size))
            for iid, (semantic, centre, size) in boxes.items()}


def video_poses() -> list[np.ndarray]:
    look = [heading_pose(1.2, 5.2, -90.0 + 90.0 * k / 9) for k in range(10)]
    walk = [heading_pose(1.2 + 5.8 * k / 29, 5.2, 0.0) for k in range(30)]
    turn = [heading_pose(7.0, 5.2, -90.0 * k / 9) for k in range(10)]
    return look + walk + turn


def write_mesh(scene_dir: Path, doc: dict, rename: dict | None = None) -> None:
    """scene.glb from the instances' boxes, one node per instance (ids renamed by `rename`)."""
    import trimesh

    from viewer.core.geometry import quaternion_to_matrix
    tm = trimesh.Scene()
    for iid, inst in doc["instances"].items():
        b = inst["bbox3"]
        m = np.eye(4)
        m[:3, :3] = quaternion_to_matrix(b.get("rotation", [0, 0, 0, 1]))
        m[:3, 3] = b["translation"]
        tm.add_geometry(trimesh.creation.box(extents=b["size"], transform=m),
                        node_name=(rename or {}).get(iid, iid), geom_name=f"g_{iid}")
    (scene_dir / "scene.glb").write_bytes(tm.export(file_type="glb"))


def build(root: Path, mesh: bool = False, scene: str = SCENE) -> Path:
    """Write a clean release (or add one more scene to it) under `root`."""
    scene_dir = root / "scenes" / scene
    write_png(scene_dir / "topdown" / "occupancy.png", np.full((MAP[1], MAP[0], 3), 200, np.uint8))
    for name in ("pos_1", "pos_2"):
        write_png(scene_dir / "views" / f"{name}.png", np.full((48, 64, 3), 128, np.uint8))
    for k in range(4):
        write_png(root / "options" / f"option_{k}.png", np.full((30, 40, 3), 50 * k, np.uint8))
    (scene_dir / "videos").mkdir(parents=True, exist_ok=True)
    (scene_dir / "videos" / "video_0.mp4").write_bytes(tiny_mp4())
    intr = Intrinsics.from_dict(INTR)
    meta = Scene(
        scene, "", "opencv", mesh="scene.glb" if mesh else None, instances=instances(),
        topdown={"occupancy": TopdownMap("occupancy", "topdown/occupancy.png", "occupancy", *MAP, W)},
        videos={"video_0": VideoTrack("video_0", "videos/video_0.mp4", FPS, intr, video_poses())},
        viewpoints={"pos_1": Viewpoint("pos_1", heading_pose(2, 1.5, -20), "views/pos_1.png", intr),
                    "pos_2": Viewpoint("pos_2", heading_pose(7, 0.8, 120), "views/pos_2.png", intr)})
    if mesh:
        write_mesh(scene_dir, scene_document(meta))
    write_scene_folder(root, meta)
    records = read_questions(root) if (root / "questions.jsonl").exists() else []
    for key, task in TASKS.items():
        target, view = LINKS[key]
        rec = {"task": task, "uid": uid(key, scene), "scene": scene, "answer": None,
               "texts": ["This is the exploration video:", "Your current view is :", "Question?"],
               "copied_video_path": f"scenes/{scene}/videos/video_0.mp4",
               "images": [{"index": 1, "copied_path": f"scenes/{scene}/views/{view or 'pos_1'}.png"}],
               "meta": {"video": "video_0", "topdown": "occupancy"}}
        if target:
            rec["meta"]["target"] = target
        if view:
            rec["meta"]["viewpoint"] = view
        if key == "TDS_E":
            rec["answer"] = "B"
            rec["images"] = [{"index": k + 1, "copied_path": f"options/option_{k}.png"} for k in range(4)]
        records.append(rec)
    write_questions(root, records)
    refresh(root)
    return root


def read_scene(root: Path, scene: str = SCENE) -> dict:
    return json.loads((root / "scenes" / scene / "scene.json").read_text())


def write_scene(root: Path, doc: dict, scene: str = SCENE) -> None:
    write_scene_document(root / "scenes" / scene, doc)
    if "geometry" in doc:
        write_mesh(root / "scenes" / scene, doc)


def read_questions(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "questions.jsonl").read_text().splitlines() if line.strip()]


def write_questions(root: Path, records: list[dict]) -> None:
    (root / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")


def set_answer(root: Path, question_uid: str, answer) -> None:
    records = read_questions(root)
    for r in records:
        if r["uid"] == question_uid:
            r["answer"] = answer
    write_questions(root, records)


def refresh(root: Path, keep: set[str] = frozenset()) -> None:
    """Set every geometric answer (except the uids in `keep`) to what the geometry gives."""
    from viewer.core.geometry import recompute_ground_truth
    from viewer.core.release import load_release
    from viewer.core.scene.model import link_question
    from viewer.core.scene.sources import SceneLibrary
    release = load_release(root)
    library = SceneLibrary(root)
    answers = {}
    for q in release.questions:
        if q.uid in keep or q.column is None or q.column.kind_name == "choice":
            continue
        r = recompute_ground_truth(q, link_question(q, library.get(q.scene)))
        assert r.value is not None, r.reason
        at = q.column.kind_name
        answers[q.uid] = (f"<point>{r.value[0]} {r.value[1]}</point>" if at == "point"
                          else float(r.value) if at == "distance" else str(r.value))
    records = read_questions(root)
    for rec in records:
        if rec["uid"] in answers:
            rec["answer"] = answers[rec["uid"]]
    write_questions(root, records)
