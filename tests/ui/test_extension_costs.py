"""The extension costs docs/architecture.md promises, done from this file alone.

- a new answer kind, registered here, draws in the window's map view and in
  an exported figure with no edit to viewer/ui or viewer/figures;
- a new map primitive is one class (here) that both map renderers draw.
"""
from dataclasses import dataclass, field

import numpy as np
import pytest
from PyQt6.QtCore import QRectF
from PyQt6.QtGui import QColor, QImage, QPainter

from viewer.core import primitives as pr
from viewer.core.answers import OK, Parsed
from viewer.core.column import Column
from viewer.core.kinds import AnswerKind, get_kind, register, unregister
from viewer.core.overlays import published_map_overlay
from viewer.core.talk.storyboard import EVERYTHING
from viewer.figures.map_painter import map_legend, paint_map
from viewer.figures.theme import PAPER
from viewer.ui.map_view import MapView

W, H = 400, 300


@dataclass(frozen=True, eq=False)
class Cross(pr.Primitive):
    """A new primitive: an X over a point, drawn by every renderer through its parts."""
    at: np.ndarray = field(default=None)
    half: float = 10.0

    def parts(self):
        x, y = self.at
        h = self.half
        strokes = ([[x - h, y - h], [x + h, y + h]], [[x - h, y + h], [x + h, y - h]])
        return [pr.Polyline(self.role, self.model, self.layers, self.z, points=np.array(s)) for s in strokes]


class RoomKind(AnswerKind):
    """A new kind: the answer is a room's box on the map, written "x0 y0 x1 y1" in 0..999."""
    name = "room-box"
    width = 2                 # stored as the box's centre; the truth keeps its box
    chart = None

    def parse(self, raw, n_options=4, profile="strict"):
        try:
            x0, y0, x1, y1 = (float(v) for v in str(raw).split())
        except ValueError:
            return Parsed(None, "no_box")
        return Parsed(((x0 + x1) / 2, (y0 + y1) / 2), OK)

    def map_overlay(self, ctx):
        ov = ctx.overlay
        if ctx.truth is not None:
            cx, cy = ctx.to_px(np.asarray(ctx.truth, float))
            box = (cx - 30, cy - 20, cx + 30, cy + 20)
            ov.add(pr.Box(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_TRUTH_LINE, rect=box),
                   pr.Label(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_TRUTH_MARKER, at=np.array([cx, cy - 22]), text="room"))
            ov.legend.append(pr.LegendItem("truth-star", "ground truth", layers=(pr.L_TRUTH,)))
        for m, v in ctx.answers:
            ov.add(Cross(pr.MODEL, m, (pr.L_ANSWERS,), pr.Z_MODEL_MARKER, at=ctx.to_px(np.asarray(v, float))))


@dataclass
class _Question:
    """The parts of a release question that overlays read."""
    column: Column
    truth: Parsed

    @property
    def kind(self):
        return self.column.kind


@dataclass
class _Result:
    status: np.ndarray
    answer: np.ndarray


@pytest.fixture
def room_question():
    register(RoomKind())
    try:
        column = Column("Room", "Room_Box", "room-box", "Room box", False, False, True)
        kind = get_kind("room-box")
        truth = kind.parse_truth("400 400 600 600")
        answer = kind.parse_many(["100 100 300 300"], [4], None)[0]
        yield _Question(column, truth), [_Result(np.array([OK], object), answer)]
    finally:
        unregister("room-box")


def test_a_new_kind_draws_in_the_window_map(qtbot, room_question):
    question, results = room_question
    ov = published_map_overlay(question, 0, results, W, H)
    assert {type(p) for p in ov.items} == {pr.Box, pr.Label, Cross}
    view = MapView()
    qtbot.addWidget(view)
    view.set_map(np.zeros((H, W, 3), np.uint8))
    view.set_overlay(ov, ["model A"])
    # The box (one outline), the label, and the cross as its two strokes.
    assert len(view._layer.childItems()) == 4
    assert view._legend_shown == [("truth-star", "ground truth"), ("model-0", "model A")]   # models named


def test_a_new_kind_draws_in_a_figure(room_question):
    question, results = room_question
    ov = published_map_overlay(question, 0, results, W, H)
    blank = QImage(W, H, QImage.Format.Format_RGB32)
    blank.fill(QColor(255, 255, 255))
    out = QImage(W, H, QImage.Format.Format_RGB32)
    out.fill(QColor(255, 255, 255))
    p = QPainter(out)
    paint_map(p, QRectF(0, 0, W, H), blank, ov, PAPER)
    p.end()
    # The truth's box is centred on (500.5, 500.5) normalised = (200.2, 150.15) pixels, 60 px wide.
    assert out.pixelColor(170, 150) != QColor(255, 255, 255)           # its left edge
    assert out.pixelColor(185, 150) == QColor(255, 255, 255)           # inside, not filled
    # The model's cross centre, at (200.5, 200.5) normalised.
    cx, cy = int(200.5 * W / 1000), int(200.5 * H / 1000)
    assert out.pixelColor(cx, cy) != QColor(255, 255, 255)
    entries = map_legend(ov, EVERYTHING, "ground truth", {0: "model A"})
    assert [e.kind for e in entries] == ["truth-star", "model"]
