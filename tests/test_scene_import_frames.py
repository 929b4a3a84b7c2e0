"""`import-scene` on files whose world is not the viewer's: the up axis decided from the data, a
trajectory in another frame (georeferenced, other units), inverted orbit poses.

Each case is a small file in its format's real layout (tests/data/scene_import/SOURCES.md) and each
test checks the picture: the free floor area of the occupancy map, the path inside the map, the
cameras level in the z-up world.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from import_fixtures import DATA, FLOOR, TABLE, free_area, level_cameras, room_glb, room_ply, tum_walk, written

from viewer.core.geometry import world_to_pixel
from viewer.core.scene.formats import UP_AXES, decide_up
from viewer.render.scene_import import ImportRequest, import_scene


# ------------------------------------------------------------------ the up axis
def test_a_y_up_glb_is_imported_upright_and_says_why(tmp_path):
    glb = room_glb(tmp_path / "room.glb", "y")
    result = import_scene(ImportRequest(str(tmp_path / "auto"), mesh=str(glb)))
    assert (result.up.axis, result.up.source) == ("y", "format")
    (said,) = result.diagnostics.with_code("import.up_axis")
    assert "up axis y" in said.message and "glTF" in said.message
    scene = written(result)
    floor = FLOOR[0] * FLOOR[1] - TABLE[0] * TABLE[1]
    assert free_area(scene) == pytest.approx(floor, rel=0.05)       # the plan, not a side view
    doc = json.loads((result.folder / "scene.json").read_text())
    assert doc["import"]["up"] == {"axis": "y", "source": "format", "why": "glTF is y-up by its specification"}
    # The old default drew it side-on: the floor stands on edge and nothing is free.
    side_on = import_scene(ImportRequest(str(tmp_path / "z"), mesh=str(glb), up="z"))
    assert free_area(written(side_on)) < 1.0


def test_a_z_up_glb_is_kept_z_up_by_its_floors(tmp_path):
    """Some GLBs (habitat's simple_room) are z-up despite glTF's convention: their floors say so."""
    result = import_scene(ImportRequest(str(tmp_path / "out"), mesh=str(room_glb(tmp_path / "room.glb", "z"))))
    assert (result.up.axis, result.up.source) == ("z", "geometry")
    assert "glTF is y-up" in result.up.why and "face z" in result.up.why
    assert free_area(written(result)) == pytest.approx(23.0, rel=0.05)


def test_mesh_and_cameras_disagreeing_about_up_is_a_warning_naming_both(tmp_path):
    glb = room_glb(tmp_path / "room.glb", "y")
    walk = tum_walk(tmp_path / "walk.txt")                  # z-up cameras beside a y-up mesh
    result = import_scene(ImportRequest(str(tmp_path / "out"), mesh=str(glb), trajectory=str(walk)))
    (d,) = result.diagnostics.with_code("import.up_disagreement")
    assert "the mesh says y" in d.message and "the cameras say z" in d.message and "--up z" in d.message
    assert result.up.axis == "y"


@pytest.mark.parametrize("up", ["x", "-x", "y", "-y", "z", "-z"])
def test_every_axis_turns_that_axis_up(up):
    R = UP_AXES[up]
    assert np.linalg.det(R) == pytest.approx(1.0) and R @ R.T == pytest.approx(np.eye(3))
    axis = np.zeros(3)
    axis["xyz".index(up[-1])] = -1.0 if up.startswith("-") else 1.0
    assert R @ axis == pytest.approx([0, 0, 1])


def test_colmap_minus_y_up_is_decided_from_the_cameras(tmp_path):
    """COLMAP's world is arbitrary; this model's is -y up, as COLMAP's often is (the real Statue of Liberty
    model in docs/scene-import.md, Checked against real files, is too). The mesh beside it: the room's floor
    and table, as a PLY in the same -y-up world."""
    mesh = room_glb(tmp_path / "room.ply", "-y")
    result = import_scene(ImportRequest(str(tmp_path / "out"), mesh=str(mesh), trajectory=str(DATA / "colmap_minus_y")))
    assert (result.up.axis, result.up.source) == ("-y", "cameras")
    assert "100% of 8 cameras" in result.up.why
    scene = written(result)
    level_cameras(scene.videos["trajectory"].poses)
    assert scene.videos["trajectory"].poses[0][:3, 3] == pytest.approx([1.0, 1.0, 1.5], abs=1e-6)
    from viewer.render.scene_mesh import load_scene_mesh
    lo, hi = load_scene_mesh(scene.mesh).bounds()
    assert lo == pytest.approx([0, 0, 0], abs=1e-5) and hi == pytest.approx([6, 4, TABLE[2]], abs=1e-5)
    # The picture: the plan of the room (its floor free but for the table), the walk inside the map.
    assert free_area(scene) == pytest.approx(FLOOR[0] * FLOOR[1] - TABLE[0] * TABLE[1], rel=0.05)
    occ = scene.topdown["occupancy"]
    px = world_to_pixel(occ.world_to_pixel, scene.videos["trajectory"].poses[:, :3, 3][:, :2])
    assert ((px >= 0) & (px < [occ.width, occ.height])).all()
    # The old default (z) drew it side-on: the floor stands on edge, and the "plan" is nothing like the room.
    side_on = import_scene(ImportRequest(str(tmp_path / "z"), mesh=str(mesh), up="z"))
    assert free_area(written(side_on)) < 0.25 * (FLOOR[0] * FLOOR[1])


def test_a_flat_path_decides_up_when_the_cameras_tilt_every_way():
    """Cameras rolled every which way (a handheld sweep), walking at one height: the path's plane decides."""
    rng = np.random.default_rng(3)
    poses = []
    for k in range(40):
        R = np.linalg.qr(rng.normal(size=(3, 3)))[0]          # a uniformly random rotation
        R *= np.sign(np.linalg.det(R))
        P = np.eye(4)
        P[:3, :3] = R
        P[:3, 3] = [5 * np.cos(k / 6), 3 * np.sin(k / 6), 1.5 + 0.02 * rng.normal()]
        poses.append(P)
    assert decide_up("auto", poses=np.array(poses)).source == "path"
    assert decide_up("auto", poses=np.array(poses)).axis in ("z", "-z")


# ------------------------------------------------------------------ one frame
def test_a_georeferenced_trajectory_is_reported_then_aligned(tmp_path):
    mesh = room_ply(tmp_path / "room.ply")
    geo = DATA / "tum_georeferenced.txt"
    far = import_scene(ImportRequest(str(tmp_path / "far"), mesh=str(mesh), trajectory=str(geo)))
    (d,) = far.diagnostics.with_code("import.trajectory_outside_mesh")
    assert "georeferenced" in d.message and "100% of the camera centres" in d.message
    assert "+5.123e+05" in d.message and "--align-trajectory center" in d.message

    aligned = import_scene(ImportRequest(str(tmp_path / "aligned"), mesh=str(mesh), trajectory=str(geo),
                                         align_trajectory="center"))
    assert (aligned.up.axis, aligned.up.source) == ("z", "cameras")
    assert not aligned.diagnostics.with_code("import.trajectory_outside_mesh")
    scene = written(aligned)
    centres = scene.videos["trajectory"].poses[:, :3, 3]
    assert ((centres[:, :2] >= 0) & (centres[:, :2] <= FLOOR)).all()        # on the room's floor
    occ = scene.topdown["occupancy"]
    px = world_to_pixel(occ.world_to_pixel, centres[:, :2])
    assert ((px >= 0) & (px < [occ.width, occ.height])).all()                # drawn inside the map
    moved = json.loads((aligned.folder / "scene.json").read_text())["import"]["trajectory"]
    assert moved["translation"][:2] == pytest.approx([3 - 2.75 - 512345, 2 - 1.875 - 4101234], abs=1e-3)


def test_a_trajectory_at_another_scale_is_reported_then_scaled(tmp_path):
    mesh = room_ply(tmp_path / "room.ply")
    big = tum_walk(tmp_path / "walk.txt", scale=30.0)                      # e.g. a 1:30 reconstruction
    result = import_scene(ImportRequest(str(tmp_path / "a"), mesh=str(mesh), trajectory=str(big)))
    (d,) = result.diagnostics.with_code("import.trajectory_outside_mesh")
    assert "other units" in d.message and "spans 17.5x" in d.message
    fixed = import_scene(ImportRequest(str(tmp_path / "b"), mesh=str(mesh), trajectory=str(big),
                                       trajectory_scale=1 / 30))
    assert not fixed.diagnostics.with_code("import.trajectory_outside_mesh")
    assert written(fixed).videos["trajectory"].poses[0][:3, 3] == pytest.approx([1.0, 1.0, 1.5], abs=1e-6)


def test_a_path_near_the_mesh_is_inside_the_map(tmp_path):
    """A walk that leaves the mesh's bounds a little: the maps frame both, so all of it is drawn."""
    mesh = room_ply(tmp_path / "room.ply", hi=(3, 4, 2.5))               # the walk goes to x = 4.5
    result = import_scene(ImportRequest(str(tmp_path / "out"), mesh=str(mesh), trajectory=str(tum_walk(
        tmp_path / "walk.txt"))))
    scene = written(result)
    occ = scene.topdown["occupancy"]
    px = world_to_pixel(occ.world_to_pixel, scene.videos["trajectory"].poses[:, :3, 3][:, :2])
    assert ((px >= 0) & (px < [occ.width, occ.height])).all()


# ------------------------------------------------------------------ inverted poses
def world_to_camera(orbit: Path, out: Path) -> Path:
    """The same transforms.json with every transform_matrix inverted: world-to-camera, as a wrong export writes."""
    doc = json.loads(orbit.read_text())
    for frame in doc["frames"]:
        frame["transform_matrix"] = np.linalg.inv(np.array(frame["transform_matrix"])).tolist()
    out.write_text(json.dumps(doc))
    return out


@pytest.mark.parametrize("orbit", ["ngp_orbit", "ngp_fox_arc"])
def test_inverted_orbit_poses_are_detected_by_where_the_cameras_look(tmp_path, orbit):
    """instant-ngp captures around a 1 m object: a full orbit (16 cameras 3 m away) and an arc like the fox's
    (24 cameras 6 m away over 70 degrees, a little below the object). Read right, the cameras look at the
    object, say z is up, and the one-frame warning calls it object-centric; written world-to-camera, they all
    sit at one point looking every way: with the default --up auto that is reported, and those cameras are
    not asked which way is up."""
    obj = room_ply(tmp_path / "object.ply", lo=(-0.5, -0.5, -0.8), hi=(0.5, 0.5, 0.2))
    path = DATA / orbit / "transforms.json"
    right = import_scene(ImportRequest(str(tmp_path / "right"), mesh=str(obj), trajectory=str(path)))
    assert (right.up.axis, right.up.source) == ("z", "cameras")
    assert not right.diagnostics.with_code("import.trajectory_inverted")
    (d,) = right.diagnostics.with_code("import.trajectory_outside_mesh")
    assert "object-centric" in d.message                      # said, and said to be expected
    level_cameras_up(written(right).videos["trajectory"].poses)

    wrong = world_to_camera(path, tmp_path / "transforms.json")
    inverted = import_scene(ImportRequest(str(tmp_path / "wrong"), mesh=str(obj), trajectory=str(wrong)))
    (d,) = inverted.diagnostics.with_code("import.trajectory_inverted")
    assert "look towards it" in d.message and "world-to-camera" in d.message
    assert inverted.diagnostics.with_code("import.up_cameras_ignored") and inverted.up.source != "cameras"
    (d,) = inverted.diagnostics.with_code("import.trajectory_outside_mesh")
    assert "world-to-camera poses" in d.message


def level_cameras_up(poses):
    """Cameras whose image up is within 30 degrees of the world's up (an orbit tilts a little)."""
    assert (-poses[:, :3, 1] @ [0, 0, 1] > np.cos(np.radians(30))).all()


@pytest.mark.parametrize("up", ["y", "-y", "x"])
def test_inverted_poses_are_judged_in_the_files_own_world(up):
    """A world-to-camera file whose world is not z-up: after the turn to z-up, its inverses must be taken in
    the file's world (where the matrix was written), else the test inverts the turn as well."""
    from viewer.core.geometry import opengl_to_opencv
    from viewer.core.scene.formats import inverted_trajectory, z_up
    doc = json.loads((DATA / "ngp_fox_arc" / "transforms.json").read_text())
    capture = opengl_to_opencv(np.array([f["transform_matrix"] for f in doc["frames"]]))   # z-up, right
    lo, hi = np.array([-0.5, -0.5, -0.8]), np.array([0.5, 0.5, 0.2])
    in_file = z_up(capture, up, inverse=True)                 # the same capture in an `up`-up file
    as_read = z_up(np.linalg.inv(in_file), up)                # written world-to-camera, read, turned z-up
    assert inverted_trajectory(z_up(in_file, up), lo, hi, up=up) is None
    assert "world-to-camera" in inverted_trajectory(as_read, lo, hi, up=up)
    assert inverted_trajectory(as_read, lo, hi) is None      # inverted after the turn: missed


# ------------------------------------------------------------------ the command
def test_cli_says_the_up_axis_and_aligns(tmp_path, capsys):
    from viewer.cli import main
    glb = room_glb(tmp_path / "room.glb", "y")
    assert main(["import-scene", str(tmp_path / "a"), "--mesh", str(glb)]) == 0
    out = capsys.readouterr()
    assert "up axis y: glTF is y-up by its specification" in out.err and "up y (format)" in out.out
    code = main(["import-scene", str(tmp_path / "b"), "--mesh", str(room_ply(tmp_path / "room.ply")),
                 "--trajectory", str(DATA / "tum_georeferenced.txt"), "--align-trajectory", "center",
                 "--up=-z"])
    assert code == 0
    assert "up axis -z: given with --up" in capsys.readouterr().err


def test_arkit_y_up_needs_no_up_option(tmp_path):
    """ARKit's world is gravity-aligned y-up: its cameras say so, and the PLY beside it is turned with them."""
    import trimesh
    box = trimesh.creation.box(extents=(6, 4, 2.5))
    box.apply_translation((3, 2, 1.25))
    box.vertices = box.vertices @ UP_AXES["y"]               # z-up -> the file's y-up world
    mesh = tmp_path / "room.ply"
    box.export(str(mesh))
    result = import_scene(ImportRequest(str(tmp_path / "out"), mesh=str(mesh),
                                        trajectory=str(DATA / "arkitscenes/lowres_wide.traj")))
    assert (result.up.axis, result.up.source) == ("y", "cameras")
    level_cameras(written(result).videos["trajectory"].poses)


def test_the_up_record_is_read_back_for_the_window(tmp_path):
    """scene.json's `import.up` becomes Scene.imported_up, which the window's scene line says; a scene not
    made by import-scene has none, and a malformed record is a warning naming the file, not a failure."""
    from viewer.core.scene.alone import scene_info
    from viewer.core.scene.model import ImportedUp
    result = import_scene(ImportRequest(str(tmp_path / "Room"), mesh=str(room_glb(tmp_path / "room.glb", "y"))))
    scene = written(result)
    assert scene.imported_up == ImportedUp("y", "format", "glTF is y-up by its specification")
    assert scene_info(scene).endswith("up y from its format: glTF is y-up by its specification")
    given = written(import_scene(ImportRequest(str(tmp_path / "Given"), mesh=str(room_glb(tmp_path / "r.glb", "y")),
                                               up="-z")))
    assert scene_info(given).endswith("up -z given with --up")

    doc = json.loads((result.folder / "scene.json").read_text())
    for bad in ({"up": {"axis": "w", "source": "format", "why": "?"}}, {"up": "y"}, ["y"]):
        doc["import"] = bad
        (result.folder / "scene.json").write_text(json.dumps(doc))
        scene = written(result)
        assert scene.imported_up is None and scene.mesh is not None
        (d,) = scene.diagnostics.with_code("scene.bad_import")
        assert d.level == "warning" and d.file.endswith("scene.json")
    del doc["import"]
    (result.folder / "scene.json").write_text(json.dumps(doc))
    scene = written(result)
    assert scene.imported_up is None and not scene.diagnostics.with_code("scene.bad_import")
    assert scene_info(scene).endswith("up z (gst-scene/1 is z-up; no import record)")
