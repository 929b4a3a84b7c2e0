"""Which top-down map a question is shown on: one rule for the window, presentation mode and every export.

A map source is a typed value: the question's own map image (`release`), a
map listed in scene.json (`scene`, by its name) or a rendering of the scene's
mesh (`render`, by abstraction level). `choose_map` lists the sources a
question can be shown on, best first:

  1. the user's choice, when this question has it;
  2. the question's own map image, when the file exists: what the model saw;
  3. for a question whose model saw no map, the scene's photo-like map, the
     most legible to a reader;
  4. the scene map the question links (named in its meta, else the scene's first);
     without scene metadata, the map image of a linked question of the same
     scene (`linked`, by that question's uid: ED and EDist have none of their own);
  5. a photo-like rendering of the mesh;
  6. the other sources, in the order listed.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .release import Question
from .scene.model import QuestionGeometry

# Levels a map can be rendered at from the mesh (or the instance boxes), with their labels.
RENDER_LABELS = {"photo": "rendered: photo", "occupancy": "rendered: occupancy",
                 "floorplan": "rendered: floor plan"}


class MapKind(Enum):
    RELEASE = "release"      # the question's own map image
    SCENE = "scene"          # a map image listed in scene.json
    RENDER = "render"        # rendered from the mesh at a level of RENDER_LABELS
    LINKED = "linked"        # the map image of another question of the scene, by its uid


@dataclass(frozen=True)
class MapSource:
    kind: MapKind
    name: str = ""           # the scene map's name, or the render level; "" for the release map

    @classmethod
    def release(cls) -> MapSource:
        return cls(MapKind.RELEASE)

    @classmethod
    def scene(cls, name: str) -> MapSource:
        return cls(MapKind.SCENE, name)

    @classmethod
    def render(cls, level: str) -> MapSource:
        return cls(MapKind.RENDER, level)

    @classmethod
    def linked(cls, uid: str) -> MapSource:
        return cls(MapKind.LINKED, uid)

    @property
    def key(self) -> str:
        """The text form kept in the settings: "release", "scene:<name>", "render:<level>"."""
        return self.kind.value if self.kind is MapKind.RELEASE else f"{self.kind.value}:{self.name}"

    @classmethod
    def from_key(cls, key: object) -> MapSource | None:
        """The source `key` names, None when it names none (an old or damaged setting)."""
        if not isinstance(key, str):
            return None
        kind, _, name = key.partition(":")
        try:
            source = cls(MapKind(kind), name)
        except ValueError:
            return None
        if (source.kind is MapKind.RELEASE) != (name == ""):
            return None
        if source.kind is MapKind.RENDER and name not in RENDER_LABELS:
            return None
        return source


@dataclass(frozen=True)
class MapOption:
    source: MapSource
    label: str               # as the map's source box shows it


@dataclass(frozen=True)
class MapChoice:
    options: tuple[MapOption, ...]        # in the order the source box lists them
    ranked: tuple[MapSource, ...]         # the same sources, best first

    @property
    def current(self) -> MapSource | None:
        """The map to show, None when the question has none."""
        return self.ranked[0] if self.ranked else None

    @property
    def sources(self) -> tuple[MapSource, ...]:
        return tuple(o.source for o in self.options)


def choose_map(question: Question | None, geometry: QuestionGeometry | None,
               preferred: MapSource | None = None, linked=None) -> MapChoice:
    """The maps `question` can be shown on, given its linked scene objects and the user's choice.

    `linked` is (uid, MediaRef) of another question's map image of the same
    scene (`reconstruct.linked_map`), offered when the scene has no metadata or no map of its own (a
    reconstruction the answers could not align, `view/plan._unaligned`).
    """
    options: list[MapOption] = []
    own = question.role_image("map") if question is not None else None     # None: a scene shown alone
    if own is not None:
        options.append(MapOption(MapSource.release(), "release map image" + ("" if own.exists else " (missing)")))
    scene = geometry.scene if geometry is not None else None
    if own is None and linked is not None:
        uid, ref = linked
        options.append(MapOption(MapSource.linked(uid), "map of linked question" + ("" if ref.exists else
                                                                                    " (missing)")))
    if scene is not None:
        shipped = set()
        for name, tmap in scene.topdown.items():
            if tmap.image:
                options.append(MapOption(MapSource.scene(name), f"scene map: {name}"))
                shipped.add(tmap.kind)
        # Render only the abstraction levels the scene does not ship as images.
        if scene.mesh or any(i.bbox is not None for i in scene.instances.values()):
            options += [MapOption(MapSource.render(level), label) for level, label in RENDER_LABELS.items()
                        if level not in shipped]
    sources = [o.source for o in options]
    wanted = [preferred]
    if own is not None and own.exists:
        wanted.append(MapSource.release())
    if own is None and linked is not None and linked[1].exists:
        wanted.append(MapSource.linked(linked[0]))
    if own is None and scene is not None:
        wanted += [MapSource.scene(name) for name, tmap in scene.topdown.items()
                   if tmap.kind == "photo" and tmap.image][:1]
    if geometry is not None and geometry.topdown is not None:
        wanted.append(MapSource.scene(geometry.topdown.name))
    wanted.append(MapSource.render("photo"))
    ranked = list(dict.fromkeys(s for s in wanted if s in sources))
    ranked += [s for s in sources if s not in ranked]
    return MapChoice(tuple(options), tuple(ranked))
