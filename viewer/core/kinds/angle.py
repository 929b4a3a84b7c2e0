"""Angles in degrees: egocentric directions (0 = ahead, left positive) and map headings (0 = up)."""
from __future__ import annotations

import numpy as np

from ..answers import rescue_decimal_comma, rescue_sign_from_words
from ..scoring import ANGLE_TOLERANCES, random_angle_score, score_angle
from .base import NumberKind, register


class AngleKind(NumberKind):
    name = "angle"
    unit = "°"
    truth_symbol = "truth-ray"
    convention = "0° = straight ahead, left turns positive, in [−180°, 180°]"
    heading_convention = "0° = up on the map, counter-clockwise positive, in [−180°, 180°]"
    chart = "dial"
    bands = tuple(float(t) for t in ANGLE_TOLERANCES)
    error_scale = float(max(ANGLE_TOLERANCES))
    error_unit = "°"
    domain = (-180.0, 180.0)
    rescues = (rescue_decimal_comma, rescue_sign_from_words)

    def score(self, pred, truth):
        return score_angle(pred[:, 0], truth[:, 0])

    def chance(self, truth, n_options) -> float:
        return random_angle_score()

    def convention_for(self, column) -> str:
        return self.heading_convention if column.frame == "map" else self.convention

    def error_text(self, error: float) -> str:
        return f"{error:.0f}°"

    def map_overlay(self, ctx) -> None:
        if ctx.column.frame == "map":
            self._headings(ctx)
        else:
            self._directions(ctx)

    def _directions(self, ctx) -> None:
        """Egocentric: rays from the current view, turned by the angle from its forward direction."""
        from .. import primitives as pr  # drawing only, so that `score` never imports it
        if ctx.viewpoint_pose is None or not ctx.heading_known:
            ctx.note("no viewpoint: directions cannot be drawn" if ctx.viewpoint_pose is None
                     else "the view's heading is unknown: directions cannot be drawn")
            return
        length = ctx.reach
        if ctx.target_distance is not None:
            length = max(ctx.target_distance, ctx.reach * 0.3)
        if ctx.truth is not None:
            self._truth(ctx, ctx.ray(ctx.truth, length),
                        [ctx.wedge(ctx.truth, tau, length) for tau in self.bands[::-1]])
        for m, v in ctx.answers:
            ctx.overlay.add(pr.Arrow(pr.MODEL, m, (pr.L_ANSWERS,), pr.Z_MODEL_ARROW, points=ctx.ray(v, length)))

    def _headings(self, ctx) -> None:
        """Map headings, given on the question's own image (0 = up, counter-clockwise as displayed)."""
        from .. import primitives as pr  # drawing only, so that `score` never imports it
        if ctx.own_to_shown is None:
            ctx.note("the question's own map has no affine: headings cannot be drawn here")
            return
        if ctx.viewpoint_px is None:
            ctx.note("no viewpoint: the heading cannot be drawn")
            return
        length = 0.1 * float(np.hypot(ctx.width, ctx.height))
        if ctx.truth is not None:
            t = ctx.truth
            sectors = [ctx.heading_wedge(t, tau, length) for tau in self.bands[::-1]]
            self._truth(ctx, ctx.heading_ray(t, length), sectors)
        for m, v in ctx.answers:
            ctx.overlay.add(pr.Arrow(pr.MODEL, m, (pr.L_ANSWERS,), pr.Z_MODEL_ARROW,
                                     points=ctx.heading_ray(v, length)))

    def _truth(self, ctx, ray, sectors) -> None:
        from .. import primitives as pr  # drawing only, so that `score` never imports it
        ov = ctx.overlay
        for tau, poly in zip(self.bands[::-1], sectors):
            ov.add(pr.Sector(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_BAND, points=poly, level=tau))
        ov.add(pr.Arrow(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_TRUTH_ARROW, points=ray))
        ov.legend.append(pr.LegendItem("truth-ray", "ground truth", layers=(pr.L_TRUTH,)))
        bands = " / ".join(f"{t:g}°" for t in self.bands)
        ov.legend.append(pr.LegendItem("band", f"within {bands}", layers=(pr.L_TRUTH,)))

    def scene_overlay(self, ctx) -> None:
        """Egocentric directions as rays in the room; map headings are drawn on the map only."""
        from .. import primitives as pr  # drawing only, so that `score` never imports it
        if ctx.column.frame == "map":
            return
        if ctx.viewpoint_pose is None:
            ctx.note("no viewpoint: direction rays cannot be drawn")
            return
        length = 2.0 if ctx.target_distance is None else max(ctx.target_distance, 0.5)
        # The truth on top of the models' rays in 3D (the still draws them in this order).
        for m, v in ctx.answers:
            ctx.overlay.add(pr.Arrow(pr.MODEL, m, (pr.L_ANSWERS,), pr.Z_MODEL_ARROW, points=ctx.ray(v, length)))
        if ctx.truth is not None:
            ctx.overlay.add(pr.Arrow(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_MODEL_ARROW + 1,
                                     points=ctx.ray(ctx.truth, length)))


ANGLE = register(AngleKind())
