"""Map and 3D overlays, checked against the hand-worked scene in scene_release.py."""
import numpy as np
import pytest
import scene_release as sr
from overlay_queries import one

from viewer.core import geometry as geo
from viewer.core import primitives as pr
from viewer.core.overlays import (
    BOX_EDGES,
    frustum_lines,
    heading_vector,
    model_answers,
    published_map_overlay,
    scene_map_overlay,
    scene_overlay_3d,
)
from viewer.core.scene.model import link_question
from viewer.core.scene.sources import SceneLibrary
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
    truth = one(ov, pr.Marker, pr.TRUTH).at
    np.testing.assert_allclose(truth, [250.5 * 0.2, 300.5 * 0.1])
    # ... which is where the target's box centre projects (50, 30), within one cell.
    assert np.all(np.abs(truth - px([2.0, 3.0])) <= [0.2, 0.1])
    rings = ov.of(pr.Ring)
    assert [r.label for r in rings] == ["100", "150", "200", "250", "300"]
    for tau, ring in zip((100, 150, 200, 250, 300), rings):
        # Rings are circles in normalised units: ellipses on a non-square map.
        norm = (ring.points - truth) / [0.2, 0.1]
        np.testing.assert_allclose(np.hypot(norm[:, 0], norm[:, 1]), tau, rtol=1e-9)
    answers = ov.of(pr.Marker, pr.MODEL)
    assert [a.model for a in answers] == [0]
    np.testing.assert_allclose(answers[0].at, [300.5 * 0.2, 300.5 * 0.1])
    link = one(ov, pr.Polyline, pr.MODEL)                      # answer to truth, shown with both layers
    np.testing.assert_allclose(link.points, [answers[0].at, truth])
    assert set(link.layers) == {pr.L_ANSWERS, pr.L_TRUTH}
    np.testing.assert_allclose(one(ov, pr.Polygon, pr.TARGET).points,
                               px([[1.5, 2.5], [2.5, 2.5], [2.5, 3.5], [1.5, 3.5]]))
    kinds = [e.kind for e in ov.legend_items()]
    assert kinds == ["truth-star", "ring", "target", "path"]           # GP has no current view
    # Drawn bottom to top: rings under the answer, the truth's star last.
    drawn = ov.drawn()
    assert isinstance(drawn[-1], pr.Marker) and drawn[-1].role == pr.TRUTH


def test_published_overlay_needs_no_scene(scene):
    q, qi, results, _ = scene("Pos")
    ov = published_map_overlay(q, qi, results, 640, 512)
    np.testing.assert_allclose(one(ov, pr.Marker, pr.TRUTH).at, [250.5 * 0.64, 700.5 * 0.512])
    assert ov.of(pr.Marker, pr.MODEL) == []          # "no idea" does not parse
    assert ov.path() is None and ov.of(pr.Marker, pr.VIEWPOINT) == []
    q, qi, results, _ = scene("ED_v")                # a direction needs the scene: nothing to draw
    assert published_map_overlay(q, qi, results, 640, 512) is None


def test_direction_overlay_rays_and_sectors(scene):
    q, qi, results, g = scene("ED_v")
    ov = scene_map_overlay(q, qi, results, g, *sr.MAP_SIZE)
    viewpoint = one(ov, pr.Marker, pr.VIEWPOINT).at
    np.testing.assert_allclose(viewpoint, px(sr.CAMERA[:2]))
    # +90 = to the left of a camera looking along +x = world +y = image up; the ray reaches
    # past the target (2 m away, its far side further): TRUTH_BEYOND times its farthest corner.
    from viewer.core.kinds.angle import MODEL_BEYOND, TRUTH_BEYOND
    far = np.linalg.norm(one(ov, pr.Polygon, pr.TARGET).points - viewpoint, axis=1).max() / 20.0  # sr.W: 20 px/m
    reach = TRUTH_BEYOND * max(2.0, far)
    assert reach > 2.0
    np.testing.assert_allclose(one(ov, pr.Arrow, pr.TRUTH).points, px([[2.0, 1.0], [2.0, 1.0 + reach]]), atol=1e-9)
    # m1 said 75: rotated 15 degrees from +y towards +x (clockwise from above), past the truth's tip.
    a = np.radians(75.0)
    end = sr.CAMERA[:2] + MODEL_BEYOND * reach * np.array([np.cos(a), np.sin(a)])
    np.testing.assert_allclose(one(ov, pr.Arrow, pr.MODEL).points, px([sr.CAMERA[:2], end]), atol=1e-9)
    sectors = ov.of(pr.Sector)
    assert [s.level for s in sectors] == [45.0, 30.0, 15.0]          # widest first, drawn under
    for s in sectors:
        tau, poly = s.level, s.points
        np.testing.assert_allclose(poly[0], viewpoint)
        np.testing.assert_allclose(poly[-1], viewpoint)
        d = poly[1:-1] - viewpoint
        angles = np.degrees(np.arctan2(-d[:, 1], d[:, 0]))           # image y is down
        assert angles.min() == pytest.approx(90 - tau) and angles.max() == pytest.approx(90 + tau)
    # The field-of-view wedge opens along +x (image right).
    wedge = one(ov, pr.Polygon, pr.VIEWPOINT).points[1:-1] - viewpoint
    assert np.all(wedge[:, 0] > 0)


def test_distance_overlay_circles_in_metres(scene):
    q, qi, results, g = scene("EDist_v")
    ov = scene_map_overlay(q, qi, results, g, *sr.MAP_SIZE)
    viewpoint = one(ov, pr.Marker, pr.VIEWPOINT).at
    r_truth = np.hypot(*(one(ov, pr.Polyline, pr.TRUTH).points - viewpoint).T)
    np.testing.assert_allclose(r_truth, 2.2 * 20)
    circle = one(ov, pr.Polyline, pr.MODEL)
    assert circle.dashed and circle.mark == "top"
    np.testing.assert_allclose(np.hypot(*(circle.points - viewpoint).T), 3.0 * 20)


def test_orientation_overlay_and_heading_convention(scene):
    np.testing.assert_allclose(heading_vector([0, 90, -90, 180]),
                               [[0, -1], [-1, 0], [1, 0], [0, 1]], atol=1e-12)
    q, qi, results, g = scene("Ori")
    ov = scene_map_overlay(q, qi, results, g, *sr.MAP_SIZE)
    ray = one(ov, pr.Arrow, pr.TRUTH).points
    d = ray[1] - ray[0]
    assert d[0] > 0 and abs(d[1]) < 1e-9             # -90: image right, where the camera looks


def test_other_map_carries_answers_through_the_world(scene):
    q, qi, results, g = scene("GP_v")
    W2 = np.array([[40.0, 0.0, 5.0], [0.0, -40.0, 200.0]])       # twice the scale, other offset
    ov = scene_map_overlay(q, qi, results, g, 420, 210, world_to_pixel=W2)
    own = geo.normalised_to_pixel([250, 300], *sr.MAP_SIZE)
    expected = geo.world_to_pixel(W2, geo.pixel_to_world(sr.W, own))
    np.testing.assert_allclose(one(ov, pr.Marker, pr.TRUTH).at, expected)
    box = geo.world_to_pixel(W2, [[1.5, 2.5], [2.5, 2.5], [2.5, 3.5], [1.5, 3.5]])
    np.testing.assert_allclose(one(ov, pr.Polygon, pr.TARGET).points, box)


def test_shown_map_at_another_size_scales_the_affine(scene):
    q, qi, results, g = scene("ED_v")
    ov = scene_map_overlay(q, qi, results, g, 400, 200)         # the same map, shown at 2x
    np.testing.assert_allclose(one(ov, pr.Marker, pr.VIEWPOINT).at, 2 * px(sr.CAMERA[:2]))


def test_map_without_affine_draws_only_points(scene):
    q, qi, results, g = scene("GP_v")
    g.topdown.world_to_pixel = None
    ov = scene_map_overlay(q, qi, results, g, *sr.MAP_SIZE)
    assert ov.of(pr.Marker, pr.TRUTH) and not ov.of(pr.Marker, pr.VIEWPOINT) and ov.notes


def test_overlay_3d(scene):
    q, qi, results, g = scene("ED_v")
    ov = scene_overlay_3d(q, qi, results, g)
    edges = one(ov, pr.Segments, pr.TARGET).segments
    assert edges.shape == (12, 2, 3)
    lengths = np.linalg.norm(edges[:, 1] - edges[:, 0], axis=1)
    np.testing.assert_allclose(lengths, 1.0)                     # a unit cube's 12 edges
    np.testing.assert_allclose(one(ov, pr.Arrow, pr.TRUTH).points, [sr.CAMERA, [2.0, 3.0, 1.5]], atol=1e-9)
    np.testing.assert_allclose(one(ov, pr.Marker, pr.VIEWPOINT).at, sr.CAMERA)
    frustum = one(ov, pr.Segments, pr.VIEWPOINT).segments
    assert frustum.shape == (8, 2, 3)
    corners = frustum.reshape(-1, 3)
    corners = corners[~np.all(np.isclose(corners, sr.CAMERA), axis=1)]
    assert len(corners) and np.all(corners[:, 0] > sr.CAMERA[0])  # the image lies ahead, along +x
    # The truth's ray is drawn above the models' in 3D.
    arrows = [p for p in ov.drawn() if isinstance(p, pr.Arrow)]
    assert [a.role for a in arrows] == [pr.MODEL, pr.TRUTH]
    f = np.vstack([sr.CAMERA, corners[:4]])
    assert frustum_lines(f).shape == (8, 2, 3)
    assert len(BOX_EDGES) == 12


def test_model_answers_skips_unparsed(scene):
    q, qi, results, g = scene("Pos")
    assert model_answers(qi, results) == []
    q, qi, results, g = scene("ED_v")
    assert model_answers(qi, results) == [(0, 75.0)]
