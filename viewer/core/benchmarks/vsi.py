"""VSI-Bench (thinking-in-space, Yang et al., 2025), scored as lmms-eval's `vsibench` scores it.

Ten question types: four numeric ones scored by MRA (kind `mra`) and six
multiple-choice ones (kind `option-text`). The leaderboard has 8 columns:
the three `object_rel_direction_*` sub-types are averaged into one, and the
overall is the mean of the 8. Questions whose ground truth cannot be read
score 0, as upstream scores them.
"""
from __future__ import annotations

from ..tasks import Column
from .base import Benchmark, ScoringVariant

DIRECTION = "object_rel_direction"
NUMERIC_TYPES = ("object_counting", "object_abs_distance", "object_size_estimation", "room_size_estimation")
CHOICE_TYPES = ("object_rel_distance", f"{DIRECTION}_easy", f"{DIRECTION}_medium", f"{DIRECTION}_hard",
                "route_planning", "obj_appearance_order")


def _col(task: str, kind: str, title: str, has_target: bool) -> Column:
    return Column(task, task, kind, title, has_target, False, False)


COLUMNS: tuple[Column, ...] = (
    _col("object_counting", "mra", "Object count", True),
    _col("object_abs_distance", "mra", "Absolute distance (m)", True),
    _col("object_size_estimation", "mra", "Object size (cm)", True),
    _col("room_size_estimation", "mra", "Room size (m²)", False),
    _col("object_rel_distance", "option-text", "Relative distance", True),
    _col(f"{DIRECTION}_easy", "option-text", "Relative direction (easy)", True),
    _col(f"{DIRECTION}_medium", "option-text", "Relative direction (medium)", True),
    _col(f"{DIRECTION}_hard", "option-text", "Relative direction (hard)", True),
    _col("route_planning", "option-text", "Route plan", False),
    _col("obj_appearance_order", "option-text", "Appearance order", True),
)

# The paper's Table 1 headers.
LABELS = {"object_counting": "ObjCount", "object_abs_distance": "AbsDist", "object_size_estimation": "ObjSize",
          "room_size_estimation": "RoomSize", "object_rel_distance": "RelDist", DIRECTION: "RelDir",
          "route_planning": "RoutePlan", "obj_appearance_order": "ApprOrder"}

ELEVEN_THRESHOLDS = ScoringVariant(
    "eleven-thresholds",
    "MRA over 11 thresholds (0.50..0.95 and 1.0), and the overall averages the three direction "
    "sub-types alongside their mean: the rule of the public Gemini 3 Flash study "
    "(pritipallavi/VSI-Bench-VLM-Response-Study)",
    kind_swaps={"mra": "mra-eleven"}, average_subcolumns=True)

PRE_PROMPT = "These are frames of a video."
NA_POST_PROMPT = "Please answer the question using a single word or phrase."
MCA_POST_PROMPT = "Answer with the option's letter from the given choices directly."


def prompt_text(question: str, question_type: str, options: list[str]) -> str:
    """The prompt lmms-eval's `vsibench_doc_to_text` builds with its default pre and post prompts."""
    if question_type in NUMERIC_TYPES:
        return PRE_PROMPT + "\n" + question + "\n" + NA_POST_PROMPT
    return "\n".join([PRE_PROMPT, question, "Options:\n" + "\n".join(options), MCA_POST_PROMPT])


class VsiBenchmark(Benchmark):
    def prepare_predictions(self, release, preds):
        from ..vsi_predictions import SceneResponses
        return preds.resolve(release) if isinstance(preds, SceneResponses) else preds


VSI = VsiBenchmark(
    name="vsi",
    title="VSI-Bench",
    columns=COLUMNS,
    groups={DIRECTION: tuple(f"{DIRECTION}_{d}" for d in ("easy", "medium", "hard"))},
    labels=LABELS,
    prompt_convention="multiple choice: the option's letter first; numbers: the number first (lmms-eval vsibench)",
    variants=(ELEVEN_THRESHOLDS,),
    invalid_truth_scores_zero=True,
)
