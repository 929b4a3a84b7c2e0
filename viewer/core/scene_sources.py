"""Where a release's scenes come from: scene sources, and the registry of their kinds.

A scene source answers three questions about the scenes it holds, by id:
which ids it has (`available`), the scene's metadata (`load`, problems in
the Scene's diagnostics, None when it has no such id) and where its
geometry is (`mesh`, in a form the render layer loads; the core never
opens a mesh). `SceneLibrary` asks a release's sources in order, the first
that has an id wins, and caches the answer.

The first kind reads `<release>/scenes/<id>/scene.json` (gst-scene/1).
Another kind (an importer) is one module with a class that has these three
methods and takes the release root, plus one line in SOURCE_KINDS.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .scene import SCENE_FILE, SCENES_FOLDER, Scene, scene_file


@dataclass(frozen=True)
class MeshFile:
    """A scene's geometry as one file (GLB/glTF/OBJ/PLY; node names are instance ids)."""
    path: str


class SceneSource(Protocol):
    def available(self) -> list[str]:
        """The scene ids this source has, without loading them."""

    def load(self, scene_id: str) -> Scene | None:
        """The scene's metadata (its problems in its diagnostics), or None when this source lacks it."""

    def mesh(self, scene_id: str) -> MeshFile | None:
        """Where the scene's geometry is; None when it has none (the render layer then draws its boxes)."""


class SceneJsonFolders:
    """The release's `scenes/<id>/scene.json` files."""

    def __init__(self, release_root: str | Path):
        self.root = Path(release_root)
        self._meshes: dict[str, str | None] = {}     # scene id -> mesh path, as its last load read it

    def available(self) -> list[str]:
        folder = self.root / SCENES_FOLDER
        try:
            return sorted(e.name for e in os.scandir(folder)
                          if e.is_dir() and os.path.isfile(os.path.join(e.path, SCENE_FILE)))
        except OSError:
            return []

    def load(self, scene_id: str) -> Scene | None:
        if not scene_id or scene_id in (".", "..") or any(s in scene_id for s in ("/", "\\", "\0")):
            return None          # an id is never a path
        path = scene_file(self.root, scene_id)
        # isfile: False, not an error, for a name too long for the file system; a link out of the release is not read.
        if not os.path.isfile(path) or not _inside(path, self.root):
            return None
        from .scene_reader import read_scene_file
        scene = read_scene_file(path, scene_id)
        self._meshes[scene_id] = scene.mesh
        return scene

    def mesh(self, scene_id: str) -> MeshFile | None:
        # The mesh is named inside scene.json: reread only when this id was not loaded here.
        if scene_id not in self._meshes and self.load(scene_id) is None:
            return None
        path = self._meshes.get(scene_id)
        return MeshFile(path) if path else None


def _inside(path: Path, root: Path) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


# Kinds of scene source by name, each made from the release root. A release's
# scenes are looked up in this order: the first source that has an id wins.
SOURCE_KINDS: dict[str, Callable[[Path], SceneSource]] = {
    "scene.json": SceneJsonFolders,
}


def release_sources(release_root: str | Path) -> list[SceneSource]:
    """One source of each registered kind for this release, in lookup order."""
    return [make(Path(release_root)) for make in SOURCE_KINDS.values()]


def scene_mesh_file(scene: Scene) -> MeshFile | None:
    """Where a scene's geometry is: its source's answer, else the mesh a hand-built Scene names."""
    if scene.source is not None:
        return scene.source.mesh(scene.id)
    return MeshFile(scene.mesh) if scene.mesh else None
