"""choice_options_ambiguous: the best two options of a choice question score too close to tell apart.

Reads the same per-scene judgement as choice_answer_mismatch (`choice.judge_choices`):
the margin is a similarity of 0.05 for top-down selection and, for
trajectories, 4 map pixels or a quarter of the best path's distance.
"""
from __future__ import annotations

from ..choice import CHOICE_COLUMNS, LETTERS, ChoiceJudgement, ChoiceJudgementCheck
from ..registry import IMAGES


class ChoiceOptionsAmbiguous(ChoiceJudgementCheck):
    def verdict(self, j: ChoiceJudgement) -> tuple[str, str] | None:
        if not j.ambiguous:
            return None
        a, b = LETTERS[j.best], LETTERS[j.runner_up]
        return (f"options {a} ({j.shown(j.scores[j.best])}) and {b} ({j.shown(j.scores[j.runner_up])}) are "
                f"within {j.shown(j.margin)} of each other; stored {LETTERS[j.truth]}", self.severity)


CHOICE_OPTIONS_AMBIGUOUS = ChoiceOptionsAmbiguous("choice_options_ambiguous", "warning",
                                                  "the best two options are too close to tell apart", CHOICE_COLUMNS,
                                                  needs=frozenset({IMAGES}))
