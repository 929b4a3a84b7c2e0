"""target_visible_in_local_view: a Local-Video or Local-Image variant must show its target from its view.

The reverse of target_visible_in_query_view: a local variant (core/settings_table.py)
is the global question asked from a view in which the target is visible, so a
target the view does not show makes it no easier than the global one. Cast by
the audit's Visibility, with the same threshold the global check uses
(ray_cast.VIEW_MIN_FRACTION). Global questions are not its to judge: it counts
only the local variants.
"""
from __future__ import annotations

from ...scene.model import QuestionGeometry
from ...settings_table import LOCAL
from ..auditors import SceneAuditor
from ..registry import Check
from ..types import OBJECT_COLUMNS
from .ray_cast import NEEDS_RAYS, VIEW_MIN_FRACTION, view_caster


class TargetVisibleInLocalView(Check):
    def check_question(self, auditor: SceneAuditor, q, g: QuestionGeometry) -> None:
        if q.setting not in LOCAL:
            return
        cast = view_caster(auditor, self, g)
        if cast is None:
            return
        vis, intrinsics = cast
        seen = auditor.cast(("in_view", g.viewpoint.id),
                            lambda: vis.in_view(g.viewpoint.pose, intrinsics, auditor.targets)).get(g.target.id)
        fraction = 0.0 if seen is None else seen.fraction
        if fraction >= VIEW_MIN_FRACTION:
            auditor.passed(self)
            return
        auditor.flag(self, q, f"{q.setting} variant: target {g.target.id} is not visible from its view "
                              f"{g.viewpoint.id} ({fraction:.3%} of the image); it is no easier than "
                              f"{q.base_uid or 'its global question'}",
                     {"viewpoint": g.viewpoint.id, "target": g.target.id, "setting": q.setting,
                      "base_uid": q.base_uid, "visible_fraction": fraction,
                      "visible_pixels": 0 if seen is None else seen.pixels, "min_fraction": VIEW_MIN_FRACTION,
                      "geometry": vis.geometry})


TARGET_VISIBLE_IN_LOCAL_VIEW = TargetVisibleInLocalView(
    "target_visible_in_local_view", "error", "local variant's target not visible from its view", OBJECT_COLUMNS,
    NEEDS_RAYS, per_question=False)
