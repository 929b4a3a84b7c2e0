"""Directions legible and nothing cut at the map's edge (issue 28 items 3 and 10, issue 27's path).

The demo's direction questions: the view a clip, a slide and the window show first (`Overlay.focus`)
holds the viewpoint, every ray's tip and the target, and is a small part of the map; the model
markers at the ray tips sit clear of the green truth ray and of the red target, at the size a
1280x720 clip draws them. Primitives placed past the map's edge are drawn inside it with an edge mark.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from viewer.core import primitives as pr
from viewer.core.session import open_session

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"


def _seg_dist(p, a, b) -> float:
    d = b - a
    t = np.clip(np.dot(p - a, d) / max(np.dot(d, d), 1e-12), 0.0, 1.0)
    return float(np.linalg.norm(p - (a + t * d)))


def _polygon_dist(p, poly) -> float:
    """Distance from p to a closed polygon's outline; 0 inside it."""
    from viewer.core.geometry import point_in_polygon
    if point_in_polygon(p, poly):
        return 0.0
    return min(_seg_dist(p, poly[k], poly[(k + 1) % len(poly)]) for k in range(len(poly)))


def _inside(box, pts, tol=1e-6) -> bool:
    pts = np.atleast_2d(pts)
    return bool(np.all((pts[:, 0] >= box[0] - tol) & (pts[:, 0] <= box[2] + tol)
                       & (pts[:, 1] >= box[1] - tol) & (pts[:, 1] <= box[3] + tol)))


@pytest.fixture(scope="module")
def direction_subjects():
    from viewer.assets import default_predictions
    from viewer.figures.canvas import ensure_gui_app
    from viewer.figures.layouts import prepare
    ensure_gui_app()
    session = open_session(DEMO, default_predictions(DEMO))
    out = []
    for qi, q in enumerate(session.release.questions):
        if q.kind is not None and q.kind.name == "angle" and q.column.frame != "map":
            s = prepare(session, qi, frames=False)
            out.append(s)
    yield out
    for s in out:
        s.close()


def test_every_demo_direction_is_shown_zoomed_on_its_view(direction_subjects):
    from viewer.figures.story_frame import scaled_theme
    from viewer.figures.theme import TALK_DARK
    assert len(direction_subjects) >= 6
    t = scaled_theme(TALK_DARK, 720)
    near = 0
    for s in direction_subjects:
        ov = s.media.overlay
        view = ov.of(pr.Marker, pr.VIEWPOINT)[0].at
        truth = ov.of(pr.Arrow, pr.TRUTH)[0].points
        models = ov.of(pr.Arrow, pr.MODEL)
        target = ov.of(pr.Polygon, pr.TARGET)[0].points
        assert models
        side = max(ov.width, ov.height)
        target_far = np.linalg.norm(target - view, axis=1).max()
        box = ov.focus
        if box is None:                  # a target across the room: the whole map is the view
            assert target_far > 0.35 * side, s.story.uid
            box = (0.0, 0.0, float(ov.width), float(ov.height))
        else:
            def on_map(xy, size=(ov.width, ov.height)):
                return np.clip(np.atleast_2d(xy), 0, size)
            assert _inside(box, view) and _inside(box, on_map(truth)) and _inside(box, on_map(target))
            assert all(_inside(box, on_map(a.points)) for a in models)
            area = (box[2] - box[0]) * (box[3] - box[1]) / (ov.width * ov.height)
            assert area < 0.6, (s.story.uid, box)
            if target_far < 0.2 * side:                 # a target near the view: a close-up
                near += 1
                assert area < 0.2, (s.story.uid, box)
            assert ov.shown_box(focused=True) == box
        whole = ov.shown_box(focused=False)                                       # Fit: the whole map
        assert whole[0] <= 0 and whole[1] <= 0 and whole[2] >= ov.width and whole[3] >= ov.height
        bw, bh = box[2] - box[0], box[3] - box[1]
        # A clip's map pane (about 600 x 420 of a 1280 x 720 frame) shows the focus: a marker of the
        # size a clip draws at a ray's tip, in map pixels, must clear the truth ray and the target.
        scale = min(600 / bw, 420 / bh)
        r_marker = t.w(6) / scale
        head = t.w(15) * 1.2 / scale                       # the truth's arrowhead, back from its tip
        # The rays are long enough to read: the truth's spans a good part of the view.
        assert np.linalg.norm(truth[1] - truth[0]) > 0.25 * max(bw, bh)
        # The truth's head lies past the target: the red outline stays visible.
        assert _polygon_dist(truth[1], target) > head * 0.5, s.story.uid
        assert np.linalg.norm(truth[1] - view) > target_far
        for a in models:
            tip = a.points[1]
            assert _seg_dist(tip, *truth) > 1.5 * r_marker, s.story.uid
            assert _polygon_dist(tip, target) > 1.5 * r_marker, s.story.uid
    assert near >= 2


def test_questions_that_are_not_directions_have_no_focus():
    from viewer.assets import default_predictions
    from viewer.core.overlays import scene_map_overlay
    from viewer.core.scene.model import link_question
    from viewer.core.scene.sources import SceneLibrary
    session = open_session(DEMO, default_predictions(DEMO))
    lib = SceneLibrary(DEMO)
    seen = 0
    for qi, q in enumerate(session.release.questions):
        if q.kind is None or q.kind.name not in ("point", "distance"):
            continue
        g = link_question(q, lib.get(q.scene))
        ov = scene_map_overlay(q, qi, session.results, g, g.topdown.width, g.topdown.height)
        assert ov.focus is None and ov.shown_box() == ov.shown_box(focused=False)
        seen += 1
    assert seen >= 6


# ------------------------------------------------------------------ the map's edge
def test_clamp_and_clip_path():
    box = (0.0, 0.0, 100.0, 50.0)
    at, out = pr.clamp([130.0, 20.0], box)
    assert at.tolist() == [100.0, 20.0] and out.tolist() == [1.0, 0.0]
    at, out = pr.clamp([40.0, 20.0], box)
    assert at.tolist() == [40.0, 20.0] and out is None
    # In, out past the right edge, back in, then a NaN break.
    path = np.array([[10, 10], [90, 10], [150, 10], [150, 40], [50, 40], [np.nan, np.nan], [20, 20], [30, 20]], float)
    runs, marks = pr.clip_path(path, box)
    assert len(runs) == 3
    np.testing.assert_allclose(runs[0], [[10, 10], [90, 10], [100, 10]])
    np.testing.assert_allclose(runs[1], [[100, 40], [50, 40]])
    np.testing.assert_allclose(runs[2], [[20, 20], [30, 20]])
    assert [(m[0].tolist(), m[1].tolist()) for m in marks] == [([100.0, 10.0], [1.0, 0.0]), ([100.0, 40.0], [1.0, 0.0])]
    runs, marks = pr.clip_path(np.array([[200.0, 200.0], [300.0, 300.0]]), box)     # all outside
    assert runs == [] and marks == []


def _edge_overlay() -> pr.Overlay:
    """A 200 x 100 map with a model's point past its right edge, the truth on its bottom edge, and a
    path that leaves through the top."""
    ov = pr.Overlay(200, 100)
    ov.add(pr.Marker(pr.MODEL, 0, (pr.L_ANSWERS,), pr.Z_MODEL_MARKER, at=np.array([260.0, 50.0]), shape="model"),
           pr.Marker(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_TRUTH_MARKER, at=np.array([100.0, 100.0]), shape="star"),
           pr.TimedPath(pr.PATH, None, (pr.L_TRAJECTORY,), pr.Z_PATH,
                        points=np.array([[20.0, 80.0], [60.0, 40.0], [100.0, -40.0], [140.0, -60.0]])))
    return ov


def test_figures_draw_markers_inside_the_map_with_an_edge_mark():
    from PyQt6.QtCore import QRectF
    from PyQt6.QtGui import QColor, QImage, QPainter

    from viewer.figures import map_painter as mp
    from viewer.figures import theme as th
    from viewer.figures.canvas import ensure_gui_app, qimage_to_rgb
    ensure_gui_app()
    ov = _edge_overlay()
    assert mp.shown_box(ov) == (0.0, 0.0, 200.0, 100.0)   # a point past the edge does not shrink the map
    m = mp._Map(QRectF(0, 0, 400, 200), (0.0, 0.0, 200.0, 100.0), ov.edge_box((0.0, 0.0, 200.0, 100.0)))
    # The model past the edge: pulled in by its radius and the mark's room, marked outward.
    at, out = m.inside(m.pts([260.0, 50.0]), 9.0, 11.0)
    assert at[0] == pytest.approx(400 - 9 - 11) and out.tolist() == [1.0, 0.0]
    # The truth on the edge: drawn whole (its radius inside), not marked.
    at, out = m.inside(m.pts([100.0, 100.0]), 15.0, 11.0)
    assert at[1] == pytest.approx(200 - 15) and out is None
    # Painted: the model's colour appears at the right edge and nowhere past the map.
    map_img = QImage(200, 100, QImage.Format.Format_RGB888)
    map_img.fill(QColor(255, 255, 255))
    fig = QImage(600, 200, QImage.Format.Format_RGB888)
    fig.fill(QColor(10, 10, 10))
    p = QPainter(fig)
    where = mp.paint_map(p, QRectF(0, 0, 400, 200), map_img, ov, th.PAPER, mask=QRectF(0, 0, 600, 200))
    p.end()
    assert where.right() <= 400.5
    rgb = qimage_to_rgb(fig).astype(int)
    c = th.model_color(0)
    near = (np.abs(rgb - [c.red(), c.green(), c.blue()]).sum(axis=2) < 40)
    cols = np.flatnonzero(near.any(axis=0))
    assert len(cols) and cols.max() < 400 and cols.min() > 360     # the marker and its mark, at the edge
    assert not near[:, 400:].any()


def test_window_map_draws_markers_and_path_inside_the_map(qtbot):
    from PyQt6.QtWidgets import QGraphicsItem, QGraphicsPolygonItem

    from viewer.ui.map_view import MapView
    view = MapView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.set_map(np.full((100, 200, 3), 255, np.uint8))
    view.set_overlay(_edge_overlay(), ["m"])
    fixed = QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations
    points, marks = [], 0
    for it in view._layer.childItems():
        if it.flags() & fixed:                     # a marker or an arrowhead: placed at its data point
            points.append((it.pos().x(), it.pos().y()))
            marks += isinstance(it, QGraphicsPolygonItem)
        else:                                      # a line: its path is in map pixels
            path = it.path()
            points += [(path.elementAt(k).x, path.elementAt(k).y) for k in range(path.elementCount())]
    assert len(points) > 4
    assert _inside((0.0, 0.0, 200.0, 100.0), np.array(points))
    assert marks == 2                               # the model's edge mark and where the path leaves


def test_clips_and_slides_show_the_whole_map_while_the_video_plays_then_the_focus(direction_subjects, monkeypatch):
    from viewer.figures import map_painter, story_frame
    from viewer.figures.story_frame import StoryPainter
    from viewer.figures.theme import TALK_DARK
    s = next(x for x in direction_subjects if x.media.overlay.focus is not None)
    shown = []
    real = story_frame.paint_map

    def recording(p, rect, image, ov, *args, **kw):
        shown.append(map_painter.shown_box(ov, image, kw.get("focused", False)))
        return real(p, rect, image, ov, *args, **kw)
    monkeypatch.setattr(story_frame, "paint_map", recording)
    painter = StoryPainter(s)
    for stage, frame in (("video", 5), ("question", None), ("answer", None), ("truth", None)):
        painter.image((640, 360), stage, frame, TALK_DARK)
    ov = s.media.overlay
    whole, focus = shown[0], ov.focus
    # The camera's whole walk: the map (cropped to its content), with all of the path.
    path = ov.path().points
    assert _inside(whole, np.clip(path[np.isfinite(path).all(axis=1)], 0, [ov.width, ov.height]))
    assert (whole[2] - whole[0]) * (whole[3] - whole[1]) > 1.5 * (focus[2] - focus[0]) * (focus[3] - focus[1])
    assert shown[1:] == [focus] * 3


def test_a_ray_past_the_map_keeps_its_models_marker_on_the_edge():
    from PyQt6.QtCore import QRectF
    from PyQt6.QtGui import QColor, QImage, QPainter

    from viewer.figures import map_painter as mp
    from viewer.figures import theme as th
    from viewer.figures.canvas import ensure_gui_app, qimage_to_rgb
    ensure_gui_app()
    ov = pr.Overlay(200, 100)
    ov.add(pr.Arrow(pr.MODEL, 1, (pr.L_ANSWERS,), pr.Z_MODEL_ARROW, points=np.array([[100.0, 50.0], [100.0, -80.0]])))
    ov.focus = (0.0, 0.0, 200.0, 100.0)              # the view shows the map only: the tip is past its top
    map_img = QImage(200, 100, QImage.Format.Format_RGB888)
    map_img.fill(QColor(255, 255, 255))
    fig = QImage(400, 300, QImage.Format.Format_RGB888)
    fig.fill(QColor(10, 10, 10))
    p = QPainter(fig)
    where = mp.paint_map(p, QRectF(0, 50, 400, 200), map_img, ov, th.PAPER, mask=QRectF(0, 0, 400, 300),
                         focused=True)
    p.end()
    assert (where.top(), where.bottom()) == (50.0, 250.0)
    rgb = qimage_to_rgb(fig).astype(int)
    c = th.model_color(1)
    near = (np.abs(rgb - [c.red(), c.green(), c.blue()]).sum(axis=2) < 40)
    rows = np.flatnonzero(near[:, 190:210].any(axis=1))
    assert not near[:50].any() and rows.min() >= 50          # nothing past the map
    # The marker (black-outlined, the model's shape) sits just inside the top edge.
    dark = (rgb[50:90, 185:215] < 30).all(axis=2)
    assert dark.any()
