"""The built-in checks, registered in the order reports list them.

A check is a module here defining its `Check` subclass and object (see
registry.Check); registering it is one line in BUILT_IN (with its import).
A benchmark's own checks live in its package (`Benchmark.own_checks`) and are
registered with these, each where REPORT_ORDER puts it (else after them all).
"""
from ..registry import register
from . import (
    ambiguous_semantic_target,
    angle_convention,
    choice_answer_mismatch,
    choice_options_ambiguous,
    ground_truth,
    invalid_answer,
    local_video_in_prompt,
    missing_media,
    models,
    query_localised_off_answer,
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
    # The settings of Table 2 (core/settings_table.py): the reverse of the global promise.
    target_visible_in_local_view.TARGET_VISIBLE_IN_LOCAL_VIEW,
    local_video_in_prompt.LOCAL_VIDEO_IN_PROMPT,
    # Structure from motion (issue 33): the query views localised in the video against their answers.
    query_localised_off_answer.QUERY_LOCALISED_OFF_ANSWER,
)
# Where each check stands in reports, so that they list the same whatever registers first.
REPORT_ORDER = (
    "missing_media", "invalid_answer", "gt_direction_mismatch", "gt_distance_mismatch", "gt_point_mismatch",
    "target_visible_in_query_view", "target_unseen_in_video", "query_near_trajectory", "ambiguous_semantic_target",
    "models_disagree_with_gt", "choice_answer_mismatch", "choice_options_ambiguous", "gt_angle_convention",
    "model_answer_convention", "answers_inconsistent", "target_visible_in_local_view", "local_video_in_prompt",
    "query_localised_off_answer",
    "vsi_meta_info", "vsi_count_mismatch", "vsi_size_mismatch", "vsi_room_size_mismatch", "vsi_abs_distance_mismatch",
    "vsi_rel_distance_mismatch", "vsi_rel_direction_mismatch",
)


def _in_report_order() -> list:
    from ...benchmarks import BENCHMARKS
    checks = list(BUILT_IN) + [c for b in BENCHMARKS.values() for c in b.own_checks()]
    rank = {check_id: k for k, check_id in enumerate(REPORT_ORDER)}
    return sorted(checks, key=lambda c: rank.get(c.id, len(rank)))


for check in _in_report_order():
    register(check)
