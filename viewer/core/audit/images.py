"""What the choice checks ask of an image reader, as an interface.

The core reads no image files and renders nothing (no cv2, no open3d):
`viewer.render.audit_images.SceneImages` implements this, and whoever runs
the audit (the CLI, the window, the benchmark) passes the class to
`run_audit(images=...)`. The factory travels with each scene's job (so it
must pickle: a class or a module-level function) and is called there, once
per scene, by the first check that needs IMAGES (SceneAuditor.images()).
Without it the choice checks skip every question with the reason, never
pass it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from ..scene.model import Scene


class ImageSource(Protocol):
    def read(self, path: str) -> np.ndarray:
        """The image file as (H, W, 3) uint8 RGB.

        Raises OSError or ValueError, saying why, when it cannot be read as an image.
        """

    def topdown(self, scene: Scene, level: str, width: int) -> np.ndarray:
        """The scene seen from above at `level` ("photo", "occupancy", "floorplan"), rendered from its
        geometry about `width` pixels across, as (H, W, 3) uint8 RGB.

        Raises UserError when the scene has nothing to render.
        """

    def red_box_frames(self, path: str) -> tuple[int, ...]:
        """The frames of the video file where the drawn red target box is (render/redbox.py).

        Raises OSError or ValueError, saying why, when the video cannot be read.
        """


class ImageSourceFactory(Protocol):
    def __call__(self) -> ImageSource:
        """A reader for one audit (it may keep what it rendered)."""
