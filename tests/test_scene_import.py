"""`import-scene`: six sources imported from fixtures, checked numerically; bad input; scenes/index.json.

Known poses of the hand-written fixtures (tests/data/scene_import/SOURCES.md):
camera A stands at (2, 1, 1.5) looking along world +x, camera B at (4, 3, 1.5)
looking along +y, both level, in a z-up world. COLMAP and ARKitScenes store
them world-to-camera, ARKitScenes in a y-up world; nerfstudio's real lego
camera is checked against its matrix, read as OpenGL camera-to-world.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from viewer.core.diagnostics import UserError
from viewer.core.scene.formats import inverted_trajectory, read_trajectory
from viewer.core.scene.model import load_scene
from viewer.core.scene.reader import read_scene_file
from viewer.render.scene_import import ImportRequest, import_scene

DATA = Path(__file__).parent / "data" / "scene_import"
A_CENTRE, A_FORWARD = np.array([2.0, 1.0, 1.5]), np.array([1.0, 0.0, 0.0])
B_CENTRE, B_FORWARD = np.array([4.0, 3.0, 1.5]), np.array([0.0, 1.0, 0.0])


def room_mesh(path: Path, lo=(0, 0, 0), hi=(6, 4, 2.5), up="z") -> Path:
    """A closed box room as a PLY, optionally written y-up."""
    import trimesh
    lo, hi = np.array(lo, float), np.array(hi, float)
    box = trimesh.creation.box(extents=hi - lo)
    box.apply_translation((lo + hi) / 2)
    if up == "y":            # z-up (x, y, z) -> y-up (x, z, -y)
        box.vertices = box.vertices @ np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]], float).T
    box.export(str(path))
    return path


def written(result):
    """The scene as the viewer reads it back from the written folder."""
    return read_scene_file(result.folder / "scene.json", result.folder.name)


def check_camera(pose, centre, forward):
    assert pose[:3, 3] == pytest.approx(centre, abs=1e-6)
    assert pose[:3, 2] == pytest.approx(forward, abs=1e-6)      # OpenCV: the camera looks along +z
    assert pose[:3, 1] == pytest.approx([0, 0, -1], abs=1e-6)   # level: image down = world down


# ------------------------------------------------------------------ the six sources
def test_omnigibson_scene_file(tmp_path):
    result = import_scene(ImportRequest(str(tmp_path / "Fixture_int"),
                                        omnigibson=str(DATA / "omnigibson/Fixture_int_best.json"),
                                        trajectory=str(DATA / "omnigibson/walk_tum.txt")))
    scene = written(result)
    chair = scene.instances["armchair_vzhxuf_0"]
    assert (chair.semantic, chair.room) == ("armchair", "living_room_0")
    # Yawed 90 degrees: its 0.9 m width lies along world y. Corner 0 is the (-, -, -) one.
    corners = chair.bbox.corners()
    assert corners[0] == pytest.approx([2.4, 2.55, 0.0])
    assert corners[7] == pytest.approx([1.6, 3.45, 0.9])
    assert {i.semantic for i in scene.instances.values()} >= {"floors", "walls", "ceilings"}
    poses = scene.videos["trajectory"].poses
    check_camera(poses[0], A_CENTRE, A_FORWARD)
    check_camera(poses[1], B_CENTRE, B_FORWARD)
    assert set(scene.topdown) == {"floorplan", "occupancy"}
    occupancy = scene.topdown["occupancy"]
    assert occupancy.world_to_pixel is not None and Path(occupancy.image).is_file()
    assert not scene.diagnostics.of_level("error")
    assert result.diagnostics.with_code("import.format_guessed")


def test_omnigibson_older_layout_gives_the_same_objects(tmp_path):
    new = import_scene(ImportRequest(str(tmp_path / "a"), omnigibson=str(DATA / "omnigibson/Fixture_int_best.json")))
    old = import_scene(ImportRequest(str(tmp_path / "b"), omnigibson=str(DATA / "omnigibson/Fixture_int_old.json")))
    a, b = written(new).instances, written(old).instances
    assert a.keys() == b.keys()
    assert a["fridge_xyzabc_0"].bbox.corners() == pytest.approx(b["fridge_xyzabc_0"].bbox.corners())


def test_omnigibson_object_meshes_replace_the_boxes(tmp_path):
    import trimesh
    meshes = tmp_path / "meshes" / "armchair" / "vzhxuf"
    meshes.mkdir(parents=True)
    trimesh.creation.box(extents=(2.0, 2.0, 2.0)).export(str(meshes / "vzhxuf.obj"))   # scaled to its bounding_box
    result = import_scene(ImportRequest(str(tmp_path / "scene"), meshes=str(tmp_path / "meshes"),
                                        omnigibson=str(DATA / "omnigibson/Fixture_int_best.json")))
    from viewer.render.scene_mesh import load_scene_mesh
    mesh = load_scene_mesh(written(result).mesh)
    mine = mesh.triangle_instance == mesh.index_of("armchair_vzhxuf_0")
    chair = mesh.vertices[mesh.triangles[mine].ravel()]
    assert chair.min(axis=0) == pytest.approx([1.6, 2.55, 0.0], abs=1e-5)
    assert chair.max(axis=0) == pytest.approx([2.4, 3.45, 0.9], abs=1e-5)
    assert result.diagnostics.with_code("import.object_mesh_missing")       # the others are boxes


def test_tum_real_file(tmp_path):
    """rpg_trajectory_evaluation's estimate: pose 3 is rotated ~105.8 degrees about -y (qy = -0.797, qw = 0.603)."""
    traj = read_trajectory(DATA / "rpg/stamped_traj_estimate.txt")
    assert traj.format == "tum" and len(traj.poses) == 12
    assert traj.timestamps[1] - traj.timestamps[0] == pytest.approx(0.05, abs=1e-6)
    theta = 2 * np.arccos(6.033503099999999453e-01)
    p = traj.poses[2]
    assert p[:3, 3] == pytest.approx([7.186994399999999475e-05, -1.346298099999999930e-03, -2.111608999999999860e-05])
    assert p[:3, 2] == pytest.approx([-np.sin(theta), 0.0, np.cos(theta)], abs=0.03)
    # Imported with a 5 cm object, the scale of this 7 mm walk.
    result = import_scene(ImportRequest(str(tmp_path / "rpg"), mesh=str(room_mesh(tmp_path / "m.ply", (-0.02,) * 3,
                                                                                  (0.03,) * 3)),
                                        trajectory=str(DATA / "rpg/stamped_traj_estimate.txt"),
                                        trajectory_format="tum", up="z"))   # VIO body poses, not a camera's up
    assert written(result).videos["trajectory"].poses[2] == pytest.approx(p)


def test_colmap_world_to_camera(tmp_path):
    result = import_scene(ImportRequest(str(tmp_path / "colmap"), mesh=str(room_mesh(tmp_path / "room.ply")),
                                        trajectory=str(DATA / "colmap"), trajectory_format="colmap"))
    video = written(result).videos["trajectory"]
    check_camera(video.poses[0], A_CENTRE, A_FORWARD)          # IMAGE_ID 1 first, though listed second
    check_camera(video.poses[1], B_CENTRE, B_FORWARD)
    assert (video.intrinsics.width, video.intrinsics.fx, video.intrinsics.cy) == (640, 500.0, 240.0)
    assert not result.diagnostics.with_code("import.trajectory_inverted")


def test_nerfstudio_real_lego_file(tmp_path):
    """OpenGL camera-to-world: the camera looks along minus the matrix's third column."""
    m = np.array(json.loads((DATA / "nerfstudio_lego/transforms_train.json").read_text())["frames"][0]
                 ["transform_matrix"])
    result = import_scene(ImportRequest(str(tmp_path / "lego"), mesh=str(room_mesh(tmp_path / "lego.ply",
                                                                                   (-1.5, -1.5, 0), (1.5, 1.5, 2))),
                                        trajectory=str(DATA / "nerfstudio_lego/transforms_train.json")))
    video = written(result).videos["trajectory"]
    pose = video.poses[0]
    assert pose[:3, 3] == pytest.approx([-0.05379832, 3.84547043, 1.20808232])
    assert pose[:3, 2] == pytest.approx(-m[:3, 2])
    assert pose[:3, 2] == pytest.approx([0.01334572, -0.95394367, -0.29968831])   # towards the object, down a bit
    assert video.intrinsics.fx == pytest.approx(1111.111, abs=1e-3)              # 400 / tan(camera_angle_x / 2)
    assert (video.intrinsics.width, video.intrinsics.height) == (800, 800)
    assert result.diagnostics.with_code("import.format_guessed")


def test_scannet_folder(tmp_path):
    result = import_scene(ImportRequest(str(tmp_path / "scannet"), mesh=str(room_mesh(tmp_path / "room.ply")),
                                        trajectory=str(DATA / "scannet")))
    video = written(result).videos["trajectory"]
    check_camera(video.poses[0], A_CENTRE, A_FORWARD)
    check_camera(video.poses[1], B_CENTRE, B_FORWARD)
    assert not np.isfinite(video.poses[2]).any()              # -inf: tracking lost, kept as a frame with no pose
    assert result.diagnostics.with_code("import.tracking_lost")
    assert video.intrinsics.fx == pytest.approx(1169.621094)
    assert (video.intrinsics.width, video.intrinsics.height) == (1293, 980)


def test_arkitscenes_y_up(tmp_path):
    mesh = room_mesh(tmp_path / "room.ply", up="y")
    result = import_scene(ImportRequest(str(tmp_path / "arkit"), mesh=str(mesh), up="y",
                                        trajectory=str(DATA / "arkitscenes/lowres_wide.traj")))
    scene = written(result)
    check_camera(scene.videos["trajectory"].poses[0], A_CENTRE, A_FORWARD)
    check_camera(scene.videos["trajectory"].poses[1], B_CENTRE, B_FORWARD)
    assert scene.videos["trajectory"].intrinsics.width == 256
    # The mesh was turned z-up once, with the poses: the room's box is back at 0..6 x 0..4 x 0..2.5.
    from viewer.render.scene_mesh import load_scene_mesh
    lo, hi = load_scene_mesh(scene.mesh).bounds()
    assert lo == pytest.approx([0, 0, 0], abs=1e-5) and hi == pytest.approx([6, 4, 2.5], abs=1e-5)


# ------------------------------------------------------------------ conventions and checks
def test_an_inverted_trajectory_is_reported(tmp_path):
    """COLMAP's world-to-camera poses read as TUM (camera-to-world) put the cameras outside the room."""
    lines = []
    for ln in (DATA / "colmap/images.txt").read_text().splitlines():
        t = ln.split()
        if len(t) >= 10 and not ln.startswith("#"):
            qw, qx, qy, qz, tx, ty, tz = t[1:8]
            lines.append(f"{t[0]} {tx} {ty} {tz} {qx} {qy} {qz} {qw}")
    wrong = tmp_path / "as_tum.txt"
    wrong.write_text("\n".join(lines) + "\n")
    result = import_scene(ImportRequest(str(tmp_path / "s"), mesh=str(room_mesh(tmp_path / "room.ply")),
                                        trajectory=str(wrong), trajectory_format="tum"))
    (d,) = result.diagnostics.with_code("import.trajectory_inverted")
    assert d.file == str(wrong) and "world-to-camera" in d.message
    poses = written(result).videos["trajectory"].poses
    assert inverted_trajectory(np.linalg.inv(poses), (0, 0, 0), (6, 4, 2.5)) is None


def test_units_mismatch_stops_and_leaves_nothing(tmp_path):
    mesh = room_mesh(tmp_path / "room_mm.ply", (0, 0, 0), (6000, 4000, 2500))     # millimetres
    out = tmp_path / "out"
    with pytest.raises(UserError, match="different units"):
        import_scene(ImportRequest(str(out), mesh=str(mesh), trajectory=str(DATA / "colmap")))
    assert not out.exists() and not list(tmp_path.glob(".out.*"))


# ------------------------------------------------------------------ bad input
def _tum(tmp_path, body: str) -> Path:
    p = tmp_path / "traj.txt"
    p.write_text("# time x y z qx qy qz qw\n" + body)
    return p


GOOD = "0.0 2 1 1.5 0.5 -0.5 0.5 -0.5\n"


@pytest.mark.parametrize("line, code", [
    ("0.1 2 1 1.5 0.5 -0.5 oops -0.5\n", "import.malformed_line"),
    ("0.1 2 1 nan 0.5 -0.5 0.5 -0.5\n", "import.bad_pose"),
    ("0.1 2 1 1.5 0 0 0 0\n", "import.bad_quaternion"),
])
def test_bad_tum_lines_are_skipped_with_file_and_line(tmp_path, line, code):
    traj = read_trajectory(_tum(tmp_path, GOOD + line + "0.2" + GOOD[3:]), "tum")
    (d,) = traj.diagnostics.with_code(code)
    assert (d.file, d.line) == (str(tmp_path / "traj.txt"), 3)
    assert traj.valid.tolist() == ([True, True] if code == "import.malformed_line" else [True, False, True])


def test_a_non_rotation_matrix_is_skipped(tmp_path):
    shutil.copytree(DATA / "scannet", tmp_path / "scannet")
    (tmp_path / "scannet/pose/1.txt").write_text("2 0 0 4\n0 1 0 3\n0 0 1 1.5\n0 0 0 1\n")
    traj = read_trajectory(tmp_path / "scannet", "scannet")
    (d,) = traj.diagnostics.with_code("import.bad_pose")
    assert d.file.endswith("pose/1.txt") and "orthonormal" in d.message
    assert traj.valid.tolist() == [True, False, False]


def test_nerfstudio_bad_json_path(tmp_path):
    doc = json.loads((DATA / "nerfstudio_lego/transforms_train.json").read_text())
    doc["frames"].append({"file_path": "x", "transform_matrix": [[1, 0], [0, 1]]})
    p = tmp_path / "transforms.json"
    p.write_text(json.dumps(doc))
    traj = read_trajectory(p)
    (d,) = traj.diagnostics.with_code("import.malformed_entry")
    assert "frames[1].transform_matrix" in d.message and d.file == str(p)
    p.write_text('{"frames": [}')
    with pytest.raises(UserError, match=r"transforms.json:1: malformed JSON"):
        read_trajectory(p)


def test_colmap_unknown_camera_model_and_zero_intrinsics(tmp_path):
    shutil.copytree(DATA / "colmap", tmp_path / "colmap")
    cams = tmp_path / "colmap/cameras.txt"
    cams.write_text("1 EQUIRECTANGULAR 640 480 1 2 3\n")
    traj = read_trajectory(tmp_path / "colmap", "colmap")
    (d,) = traj.diagnostics.with_code("import.unknown_camera_model")
    assert (d.file, d.line) == (str(cams), 1) and traj.intrinsics is None and traj.valid.all()
    cams.write_text("1 PINHOLE 640 480 0 500 320 240\n")
    traj = read_trajectory(tmp_path / "colmap", "colmap")
    (d,) = traj.diagnostics.with_code("import.bad_intrinsics")
    assert d.line == 1 and "fx" in d.message and traj.intrinsics is None


def test_empty_or_unreadable_mesh_stops(tmp_path):
    empty = tmp_path / "empty.ply"
    empty.write_text("ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\n"
                     "property float z\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n")
    garbage = tmp_path / "garbage.ply"
    garbage.write_bytes(b"\x00not a mesh")
    for mesh in (empty, garbage):
        out = tmp_path / f"out_{mesh.stem}"
        with pytest.raises(UserError, match=str(mesh)):
            import_scene(ImportRequest(str(out), mesh=str(mesh)))
        assert not out.exists()


def test_unknown_versions_layout_stops(tmp_path):
    doc = json.loads((DATA / "omnigibson/Fixture_int_best.json").read_text())
    doc["versions"] = ["1.1.1"]
    p = tmp_path / "Odd_best.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(UserError, match=r"Odd_best.json: 'versions' has an unknown layout"):
        import_scene(ImportRequest(str(tmp_path / "out"), omnigibson=str(p)))
    assert not (tmp_path / "out").exists()


def test_object_without_pose_is_skipped_and_named(tmp_path):
    doc = json.loads((DATA / "omnigibson/Fixture_int_best.json").read_text())
    del doc["state"]["registry"]["object_registry"]["fridge_xyzabc_0"]
    doc["state"]["registry"]["object_registry"]["armchair_vzhxuf_0"]["root_link"]["ori"] = [0, 0, 0, 0]
    p = tmp_path / "Fixture_int_best.json"
    p.write_text(json.dumps(doc))
    result = import_scene(ImportRequest(str(tmp_path / "out"), omnigibson=str(p)))
    (d,) = result.diagnostics.with_code("import.object_without_pose")
    assert "state.registry.object_registry.fridge_xyzabc_0.root_link" in d.message and d.file == str(p)
    (q,) = result.diagnostics.with_code("import.bad_pose")
    assert "armchair_vzhxuf_0.root_link.ori is a zero-norm quaternion" in q.message
    assert "fridge_xyzabc_0" not in written(result).instances and "walls_cccccc_0" in written(result).instances


def test_out_dir_is_never_overwritten_by_accident(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(UserError, match="already exists"):
        import_scene(ImportRequest(str(out), omnigibson=str(DATA / "omnigibson/Fixture_int_best.json")))
    assert (out / "keep.txt").read_text() == "mine"


# ------------------------------------------------------------------ linking to a release
def test_release_index_links_an_imported_scene_and_the_audit_runs_geometry_checks(tmp_path):
    """scenes/index.json maps the questions' scene id to an imported OmniGibson-layout folder."""
    from viewer.core.audit import run_audit
    from viewer.core.geometry import pixel_to_normalised, world_to_pixel
    from viewer.core.release import load_release
    from viewer.render.visibility import SceneVisibility

    root = tmp_path / "release"
    result = import_scene(ImportRequest(str(root / "scenes" / "Fixture_int"),
                                        omnigibson=str(DATA / "omnigibson/Fixture_int_best.json"),
                                        trajectory=str(DATA / "colmap"), trajectory_format="colmap"))
    (root / "scenes" / "index.json").write_text(json.dumps({"scene4": "Fixture_int"}))
    occupancy = result.scene.topdown["occupancy"]
    px = world_to_pixel(occupancy.world_to_pixel, [2.0, 3.0])             # the armchair's centre
    x, y = pixel_to_normalised(px, occupancy.width, occupancy.height)
    uid = "scene4_Object_Localization_Global_Position_visual_armchair_vzhxuf_0_trajectory"
    (root / "questions.jsonl").write_text(json.dumps({
        "task": "Object_Localization_Global_Position_visual", "uid": uid, "scene": "scene4",
        "answer": f"<point>{x} {y}</point>", "texts": ["Video:", "Where is the armchair?"],
        "meta": {"video": "trajectory", "topdown": "occupancy", "target": "armchair_vzhxuf_0"}}) + "\n")

    scene = load_scene(root, "scene4")
    assert scene.id == "scene4" and "armchair_vzhxuf_0" in scene.instances
    assert not scene.diagnostics.of_level("error")
    report = run_audit(load_release(root), visibility=SceneVisibility)
    summary = report.summary()
    ran = {c: n for c, n in summary.items() if n["checked"]}
    assert "target_unseen_in_video" in ran, summary          # ray casting against the imported geometry
    point_checks = [c for c in ran if c != "target_unseen_in_video"]
    assert point_checks, summary                             # the stored point recomputed from the map
    assert all(summary[c]["skipped"] == 0 for c in ran)
    assert not [f for f in report.findings if f.check in point_checks]   # and it agrees


def test_index_entry_without_a_scene_is_reported(tmp_path):
    from scene_release import SCENE, build
    root = build(tmp_path / "release", video=False)
    (root / "scenes" / "index.json").write_text(json.dumps({"scene9": "Nowhere_int"}))
    scene = load_scene(root, "scene9")
    (d,) = scene.diagnostics.with_code("scene_index.no_scene")
    assert d.file.endswith("index.json") and "scene9" in d.message
    assert load_scene(root, SCENE) is not None       # the other scenes still come from scene.json


# ------------------------------------------------------------------ the command
def test_cli_import_scene(tmp_path, capsys):
    from viewer.cli import main
    out = tmp_path / "lego"
    code = main(["import-scene", str(out), "--mesh", str(room_mesh(tmp_path / "m.ply", (-1.5, -1.5, 0), (1.5, 1.5, 2))),
                 "--trajectory", str(DATA / "nerfstudio_lego/transforms_train.json")])
    assert code == 0
    captured = capsys.readouterr()
    assert "assumed 'nerfstudio'" in captured.err and "imported lego" in captured.out
    assert (out / "scene.json").is_file() and (out / "maps/occupancy.png").is_file()
    assert main(["import-scene", str(tmp_path / "x"), "--mesh", str(tmp_path / "missing.ply")]) == 2
    assert "missing.ply" in capsys.readouterr().err
