"""The built-in checks, registered in the order reports list them.

A check is a module here defining its `Check` subclass and object (see
registry.Check); registering it is one line in BUILT_IN (with its import).
"""
from ..registry import register
from . import (
    ambiguous_semantic_target,
    angle_convention,
    answers_inconsistent,
    choice_answer_mismatch,
    choice_options_ambiguous,
    ground_truth,
    invalid_answer,
    local_video_in_prompt,
    missing_media,
    models,
    query_near_trajectory,
    ray_cast,
    target_visible_in_local_view,
)

BUILT_IN = (
    missing_media.MISSING_MEDIA,
    invalid_answer.INVALID_ANSWER,
    ground_truth.DIRECTION_MISMATCH,
    ground_truth.DISTANCE_MISMATCH,
    ground_truth.POINT_MISMATCH,
    ray_cast.TARGET_VISIBLE_IN_QUERY_VIEW,
    ray_cast.TARGET_UNSEEN_IN_VIDEO,
    query_near_trajectory.QUERY_NEAR_TRAJECTORY,
    ambiguous_semantic_target.AMBIGUOUS_SEMANTIC_TARGET,
    models.MODELS_DISAGREE_WITH_GT,
    choice_answer_mismatch.CHOICE_ANSWER_MISMATCH,
    choice_options_ambiguous.CHOICE_OPTIONS_AMBIGUOUS,
    # Added by this project (spec: "more may be added").
    angle_convention.GT_ANGLE_CONVENTION,
    models.MODEL_ANSWER_CONVENTION,
    answers_inconsistent.ANSWERS_INCONSISTENT,
    # The settings of Table 2 (core/settings_table.py): the reverse of the global promise.
    target_visible_in_local_view.TARGET_VISIBLE_IN_LOCAL_VIEW,
    local_video_in_prompt.LOCAL_VIDEO_IN_PROMPT,
)
for check in BUILT_IN:
    register(check)
