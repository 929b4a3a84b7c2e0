"""Where a release's scenes come from: scene sources, and the registry of their kinds.

A scene source answers three questions about the scenes it holds, by id:
which ids it has (`available`), the scene's metadata (`load`, problems in
the Scene's diagnostics, None when it has no such id) and where its
geometry is (`mesh`, in a form the render layer loads; the core never
opens a mesh). `SceneLibrary` asks a release's sources in order, the first
that has an id wins, and caches the answer.

The first kind reads `<release>/scenes/index.json`, which maps the
release's scene ids to imported scene folders (`{"scene4": "Rs_int"}`); the
second reads `<release>/scenes/<id>/scene.json` (gst-scene/1); the last serves
a cached structure-from-motion result of a scene's video, aligned to the map
by the release's answers (sfm_scene.py), for a release without scene files. Another
kind (an importer) is one module with a class that has these three methods
and takes the release root, plus one line in SOURCE_KINDS.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..diagnostics import Diagnostics, UserError
from ..media import within
from .model import SCENE_FILE, SCENES_FOLDER, Scene, scene_file
from .sfm_scene import SfmCacheSource


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


class _ReadsSceneFiles:
    """What the scene.json-based sources share: a read scene remembers its mesh, so `mesh()`
    answers without reading the file again."""

    def __init__(self) -> None:
        self._meshes: dict[str, str | None] = {}     # scene id -> mesh path, as its last load read it

    def load(self, scene_id: str) -> Scene | None:
        raise NotImplementedError

    def _read_scene(self, path: Path, folder_id: str, scene_id: str) -> Scene:
        from .reader import read_scene_file
        scene = read_scene_file(path, folder_id)
        scene.id = scene_id
        self._meshes[scene_id] = scene.mesh
        return scene

    def mesh(self, scene_id: str) -> MeshFile | None:
        # The mesh is named inside scene.json: reread only when this id was not loaded here.
        if scene_id not in self._meshes and self.load(scene_id) is None:
            return None
        path = self._meshes.get(scene_id)
        return MeshFile(path) if path else None


class SceneJsonFolders(_ReadsSceneFiles):
    """The release's `scenes/<id>/scene.json` files."""

    def __init__(self, release_root: str | Path):
        super().__init__()
        self.root = Path(release_root)

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
        if not os.path.isfile(path) or not within(os.path.realpath(path), os.path.realpath(self.root)):
            return None
        return self._read_scene(path, scene_id, scene_id)


SCENE_INDEX = "index.json"


class SceneIndex(_ReadsSceneFiles):
    """`<release>/scenes/index.json`: scene id -> a scene folder (relative to scenes/, inside the release),
    e.g. `{"scene4": "Rs_int"}` for a scene imported with `gst-viewer import-scene`.

    A problem with the index (malformed, an entry naming no scene folder) is
    reported in the diagnostics of every scene it gives; an id whose entry is
    unusable gives an empty scene carrying the reason, rather than silently
    falling back to another source.
    """

    def __init__(self, release_root: str | Path):
        super().__init__()
        self.root = Path(release_root)
        self.file = self.root / SCENES_FOLDER / SCENE_INDEX
        self._entries: dict[str, Path] | None = None
        self._bad: dict[str, object] = {}           # scene id -> the Diagnostic that refused its entry
        self.diagnostics = Diagnostics()

    def entries(self) -> dict[str, Path]:
        """Scene id -> the folder holding its scene.json, read once."""
        if self._entries is None:
            self._entries = self._read() if self.file.is_file() else {}
        return self._entries

    def _read(self) -> dict[str, Path]:
        from ..textio import parse_json_document, read_text
        d = self.diagnostics
        try:
            doc = parse_json_document(read_text(self.file, d), self.file, d)
        except UserError as e:
            d.error(str(e), self.file, code="scene_index.unreadable")
            return {}
        if not isinstance(doc, dict):
            if doc is not None:
                d.error(f"must be an object mapping scene ids to folders, got {type(doc).__name__}", self.file,
                        code="scene_index.not_object")
            return {}
        scenes = (self.root / SCENES_FOLDER).resolve()
        out: dict[str, Path] = {}

        def refuse(sid: str, why: str, code: str) -> None:
            d.error(f"{sid}: {why}; ignored", self.file, code=code)
            self._bad[sid] = d.items[-1]
        for sid, folder in doc.items():
            if not isinstance(folder, str) or not folder.strip() or os.path.isabs(folder):
                refuse(sid, f"expected a folder relative to scenes/, got {folder!r}", "scene_index.bad_entry")
                continue
            path = (scenes / folder).resolve()
            if not within(str(path), str(self.root.resolve())):
                refuse(sid, f"{folder!r} is outside the release", "scene_index.outside_release")
            elif not (path / SCENE_FILE).is_file():
                refuse(sid, f"{folder!r} has no {SCENE_FILE}", "scene_index.no_scene")
            else:
                out[sid] = path
        return out

    def available(self) -> list[str]:
        return sorted(self.entries())

    def load(self, scene_id: str) -> Scene | None:
        folder = self.entries().get(scene_id)
        if folder is None:
            bad = self._bad.get(scene_id)
            if bad is None:
                return None
            empty = Scene(scene_id, str(self.file.parent))
            empty.diagnostics.items.append(bad)
            return empty
        # Read under the folder's own id (scene.json names it), then known by the release's id.
        scene = self._read_scene(folder / SCENE_FILE, folder.name, scene_id)
        scene.diagnostics.items[:0] = self.diagnostics.items
        return scene


# Kinds of scene source by name, each made from the release root. A release's
# scenes are looked up in this order: the first source that has an id wins.
SOURCE_KINDS: dict[str, Callable[[Path], SceneSource]] = {
    "scenes/index.json": SceneIndex,
    "scene.json": SceneJsonFolders,
    # Last: a cached structure-from-motion result of a scene's video, aligned by the answers (sfm_scene.py).
    "sfm cache": SfmCacheSource,
}


def release_sources(release_root: str | Path) -> list[SceneSource]:
    """One source of each registered kind for this release, in lookup order."""
    return [make(Path(release_root)) for make in SOURCE_KINDS.values()]


def scene_mesh_file(scene: Scene) -> MeshFile | None:
    """Where a scene's geometry is: its source's answer, else the mesh a hand-built Scene names."""
    if scene.source is not None:
        return scene.source.mesh(scene.id)
    return MeshFile(scene.mesh) if scene.mesh else None


class SceneLibrary:
    """Scenes of one release from its scene sources, loaded on first use and cached
    (also the absent ones). The first source that has an id wins; by default the
    release's sources are those of `SOURCE_KINDS`, in that order."""

    def __init__(self, release_root: str | Path, sources: Sequence[SceneSource] | None = None):
        self.root = Path(release_root)
        if sources is None:
            sources = release_sources(self.root)
        self.sources = list(sources)
        self._cache: dict[str, Scene | None] = {}
        self._lock = threading.Lock()

    def get(self, scene_id: str) -> Scene | None:
        with self._lock:
            if scene_id not in self._cache:
                self._cache[scene_id] = self.load(scene_id)
            return self._cache[scene_id]

    def forget(self, scene_id: str) -> None:
        """`scene_id` changed on disk (its video was reconstructed): read again on next use. A source that keeps
        more than the scene (the sfm cache's index of the release's walks) has a `forget` of its own."""
        with self._lock:
            self._cache.pop(scene_id, None)
        for source in self.sources:
            forget = getattr(source, "forget", None)
            if forget is not None:
                forget(scene_id)

    def load(self, scene_id: str) -> Scene | None:
        """The scene from the first source that has it, uncached."""
        for source in self.sources:
            scene = source.load(scene_id)
            if scene is not None:
                scene.source = source
                return scene
        return None

    def available(self) -> list[str]:
        """Scene ids some source has, without loading them."""
        return sorted({sid for source in self.sources for sid in source.available()})
