"""What the audit's visibility checks ask of a ray caster, as an interface.

The core never imports open3d: `viewer.render.visibility.SceneVisibility`
implements this, and whoever runs the audit (the CLI, the window, the
benchmark) passes it to `run_audit(visibility=...)`. Scene checks run in
worker processes, so the audit is given a factory that travels by pickle
(a class or a module-level function) and calls it there, once per scene.
Without one, the visibility checks are skipped with the reason, never passed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping, Protocol

if TYPE_CHECKING:
    import numpy as np

    from ..scene.model import Intrinsics, Scene


class InstanceInView(Protocol):
    """How much of one camera image an instance covers."""
    pixels: int                 # sampled pixels showing it, scaled to full resolution
    fraction: float             # of the image
    bbox: list[int] | None      # [x0, y0, x1, y1] in full-resolution pixels
    sampled: int                # rays cast
    stride: int                 # pixels between samples


class Visibility(Protocol):
    """Which instances the cameras of one scene see."""
    geometry: str               # what is cast against: "mesh", "mesh+boxes" or "boxes"
    boxed: set[str]             # instances cast as their bbox3 (their visibility is overestimated)
    note: str | None            # why a fallback was taken, for the log
    rays_cast: int
    rays_covered: int           # what casting every sample would have cast (rays_cast saves on it)

    def index(self, instance_id: str) -> int | None:
        """The instance's column in `over_frames`; None when it is not in the cast geometry."""

    def in_view(self, pose: np.ndarray, intrinsics: Intrinsics,
                instance_ids: Iterable[str]) -> Mapping[str, InstanceInView]:
        """What one camera (OpenCV camera-to-world) sees of each instance in the geometry."""

    def over_frames(self, poses: np.ndarray, intrinsics: Intrinsics) -> tuple[np.ndarray, int]:
        """(F, I) sampled pixels per pose and instance index, and the samples per frame.

        Poses with NaN (invalid frames) count nothing.
        """

    def target_over_frames(self, poses: np.ndarray, intrinsics: Intrinsics, instance_id: str,
                           min_fraction: float) -> tuple[np.ndarray, int]:
        """(F,) sampled pixels showing one instance per pose, and the samples per frame.

        Exact for every frame unless some frame shows at least `min_fraction`
        of its samples: the cast may then stop there, frames not cast counting 0.
        """


class VisibilityFactory(Protocol):
    def __call__(self, scene: Scene, targets: Iterable[str]) -> Visibility:
        """The scene's ray caster; `targets` must be castable (as boxes if need be).

        Raises UserError when the scene has nothing to cast against.
        """
