"""choice_options_ambiguous: the best two options of a choice question score too close to tell apart.

Reads the same per-audit judgement as choice_answer_mismatch (`audit.choice`):
the margin is a similarity of 0.05 for top-down selection and, for
trajectories, 4 map pixels or a quarter of the best path's distance.
"""
from __future__ import annotations

from ..auditors import ReleaseAuditor
from ..choice import CHOICE_KEYS, LETTERS, judge_choices
from ..registry import Check
from ..types import Finding, json_safe


class ChoiceOptionsAmbiguous(Check):
    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        out = []
        for uid, j in judge_choices(audit).items():
            if isinstance(j, str):
                audit.tally.skip(self.id, j)
            elif not j.ambiguous:
                audit.tally.passed(self.id)
            else:
                audit.tally.flag(self.id)
                a, b = LETTERS[j.best], LETTERS[j.runner_up]
                shown = "{:.2f}" if j.higher_is_better else "{:.1f} px"
                out.append(Finding(uid, self.id, self.severity,
                                   f"options {a} ({shown.format(j.scores[j.best])}) and {b} "
                                   f"({shown.format(j.scores[j.runner_up])}) are within {shown.format(j.margin)} "
                                   f"of each other; stored {LETTERS[j.truth]}",
                                   json_safe(j.details())))
        return out


CHOICE_OPTIONS_AMBIGUOUS = ChoiceOptionsAmbiguous("choice_options_ambiguous", "warning",
                                                  "the best two options are too close to tell apart", CHOICE_KEYS)
