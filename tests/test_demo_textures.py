"""`make-demo --textured` (issue 33): procedural materials fixed to the surfaces, drawn from the seed.

Structure from motion needs texture that stays put on the surfaces from frame
to frame; the questions must not notice (appearance only).
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from viewer.demo import textures
from viewer.demo.generate import generate_demo
from viewer.demo.scenebuild import DemoConfig

TINY = DemoConfig(width=96, height=80, map_width=120, map_height=96, per_column=1, viewpoints=12, distractors=3)


@pytest.fixture(scope="module")
def scene():
    """A demo apartment, its ray caster and a few poses of its walk."""
    import tempfile
    from pathlib import Path

    from viewer.demo.apartment import make_apartment
    from viewer.demo.scenebuild import load_mesh
    from viewer.demo.trajectory import FreeFloor, plan_walk
    from viewer.render.raycast import Raycaster
    rng = np.random.default_rng([5, 1])
    apt = make_apartment(rng, "scene_1")
    walk = plan_walk(apt, FreeFloor(apt), rng)
    with tempfile.TemporaryDirectory() as tmp:
        mesh = load_mesh(apt, Path(tmp) / "scene.glb")
    return apt, mesh, Raycaster(mesh), walk.poses()[::25][:6]


def _textured_share(rgb: np.ndarray) -> float:
    """Share of pixels with a step of more than 6 grey levels to a neighbour: edges alone in a flat
    render (its shading changes by a level or two a pixel), texture everywhere in a textured one."""
    g = rgb.astype(np.float32).mean(axis=2)
    step = np.maximum(np.abs(np.diff(g, axis=0))[:, :-1], np.abs(np.diff(g, axis=1))[:-1])
    return float((step > 6).mean())


def test_every_material_gives_colours_fixed_to_the_point_and_the_seed():
    rng = np.random.default_rng(0)
    n = 4000
    points = rng.uniform(-3, 9, (n, 3)).astype(np.float32)
    normals = np.eye(3, dtype=np.float32)[rng.integers(0, 3, n)] * rng.choice([-1, 1], (n, 1)).astype(np.float32)
    base = rng.uniform(60, 230, (n, 3)).astype(np.float32)
    order = rng.permutation(n)
    for name, material in textures.MATERIALS.items():
        out = material(points, normals, base, 7)
        assert out.shape == (n, 3) and out.dtype == np.float32, name
        assert np.isfinite(out).all() and out.min() >= 0, name
        # A point's colour depends on that point alone, not on which other pixels share the call.
        np.testing.assert_array_equal(material(points[order], normals[order], base[order], 7), out[order],
                                      err_msg=name)
        np.testing.assert_array_equal(material(points[:10], normals[:10], base[:10], 7), out[:10], err_msg=name)
        assert not np.array_equal(material(points, normals, base, 8), out), f"{name}: the seed changes nothing"
        plain = material(points, normals, np.full_like(base, 180.0), 7)
        assert plain.std(axis=0).mean() > 2, f"{name}: no pattern on a plain colour"  # ceramic: faint


def test_materials_are_assigned_by_kind_room_and_category():
    assert textures.material_of("walls") == "wallpaper"
    assert textures.material_of("ceilings") == "ceiling"
    assert textures.material_of("floors", "kitchen") == "tiles"
    assert textures.material_of("floors", "bathroom") == "small_tiles"
    assert textures.material_of("floors", "bedroom") == "wood_floor"
    assert textures.material_of("sofa") == "fabric"
    assert textures.material_of("bookshelf") == "wood"
    assert textures.material_of("potted_plant") == "foliage"
    assert textures.material_of("something_new") == textures.DEFAULT_MATERIAL
    for name in {*textures.CATEGORY_MATERIAL.values(), *textures.STRUCTURE_MATERIAL.values(),
                 *textures.FLOOR_MATERIAL.values(), textures.DEFAULT_MATERIAL}:
        assert name in textures.MATERIALS


def test_a_surface_point_keeps_its_colour_from_one_frame_to_the_next(scene):
    """What SfM relies on: the texture sits on the surface, not on the image."""
    apt, mesh, caster, poses = scene
    tex = textures.SurfaceTextures.for_apartment(mesh, apt, seed=3)
    K = {"width": 64, "height": 48, "fx": 32.0, "fy": 32.0, "cx": 32.0, "cy": 24.0}
    rays = caster.camera_rays(poses[0], K)[0]
    hit = caster.cast(rays)
    seen = np.flatnonzero(hit["primitive_ids"] >= 0)
    points = rays[seen, :3] + hit["t_hit"][seen, None] * rays[seen, 3:]
    base = caster.triangle_color_table()[hit["primitive_ids"][seen]]
    normals, prim = hit["primitive_normals"][seen], hit["primitive_ids"][seen]
    first = tex(points, normals, prim, base)
    # The same points, met by rays of another frame in another order, in one call with other pixels.
    order = np.random.default_rng(1).permutation(len(seen))
    again = tex(points[order], normals[order], prim[order], base[order])
    np.testing.assert_array_equal(again, first[order])
    assert not np.array_equal(first, base), "nothing was textured"


def test_textured_frames_are_deterministic_and_far_richer_than_flat(scene):
    apt, mesh, caster, poses = scene
    K = {"width": 160, "height": 128, "fx": 80.0, "fy": 80.0, "cx": 80.0, "cy": 64.0}
    tex = textures.SurfaceTextures.for_apartment(mesh, apt, seed=11)
    again = textures.SurfaceTextures.for_apartment(mesh, apt, seed=11)
    ratios = []
    for pose in poses:
        flat = caster.render_view(pose, K, outlines=False)
        a = caster.render_view(pose, K, outlines=False, texture=tex)
        b = caster.render_view(pose, K, outlines=False, texture=again)
        assert a.color.tobytes() == b.color.tobytes()
        # Appearance only: depth and instances, which every question is drawn from, are untouched.
        np.testing.assert_array_equal(a.instance, flat.instance)
        np.testing.assert_array_equal(a.depth, flat.depth)
        ratios.append(_textured_share(a.color) / max(_textured_share(flat.color), 1e-3))
    assert np.median(ratios) > 3, ratios
    other = caster.render_view(poses[0], K, outlines=False,
                               texture=textures.SurfaceTextures.for_apartment(mesh, apt, seed=12))
    assert other.color.tobytes() != caster.render_view(poses[0], K, outlines=False, texture=tex).color.tobytes()


def test_textured_frames_hold_many_more_sift_keypoints(scene):
    import cv2
    apt, mesh, caster, poses = scene
    K = {"width": 200, "height": 160, "fx": 100.0, "fy": 100.0, "cx": 100.0, "cy": 80.0}
    tex = textures.SurfaceTextures.for_apartment(mesh, apt, seed=11)
    sift = cv2.SIFT_create()

    def keypoints(texture):
        return np.median([len(sift.detect(cv2.cvtColor(caster.render_view(p, K, outlines=False, texture=texture)
                                                       .color, cv2.COLOR_RGB2GRAY))) for p in poses])

    flat, textured = keypoints(None), keypoints(tex)
    assert textured > 3 * max(flat, 10), (flat, textured)


@pytest.mark.slow
def test_textured_release_is_reproducible_and_asks_the_same_questions(tmp_path):
    flat, a, b = tmp_path / "flat", tmp_path / "a", tmp_path / "b"
    generate_demo(flat, scenes=1, seed=11, config=TINY, log=lambda m: None)
    textured = DemoConfig(**{**TINY.__dict__, "textured": True})
    for out in (a, b):
        generate_demo(out, scenes=1, seed=11, config=textured, log=lambda m: None)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    # Appearance only: the same questions, answers, poses and visibility as the flat release.
    assert (a / "questions.jsonl").read_bytes() == (flat / "questions.jsonl").read_bytes()
    scene_json = "scenes/scene_1/scene.json"
    assert (a / scene_json).read_bytes() == (flat / scene_json).read_bytes()
    video = "scenes/scene_1/videos/video_0.mp4"
    assert (a / video).read_bytes() != (flat / video).read_bytes()
    assert json.loads((a / "demo.json").read_text())["config"]["textured"] is True
    assert "--textured" in (a / "README.md").read_text()


def test_make_demo_help_names_the_flag(capsys):
    from viewer.cli import main
    with pytest.raises(SystemExit):
        main(["make-demo", "--help"])
    assert "--textured" in capsys.readouterr().out


def test_pixels_that_miss_keep_the_background(scene):
    """From outside the apartment, part of the image hits nothing: those pixels stay the background."""
    from viewer.demo.trajectory import camera_poses
    from viewer.render.raycast import BACKGROUND
    apt, mesh, caster, _ = scene
    K = {"width": 96, "height": 80, "fx": 48.0, "fy": 48.0, "cx": 48.0, "cy": 40.0}
    pose = camera_poses([-6.0, (apt.bounds[1] + apt.bounds[3]) / 2], 0.0, height=3.5)[0]
    tex = textures.SurfaceTextures.for_apartment(mesh, apt, seed=2)
    flat = caster.render_view(pose, K, outlines=False)
    textured = caster.render_view(pose, K, outlines=False, texture=tex)
    miss = flat.instance < 0
    assert 0.05 < miss.mean() < 0.95
    assert (textured.color[miss] == BACKGROUND).all()
    assert not np.array_equal(textured.color[~miss], flat.color[~miss])
