"""Reading option images and rendering reference maps, for the audit's choice checks.

`SceneImages` implements viewer.core.audit.images.ImageSource (the class
itself is the factory): pass it to `run_audit(images=SceneImages)`. Files
are read with Pillow (`image_io.read_rgb`); references are rendered by `topdown.render_topdown`
through SceneAssets, which keeps each scene's mesh and maps for the audit.
"""
from __future__ import annotations

import os

import numpy as np

from ..core.scene.model import Scene
from .image_io import PIXEL_BUDGET_WORDS, read_rgb
from .scene_assets import SceneAssets


class SceneImages:
    def __init__(self, assets: SceneAssets | None = None):
        self.assets = assets or SceneAssets()

    def read(self, path: str) -> np.ndarray:
        if not os.path.isfile(path):
            raise OSError(f"{os.path.basename(path)}: no such file")
        try:
            return read_rgb(path)
        except OSError as e:
            # Skip reasons are tallied by their text, so only the pixel budget's refusal says more.
            detail = str(e).partition(": ")[2]
            if PIXEL_BUDGET_WORDS in detail:
                raise ValueError(f"{os.path.basename(path)} {detail.split(' (')[0]}") from None
            raise ValueError(f"{os.path.basename(path)} is not a readable image") from None

    def red_box_frames(self, path: str) -> tuple[int, ...]:
        """The frames of a video with the drawn red box (render/redbox.py, cached per file)."""
        from .redbox import scan_video
        from .video import VideoError
        try:
            return scan_video(path).frames()
        except VideoError as e:
            raise ValueError(str(e)) from None

    def topdown(self, scene: Scene, level: str, width: int) -> np.ndarray:
        """The scene's map at `level` through its own affine for that level (another level's, else one
        fitted to the mesh), scaled to `width` pixels across."""
        declared = scene.topdown.get(level)
        if declared is None or declared.world_to_pixel is None or not declared.width or not declared.height:
            declared = next((m for m in scene.topdown.values()
                             if m.world_to_pixel is not None and m.width and m.height), None)
        if declared is None:
            size = (width, int(round(width * 0.8)))
            return self.assets.topdown(scene, level, None, size).image
        scale = width / declared.width
        size = (width, max(1, int(round(declared.height * scale))))
        return self.assets.topdown(scene, level, declared.world_to_pixel * scale, size).image
