"""query_localised_off_answer: a query view that structure from motion placed confidently in the video,
far from where its position answer puts it on the map, or facing away from its heading answer.

Only on a scene reconstructed from the video (`scene/sfm_scene.py`). The
alignment that judges a view's answers is the one fitted without them
(leave-one-out, `scene/align.py`): a wrong answer cannot pull the path
toward itself and then pass. A view localised with little evidence, or an
alignment that rests on too few other answers, is not accused: the first is
skipped, the second is a warning that says how weak it is.
"""
from __future__ import annotations

import math

from ...column import MAP_HEADING, Columns
from ...scene.model import QuestionGeometry
from ..auditors import SceneAuditor
from ..registry import SCENE, Check

MIN_CONFIDENCE = 0.5         # the localisation's own confidence (0..1)
MIN_INLIERS = 30             # 2D-3D matches consistent with its pose
OFF_M = 1.5                  # metres between the localised view and its position answer, on the map
OFF_MAP = 0.08               # ... or this share of the map's diagonal when the map has no scale
AWAY_DEG = 45.0              # degrees between the localised view's heading and its heading answer
STRONG_ANSWERS = 3           # position answers the leave-one-out fit needs to be more than a warning


class QueryLocalisedOffAnswer(Check):
    def check_question(self, auditor: SceneAuditor, q, g: QuestionGeometry) -> None:
        scene = g.scene
        al = getattr(scene, "alignment", None)
        if al is None:
            auditor.skip(self, "the scene is not reconstructed from its video")
            return
        if not al.ok:
            auditor.skip(self, f"the reconstruction is not aligned to the map: {al.why}")
            return
        heading = q.column.frame == MAP_HEADING
        kind = "heading" if heading else "position"
        mine = [r for r in al.residuals if r.anchor.kind == kind and q.uid in r.anchor.uids]
        if not mine:
            auditor.skip(self, "its view was not localised in the video, or its answer places nothing")
            return
        r = mine[0]
        loc = scene.localisations.get(r.anchor.group)
        if loc is None or loc.confidence < MIN_CONFIDENCE or loc.inliers < MIN_INLIERS:
            auditor.skip(self, f"its view's localisation is not confident (at least {MIN_INLIERS} inliers and "
                               f"confidence {MIN_CONFIDENCE:g} needed)")
            return
        if not math.isfinite(r.left_out):
            auditor.skip(self, "the other answers do not align the path without this view's")
            return
        others = [x for x in al.residuals if x.anchor.kind == "position" and x.anchor.group != r.anchor.group
                  and x.inlier]
        scaled = al.scale_source == "map"
        evidence = {"viewpoint": r.anchor.group, "inliers": loc.inliers, "matches": loc.matches,
                    "confidence": loc.confidence, "alignment_answers": al.answers,
                    "alignment_positions_without_it": len(others),
                    "residuals": {",".join(x.anchor.uids) or x.anchor.group: round(x.left_out, 2)
                                  for x in al.residuals if x.anchor.kind == kind and math.isfinite(x.left_out)}}
        weak = len(others) < STRONG_ANSWERS or not scaled
        severity = "warning" if weak else None
        why_weak = (f"; the alignment without it rests on {len(others)} position answers"
                    + ("" if scaled else " and the map's scale is unknown") if weak else "")
        if heading:
            if r.left_out <= AWAY_DEG:
                auditor.passed(self)
                return
            auditor.flag(self, q, f"the view {r.anchor.group} localised in the video ({loc.inliers} inliers, "
                                  f"confidence {loc.confidence:.2f}) faces {r.left_out:.0f}° away from its heading "
                                  f"answer{why_weak}",
                         {**evidence, "angle_deg": r.left_out, "max_angle_deg": AWAY_DEG}, severity)
            return
        limit = OFF_M / al.metres_per_px if scaled else OFF_MAP * _diag(g)
        if r.left_out <= limit:
            auditor.passed(self)
            return
        where = f"{r.left_out_m:.1f} m" if scaled else f"{r.left_out:.0f} map pixels"
        auditor.flag(self, q, f"the view {r.anchor.group} localised in the video ({loc.inliers} inliers, "
                              f"confidence {loc.confidence:.2f}) is {where} from where its position answer "
                              f"puts it{why_weak}",
                     {**evidence, "distance_px": r.left_out, "distance_m": r.left_out_m,
                      "max_distance_px": limit}, severity)


def _diag(g: QuestionGeometry) -> float:
    t = g.topdown
    return math.hypot(t.width, t.height) if t is not None and t.width and t.height else 1000.0 * math.sqrt(2)


QUERY_LOCALISED_OFF_ANSWER = QueryLocalisedOffAnswer(
    "query_localised_off_answer", "error", "query view localised in the video far from its Pos/Ori answer",
    Columns(kind="point", has_view=True, on_map=True) | Columns(kind="angle", frame=MAP_HEADING),
    frozenset({SCENE}), judges_reconstructed=True)
