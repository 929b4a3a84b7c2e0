"""The one gst-scene/1 writer: typed values -> scene.json -> the same values, in both pose conventions."""
import json
import os
import stat

import numpy as np
import pytest

from viewer.core.scene.model import Box3, Instance, Intrinsics, Scene, TopdownMap, VideoTrack, Viewpoint, load_scene
from viewer.core.scene.writer import readable_json, scene_document, write_scene, write_scene_document

# Camera at (1, 2, 1.5) looking along world +x (OpenCV: x right, y down, z forward).
VIEW_CV = np.array([[0, 0, 1, 1], [-1, 0, 0, 2], [0, -1, 0, 1.5], [0, 0, 0, 1]], float)
FLIP_YZ = np.diag([1.0, -1.0, -1.0, 1.0])        # OpenCV <-> OpenGL camera axes
INTR = Intrinsics(64, 48, 32.0, 32.0, 32.0, 24.0)
YAW_30 = [0.0, 0.0, np.sin(np.pi / 12), np.cos(np.pi / 12)]


def a_scene(folder, convention="opencv") -> Scene:
    walk = np.repeat(VIEW_CV[None], 4, axis=0)
    walk[:, 0, 3] -= np.arange(4)
    return Scene(
        "scene_7", str(folder), convention, mesh="scene.glb",
        instances={
            "chair_abcdef_0": Instance("chair_abcdef_0", "chair", "office_0",
                                       Box3([1, 5, 0.45], [0.6, 0.5, 0.9], YAW_30)),
            "rug_abcdef_0": Instance("rug_abcdef_0", "rug", None, None),
        },
        topdown={"occupancy": TopdownMap("occupancy", "topdown/occupancy.png", "occupancy", 200, 100,
                                         [[20.0, 0.0, 10.0], [0.0, -20.0, 90.0]])},
        videos={"video_0": VideoTrack("video_0", "videos/video_0.mp4", 10, INTR, walk,
                                      {"chair_abcdef_0": {"appear_frames": [1, 2], "best_frame_idx": 2,
                                                          "best_bbox": [3, 4, 30, 40]}})},
        viewpoints={"pos_1": Viewpoint("pos_1", VIEW_CV, "views/pos_1.png", INTR),
                    "pos_2": Viewpoint("pos_2", VIEW_CV, None, None)})


def with_named_files(scene: Scene) -> Scene:
    for rel in ("scene.glb", "topdown/occupancy.png", "videos/video_0.mp4", "views/pos_1.png"):
        path = os.path.join(scene.folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"x")
    return scene


@pytest.mark.parametrize("convention", ["opencv", "opengl"])
def test_round_trip_gives_the_same_values(tmp_path, convention):
    scene = with_named_files(a_scene(tmp_path / "scenes" / "scene_7", convention))
    assert write_scene(scene) == tmp_path / "scenes" / "scene_7" / "scene.json"
    got = load_scene(tmp_path, "scene_7")
    assert [d.message for d in got.diagnostics] == ["instances.rug_abcdef_0 has no bbox3; it cannot be located"]
    assert got.camera_convention == convention
    assert got.mesh == os.path.join(scene.folder, "scene.glb")
    chair = got.instances["chair_abcdef_0"]
    assert (chair.semantic, chair.room) == ("chair", "office_0")
    for field in ("translation", "size", "rotation"):
        np.testing.assert_allclose(getattr(chair.bbox, field), getattr(scene.instances["chair_abcdef_0"].bbox, field))
    assert got.instances["rug_abcdef_0"].bbox is None and got.instances["rug_abcdef_0"].room is None
    m = got.topdown["occupancy"]
    assert (m.kind, m.width, m.height, m.image) == ("occupancy", 200, 100,
                                                   os.path.join(scene.folder, "topdown/occupancy.png"))
    np.testing.assert_array_equal(m.world_to_pixel, scene.topdown["occupancy"].world_to_pixel)
    video = got.videos["video_0"]
    np.testing.assert_array_equal(video.poses, scene.videos["video_0"].poses)     # exact, both conventions
    assert video.fps == 10 and video.intrinsics == INTR
    assert video.instances == scene.videos["video_0"].instances
    np.testing.assert_array_equal(got.viewpoints["pos_1"].pose, VIEW_CV)
    assert got.viewpoints["pos_1"].intrinsics == INTR
    assert got.viewpoints["pos_2"].image is None and got.viewpoints["pos_2"].intrinsics is None
    # A loaded scene (absolute paths) writes back to the same document.
    assert scene_document(got) == scene_document(scene)


@pytest.mark.parametrize("convention, to_file", [("opencv", np.eye(4)), ("opengl", FLIP_YZ)])
def test_poses_are_written_in_the_declared_convention(tmp_path, convention, to_file):
    write_scene(a_scene(tmp_path, convention))
    doc = json.loads((tmp_path / "scene.json").read_text())
    assert doc["camera_convention"] == convention
    np.testing.assert_array_equal(np.reshape(doc["viewpoints"]["pos_1"]["pose"], (4, 4)), VIEW_CV @ to_file)
    first = np.reshape(doc["videos"]["video_0"]["poses"][0], (4, 4))
    np.testing.assert_array_equal(first, VIEW_CV @ to_file)


def test_file_is_readable_json_with_ints_kept_and_no_negative_zero(tmp_path):
    write_scene(a_scene(tmp_path, "opengl"))
    text = (tmp_path / "scene.json").read_text()
    assert text.endswith("}\n") and text == readable_json(json.loads(text)) + "\n"
    assert '"fps": 10,' in text and '"width": 64,' in text and '"fx": 32.0,' in text
    assert '"pose": [0.0, 0.0, -1.0, 1.0, -1.0, 0.0, 0.0, 2.0, 0.0, 1.0, 0.0, 1.5, 0.0, 0.0, 0.0, 1.0]' in text
    assert "-0.0" not in text
    doc = json.loads(text)
    assert list(doc) == ["format", "scene", "camera_convention", "geometry", "instances", "topdown", "videos",
                         "viewpoints"]
    assert doc["format"] == "gst-scene/1" and doc["geometry"] == {"mesh": "scene.glb"}
    assert doc["instances"]["rug_abcdef_0"] == {"semantic": "rug"}


def test_written_atomically_with_an_ordinary_file_mode(tmp_path):
    path = write_scene_document(tmp_path / "deep" / "scene_1", {"format": "gst-scene/1"})
    assert os.listdir(path.parent) == ["scene.json"]                   # no temporary file left
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_paths_are_written_relative_and_never_outside_the_folder(tmp_path):
    scene = a_scene(tmp_path / "s")
    scene.viewpoints["pos_1"].image = str(tmp_path / "s" / "views" / "pos_1.png")
    assert scene_document(scene)["viewpoints"]["pos_1"]["image"] == "views/pos_1.png"
    scene.viewpoints["pos_1"].image = str(tmp_path / "elsewhere.png")
    with pytest.raises(ValueError, match="outside the scene folder"):
        scene_document(scene)
