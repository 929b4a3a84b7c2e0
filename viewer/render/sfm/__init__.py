"""Structure from motion from one walkthrough video, and the query views localised against it (pycolmap).

    result = reconstruct_video("video1.mp4", queries={"image_01.png": "/abs/image_01.png"},
                               settings=SfmSettings(step=2), progress=print_stage, cancel=event.is_set)

The result is a `core/scene/sfm_result.SfmResult` (poses per video frame in
the model's own frame, the shared camera, the sparse points, the localised
query views, stats). `cached_reconstruction` keeps it per video in the user's
cache folder. pycolmap is the `sfm` extra, imported only when a run starts
(`import_pycolmap`). docs/reconstruct.md says how it works and what it measured.
"""
from .pipeline import (
    VERSION,
    Cancelled,
    SfmError,
    SfmSettings,
    cached_reconstruction,
    import_pycolmap,
    reconstruct_video,
)

__all__ = ["VERSION", "Cancelled", "SfmError", "SfmSettings", "cached_reconstruction", "import_pycolmap",
           "reconstruct_video"]
