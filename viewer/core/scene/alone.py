"""One scene folder opened on its own (`gst-viewer --scene DIR`): a session with no questions.

The window works on a Session; a scene alone is a Session whose release has
no questions and whose scene library holds that one folder (its own scene
source). With no question to link, the scene's geometry is its first
video's trajectory and its first map: `scene_geometry`.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..benchmarks.registry import DEFAULT
from ..diagnostics import Diagnostics, UserError
from ..release import Release
from ..session import Session
from .model import SCENE_FILE, QuestionGeometry, Scene
from .sources import MeshFile

# The release layout of a scene opened alone: the window shows no question panels for it and opens no
# flags or views database (a scene folder is read, never written).
SCENE_ALONE = "scene"
# How an imported scene's up axis was decided, as the window says it (scene.json `import.up.source`).
UP_SOURCES = {"format": "from its format", "cameras": "from the cameras", "path": "from the camera path",
              "geometry": "from the floors", "default": "by default", "given": "given with --up"}


class SceneFolder:
    """A scene source holding one scene folder, by the folder's name."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder).expanduser().absolute()
        self.id = self.folder.name
        self._mesh: str | None = None

    def available(self) -> list[str]:
        return [self.id] if (self.folder / SCENE_FILE).is_file() else []

    def load(self, scene_id: str) -> Scene | None:
        if scene_id != self.id or not (self.folder / SCENE_FILE).is_file():
            return None
        from .reader import read_scene_file
        scene = read_scene_file(self.folder / SCENE_FILE, self.id)
        self._mesh = scene.mesh
        return scene

    def mesh(self, scene_id: str) -> MeshFile | None:
        if self._mesh is None and self.load(scene_id) is None:
            return None
        return MeshFile(self._mesh) if self._mesh else None


def scene_session(folder: str | Path) -> Session:
    """A session with no questions whose scene library is the scene in `folder`."""
    source = SceneFolder(folder)
    if not source.available():
        raise UserError(f"{source.folder}: no {SCENE_FILE} in this folder")
    root = source.folder
    n = 0
    # No question says whose scene it is: the benchmark any unrecognised release is read as.
    release = Release(root, [], Diagnostics(), SCENE_ALONE, {}, [], [],
                      np.zeros(n, np.int16), np.zeros((n, 2)), np.zeros(n, np.int16), [], DEFAULT)
    return Session(release, scene_sources=[source])


def scene_geometry(scene: Scene | None) -> QuestionGeometry:
    """What the views draw of a scene shown without a question: its first trajectory. No map is linked,
    so the maps offered start with the photo-like rendering, then the scene's own maps."""
    if scene is None:
        return QuestionGeometry(None, None, None, None, None, ["the scene cannot be read"])
    video = next(iter(scene.videos.values()), None)
    problems = [str(d) for d in scene.diagnostics.of_level("error")]
    return QuestionGeometry(scene, video, None, None, None, problems)


def is_scene_alone(session: Session | None) -> bool:
    """Whether `session` is one scene folder opened on its own (`scene_session`)."""
    return session is not None and session.release.layout == SCENE_ALONE


def scene_info(scene: Scene) -> str:
    """One line about a scene opened alone: what it holds and which way is up (and how that was decided)."""
    parts = [f"scene {scene.id}, opened alone (no questions)"]
    guessed = sum(i.size_estimated for i in scene.instances.values())
    held = [f"{len(scene.instances)} objects" + (f" ({guessed} of them size estimated)" if guessed else "")
            if scene.instances else "",
            "a mesh" if scene.mesh else "",
            *(f"{len(v.poses):,} camera poses" for v in list(scene.videos.values())[:1]),
            f"maps: {', '.join(scene.topdown)}" if scene.topdown else "no maps"]
    parts.append(", ".join(h for h in held if h))
    up = scene.imported_up
    if up is None:
        parts.append("up z (gst-scene/1 is z-up; no import record)")
    else:
        how = UP_SOURCES.get(up.source, up.source)
        parts.append(f"up {up.axis} {how}" + (f": {up.why}" if up.source != "given" else ""))
    return " · ".join(parts)
