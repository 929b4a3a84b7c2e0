"""Distances in metres, scored by mean relative accuracy (MRA)."""
from __future__ import annotations

import math

import numpy as np

from ..answers import rescue_decimal_comma, rescue_unit_to_metres
from ..scoring import MRA_THETAS, random_distance_score, score_distance
from .base import NumberKind, register


class DistanceKind(NumberKind):
    name = "distance"
    unit = " m"
    truth_symbol = "truth-line"
    convention = "metres from you to the object"
    chart = "bars"
    bands = tuple(float(t) for t in MRA_THETAS)
    error_scale = float(1.0 - min(MRA_THETAS))          # relative error beyond which no threshold accepts
    error_unit = " (relative: 0.1 = 10 %)"
    domain = (0.0, math.inf)
    rescues = (rescue_decimal_comma, rescue_unit_to_metres)

    def score(self, pred, truth):
        return score_distance(pred[:, 0], truth[:, 0])

    def chance(self, truth, n_options) -> float:
        # Distances have no natural bound: the column's largest truth is the guessing domain.
        t = truth[:, 0]
        return float(random_distance_score(t, float(t.max())).mean())

    def format(self, value) -> str:
        return f"{value:.1f}"

    def text(self, value) -> str:
        return f"{value:.1f} m"

    def error_text(self, error: float) -> str:
        return "∞" if math.isinf(error) else f"{100 * error:.0f}%"

    def map_overlay(self, ctx) -> None:
        """Circles around the current view: the true distance solid, each answer dashed."""
        from .. import primitives as pr  # drawing only, so that `score` never imports it
        if ctx.viewpoint_pose is None:
            ctx.note("no viewpoint: distances cannot be drawn")
            return
        if not ctx.scale_known:
            ctx.note("the map's scale is unknown: distances cannot be drawn")
            return
        ov = ctx.overlay
        if ctx.truth is not None:
            ov.add(pr.Polyline(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_TRUTH_LINE, points=ctx.circle(ctx.truth)))
            ov.legend.append(pr.LegendItem("truth-line", "ground truth", layers=(pr.L_TRUTH,)))
        for m, v in ctx.answers:
            if np.isfinite(v) and v >= 0:
                ov.add(pr.Polyline(pr.MODEL, m, (pr.L_ANSWERS,), pr.Z_MODEL_LINE, points=ctx.circle(v),
                                   dashed=True, mark="top"))

    def scene_overlay(self, ctx) -> None:
        """Rings around the current view at its height: the models', then the truth on top."""
        from .. import primitives as pr  # drawing only, so that `score` never imports it
        if ctx.viewpoint_pose is None:
            return
        c = ctx.camera_center
        t = np.linspace(0, 2 * np.pi, 73)
        for m, role, r, z in ctx.answers_then_truth(pr.Z_MODEL_ARROW + 2):
            if np.isfinite(r) and r >= 0:
                ring = np.stack([c[0] + r * np.cos(t), c[1] + r * np.sin(t), np.full_like(t, c[2])], axis=1)
                ctx.overlay.add(pr.Segments(role, m, (pr.L_TRUTH if m is None else pr.L_ANSWERS,), z,
                                            segments=pr_segments(ring)))


def pr_segments(points: np.ndarray) -> np.ndarray:
    """(N, 3) points -> (N - 1, 2, 3) consecutive segments."""
    return np.stack([points[:-1], points[1:]], axis=1)


DISTANCE = register(DistanceKind())
