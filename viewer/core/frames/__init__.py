"""What a model saw of a question's video: frame sampling policies (`sampling.py`: the harnesses' formulas)
and, per question and model, the sampled frames, the target's frames and k (`seen.py`). docs/frames.md."""
from .seen import (
    METADATA,
    NO_TARGET,
    RAY_CAST,
    RED_BOX,
    TARGET_NEVER_SAMPLED,
    TARGET_SAMPLED,
    TARGET_UNKNOWN,
    UNKNOWN,
    FramePolicies,
    ModelFrames,
    QuestionFrames,
    TargetSeen,
    VideoFacts,
    has_target,
    is_visual,
    question_frames,
    record_frames,
    split_scores,
    target_seen,
)

__all__ = ["METADATA", "NO_TARGET", "RAY_CAST", "RED_BOX", "TARGET_NEVER_SAMPLED", "TARGET_SAMPLED",
           "TARGET_UNKNOWN", "UNKNOWN", "FramePolicies", "ModelFrames", "QuestionFrames", "TargetSeen", "VideoFacts",
           "has_target", "is_visual", "question_frames", "record_frames", "split_scores", "target_seen"]
