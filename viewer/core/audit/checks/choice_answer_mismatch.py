"""choice_answer_mismatch: the option that best matches the scene (TDS) or the clip (Traj) is the stored answer.

The pictures are judged once per scene, in the scene's job, by
`choice.judge_choices` (every option's score, the reference it was compared
with); this check reports the
questions whose best option is another letter. When the stored answer is
within the ambiguity margin of the best, the finding is a warning: the
options cannot be told apart well enough to call the letter wrong.
"""
from __future__ import annotations

from ..choice import CHOICE_COLUMNS, LETTERS, ChoiceJudgement, ChoiceJudgementCheck
from ..registry import IMAGES


class ChoiceAnswerMismatch(ChoiceJudgementCheck):
    def verdict(self, j: ChoiceJudgement) -> tuple[str, str] | None:
        if not j.mismatch:
            return None
        best, truth = LETTERS[j.best], LETTERS[j.truth]
        what = "the scene's map" if j.task == "topdown" else "the clip's path"
        message = (f"option {best} matches {what} best ({j.shown(j.scores[j.best])}), "
                   f"not the stored {truth} ({j.shown(j.scores[j.truth])})")
        return message, self.severity if j.gap(j.truth) >= j.margin else "warning"


CHOICE_ANSWER_MISMATCH = ChoiceAnswerMismatch("choice_answer_mismatch", "error",
                                              "another option matches the scene or clip best", CHOICE_COLUMNS,
                                              needs=frozenset({IMAGES}))
