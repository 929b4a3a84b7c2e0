"""OmniGibson / BEHAVIOR-1K scene files (`<scene>_best.json` and the task variants built on it), numpy only.

The layout is OmniGibson's own reader's, `omnigibson/scenes/scene_base.py`
(MIT, StanfordVL/OmniGibson and StanfordVL/BEHAVIOR-1K):

  objects_info.init_info.<name>.args   category, model, bounding_box (object-aligned extents, m),
                                       in_rooms, fixed_base, scale
  state.registry.object_registry.<name>.root_link   pos, ori (quaternion x, y, z, w)   (newer files)
  state.object_registry.<name>.root_link            the same                          (older files)
  versions                              {package: version string}, absent in older files

The world is z-up, in metres, as the viewer's: no conversion. Each object
becomes an instance with its category as `semantic`, its first room and an
oriented box of `bounding_box` extents, centred on the root link. Newer
BEHAVIOR-1K files give most objects a `scale` and no `bounding_box`; their
box is `scale` times a typical size of the category (`DEFAULT_SIZES`),
marked `size_estimated`, and said once for all of them. The file
does not say where a model's base link sits inside its box; OmniGibson's
models put it at the box centre, and a mesh given with --meshes is placed
exactly.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...diagnostics import Diagnostics, UserError
from ...textio import parse_json_document, read_text
from ..model import Box3, Instance
from .trajectories import QUATERNION_NORMS, vector_norm


@dataclass
class OmniGibsonObject:
    name: str
    category: str
    model: str | None
    pose: np.ndarray                       # (4, 4) object-to-world
    scale: np.ndarray | None               # per-axis scale of the model, when the file gives one
    fixed_base: bool


@dataclass
class OmniGibsonScene:
    file: str
    instances: dict[str, Instance] = field(default_factory=dict)
    objects: dict[str, OmniGibsonObject] = field(default_factory=dict)
    layout: str = ""                        # "state.registry.object_registry" or "state.object_registry"
    estimated: list[str] = field(default_factory=list)   # objects whose box size was estimated
    diagnostics: Diagnostics = field(default_factory=Diagnostics)


def read_omnigibson(path: str | Path) -> OmniGibsonScene:
    """The scene's objects as instances; UserError when the file is not an OmniGibson scene file."""
    path = Path(path)
    d = Diagnostics()
    f = str(path)
    doc = parse_json_document(read_text(path, d), path, d)
    if doc is None:
        raise UserError(f"{path}: cannot import: " + "; ".join(str(x) for x in d.of_level("error")))
    if not isinstance(doc, dict):
        raise UserError(f"{path}: an OmniGibson scene file is a JSON object, got {type(doc).__name__}")
    _check_versions(doc.get("versions"), f)
    init = _table(doc, ("objects_info", "init_info"), f)
    registry, layout = _registry(doc, f)
    scene = OmniGibsonScene(f, layout=".".join(layout), diagnostics=d)
    unsized: list[str] = []
    for name, info in init.items():
        at = f"objects_info.init_info.{name}"
        args = info.get("args") if isinstance(info, dict) else None
        if not isinstance(args, dict):
            d.error(f"{at}.args must be an object; object skipped", f, code="import.bad_object")
            continue
        # OmniGibson's BaseObject takes category="object" when none is given (USDObject, ThreeD_FRONTObject).
        category = args.get("category", "object")
        if not isinstance(category, str) or not category:
            d.error(f"{at}.args.category must be a string; object skipped", f, code="import.bad_object")
            continue
        state = registry.get(name)
        link = state.get("root_link") if isinstance(state, dict) else None
        if not isinstance(link, dict):
            d.error(f"{'.'.join(layout)}.{name}.root_link is missing: object {name!r} has no pose; skipped", f,
                    code="import.object_without_pose")
            continue
        try:
            pose = _pose(link, f"{'.'.join(layout)}.{name}.root_link")
        except ValueError as e:
            d.error(f"{e}; object skipped", f, code="import.bad_pose")
            continue
        room = first_room(args.get("in_rooms"))
        box = None
        if args.get("bounding_box") is not None:
            try:
                size = _vector(args["bounding_box"], 3, f"{at}.args.bounding_box of object {name!r}", MAX_METRES)
                if (size <= 0).any():
                    raise ValueError(f"{at}.args.bounding_box must be positive, got {size.tolist()}")
                q = np.asarray(link["ori"], float)
                box = Box3(pose[:3, 3], size, q / vector_norm(q))
            except ValueError as e:
                d.error(f"{e}; the object is imported without a box", f, code="import.bad_box")
        scale = args.get("scale")
        try:
            scale = None if scale is None else np.broadcast_to(np.asarray(scale, float), (3,)).copy()
            if scale is not None and not (np.isfinite(scale).all() and np.abs(scale).max() <= MAX_METRES):
                raise ValueError
        except (ValueError, TypeError):
            d.warning(f"{at}.args.scale of object {name!r} is not a number or 3 plausible numbers; ignored", f,
                      code="import.bad_scale")
            scale = None
        model = args.get("model") if isinstance(args.get("model"), str) else None
        estimated = False
        if box is None and args.get("bounding_box") is None:
            if category in STRUCTURE:
                unsized.append(name)
            else:
                # Newer BEHAVIOR-1K files give `scale` alone: the model's size times it, and the model is
                # not here, so a typical size of its category stands in. Said, per instance and once.
                q = np.asarray(link["ori"], float)
                box = Box3(pose[:3, 3], (scale if scale is not None else np.ones(3)) * default_size(category),
                           q / vector_norm(q))
                estimated = True
                scene.estimated.append(name)
        scene.instances[name] = Instance(name, category, room, box, size_estimated=estimated)
        scene.objects[name] = OmniGibsonObject(name, category, model, pose, scale, bool(args.get("fixed_base")))
    if scene.estimated:
        d.warning(f"{len(scene.estimated)} objects have no bounding_box (e.g. {scene.estimated[0]!r}): drawn at their "
                  "positions with an estimated size, their scale times a typical size of their category "
                  "(size_estimated in scene.json)", f, code="import.size_estimated")
    if unsized:
        d.warning(f"{len(unsized)} floors, walls or ceilings have no bounding_box (e.g. {unsized[0]!r}) and no size "
                  "can be estimated for them: they are left out of the geometry, and the maps are drawn from "
                  "the other objects", f, code="import.no_box")
    extra = sorted(set(registry) - set(init))
    if extra:
        d.info(f"{len(extra)} entries of {'.'.join(layout)} have no objects_info.init_info (e.g. {extra[0]!r}); "
               "not imported", f, code="import.registry_only")
    if not scene.instances:
        raise UserError(f"{path}: no object could be imported" + _first(d))
    return scene


STRUCTURE = {"floors", "walls", "ceilings"}
# Typical extents (x, y, z in metres, the model's own axes) of common BEHAVIOR-1K categories, for objects
# the file gives a `scale` but no `bounding_box`: a footprint of the right order, not the model's.
DEFAULT_SIZES: dict[str, tuple[float, float, float]] = {
    "armchair": (0.8, 0.8, 0.9), "bed": (2.0, 1.6, 0.6), "bench": (1.5, 0.5, 0.5), "bookcase": (0.9, 0.35, 1.8),
    "bottom_cabinet": (0.6, 0.6, 0.9), "bottom_cabinet_no_top": (0.6, 0.6, 0.85), "breakfast_table": (1.2, 0.8, 0.75),
    "bush": (1.0, 1.0, 1.0), "carpet": (2.0, 1.5, 0.02), "chair": (0.5, 0.5, 0.9), "coffee_table": (1.0, 0.6, 0.45),
    "countertop": (1.5, 0.6, 0.9), "desk": (1.2, 0.6, 0.75), "dishwasher": (0.6, 0.6, 0.85),
    "door": (0.9, 0.05, 2.0), "fence": (2.0, 0.05, 1.0), "floor_lamp": (0.4, 0.4, 1.6), "fridge": (0.8, 0.7, 1.8),
    "garden_chair": (0.6, 0.6, 0.9), "lawn": (4.0, 4.0, 0.02), "oven": (0.6, 0.6, 0.9),
    "pedestal_table": (0.8, 0.8, 0.75), "picture": (0.6, 0.03, 0.5), "pot_plant": (0.4, 0.4, 0.8),
    "rail_fence": (2.0, 0.1, 1.0), "shelf": (0.9, 0.35, 1.8), "shower": (0.9, 0.9, 2.0), "sink": (0.6, 0.5, 0.9),
    "sofa": (2.0, 0.9, 0.85), "straight_chair": (0.5, 0.5, 0.9), "swivel_chair": (0.6, 0.6, 1.0),
    "table_lamp": (0.3, 0.3, 0.5), "toilet": (0.4, 0.7, 0.8), "top_cabinet": (0.6, 0.35, 0.7),
    "trash_can": (0.35, 0.35, 0.6), "tree": (2.0, 2.0, 5.0), "window": (1.0, 0.05, 1.2),
}
DEFAULT_SIZE = (0.5, 0.5, 0.5)            # any other category


def default_size(category: str) -> np.ndarray:
    return np.array(DEFAULT_SIZES.get(category, DEFAULT_SIZE), float)


def first_room(rooms: Any) -> str | None:
    """The first room of `in_rooms`: a list (newer files) or one string, possibly comma-separated
    ("kitchen_0,living_room_0", older files); None when there is none."""
    first = rooms[0] if isinstance(rooms, list) and rooms else rooms
    if not isinstance(first, str):
        return None
    first = first.split(",")[0].strip()
    return first or None


def _first(d: Diagnostics) -> str:
    errors = d.of_level("error")
    return f" (first problem: {errors[0].message})" if errors else ""


def _check_versions(versions: Any, f: str) -> None:
    """Absent (older files) or {package: version}; anything else is a layout this reader does not know."""
    if versions is None:
        return
    if not isinstance(versions, dict) or not all(isinstance(k, str) and isinstance(v, (str, int, float))
                                                 for k, v in versions.items()):
        raise UserError(f"{f}: 'versions' has an unknown layout ({str(versions)[:60]}); expected "
                        "{package: version}, as OmniGibson writes it")


def _table(doc: dict, keys: tuple[str, ...], f: str) -> dict:
    node: Any = doc
    for k, key in enumerate(keys):
        if not isinstance(node, dict) or key not in node:
            raise UserError(f"{f}: no '{'.'.join(keys[:k + 1])}': not an OmniGibson scene file")
        node = node[key]
    if not isinstance(node, dict):
        raise UserError(f"{f}: '{'.'.join(keys)}' must be an object keyed by object name")
    return node


def _registry(doc: dict, f: str) -> tuple[dict, tuple[str, ...]]:
    """The object registry, where OmniGibson's reader looks: the newer place first, then the older."""
    state = doc.get("state")
    if isinstance(state, dict) and isinstance(state.get("registry"), dict):
        return _table(doc, ("state", "registry", "object_registry"), f), ("state", "registry", "object_registry")
    return _table(doc, ("state", "object_registry"), f), ("state", "object_registry")


# Positions and sizes beyond 100 km are no building's: a value of 1e300 is a broken file, and drawing it
# would leave the rest of the scene a dot on the map (or overflow the map's fit).
MAX_METRES = 1e5


def _vector(v: Any, n: int, what: str, limit: float | None = None) -> np.ndarray:
    if not isinstance(v, (list, tuple)) or len(v) != n:
        raise ValueError(f"{what} must be a list of {n} numbers, got {str(v)[:60]}")
    try:
        out = np.array(v, float)
    except (ValueError, TypeError):
        raise ValueError(f"{what} must be a list of {n} numbers, got {str(v)[:60]}") from None
    if not np.isfinite(out).all():
        raise ValueError(f"{what} has NaN or infinite values")
    if limit is not None and np.abs(out).max() > limit:
        raise ValueError(f"{what} is {out.tolist()}: beyond {limit:.0e} m, not a size or place in a scene")
    return out


def _pose(link: dict, what: str) -> np.ndarray:
    from ...geometry import quaternion_to_matrix
    pos = _vector(link.get("pos"), 3, f"{what}.pos", MAX_METRES)
    q = _vector(link.get("ori"), 4, f"{what}.ori")
    n = vector_norm(q)
    if not QUATERNION_NORMS[0] <= n <= QUATERNION_NORMS[1]:
        raise ValueError(f"{what}.ori is a zero-norm quaternion" if n == 0 else
                         f"{what}.ori is a degenerate quaternion (norm {n:.3g})")
    pose = np.eye(4)
    pose[:3, :3] = quaternion_to_matrix(q)
    pose[:3, 3] = pos
    return pose
