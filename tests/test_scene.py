"""scene.json loading, question linking, ground-truth recomputation, and every bad input."""
import json
from pathlib import Path

import numpy as np
import pytest

from viewer.core.geometry import recompute_ground_truth
from viewer.core.release import load_release
from viewer.core.scene.model import (
    Box3,
    Instance,
    Intrinsics,
    Scene,
    TopdownMap,
    VideoTrack,
    Viewpoint,
    link_question,
    load_scene,
)
from viewer.core.scene.sources import SceneLibrary

# Camera at (1, 2, 1.5) looking along world +x (OpenCV: x right, y down, z forward).
VIEW_CV = np.array([[0, 0, 1, 1], [-1, 0, 0, 2], [0, -1, 0, 1.5], [0, 0, 0, 1]], float)
# Map: 50 px per metre, world +y drawn up, world origin at pixel (100, 400).
W = [[50, 0, 100], [0, -50, 400]]
INTR = {"width": 640, "height": 512, "fx": 320, "fy": 320, "cx": 320, "cy": 256}
TARGET = "armchair_abcdef_0"


def hand_worked_scene(convention="opencv") -> Scene:
    """Written in `convention` (the writer converts the OpenCV poses here)."""
    walk = [VIEW_CV.copy() for _ in range(3)]
    for k, T in enumerate(walk):
        T[0, 3] -= k                                   # walking along +x towards the view
    intr = Intrinsics.from_dict(INTR)
    return Scene(
        "scene_1", "", convention, mesh="scene.glb",
        instances={
            TARGET: Instance(TARGET, "armchair", "living_room_0", Box3([1, 5, 0.5], [1, 1, 1])),
            "table_qwerty_0": Instance("table_qwerty_0", "table", "living_room_0", Box3([4, 2, 0.4], [2, 1, 0.8])),
        },
        topdown={"occupancy": TopdownMap("occupancy", "topdown/occupancy.png", "occupancy", 640, 512, W)},
        videos={"video_3": VideoTrack("video_3", "videos/video_3.mp4", 10, intr, walk,
                                      {TARGET: {"appear_frames": [1, 2], "best_frame_idx": 2,
                                                "best_bbox": [10, 20, 100, 200]}})},
        viewpoints={"pos_1_orient_0": Viewpoint("pos_1_orient_0", VIEW_CV, "views/pos_1_orient_0.png", intr)})


UIDS = {
    "Object_Localization_Egocentric_Direction_visual": "ED",
    "Object_Localization_Egocentric_Distance_semantic": "EDist",
    "Object_Localization_Global_Position_visual": "GP",
    "Self_Localization_Global_Position": "Pos",
    "Self_Localization_Global_Orientation": "Ori",
    "Global_Structure_Understanding_Topdown_Selection_Easy": "TDS",
}


def question_records(target=TARGET) -> list[dict]:
    """One question per task above, all in scene_1, linked by uid."""
    records = []
    for task in UIDS:
        with_target = task.startswith("Object")
        uid = f"scene1_{task}_{target + '_' if with_target else ''}pos_1_orient_0_video_3"
        records.append({"task": task, "uid": uid, "scene": "scene_1", "answer": "0", "texts": ["q"], "images": []})
    return records


@pytest.fixture
def write_release(tmp_path, make_release_with_scene):
    """write_release(convention, target, edit=, text=): the hand-worked release in tmp_path, every file
    the scene names present; `edit(doc)` breaks the document on purpose."""
    def write(convention="opencv", target=TARGET, **scene_options) -> Path:
        return make_release_with_scene(tmp_path, hand_worked_scene(convention), question_records(target),
                                       placeholders=True, **scene_options)
    return write


def questions(root: Path) -> dict:
    rel = load_release(root)
    return {UIDS[q.task]: q for q in rel.questions}


def messages(scene) -> str:
    return "\n".join(str(d) for d in scene.diagnostics)


@pytest.mark.parametrize("convention", ["opencv", "opengl"])
def test_valid_scene_loads_with_poses_in_opencv(tmp_path, write_release, convention):
    write_release(convention, edit=lambda doc: doc["instances"]["table_qwerty_0"]["bbox3"].pop("rotation"))
    scene = load_scene(tmp_path, "scene_1")
    assert scene.camera_convention == convention
    assert len(scene.diagnostics) == 0, messages(scene)
    np.testing.assert_allclose(scene.viewpoints["pos_1_orient_0"].pose, VIEW_CV)
    video = scene.videos["video_3"]
    assert video.poses.shape == (3, 4, 4) and video.valid.all()
    np.testing.assert_allclose(video.poses[2, :3, 3], [-1, 2, 1.5])
    assert video.fps == 10 and video.intrinsics.K[0, 2] == 320
    assert video.file == str(tmp_path / "scenes/scene_1/videos/video_3.mp4")
    assert video.instances[TARGET]["best_frame_idx"] == 2
    assert scene.mesh.endswith("scene.glb")
    inst = scene.instances[TARGET]
    assert inst.semantic == "armchair" and inst.room == "living_room_0"
    np.testing.assert_allclose(inst.bbox.center, [1, 5, 0.5])
    # The table has no rotation field: identity; corners span its size.
    table = scene.instances["table_qwerty_0"].bbox.corners()
    np.testing.assert_allclose(table.min(0), [3, 1.5, 0])
    np.testing.assert_allclose(table.max(0), [5, 2.5, 0.8])
    m = scene.topdown["occupancy"]
    assert (m.width, m.height, m.kind) == (640, 512, "occupancy") and m.image.endswith("occupancy.png")


def test_rotated_box_corners(tmp_path, write_release):
    s = np.sin(np.pi / 4)
    write_release(edit=lambda doc: doc["instances"][TARGET].update(
        bbox3={"translation": [1, 1, 1], "size": [2, 4, 6], "rotation": [0, 0, s, s]}))
    box = load_scene(tmp_path, "scene_1").instances[TARGET].bbox
    corners = box.corners()
    assert corners.shape == (8, 3)
    # 90 degrees about z swaps the x and y extents.
    np.testing.assert_allclose(corners.min(0), [-1, 0, -2], atol=1e-12)
    np.testing.assert_allclose(corners.max(0), [3, 2, 4], atol=1e-12)


@pytest.mark.parametrize("convention", ["opencv", "opengl"])
def test_recomputed_ground_truth_hand_worked(tmp_path, write_release, convention):
    write_release(convention)
    scene = SceneLibrary(tmp_path).get("scene_1")
    qs = questions(tmp_path)
    got = {}
    for key, q in qs.items():
        geo = link_question(q, scene)
        assert geo.problems == [], (key, geo.problems)
        assert geo.video.id == "video_3" and geo.viewpoint.id == "pos_1_orient_0"
        assert geo.topdown.name == "occupancy"          # the scene's first map by default
        got[key] = recompute_ground_truth(q, geo)
    # Target (1, 5, 0.5) from camera (1, 2, 1.5) facing +x: to the left, sqrt(9 + 1) m away.
    assert got["ED"].value == 90 and isinstance(got["ED"].value, int)
    assert got["EDist"].value == 3.2
    assert got["EDist"].exact == pytest.approx(np.sqrt(10))
    # Target pixel (150, 150) on 640x512: floor(234.375), floor(292.96).
    assert got["GP"].value == (234, 292)
    assert got["GP"].exact == pytest.approx((234.375, 150 / 512 * 1000))
    # Camera pixel (150, 300): floor(234.375), floor(585.9).
    assert got["Pos"].value == (234, 585)
    assert got["Ori"].value == -90                      # facing image right
    assert got["TDS"].value is None and "multiple-choice" in got["TDS"].reason
    assert geo.target is None                           # TDS names no target


def test_meta_overrides_uid_and_names_the_map(tmp_path, write_release):
    write_release(edit=lambda doc: doc["topdown"].update(
        floorplan={"width": 100, "height": 100, "world_to_pixel": [[10, 0, 0], [0, -10, 100]]}))
    rec = {"task": "Object_Localization_Global_Position_visual", "uid": "anything", "scene": "scene_1",
           "answer": "<point>1 1</point>", "texts": [], "images": [],
           "meta": {"video": "video_3", "viewpoint": "pos_1_orient_0", "target": "table_qwerty_0",
                    "topdown": "floorplan"}}
    (tmp_path / "questions.jsonl").write_text(json.dumps(rec) + "\n")
    q = load_release(tmp_path).questions[0]
    geo = link_question(q, load_scene(tmp_path, "scene_1"))
    assert geo.target.id == "table_qwerty_0" and geo.topdown.name == "floorplan"
    # Table at (4, 2): pixel (40, 80) on a 100x100 map.
    assert recompute_ground_truth(q, geo).value == (400, 800)


def test_no_scene_json_is_none_and_reported_per_question(real_samples):
    lib = SceneLibrary(real_samples)
    rel = load_release(real_samples)
    assert lib.available() == []
    for q in rel.questions:
        assert lib.get(q.scene) is None
        geo = link_question(q, lib.get(q.scene))
        assert "scene.json" in geo.problems[0]
        assert recompute_ground_truth(q, geo).value is None


def test_library_caches_and_lists(tmp_path, write_release):
    write_release()
    lib = SceneLibrary(tmp_path)
    assert lib.available() == ["scene_1"]
    assert lib.get("scene_1") is lib.get("scene_1")
    assert lib.get("scene_9") is None
    assert lib.get("../scene_1") is None              # an id is never a path


def test_malformed_json_names_file_and_line(tmp_path, write_release):
    write_release(text='{"instances": {\n  "a": [1,\n}')
    scene = load_scene(tmp_path, "scene_1")
    err = scene.diagnostics.of_level("error")[0]
    assert err.file.endswith("scenes/scene_1/scene.json") and err.line == 3
    assert err.code == "json.malformed"
    assert scene.instances == {} and scene.viewpoints == {}
    q = questions(tmp_path)["ED"]
    problems = link_question(q, scene).problems
    assert any(TARGET in p and "not an instance" in p for p in problems)


def test_missing_instances_is_reported(tmp_path, write_release):
    write_release(edit=lambda doc: doc.pop("instances"))
    scene = load_scene(tmp_path, "scene_1")
    assert [d.code for d in scene.diagnostics] == ["scene.no_instances"]
    assert "pos_1_orient_0" in scene.viewpoints       # the rest still loads
    qs = questions(tmp_path)
    assert recompute_ground_truth(qs["Pos"], link_question(qs["Pos"], scene)).value == (234, 585)
    r = recompute_ground_truth(qs["ED"], link_question(qs["ED"], scene))
    assert r.value is None and TARGET in r.reason


def test_bad_video_poses_are_dropped_keeping_frame_indices(tmp_path, write_release):
    def broken(doc):
        poses = doc["videos"]["video_3"]["poses"]
        poses[0][3] = float("nan")                                    # NaN translation
        poses[1] = (np.array(poses[1]) * 2).tolist()                  # scaled: not rigid
        poses.append((np.diag([-1.0, 1, 1, 1]) @ VIEW_CV).ravel().tolist())   # reflection
        poses.append([1, 2, 3])                                       # wrong length
    write_release(edit=broken)
    scene = load_scene(tmp_path, "scene_1")
    video = scene.videos["video_3"]
    assert video.poses.shape == (5, 4, 4)
    np.testing.assert_array_equal(video.valid, [False, False, True, False, False])
    np.testing.assert_allclose(video.poses[2, :3, 3], [-1, 2, 1.5])
    text = messages(scene)
    assert "videos.video_3.poses[0]: pose contains NaN" in text
    assert "poses[1]: pose rotation is not orthonormal" in text or "poses[1]: pose last row" in text
    assert "poses[3]: pose rotation has determinant -1" in text
    assert "poses[4]" in text
    assert all(d.file.endswith("scene.json") for d in scene.diagnostics)


def test_non_rigid_viewpoint_is_rejected_with_reason(tmp_path, write_release):
    bad = VIEW_CV.copy()
    bad[:3, 0] *= 1.5
    write_release(edit=lambda doc: doc["viewpoints"]["pos_1_orient_0"].update(pose=bad.ravel().tolist()))
    scene = load_scene(tmp_path, "scene_1")
    assert "viewpoints.pos_1_orient_0.pose: pose rotation is not orthonormal" in messages(scene)
    q = questions(tmp_path)["ED"]
    geo = link_question(q, scene)
    assert geo.viewpoint is None
    assert any("pos_1_orient_0" in p and "unusable" in p for p in geo.problems)
    assert recompute_ground_truth(q, geo).value is None


def test_map_without_world_to_pixel_still_shows(tmp_path, write_release):
    write_release(edit=lambda doc: doc["topdown"]["occupancy"].pop("world_to_pixel"))
    scene = load_scene(tmp_path, "scene_1")
    assert "topdown.occupancy has no world_to_pixel" in messages(scene)
    m = scene.topdown["occupancy"]
    assert m.image is not None and m.world_to_pixel is None
    qs = questions(tmp_path)
    geo = link_question(qs["GP"], scene)
    assert geo.topdown is m and any("world_to_pixel" in p for p in geo.problems)
    r = recompute_ground_truth(qs["GP"], geo)
    assert r.value is None and "world_to_pixel" in r.reason
    assert recompute_ground_truth(qs["ED"], link_question(qs["ED"], scene)).value == 90


def test_singular_or_malformed_affine_is_refused(tmp_path, write_release):
    def broken(doc):
        doc["topdown"]["occupancy"]["world_to_pixel"] = [[1, 2, 0], [2, 4, 0]]
        doc["topdown"]["flat"] = {"world_to_pixel": [[1, 0], [0, 1]], "width": 10, "height": 10}
    write_release(edit=broken)
    scene = load_scene(tmp_path, "scene_1")
    assert scene.topdown["occupancy"].world_to_pixel is None and scene.topdown["flat"].world_to_pixel is None
    assert "singular" in messages(scene) and "topdown.flat.world_to_pixel" in messages(scene)


@pytest.mark.parametrize("field, value", [
    ("mesh", "../../outside.glb"), ("mesh", "/etc/passwd"),
    ("image", "../scene_2/topdown.png"), ("video", "videos/../../../x.mp4"),
])
def test_paths_escaping_the_scene_folder_are_refused(tmp_path, write_release, field, value):
    (tmp_path / "outside.glb").write_bytes(b"x")

    def broken(doc):
        if field == "mesh":
            doc["geometry"]["mesh"] = value
        elif field == "image":
            doc["topdown"]["occupancy"]["image"] = value
        else:
            doc["videos"]["video_3"]["file"] = value
    write_release(edit=broken)
    scene = load_scene(tmp_path, "scene_1")
    [refused] = [d for d in scene.diagnostics if d.code in ("scene.absolute_path", "scene.path_escapes")]
    assert value in refused.message
    got = {"mesh": scene.mesh, "image": scene.topdown["occupancy"].image,
           "video": scene.videos["video_3"].file}[field]
    assert got is None


def test_missing_referenced_file_is_a_warning(tmp_path, write_release):
    write_release(edit=lambda doc: doc["viewpoints"]["pos_1_orient_0"].update(image="views/nope.png"))
    scene = load_scene(tmp_path, "scene_1")
    w = scene.diagnostics.of_level("warning")
    assert len(w) == 1 and w[0].code == "scene.file_missing" and "views/nope.png" in w[0].message
    assert scene.viewpoints["pos_1_orient_0"].image is None


def test_target_not_in_scene_is_reported_per_question(tmp_path, write_release):
    write_release(target="sofa_zzzzzz_3")
    scene = load_scene(tmp_path, "scene_1")
    qs = questions(tmp_path)
    for key in ("ED", "EDist", "GP"):
        geo = link_question(qs[key], scene)
        assert geo.target is None
        assert any("'sofa_zzzzzz_3' is not an instance of scene scene_1" in p for p in geo.problems)
        assert "sofa_zzzzzz_3" in recompute_ground_truth(qs[key], geo).reason
    assert link_question(qs["Pos"], scene).problems == []


def test_bad_instances_and_fields_are_reported_and_skipped(tmp_path, write_release):
    def broken(doc):
        doc["camera_convention"] = "directx"
        doc["instances"]["broken_aaaaaa_0"] = {"semantic": "lamp",
                                               "bbox3": {"translation": [0, "x", 0], "size": [1, 1, 1]}}
        doc["instances"]["neg_aaaaaa_0"] = {"bbox3": {"translation": [0, 0, 0], "size": [1, -1, 1]}}
        doc["instances"]["zero_aaaaaa_0"] = {
            "bbox3": {"translation": [0, 0, 0], "size": [1, 1, 1], "rotation": [0, 0, 0, 0]}}
        doc["instances"]["nobox_aaaaaa_0"] = {"semantic": "rug"}
        doc["instances"]["list_aaaaaa_0"] = [1, 2]
        doc["videos"]["video_3"]["intrinsics"] = {"width": 640}
        doc["videos"]["video_3"]["fps"] = -1
        doc["viewpoints"]["pos_2_orient_0"] = {"image": "x.png"}
    write_release(edit=broken)
    scene = load_scene(tmp_path, "scene_1")
    text = messages(scene)
    assert "camera_convention 'directx'" in text and scene.camera_convention == "opencv"
    assert "instances.broken_aaaaaa_0.bbox3.translation must be a finite number" in text
    assert "size must not be negative" in text and "zero quaternion" in text
    assert "nobox_aaaaaa_0 has no bbox3" in text
    assert "instances.list_aaaaaa_0 must be an object" in text
    assert "videos.video_3.intrinsics: intrinsics lack" in text and "fps must be positive" in text
    assert "viewpoints.pos_2_orient_0 has no pose" in text
    assert scene.instances["broken_aaaaaa_0"].bbox is None and "list_aaaaaa_0" not in scene.instances
    assert scene.videos["video_3"].intrinsics is None and scene.videos["video_3"].fps is None
    assert TARGET in scene.instances and scene.instances[TARGET].bbox is not None


def test_wrong_top_level_types(tmp_path, write_release):
    write_release(text=json.dumps([1, 2, 3]))
    assert "must be a JSON object" in messages(load_scene(tmp_path, "scene_1"))
    write_release(edit=lambda doc: doc.update(videos=[1], format="other/2"))
    scene = load_scene(tmp_path, "scene_1")
    assert "'videos' must be an object" in messages(scene) and "format 'other/2'" in messages(scene)
    geo = link_question(questions(tmp_path)["ED"], scene)
    assert any("video 'video_3' is not in scene scene_1" in p for p in geo.problems)
    assert recompute_ground_truth(questions(tmp_path)["ED"], geo).value == 90   # needs no video
