"""ambiguous_semantic_target: a semantic question's target category names one instance of its scene."""
from __future__ import annotations

from ...scene.model import QuestionGeometry
from ..auditors import SceneAuditor, geometry_problem
from ..registry import SCENE, Check
from ..types import SEMANTIC_COLUMNS


class AmbiguousSemanticTarget(Check):
    def check_question(self, auditor: SceneAuditor, q, g: QuestionGeometry) -> None:
        if g.target is None:
            auditor.skip(self, geometry_problem(g, "target", "no target"))
            return
        category = (g.target.semantic or "").strip().lower()
        if not category:
            auditor.skip(self, "the target has no semantic category")
            return
        same = sorted(iid for iid, inst in g.scene.instances.items()
                      if (inst.semantic or "").strip().lower() == category)
        if len(same) <= 1:
            auditor.passed(self)
            return
        others = [i for i in same if i != g.target.id]
        shown = ", ".join(others[:4]) + (" ..." if len(others) > 4 else "")
        auditor.flag(self, q, f"{len(same)} instances of {category!r} in {g.scene.id}: {g.target.id} and {shown}",
                     {"category": category, "count": len(same), "instances": same[:20], "target": g.target.id})


AMBIGUOUS_SEMANTIC_TARGET = AmbiguousSemanticTarget("ambiguous_semantic_target", "error",
                                                    "semantic category has several instances", SEMANTIC_COLUMNS,
                                                    frozenset({SCENE}))
