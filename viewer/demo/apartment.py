"""A procedurally generated multi-room apartment.

The footprint is a 2 x 2 or 3 x 2 grid of rooms (two cells sometimes merged
into one large room), separated by walls with door openings along a random
spanning tree of the room adjacency (the bathroom is always a leaf, and a
second loop door is sometimes added). Each room gets its own floor and
furniture typical of its kind, placed against walls or free-standing, away
from doors, and only if the room stays walkable between its doors.

Instance ids follow BEHAVIOR-1K: `<category>_<6 lowercase letters>_<n>`, one
6-letter model id per category and scene; the GLB node of each instance is
named by its id.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import furniture as F
from .freespace import rect_polygon

WALL_T = 0.10          # wall thickness (m)
WALL_H = 2.70          # wall height (m)
DOOR_W = 0.95          # door opening (m)
BODY_R = 0.25          # radius of the walking camera's body (m)
DOOR_KEEPOUT = 0.95    # no furniture this deep in front of a door (m)

FLOOR_COLORS = {"living_room": (170, 126, 84), "bedroom": (190, 154, 112),
                "kitchen": (206, 204, 198), "bathroom": (168, 196, 212),
                "office": (132, 136, 150), "dining_room": (158, 110, 72)}
WALL_COLOR = (228, 224, 214)
CEILING_COLOR = (242, 242, 238)

# Per room kind: furniture groups in placement order (see _place_group).
RECIPES = {
    "living_room": ["sofa_set", "tv_set", "armchair", "bookshelf", "floor_lamp", "potted_plant"],
    "kitchen": ["fridge", "bottom_cabinet", "dining_set", "potted_plant"],
    "bedroom": ["bed_set", "wardrobe", "potted_plant", "floor_lamp"],
    "bathroom": ["bathtub", "toilet", "sink"],
    "office": ["desk_set", "bookshelf", "armchair", "potted_plant"],
    "dining_room": ["dining_set", "bottom_cabinet", "potted_plant", "floor_lamp"],
}


@dataclass
class Room:
    name: str                                  # "living_room_0"
    kind: str                                  # "living_room"
    rect: tuple[float, float, float, float]    # x0, y0, x1, y1 (wall centre lines)

    @property
    def center(self) -> np.ndarray:
        x0, y0, x1, y1 = self.rect
        return np.array([(x0 + x1) / 2, (y0 + y1) / 2])

    @property
    def area(self) -> float:
        x0, y0, x1, y1 = self.rect
        return (x1 - x0) * (y1 - y0)

    def contains(self, xy: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = self.rect
        xy = np.atleast_2d(xy)
        return (xy[:, 0] > x0) & (xy[:, 0] < x1) & (xy[:, 1] > y0) & (xy[:, 1] < y1)


@dataclass
class Door:
    rooms: tuple[int, int]
    center: np.ndarray          # world xy of the opening's centre
    vertical: bool              # in a wall along y (x = const)


@dataclass
class Instance:
    id: str
    category: str
    room: str
    mesh: Any                   # trimesh.Trimesh in world coordinates
    translation: np.ndarray     # bbox3 centre (world)
    size: np.ndarray            # bbox3 extents in its own frame
    yaw: float                  # bbox3 rotation about z (radians)
    footprints: list[np.ndarray] = field(default_factory=list)   # obstacle polygons (K, 4, 2)

    @property
    def structural(self) -> bool:
        return self.category in ("walls", "floors", "ceilings")

    def bbox3(self) -> dict:
        return {"translation": [round(float(v), 4) for v in self.translation],
                "size": [round(float(v), 4) for v in self.size],
                "rotation": [0.0, 0.0, round(float(np.sin(self.yaw / 2)), 6),
                             round(float(np.cos(self.yaw / 2)), 6)]}


@dataclass
class Apartment:
    name: str
    rooms: list[Room]
    doors: list[Door]
    instances: list[Instance]
    bounds: tuple[float, float, float, float]

    def instance(self, iid: str) -> Instance:
        return next(i for i in self.instances if i.id == iid)

    def objects(self) -> list[Instance]:
        return [i for i in self.instances if not i.structural]

    def obstacle_polygons(self) -> np.ndarray:
        polys = [p for i in self.instances for p in i.footprints]
        return np.array(polys, float).reshape(-1, 4, 2)

    def room_of(self, xy) -> Room | None:
        for r in self.rooms:
            if r.contains(xy)[0]:
                return r
        return None

    def scene(self):
        """A trimesh.Scene with one node per instance, named by its id."""
        import trimesh
        s = trimesh.Scene()
        for inst in self.instances:
            s.add_geometry(inst.mesh, node_name=inst.id, geom_name=inst.id)
        return s

    def export_glb(self, path: Path) -> None:
        Path(path).write_bytes(self.scene().export(file_type="glb"))


# ------------------------------------------------------------------ layout
def make_apartment(rng: np.random.Generator, name: str) -> Apartment:
    rooms = _rooms(rng)
    doors = _doors(rooms, rng)
    ids = IdMaker(rng)
    instances = [_walls(rooms, doors, ids)]
    instances += [_floor(room, ids) for room in rooms]
    instances += [_ceiling(room, ids) for room in rooms]
    from .placement import furnish_room  # placement builds on the classes above
    for k, room in enumerate(rooms):
        instances += furnish_room(room, [d for d in doors if k in d.rooms], ids, rng)
    x1 = max(r.rect[2] for r in rooms)
    y1 = max(r.rect[3] for r in rooms)
    return Apartment(name, rooms, doors, instances, (0.0, 0.0, x1, y1))


def _rooms(rng: np.random.Generator) -> list[Room]:
    nx = int(rng.choice([2, 3]))
    widths = rng.uniform(3.3, 4.6, nx)
    depths = rng.uniform(3.3, 4.4, 2)
    xs = np.concatenate([[0], np.cumsum(widths)]).round(2)
    ys = np.concatenate([[0], np.cumsum(depths)]).round(2)
    rects = [(xs[i], ys[j], xs[i + 1], ys[j + 1]) for j in range(2) for i in range(nx)]
    if nx == 3 and rng.random() < 0.6:              # one wide room spanning two cells
        j, i = int(rng.integers(2)), int(rng.integers(2))
        a, b = rects[j * 3 + i], rects[j * 3 + i + 1]
        rects = [r for r in rects if r not in (a, b)] + [(a[0], a[1], b[2], b[3])]
    areas = np.array([(r[2] - r[0]) * (r[3] - r[1]) for r in rects])
    order = np.argsort(-areas, kind="stable")
    middle = {4: ["kitchen", "bedroom"], 5: ["kitchen", "bedroom", "office"],
              6: ["kitchen", "bedroom", "bedroom", "office"]}[len(rects)]
    middle = [middle[k] for k in rng.permutation(len(middle))]
    kinds = ["living_room"] + middle + ["bathroom"]
    counts: dict[str, int] = {}
    rooms = []
    for kind, k in zip(kinds, order):
        n = counts.get(kind, 0)
        counts[kind] = n + 1
        rooms.append(Room(f"{kind}_{n}", kind, tuple(float(v) for v in rects[k])))
    return rooms


def _shared_edge(a: Room, b: Room):
    """(vertical, line coordinate, lo, hi) of the wall two rooms share, or None."""
    ax0, ay0, ax1, ay1 = a.rect
    bx0, by0, bx1, by1 = b.rect
    for vertical, line_ok, c, lo, hi in (
            (True, np.isclose(ax1, bx0) or np.isclose(bx1, ax0), ax1 if np.isclose(ax1, bx0) else ax0,
             max(ay0, by0), min(ay1, by1)),
            (False, np.isclose(ay1, by0) or np.isclose(by1, ay0), ay1 if np.isclose(ay1, by0) else ay0,
             max(ax0, bx0), min(ax1, bx1))):
        if line_ok and hi - lo >= DOOR_W + 0.9:
            return vertical, c, lo, hi
    return None


def _doors(rooms: list[Room], rng: np.random.Generator) -> list[Door]:
    n = len(rooms)
    edges = {(i, j): e for i in range(n) for j in range(i + 1, n) if (e := _shared_edge(rooms[i], rooms[j]))}
    bath = next(i for i, r in enumerate(rooms) if r.kind == "bathroom")
    # Random spanning tree over the other rooms, grown from the living room.
    inside, tree = {0}, []
    others = set(range(n)) - {bath}
    while inside != others:
        frontier = [e for e in edges if (e[0] in inside) != (e[1] in inside) and bath not in e]
        if not frontier:                         # only reachable through the bathroom
            frontier = [e for e in edges if (e[0] in inside) != (e[1] in inside)]
        e = frontier[int(rng.integers(len(frontier)))]
        tree.append(e)
        inside |= set(e)
    if bath not in inside:
        to_bath = [e for e in edges if bath in e]
        tree.append(to_bath[int(rng.integers(len(to_bath)))])
    loops = [e for e in edges if e not in tree and bath not in e]
    if loops and rng.random() < 0.5:
        tree.append(loops[int(rng.integers(len(loops)))])
    doors = []
    for i, j in tree:
        vertical, c, lo, hi = edges[(i, j)]
        t = float(rng.uniform(lo + 0.4 + DOOR_W / 2, hi - 0.4 - DOOR_W / 2))
        doors.append(Door((i, j), np.array([c, t] if vertical else [t, c]), vertical))
    return doors


def _walls(rooms: list[Room], doors: list[Door], ids: IdMaker) -> Instance:
    lines: dict[tuple[bool, float], list[tuple[float, float]]] = {}
    for r in rooms:
        x0, y0, x1, y1 = r.rect
        for vertical, c, lo, hi in ((True, x0, y0, y1), (True, x1, y0, y1),
                                    (False, y0, x0, x1), (False, y1, x0, x1)):
            lines.setdefault((vertical, round(c, 4)), []).append((lo, hi))
    gaps: dict[tuple[bool, float], list[tuple[float, float]]] = {}
    for d in doors:
        c, t = (d.center[0], d.center[1]) if d.vertical else (d.center[1], d.center[0])
        gaps.setdefault((d.vertical, round(float(c), 4)), []).append((t - DOOR_W / 2, t + DOOR_W / 2))
    parts, polys = [], []
    for key in sorted(lines):
        vertical, c = key
        for lo, hi in _subtract(_union(lines[key]), gaps.get(key, [])):
            lo, hi = lo - WALL_T / 2, hi + WALL_T / 2
            if vertical:
                rect = (c - WALL_T / 2, lo, c + WALL_T / 2, hi)
            else:
                rect = (lo, c - WALL_T / 2, hi, c + WALL_T / 2)
            size = (rect[2] - rect[0], rect[3] - rect[1], WALL_H)
            center = ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2, WALL_H / 2)
            parts.append(F.box(size, center, WALL_COLOR))
            polys.append(rect_polygon(*rect))
    mesh = F._join(parts)
    lo, hi = mesh.bounds
    return Instance(ids.make("walls"), "walls", "", mesh, (lo + hi) / 2, hi - lo, 0.0, polys)


def _union(intervals):
    out = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1] + 1e-6:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _subtract(intervals, holes):
    out = []
    for lo, hi in intervals:
        pieces = [(lo, hi)]
        for hlo, hhi in holes:
            nxt = []
            for a, b in pieces:
                if hhi <= a or hlo >= b:
                    nxt.append((a, b))
                    continue
                if hlo > a:
                    nxt.append((a, hlo))
                if hhi < b:
                    nxt.append((hhi, b))
            pieces = nxt
        out += [(a, b) for a, b in pieces if b - a > 0.02]
    return out


def _floor(room: Room, ids: IdMaker) -> Instance:
    x0, y0, x1, y1 = room.rect
    mesh = F.box((x1 - x0, y1 - y0, 0.02), ((x0 + x1) / 2, (y0 + y1) / 2, -0.01), FLOOR_COLORS[room.kind])
    lo, hi = mesh.bounds
    return Instance(ids.make("floors"), "floors", room.name, mesh, (lo + hi) / 2, hi - lo, 0.0, [])


def _ceiling(room: Room, ids: IdMaker) -> Instance:
    # Without a ceiling the views would show the void above the walls; top-down
    # renderers leave "ceilings" instances out.
    x0, y0, x1, y1 = room.rect
    mesh = F.box((x1 - x0, y1 - y0, 0.02), ((x0 + x1) / 2, (y0 + y1) / 2, WALL_H + 0.01), CEILING_COLOR)
    lo, hi = mesh.bounds
    return Instance(ids.make("ceilings"), "ceilings", room.name, mesh, (lo + hi) / 2, hi - lo, 0.0, [])


class IdMaker:
    """BEHAVIOR-1K style ids: one random 6-letter model id per category."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.models: dict[str, str] = {}
        self.counts: dict[str, int] = {}

    def make(self, category: str) -> str:
        if category not in self.models:
            letters = self.rng.integers(0, 26, 6)
            self.models[category] = "".join(chr(ord("a") + int(k)) for k in letters)
        n = self.counts.get(category, 0)
        self.counts[category] = n + 1
        return f"{category}_{self.models[category]}_{n}"

    def release(self, instances: list["Instance"]) -> None:
        """Give back the numbers of instances that were made but not kept."""
        for inst in reversed(instances):
            self.counts[inst.category] -= 1
