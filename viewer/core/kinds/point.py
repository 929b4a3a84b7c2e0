"""Points on the scene's top-down map, in units normalised to 0..999 on each axis."""
from __future__ import annotations

import numpy as np

from ..answers import STRICT, parse_point, parse_points_many
from ..scoring import POINT_THRESHOLDS, random_point_score, score_point
from .base import AnswerKind, register
from .distance import pr_segments


class PointKind(AnswerKind):
    name = "point"
    width = 2
    truth_symbol = "truth-star"
    convention = "(x, y) on the top-down map, both in 0..999, y down"
    bands = tuple(float(t) for t in POINT_THRESHOLDS)
    error_scale = float(max(POINT_THRESHOLDS))
    error_unit = " units"
    domain = (0.0, 999.0)
    truths_in_bulk = True

    def parse(self, raw, n_options: int = 4, profile: str = STRICT):
        return self.checked(parse_point(raw, profile))

    def parse_many(self, raws, n_options, cache, profile: str = STRICT):
        values, statuses = parse_points_many(raws, cache, profile)
        return values, self.flag_out_of_range(values, statuses)

    def unpack(self, row):
        x, y = float(row[0]), float(row[1])
        return None if np.isnan(x) or np.isnan(y) else (x, y)

    def score(self, pred, truth):
        return score_point(pred, truth)

    def chance(self, truth, n_options) -> float:
        return float(random_point_score(truth).mean())

    def format(self, value) -> str:
        return f"<point>{value[0]:g} {value[1]:g}</point>"

    def text(self, value) -> str:
        return f"({value[0]:g}, {value[1]:g})"

    def json_value(self, value):
        return None if value is None else [float(value[0]), float(value[1])]

    def error_text(self, error: float) -> str:
        return f"{error:.0f}"


    def needs_map(self, column) -> bool:
        return True

    def map_overlay(self, ctx) -> None:
        """The truth as a star with its score rings, each answer as a marker tied to the truth."""
        from .. import primitives as pr  # drawing only, so that `score` never imports it
        if ctx.to_px is None:
            ctx.note("the question's own map has no affine: answer points cannot be carried onto this map")
            return
        ov = ctx.overlay
        truth = None
        if ctx.truth is not None:
            t = np.asarray(ctx.truth, float)
            truth = ctx.to_px(t)
            circle = ctx.unit_circle()
            for tau in self.bands:
                ov.add(pr.Ring(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_RING, points=ctx.to_px(t + tau * circle),
                               label=f"{tau:g}"))
            ov.add(pr.Marker(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_TRUTH_MARKER, at=truth, shape="star"))
            ov.legend.append(pr.LegendItem("truth-star", "ground truth", layers=(pr.L_TRUTH,)))
            lo, hi = self.bands[0], self.bands[-1]
            ov.legend.append(pr.LegendItem("ring", f"{lo:g} … {hi:g} units from the truth", layers=(pr.L_TRUTH,)))
        for m, v in ctx.answers:
            p = ctx.to_px(np.asarray(v, float))
            if truth is not None:
                ov.add(pr.Polyline(pr.MODEL, m, (pr.L_ANSWERS, pr.L_TRUTH), pr.Z_LINK,
                                   points=np.stack([p, truth]), dashed=True))
            ov.add(pr.Marker(pr.MODEL, m, (pr.L_ANSWERS,), pr.Z_MODEL_MARKER, at=p, shape="model"))

    def scene_overlay(self, ctx) -> None:
        """Each answer (then the truth) as a pole standing on the floor with a ring at its foot."""
        from .. import primitives as pr  # drawing only, so that `score` never imports it
        tmap = ctx.topdown
        if tmap is None or tmap.world_to_pixel is None or not tmap.width:
            return
        from .. import geometry as geo
        floor_z = ctx.floor_z
        t = np.linspace(0, 2 * np.pi, 25)
        for m, role, pt, z in ctx.answers_then_truth(pr.Z_MODEL_ARROW + 2):
            x, y = geo.pixel_to_world(tmap.world_to_pixel,
                                      geo.normalised_to_pixel(np.asarray(pt, float), tmap.width, tmap.height))
            ring = np.stack([x + 0.25 * np.cos(t), y + 0.25 * np.sin(t), np.full_like(t, floor_z + 0.02)], axis=1)
            pole = np.array([[[x, y, floor_z], [x, y, floor_z + 1.4]]])
            ctx.overlay.add(pr.Segments(role, m, (pr.L_TRUTH if m is None else pr.L_ANSWERS,), z,
                                        segments=np.concatenate([pr_segments(ring), pole])))


POINT = register(PointKind())
