"""Ray-cast rendering on a tiny room whose answers are known by hand.

The room: floor 0..6 x 0..4 (top at z = 0), walls 0.1 thick and 2.5 high
around it, a ceiling, and a 0.5 m cube centred at (3, 2, 1).
"""
from __future__ import annotations

import numpy as np
import pytest

from viewer.core.diagnostics import UserError
from viewer.core.geometry import opencv_to_opengl, project, world_to_pixel
from viewer.render import scene_colors
from viewer.render.raycast import Raycaster, instance_bbox_2d, instance_bboxes_2d
from viewer.render.scene_mesh import boxes_mesh, load_scene_mesh
from viewer.render.topdown import fit_world_to_pixel, render_topdown

INTR = (160, 120, 100.0, 100.0, 80.0, 60.0)
BOX = "cube_abcdef_0"


def room_boxes(extra: dict | None = None) -> dict:
    boxes = {
        "floor_0": ([3, 2, -0.05], [6, 4, 0.1], [0, 0, 0, 1]),
        "wall_0": ([3, -0.05, 1.25], [6.2, 0.1, 2.5], [0, 0, 0, 1]),
        "wall_1": ([3, 4.05, 1.25], [6.2, 0.1, 2.5], [0, 0, 0, 1]),
        "wall_2": ([-0.05, 2, 1.25], [0.1, 4, 2.5], [0, 0, 0, 1]),
        "wall_3": ([6.05, 2, 1.25], [0.1, 4, 2.5], [0, 0, 0, 1]),
        "ceiling_0": ([3, 2, 2.55], [6, 4, 0.1], [0, 0, 0, 1]),
        BOX: ([3, 2, 1], [0.5, 0.5, 0.5], [0, 0, 0, 1]),
    }
    boxes.update(extra or {})
    return boxes


def camera(eye, yaw_deg: float) -> np.ndarray:
    """OpenCV camera-to-world at `eye`, looking horizontally along world yaw (0 = +x)."""
    a = np.radians(yaw_deg)
    fwd = np.array([np.cos(a), np.sin(a), 0.0])
    right = np.cross(fwd, [0, 0, 1])
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = right, [0, 0, -1], fwd, eye
    return m


@pytest.fixture(scope="module")
def room():
    mesh = boxes_mesh(room_boxes())
    return mesh, Raycaster(mesh)


def test_box_appears_where_projection_puts_it_with_its_colour(room):
    mesh, caster = room
    c2w = camera([0.5, 2, 1], 0)
    view = caster.render_view(c2w, INTR)
    assert view.color.shape == (120, 160, 3) and view.color.dtype == np.uint8
    box = mesh.index_of(BOX)
    uv, _ = project(c2w, _Intr(), [3, 2, 1])
    u, v = np.floor(uv).astype(int)
    assert view.instance[v, u] == box
    # The cube spans 0.5 m at 2.25 m depth: 100 * 0.5 / 2.25 = 22 px wide around the centre.
    assert view.instance[v, u - 20] != box and view.instance[v, u + 20] != box
    assert instance_bbox_2d(view.instance, box) == pytest.approx([69, 49, 90, 70], abs=1)
    rgb = view.color[v, u].astype(float)
    expected = mesh.instance_colors[box].astype(float)
    # Shading scales the colour; its direction (hue) stays the cube's, not a wall's.
    cos = rgb @ expected / (np.linalg.norm(rgb) * np.linalg.norm(expected))
    assert cos > 0.99
    wall_rgb = view.color[5, 5].astype(float)
    assert wall_rgb @ expected / (np.linalg.norm(wall_rgb) * np.linalg.norm(expected)) < 0.97


class _Intr:
    width, height, fx, fy, cx, cy = INTR


def test_depth_is_distance_along_the_optical_axis(room):
    _, caster = room
    view = caster.render_view(camera([0.5, 2, 1], 0), INTR)
    # Cube front face at x = 2.75: 2.25 m ahead of the camera at x = 0.5.
    assert view.depth[60, 80] == pytest.approx(2.25, abs=1e-4)
    # A fronto-parallel wall has the same depth in every pixel, off-centre too.
    for v, u in ((60, 45), (70, 100)):
        assert view.depth[v, u] == pytest.approx(5.5, abs=1e-4)
        assert view.instance[v, u] == caster.mesh.index_of("wall_3")
    # Top-left corner ray (-0.795, -0.595, 1) meets the side wall y = 0, 2 m to the left.
    assert view.depth[0, 0] == pytest.approx(2.0 / 0.795, abs=1e-4)


def test_no_hit_gives_infinite_depth_and_no_instance():
    mesh = boxes_mesh({BOX: ([3, 0, 0], [0.5, 0.5, 0.5], [0, 0, 0, 1])})
    view = Raycaster(mesh).render_view(camera([0, 0, 0], 0), INTR)
    assert np.isinf(view.depth[0, 0]) and view.instance[0, 0] == -1
    assert view.instance[60, 80] == 0


def test_opengl_pose_renders_the_same_view(room):
    _, caster = room
    c2w = camera([0.5, 1.5, 1.2], 20)
    a = caster.render_view(c2w, INTR)
    b = caster.render_view(opencv_to_opengl(c2w), INTR, convention="opengl")
    assert np.array_equal(a.instance, b.instance)


def test_pose_and_intrinsics_as_plain_lists_and_dicts(room):
    _, caster = room
    c2w = camera([0.5, 2, 1], 0)
    intr = dict(zip(("width", "height", "fx", "fy", "cx", "cy"), INTR))
    a = caster.render_view(c2w.ravel().tolist(), intr)
    assert np.array_equal(a.instance, caster.render_view(c2w, INTR).instance)


def test_counts_see_the_box_ahead_not_behind_nor_through_a_wall(room):
    mesh, caster = room
    box = mesh.index_of(BOX)
    ahead = caster.visible_pixel_counts(camera([0.5, 2, 1], 0), INTR)
    # 22 x 22 px face, as projected above.
    assert 400 <= ahead[box] <= 560
    behind = caster.visible_pixel_counts(camera([2.0, 2, 1], 180), INTR)
    assert box not in behind and behind[mesh.index_of("wall_2")] > 0

    screened = boxes_mesh(room_boxes({"wall_9": ([1.5, 2, 1.25], [0.1, 4, 2.5], [0, 0, 0, 1])}))
    counts = Raycaster(screened).visible_pixel_counts(camera([0.5, 2, 1], 0), INTR)
    assert screened.index_of(BOX) not in counts and counts[screened.index_of("wall_9")] > 0


def test_batched_counts_equal_one_pose_at_a_time(room):
    mesh, caster = room
    poses = [camera([0.5, 2, 1], 0), camera([2.0, 2, 1], 180), camera([5, 1, 1.5], 150)]
    batch = caster.visible_pixel_counts_batch(poses, INTR, stride=2)
    assert batch.shape == (3, len(mesh.instance_ids))
    for row, pose in zip(batch, poses):
        single = caster.visible_pixel_counts(pose, INTR, stride=2)
        assert {i: int(c) for i, c in enumerate(row) if c} == single
    # Stride 2 samples a quarter of the pixels.
    assert batch.sum(axis=1).tolist() == [80 * 60] * 3


def test_all_bboxes_at_once_agree_with_one_at_a_time(room):
    _, caster = room
    view = caster.render_view(camera([0.3, 0.3, 1.6], 35), INTR)
    boxes = instance_bboxes_2d(view.instance)
    assert len(boxes) >= 4
    for index, bbox in boxes.items():
        assert bbox == instance_bbox_2d(view.instance, index)
    assert instance_bbox_2d(view.instance, 999) is None


def _map_pixel(W, xy) -> tuple[int, int]:
    px = np.floor(world_to_pixel(W, xy)).astype(int)
    return int(px[1]), int(px[0])


@pytest.fixture(scope="module")
def maps(room):
    mesh, _ = room
    W = fit_world_to_pixel([-0.1, -0.1], [6.1, 4.1], 128, 96, margin=8)
    return W, {lvl: render_topdown(mesh, W, 128, 96, lvl) for lvl in ("photo", "occupancy", "floorplan")}


def test_fit_world_to_pixel_keeps_margins_scale_and_flips_y():
    W = fit_world_to_pixel([0, 0], [10, 5], 640, 512, margin=16)
    corners = world_to_pixel(W, [[0, 0], [10, 5]])
    assert corners[0] == pytest.approx([16, 256 + 5 * 60.8 / 2])       # x fills 608 px: 60.8 px/m
    assert corners[1] == pytest.approx([624, 256 - 5 * 60.8 / 2])
    assert W[0, 0] == pytest.approx(-W[1, 1])


def test_occupancy_is_white_floor_black_walls_obstacles_and_outside(maps):
    W, images = maps
    occ = images["occupancy"]
    assert set(np.unique(occ)) == {0, 255}
    assert occ[_map_pixel(W, [1.0, 1.0])].tolist() == [255, 255, 255]     # open floor
    assert occ[_map_pixel(W, [3.0, 2.0])].tolist() == [0, 0, 0]           # the cube
    assert occ[_map_pixel(W, [6.05, 2.0])].tolist() == [0, 0, 0]          # a wall
    assert occ[2, 2].tolist() == [0, 0, 0]                                # outside the room


def test_occupancy_keeps_a_doorway_under_a_lintel_open():
    boxes = room_boxes({
        # A partition at x = 4.5 with a door at y in [1.5, 2.5] and a lintel above 2.1 m.
        "wall_5": ([4.5, 0.75, 1.25], [0.1, 1.5, 2.5], [0, 0, 0, 1]),
        "wall_6": ([4.5, 3.25, 1.25], [0.1, 1.5, 2.5], [0, 0, 0, 1]),
        "wall_7": ([4.5, 2.0, 2.3], [0.1, 1.0, 0.4], [0, 0, 0, 1]),
    })
    mesh = boxes_mesh(boxes)
    W = fit_world_to_pixel([-0.1, -0.1], [6.1, 4.1], 128, 96, margin=8)
    occ = render_topdown(mesh, W, 128, 96, "occupancy")
    plan = render_topdown(mesh, W, 128, 96, "floorplan")
    assert occ[_map_pixel(W, [4.5, 2.0])].tolist() == [255, 255, 255]
    assert occ[_map_pixel(W, [4.5, 0.75])].tolist() == [0, 0, 0]
    assert plan[_map_pixel(W, [4.5, 2.0])].tolist() == list(render_topdown_paper())
    assert plan[_map_pixel(W, [4.5, 0.75])].max() < 100


def render_topdown_paper():
    from viewer.render.topdown import FLOORPLAN_PAPER
    return FLOORPLAN_PAPER


def test_floorplan_draws_walls_only_and_tints_rooms_when_given(room, maps):
    mesh, _ = room
    W, images = maps
    plan = images["floorplan"]
    assert plan[_map_pixel(W, [6.05, 2.0])].max() < 100                  # wall: dark
    assert plan[_map_pixel(W, [3.0, 2.0])].tolist() == [255, 255, 255]    # cube: not drawn
    tinted = render_topdown(mesh, W, 128, 96, "floorplan", rooms={"floor_0": "kitchen"})
    assert tinted[_map_pixel(W, [3.0, 2.0])].tolist() == list(scene_colors.room_tints(["kitchen"])["kitchen"])
    assert tinted[_map_pixel(W, [6.05, 2.0])].max() < 100


def test_photo_removes_the_ceiling_and_shows_furniture_in_its_colour(room, maps):
    mesh, _ = room
    W, images = maps
    photo = images["photo"]
    floor_rgb = photo[_map_pixel(W, [1.0, 1.0])].astype(float)
    beige = np.array(scene_colors.FLOOR_COLOR, float)
    assert floor_rgb @ beige / (np.linalg.norm(floor_rgb) * np.linalg.norm(beige)) > 0.995
    cube_rgb = photo[_map_pixel(W, [3.0, 2.0])].astype(float)
    cube = mesh.instance_colors[mesh.index_of(BOX)].astype(float)
    assert cube_rgb @ cube / (np.linalg.norm(cube_rgb) * np.linalg.norm(cube)) > 0.99
    assert photo[1, 1].tolist() == [255, 255, 255]


def test_unknown_level_is_refused(room):
    with pytest.raises(ValueError, match="level"):
        render_topdown(room[0], np.eye(2, 3), 8, 8, "sketch")


def test_glb_round_trip_keeps_instance_names_and_node_transforms(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    scene = trimesh.Scene()
    unit = trimesh.creation.box(extents=[1, 1, 1])
    scene.add_geometry(unit, node_name="sofa_abcdef_0", geom_name="g0",
                       transform=trimesh.transformations.translation_matrix([5, 0, 0.5]))
    scene.add_geometry(unit, node_name="wall_3", geom_name="g1")
    # A group node per instance with one child per part: the group names the instance.
    scene.graph.update("chair_qwerty_1", frame_from=scene.graph.base_frame,
                       matrix=trimesh.transformations.translation_matrix([0, 4, 0]))
    for k in range(2):
        scene.add_geometry(trimesh.creation.box(extents=[0.5, 0.5, 0.5]), node_name=f"part_{k}",
                           geom_name=f"p{k}", parent_node_name="chair_qwerty_1",
                           transform=trimesh.transformations.translation_matrix([k, 0, 0]))
    path = tmp_path / "scene.glb"
    scene.export(path)

    mesh = load_scene_mesh(path)
    assert sorted(mesh.instance_ids) == ["chair_qwerty_1", "sofa_abcdef_0", "wall_3"]
    sofa = mesh.triangle_instance == mesh.index_of("sofa_abcdef_0")
    sofa_vertices = mesh.vertices[mesh.triangles[sofa].ravel()]
    assert sofa_vertices.min(axis=0) == pytest.approx([4.5, -0.5, 0.0])
    chair = mesh.vertices[mesh.triangles[mesh.triangle_instance == mesh.index_of("chair_qwerty_1")].ravel()]
    assert chair.min(axis=0) == pytest.approx([-0.25, 3.75, -0.25])
    assert np.count_nonzero(mesh.triangle_instance == mesh.index_of("chair_qwerty_1")) == 24
    assert mesh.instance_kinds[mesh.index_of("wall_3")] == "wall"
    assert mesh.instance_colors[mesh.index_of("wall_3")].tolist() == list(scene_colors.WALL_COLOR)


def test_single_mesh_file_is_one_instance_named_after_the_file(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    path = tmp_path / "room.ply"
    trimesh.creation.box(extents=[1, 1, 1]).export(path)
    mesh = load_scene_mesh(path)
    assert mesh.instance_ids == ["room"] and len(mesh.triangles) == 12


def test_unreadable_mesh_is_a_user_error_naming_the_file(tmp_path):
    bad = tmp_path / "broken.glb"
    bad.write_bytes(b"glTF not really")
    with pytest.raises(UserError, match="broken.glb"):
        load_scene_mesh(bad)
    with pytest.raises(UserError, match="missing.glb"):
        load_scene_mesh(tmp_path / "missing.glb")


@pytest.mark.parametrize("iid, category, kind", [
    ("armchair_vzhxuf_0", "armchair", None),
    ("coffee_table_qwerty_12", "coffee_table", None),
    ("floor_kitchen_0", "floor_kitchen", "floor"),
    ("floors_abcdef_0", "floors", "floor"),
    ("wall_3", "wall", "wall"),
    ("ceiling_0", "ceiling", "ceiling"),
    ("floor_lamp_efghij_0", "floor_lamp", None),
    ("window_2", "window", None),
])
def test_category_and_structure_from_instance_ids(iid, category, kind):
    assert scene_colors.category_of(iid) == category
    assert scene_colors.structure_kind(category) == kind


def test_colours_follow_the_category_and_differ_between_categories():
    ids = ["chair_aaaaaa_0", "chair_bbbbbb_1", "sofa_cccccc_0", "gizmo_dddddd_0", "widget_eeeeee_0"]
    colors = scene_colors.instance_colors(ids)
    assert colors[0].tolist() == colors[1].tolist()
    assert len({tuple(c) for c in colors[1:].tolist()}) == 4
    # Stable across processes: crc32, not Python's salted hash.
    assert scene_colors.category_color("gizmo") == scene_colors.category_color("gizmo")
    sofa = list(scene_colors.category_color("sofa"))
    assert scene_colors.instance_colors(["x_0"], {"x_0": "sofa"})[0].tolist() == sofa


def test_painted_mesh_colours_are_shown_and_instance_colouring_remains(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    red = trimesh.creation.box(extents=[0.5, 0.5, 0.5])
    red.visual.vertex_colors = np.array([200, 30, 30, 255], np.uint8)
    red.apply_translation([3, 0, 0])
    plain = trimesh.creation.box(extents=[0.5, 0.5, 0.5])
    plain.apply_translation([3, 1.5, 0])
    scene = trimesh.Scene()
    scene.add_geometry(red, node_name="sofa_abcdef_0", geom_name="g0")
    scene.add_geometry(plain, node_name="bed_ghijkl_0", geom_name="g1")
    path = tmp_path / "painted.glb"
    scene.export(path)

    mesh = load_scene_mesh(path)
    sofa, bed = mesh.index_of("sofa_abcdef_0"), mesh.index_of("bed_ghijkl_0")
    assert mesh.triangle_colors[mesh.triangle_instance == sofa].tolist() == [[200, 30, 30]] * 12
    # No paint: the category colour.
    assert (mesh.triangle_colors[mesh.triangle_instance == bed] == scene_colors.category_color("bed")).all()
    caster = Raycaster(mesh)
    pose = camera([0, 0, 0], 0)
    painted = caster.render_view(pose, INTR, outlines=False).color[60, 80].astype(float)
    by_category = caster.render_view(pose, INTR, outlines=False, color_by="instance").color[60, 80].astype(float)
    assert painted[0] > 3 * painted[1]
    sofa_blue = np.array(scene_colors.category_color("sofa"), float)
    assert by_category @ sofa_blue / (np.linalg.norm(by_category) * np.linalg.norm(sofa_blue)) > 0.999


def test_room_tints_are_light_distinct_and_order_free():
    names = ["kitchen_0", "bedroom_0", "living_room_0", "bathroom_0", "corridor_0"]
    tints = scene_colors.room_tints(names)
    assert tints == scene_colors.room_tints(reversed(names))
    values = np.array(list(tints.values()), float)
    assert values.min() > 190                                   # pastel: walls stay readable
    gaps = np.linalg.norm(values[:, None] - values[None], axis=-1)[np.triu_indices(len(names), 1)]
    assert gaps.min() > 12


def test_a_viewpoint_like_object_renders_and_a_nan_pose_sees_nothing(room):
    mesh, caster = room

    class Viewpoint:                   # what viewer.core.scene hands out: .pose and .intrinsics
        pose = camera([0.5, 2, 1], 0)
        intrinsics = _Intr()

    vp = Viewpoint()
    view = caster.render_view(vp, vp.intrinsics)
    assert view.instance[60, 80] == mesh.index_of(BOX)
    # Invalid video poses are NaN in the scene model: they must count nothing, not crash.
    counts = caster.visible_pixel_counts_batch([vp.pose, np.full((4, 4), np.nan)], INTR, stride=4)
    assert counts[0].sum() == 40 * 30 and counts[1].sum() == 0
