"""choice_options_ambiguous: the best two options of a choice question score too close to tell apart.

Reads the same per-scene judgement as choice_answer_mismatch (`choice.judge_choices`):
the margin is a similarity of 0.05 for top-down selection and, for
trajectories, 4 map pixels or a quarter of the best path's distance.
"""
from __future__ import annotations

from ..auditors import SceneAuditor
from ..choice import CHOICE_KEYS, LETTERS, judge_choices
from ..registry import IMAGES, Check


class ChoiceOptionsAmbiguous(Check):
    def check_scene(self, auditor: SceneAuditor, questions: list) -> None:
        judged = judge_choices(auditor)
        for q in questions:
            j = judged[q.uid]
            if isinstance(j, str):
                auditor.skip(self, j)
            elif not j.ambiguous:
                auditor.passed(self)
            else:
                a, b = LETTERS[j.best], LETTERS[j.runner_up]
                shown = "{:.2f}" if j.higher_is_better else "{:.1f} px"
                auditor.flag(self, q, f"options {a} ({shown.format(j.scores[j.best])}) and {b} "
                                      f"({shown.format(j.scores[j.runner_up])}) are within "
                                      f"{shown.format(j.margin)} of each other; stored {LETTERS[j.truth]}",
                             j.details())


CHOICE_OPTIONS_AMBIGUOUS = ChoiceOptionsAmbiguous("choice_options_ambiguous", "warning",
                                                  "the best two options are too close to tell apart", CHOICE_KEYS,
                                                  needs=frozenset({IMAGES}))
