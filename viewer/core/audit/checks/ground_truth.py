"""gt_direction_mismatch, gt_distance_mismatch, gt_point_mismatch: the stored answer against the
answer recomputed from the scene's geometry (geometry.recompute_ground_truth).
"""
from __future__ import annotations

import numpy as np

from ...column import MAP_HEADING
from ...scene.model import QuestionGeometry
from ..auditors import SceneAuditor
from ..registry import SCENE, Check
from ..types import ANGLE_COLUMNS, DISTANCE_COLUMNS, POINT_COLUMNS

ANGLE_TOLERANCE = 5.0            # degrees
DISTANCE_TOLERANCE = 0.15        # metres, or DISTANCE_RELATIVE of the distance if larger
DISTANCE_RELATIVE = 0.05
POINT_TOLERANCE = 15.0           # normalised map units


def recomputed(auditor: SceneAuditor, check: Check, q, g: QuestionGeometry):
    """The recomputed answer; None (the check skipped, with the reason) when there is none."""
    if not q.truth.ok:
        auditor.skip(check, "the stored answer is invalid (see invalid_answer)")
        return None
    r = auditor.recomputed(q, g)
    if r.value is None:
        auditor.skip(check, r.reason)
        return None
    return r


class DirectionMismatch(Check):
    def check_question(self, auditor: SceneAuditor, q, g: QuestionGeometry) -> None:
        r = recomputed(auditor, self, q, g)
        if r is None:
            return
        stored = float(q.truth.value)
        diff = abs(wrap_degrees(stored - r.exact))
        if diff <= ANGLE_TOLERANCE:
            auditor.passed(self)
            return
        what = "heading on the map" if q.column.frame == MAP_HEADING else "direction"
        auditor.flag(self, q, f"stored {what} {stored:g}° but the geometry gives {r.exact:.0f}° ({diff:.0f}° apart)",
                     {"stored": stored, "recomputed": r.exact, "difference_deg": diff,
                      "tolerance_deg": ANGLE_TOLERANCE, "viewpoint": q.viewpoint, "target": q.target})


class DistanceMismatch(Check):
    def check_question(self, auditor: SceneAuditor, q, g: QuestionGeometry) -> None:
        r = recomputed(auditor, self, q, g)
        if r is None:
            return
        stored = float(q.truth.value)
        tol = max(DISTANCE_TOLERANCE, DISTANCE_RELATIVE * r.exact)
        diff = abs(stored - r.exact)
        if diff <= tol:
            auditor.passed(self)
            return
        auditor.flag(self, q, f"stored distance {stored:g} m but the geometry gives {r.exact:.2f} m "
                              f"({diff:.2f} m apart)",
                     {"stored": stored, "recomputed": r.exact, "difference_m": diff, "tolerance_m": tol,
                      "viewpoint": q.viewpoint, "target": q.target})


class PointMismatch(Check):
    def check_question(self, auditor: SceneAuditor, q, g: QuestionGeometry) -> None:
        r = recomputed(auditor, self, q, g)
        if r is None:
            return
        stored = np.asarray(q.truth.value, float)
        diff = float(np.hypot(*(stored - np.asarray(r.value, float))))
        if diff <= POINT_TOLERANCE:
            auditor.passed(self)
            return
        what = "target's map point" if q.column.has_target else "map position of the current view"
        auditor.flag(self, q, f"stored {what} ({stored[0]:g}, {stored[1]:g}) but the geometry gives "
                              f"({r.value[0]}, {r.value[1]}) ({diff:.0f} units apart)",
                     {"stored": stored, "recomputed": list(r.value), "distance": diff,
                      "tolerance": POINT_TOLERANCE, "target": q.target, "viewpoint": q.viewpoint,
                      "topdown": g.topdown.name if g.topdown else None})


def wrap_degrees(a: float) -> float:
    return (a + 180.0) % 360.0 - 180.0


NEEDS_SCENE = frozenset({SCENE})
DIRECTION_MISMATCH = DirectionMismatch("gt_direction_mismatch", "error", "stored angle vs geometry > 5 deg",
                                       ANGLE_COLUMNS, NEEDS_SCENE)
DISTANCE_MISMATCH = DistanceMismatch("gt_distance_mismatch", "error",
                                     "stored distance vs geometry > max(0.15 m, 5 %)", DISTANCE_COLUMNS, NEEDS_SCENE)
POINT_MISMATCH = PointMismatch("gt_point_mismatch", "error", "stored map point vs geometry > 15 units",
                               POINT_COLUMNS, NEEDS_SCENE)
