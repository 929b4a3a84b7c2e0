"""choice_answer_mismatch: the option that best matches the scene (TDS) or the clip (Traj) is the stored answer.

The pictures are judged once per scene, in the scene's job, by
`choice.judge_choices` (every option's score, the reference it was compared
with); this check reports the
questions whose best option is another letter. When the stored answer is
within the ambiguity margin of the best, the finding is a warning: the
options cannot be told apart well enough to call the letter wrong.
"""
from __future__ import annotations

from ..auditors import SceneAuditor
from ..choice import CHOICE_KEYS, LETTERS, ChoiceJudgement, judge_choices
from ..registry import IMAGES, Check


class ChoiceAnswerMismatch(Check):
    def check_scene(self, auditor: SceneAuditor, questions: list) -> None:
        judged = judge_choices(auditor)
        for q in questions:
            j = judged[q.uid]
            if isinstance(j, str):
                auditor.skip(self, j)
            elif not j.mismatch:
                auditor.passed(self)
            else:
                auditor.flag(self, q, _message(j), j.details(),
                             self.severity if j.gap(j.truth) >= j.margin else "warning")


def _message(j: ChoiceJudgement) -> str:
    best, truth = LETTERS[j.best], LETTERS[j.truth]
    what = "the scene's map" if j.task == "topdown" else "the clip's path"
    shown = "{:.2f}" if j.higher_is_better else "{:.1f} px"
    return (f"option {best} matches {what} best ({shown.format(j.scores[j.best])}), "
            f"not the stored {truth} ({shown.format(j.scores[j.truth])})")


CHOICE_ANSWER_MISMATCH = ChoiceAnswerMismatch("choice_answer_mismatch", "error",
                                              "another option matches the scene or clip best", CHOICE_KEYS,
                                              needs=frozenset({IMAGES}))
