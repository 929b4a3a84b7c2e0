"""VSI-Bench (thinking-in-space, Yang et al., 2025), scored as lmms-eval's `vsibench` scores it.

Ten question types: four numeric ones scored by MRA (kind `mra`) and six
multiple-choice ones (kind `option-text`). The leaderboard has 8 columns:
the three `object_rel_direction_*` sub-types are averaged into one, and the
overall is the mean of the 8. Questions whose ground truth cannot be read
score 0, as upstream scores them.
"""
from __future__ import annotations

import re
import threading
import weakref
from pathlib import Path

from ...column import Column
from ..base import Benchmark, Scale, ScoringVariant
from .predictions import SCENE_RESPONSES, SceneResponses, merge_scene_responses

DIRECTION = "object_rel_direction"
NUMERIC_TYPES = ("object_counting", "object_abs_distance", "object_size_estimation", "room_size_estimation")
CHOICE_TYPES = ("object_rel_distance", f"{DIRECTION}_easy", f"{DIRECTION}_medium", f"{DIRECTION}_hard",
                "route_planning", "obj_appearance_order")


def _col(task: str, kind: str, title: str) -> Column:
    # No target and no view: VSI questions name object categories in their text, never a
    # scene instance or a viewpoint by id, so there is nothing of the kind to link in a scene.
    return Column(task, task, kind, title, False, False, False)


COLUMNS: tuple[Column, ...] = (
    _col("object_counting", "mra", "Object count"),
    _col("object_abs_distance", "mra", "Absolute distance (m)"),
    _col("object_size_estimation", "mra", "Object size (cm)"),
    _col("room_size_estimation", "mra", "Room size (m²)"),
    _col("object_rel_distance", "option-text", "Relative distance"),
    _col(f"{DIRECTION}_easy", "option-text", "Relative direction (easy)"),
    _col(f"{DIRECTION}_medium", "option-text", "Relative direction (medium)"),
    _col(f"{DIRECTION}_hard", "option-text", "Relative direction (hard)"),
    _col("route_planning", "option-text", "Route plan"),
    _col("obj_appearance_order", "option-text", "Appearance order"),
)

# What each numeric type measures, in the unit its questions use (thinking-in-space's templates:
# distances "(in meters)", sizes "measured in centimeters", rooms "(in square meters)").
SCALES = {"object_counting": Scale("count"), "object_abs_distance": Scale("distance", "m"),
          "object_size_estimation": Scale("size", "cm"), "room_size_estimation": Scale("area", "m²")}
# A question that names its unit overrides the type's ("square meters" is tried before "meters").
_UNIT_WORDS = (("square meters", "m²"), ("square metres", "m²"), ("centimeters", "cm"), ("centimetres", "cm"),
               ("millimeters", "mm"), ("millimetres", "mm"), ("meters", "m"), ("metres", "m"))
_UNIT_RE = re.compile(r"\b(" + "|".join(w for w, _ in _UNIT_WORDS) + r")\b", re.IGNORECASE)


def question_scale(question_type: str, text: str) -> Scale | None:
    """The scale of a numeric question: its type's, in the unit its text names when it names one."""
    scale = SCALES.get(question_type)
    if scale is None or not scale.unit:
        return scale
    found = _UNIT_RE.search(text or "")
    if found is None:
        return scale
    unit = dict(_UNIT_WORDS)[found.group(1).lower()]
    return Scale(scale.quantity, unit)

# The paper's Table 1 headers.
LABELS = {"object_counting": "ObjCount", "object_abs_distance": "AbsDist", "object_size_estimation": "ObjSize",
          "room_size_estimation": "RoomSize", "object_rel_distance": "RelDist", DIRECTION: "RelDir",
          "route_planning": "RoutePlan", "obj_appearance_order": "ApprOrder",
          # Its sub-types, as the browser lists them (the paper's table has only their mean).
          **{f"{DIRECTION}_{d}": f"RelDir {d}" for d in ("easy", "medium", "hard")}}

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
    # Its release reader is imported when used: it needs the release types, which need the benchmarks.
    def detect(self, root: Path) -> bool:
        from .release import is_vsi_release
        return is_vsi_release(root)

    def describe_release(self, root: Path) -> str:
        from .release import describe_files
        return describe_files(root)

    def load(self, root: Path):
        from .release import load_vsi_release
        return load_vsi_release(root)

    def owns_record(self, record) -> bool:
        from .release import owns_record
        return owns_record(record)

    merges_predictions = True            # a model's per-scene response files are one set

    def merge_predictions(self, sets: list) -> list:
        return merge_scene_responses(sets)

    def scale(self, question) -> Scale | None:
        column = question.column
        if column is None:
            return None
        return question_scale(column.key, question.meta.get("question", ""))

    def question_text(self, question) -> str | None:
        # The dataset's `question` field, whole: the prompt adds lmms-eval's pre and post prompts around it,
        # and some questions go on after their "?" ("If multiple rooms are shown, ...").
        text = question.meta.get("question")
        return text.strip() if isinstance(text, str) and text.strip() else None

    def objects_overlay(self, release, question):
        """The objects the question names, from the release's meta_info boxes (objects.py); None without them."""
        from .objects import objects_topdown  # here: `score` never imports the drawing primitives
        found = _meta_info(release).scene(question.scene)
        return objects_topdown(found, " ".join(question.texts)) if found is not None else None

    def own_checks(self) -> tuple:
        from .checks import VSI_CHECKS  # the stored answers recomputed from the scenes' meta_info
        return VSI_CHECKS

    def prepare_predictions(self, release, preds):
        return preds.resolve(release) if isinstance(preds, SceneResponses) else preds


# One MetaInfoLibrary per release root, read on first use; a release opened anew reads it anew.
_LIBRARIES: dict[str, tuple[weakref.ref, object]] = {}
_LIBRARIES_LOCK = threading.Lock()       # figures of a gallery ask from worker threads


def _meta_info(release):
    from .objects import MetaInfoLibrary
    root = str(release.root)
    with _LIBRARIES_LOCK:
        hit = _LIBRARIES.get(root)
        if hit is None or hit[0]() is not release:
            hit = _LIBRARIES[root] = (weakref.ref(release), MetaInfoLibrary(root))
        return hit[1]


VSI = VsiBenchmark(
    name="vsi",
    title="VSI-Bench",
    columns=COLUMNS,
    groups={DIRECTION: tuple(f"{DIRECTION}_{d}" for d in ("easy", "medium", "hard"))},
    labels=LABELS,
    prompt_convention="multiple choice: the option's letter first; numbers: the number first (lmms-eval vsibench)",
    variants=(ELEVEN_THRESHOLDS,),
    invalid_truth_scores_zero=True,
    # The generic checks (a ground truth that parses, media that open) and its own (checks.py: the answers
    # recomputed from meta_info); the other built-in ones judge promises VSI-Bench's questions do not make
    # (scene-linked targets, viewpoints, maps), so the audit says they do not apply.
    audit_checks=frozenset({"invalid_answer", "missing_media", "vsi_meta_info", "vsi_count_mismatch",
                            "vsi_size_mismatch", "vsi_room_size_mismatch", "vsi_abs_distance_mismatch",
                            "vsi_rel_distance_mismatch", "vsi_rel_direction_mismatch"}),
    prediction_formats=(SCENE_RESPONSES,),
)
