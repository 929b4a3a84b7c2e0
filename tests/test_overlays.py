"""Map and 3D overlays, checked against the hand-worked scene in scene_release.py."""
import numpy as np
import pytest
import scene_release as sr

from viewer.core import geometry as geo
from viewer.core.overlays import (
    BOX_EDGES,
    frustum_lines,
    heading_vector,
    model_answers,
    published_map_overlay,
    scene_map_overlay,
    scene_overlay_3d,
)
from viewer.core.scene import SceneLibrary, link_question
from viewer.core.session import open_session


@pytest.fixture
def scene(tmp_path):
    sr.build(tmp_path, video=False)
    s = open_session(tmp_path, [tmp_path / "m1.jsonl"])
    lib = SceneLibrary(tmp_path)

    def get(key):
        qi = s.release.index[sr.UIDS[key]]
        q = s.release.questions[qi]
        return q, qi, s.results, link_question(q, lib.get(q.scene))
    return get


def px(world_xy):
    return geo.world_to_pixel(sr.W, world_xy)


def test_point_overlay_places_truth_rings_and_predictions(scene):
    q, qi, results, g = scene("GP_v")
    ov = scene_map_overlay(q, qi, results, g, *sr.MAP_SIZE)
    # <point>250 300</point> on a 200 x 100 map: the centre of that grid cell.
    np.testing.assert_allclose(ov.truth_point, [250.5 * 0.2, 300.5 * 0.1])
    # ... which is where the target's box centre projects (50, 30), within one cell.
    assert np.all(np.abs(ov.truth_point - px([2.0, 3.0])) <= [0.2, 0.1])
    assert [t for t, _ in ov.rings] == [100, 150, 200, 250, 300]
    for tau, ring in ov.rings:
        # Rings are circles in normalised units: ellipses on a non-square map.
        norm = (ring - ov.truth_point) / [0.2, 0.1]
        np.testing.assert_allclose(np.hypot(norm[:, 0], norm[:, 1]), tau, rtol=1e-9)
    assert [m for m, _ in ov.pred_points] == [0]
    np.testing.assert_allclose(ov.pred_points[0][1], [300.5 * 0.2, 300.5 * 0.1])
    np.testing.assert_allclose(ov.target_box, px([[1.5, 2.5], [2.5, 2.5], [2.5, 3.5], [1.5, 3.5]]))


def test_published_overlay_needs_no_scene(scene):
    q, qi, results, _ = scene("Pos")
    ov = published_map_overlay(q, qi, results, 640, 512)
    np.testing.assert_allclose(ov.truth_point, [250.5 * 0.64, 700.5 * 0.512])
    assert ov.pred_points == []                      # "no idea" does not parse
    assert ov.trajectory is None and ov.viewpoint is None


def test_direction_overlay_rays_and_sectors(scene):
    q, qi, results, g = scene("ED_v")
    ov = scene_map_overlay(q, qi, results, g, *sr.MAP_SIZE)
    np.testing.assert_allclose(ov.viewpoint, px(sr.CAMERA[:2]))
    # +90 = to the left of a camera looking along +x = world +y = image up; the ray
    # ends at the target's distance on the ground (2 m).
    np.testing.assert_allclose(ov.truth_ray, px([[2.0, 1.0], [2.0, 3.0]]), atol=1e-9)
    # m1 said 75: rotated 15 degrees from +y towards +x (clockwise from above).
    a = np.radians(75.0)
    end = sr.CAMERA[:2] + 2.0 * np.array([np.cos(a), np.sin(a)])
    np.testing.assert_allclose(ov.pred_rays[0][1], px([sr.CAMERA[:2], end]), atol=1e-9)
    assert [t for t, _ in ov.sectors] == [45.0, 30.0, 15.0]          # widest first, drawn under
    for tau, poly in ov.sectors:
        np.testing.assert_allclose(poly[0], ov.viewpoint)
        np.testing.assert_allclose(poly[-1], ov.viewpoint)
        d = poly[1:-1] - ov.viewpoint
        angles = np.degrees(np.arctan2(-d[:, 1], d[:, 0]))           # image y is down
        assert angles.min() == pytest.approx(90 - tau) and angles.max() == pytest.approx(90 + tau)
    # The field-of-view wedge opens along +x (image right).
    wedge = ov.fov_wedge[1:-1] - ov.viewpoint
    assert np.all(wedge[:, 0] > 0)


def test_distance_overlay_circles_in_metres(scene):
    q, qi, results, g = scene("EDist_v")
    ov = scene_map_overlay(q, qi, results, g, *sr.MAP_SIZE)
    r_truth = np.hypot(*(ov.truth_circle - ov.viewpoint).T)
    np.testing.assert_allclose(r_truth, 2.2 * 20)
    (m, circle), = ov.pred_circles
    np.testing.assert_allclose(np.hypot(*(circle - ov.viewpoint).T), 3.0 * 20)


def test_orientation_overlay_and_heading_convention(scene):
    np.testing.assert_allclose(heading_vector([0, 90, -90, 180]),
                               [[0, -1], [-1, 0], [1, 0], [0, 1]], atol=1e-12)
    q, qi, results, g = scene("Ori")
    ov = scene_map_overlay(q, qi, results, g, *sr.MAP_SIZE)
    d = ov.truth_ray[1] - ov.truth_ray[0]
    assert d[0] > 0 and abs(d[1]) < 1e-9             # -90: image right, where the camera looks


def test_other_map_carries_answers_through_the_world(scene):
    q, qi, results, g = scene("GP_v")
    W2 = np.array([[40.0, 0.0, 5.0], [0.0, -40.0, 200.0]])       # twice the scale, other offset
    ov = scene_map_overlay(q, qi, results, g, 420, 210, world_to_pixel=W2)
    own = geo.normalised_to_pixel([250, 300], *sr.MAP_SIZE)
    expected = geo.world_to_pixel(W2, geo.pixel_to_world(sr.W, own))
    np.testing.assert_allclose(ov.truth_point, expected)
    np.testing.assert_allclose(ov.target_box, geo.world_to_pixel(W2, [[1.5, 2.5], [2.5, 2.5], [2.5, 3.5],
                                                                     [1.5, 3.5]]))


def test_shown_map_at_another_size_scales_the_affine(scene):
    q, qi, results, g = scene("ED_v")
    ov = scene_map_overlay(q, qi, results, g, 400, 200)         # the same map, shown at 2x
    np.testing.assert_allclose(ov.viewpoint, 2 * px(sr.CAMERA[:2]))


def test_map_without_affine_draws_only_points(scene):
    q, qi, results, g = scene("GP_v")
    g.topdown.world_to_pixel = None
    ov = scene_map_overlay(q, qi, results, g, *sr.MAP_SIZE)
    assert ov.truth_point is not None and ov.viewpoint is None and ov.notes


def test_overlay_3d(scene):
    q, qi, results, g = scene("ED_v")
    ov = scene_overlay_3d(q, qi, results, g)
    assert ov.target_edges.shape == (12, 2, 3)
    lengths = np.linalg.norm(ov.target_edges[:, 1] - ov.target_edges[:, 0], axis=1)
    np.testing.assert_allclose(lengths, 1.0)                     # a unit cube's 12 edges
    np.testing.assert_allclose(ov.truth_ray, [sr.CAMERA, [2.0, 3.0, 1.5]], atol=1e-9)
    f = ov.query_frustum
    assert f.shape == (5, 3) and np.allclose(f[0], sr.CAMERA)
    assert np.all(f[1:, 0] > sr.CAMERA[0])                      # the image lies ahead, along +x
    assert frustum_lines(f).shape == (8, 2, 3)
    assert len(BOX_EDGES) == 12


def test_model_answers_skips_unparsed(scene):
    q, qi, results, g = scene("Pos")
    assert model_answers(qi, results) == []
    q, qi, results, g = scene("ED_v")
    assert model_answers(qi, results) == [(0, 75.0)]
