"""Putting furniture into a room so that it looks lived-in and stays walkable.

Furniture comes in groups (a sofa with its coffee table, a bed with its
nightstands, a dining table with its chairs, ...). A group has an envelope
rectangle in its own frame (back at -y) that is placed either against a wall
(back to the wall) or free-standing, never in front of a door, never
overlapping an earlier group. After each group the room's floor must still
connect all its doors for a body of radius BODY_R; otherwise the group is
taken out again.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import furniture as F
from .apartment import BODY_R, DOOR_KEEPOUT, DOOR_W, RECIPES, WALL_T, Door, IdMaker, Instance, Room
from .freespace import FloorGrid, connected_label, oriented_polygon

WALL_GAP = 0.03        # furniture stands this far from the wall
MARGIN = 0.08          # minimum gap between two groups
SIDES = {"S": 0.0, "N": np.pi, "W": -np.pi / 2, "E": np.pi / 2}   # yaw that puts the back to that wall


@dataclass
class Piece:
    category: str
    width: float
    depth: float
    dx: float = 0.0           # offset in the group frame
    dy: float = 0.0
    dyaw: float = 0.0
    on_top: bool = False      # stands on another piece: not an obstacle of its own
    kwargs: dict | None = None


@dataclass
class Group:
    width: float
    depth: float
    against_wall: bool
    pieces: list[Piece]
    corner: bool = False      # free-standing, preferably in a corner


def _group(name: str, rng: np.random.Generator) -> Group:
    u = rng.uniform
    if name == "sofa_set":
        sw, ct_w, ct_d = u(1.9, 2.3), u(1.0, 1.2), u(0.55, 0.62)
        D = 0.9 + 0.45 + ct_d
        return Group(sw, D, True, [Piece("sofa", sw, 0.9, dy=-D / 2 + 0.45),
                                   Piece("coffee_table", ct_w, ct_d, dy=D / 2 - ct_d / 2)])
    if name == "tv_set":
        stand_w, tv_w = u(1.4, 1.7), u(1.0, 1.25)
        return Group(stand_w, 0.45, True, [Piece("tv_stand", stand_w, 0.45),
                                           Piece("television", tv_w, 0.2, on_top=True,
                                                 kwargs={"base_z": 0.45})])
    if name == "bed_set":
        bw, bd = u(1.4, 1.8), u(2.0, 2.1)
        W = bw + 2 * 0.5
        return Group(W, bd, True, [Piece("bed", bw, bd),
                                   Piece("nightstand", 0.45, 0.4, dx=-(bw / 2 + 0.26), dy=-bd / 2 + 0.2),
                                   Piece("nightstand", 0.45, 0.4, dx=bw / 2 + 0.26, dy=-bd / 2 + 0.2),
                                   Piece("table_lamp", 0.3, 0.3, dx=bw / 2 + 0.26, dy=-bd / 2 + 0.2,
                                         on_top=True, kwargs={"base_z": 0.5})])
    if name == "dining_set":
        tw, td = u(1.3, 1.6), u(0.8, 0.9)
        pieces = [Piece("dining_table", tw, td)]
        for side, yaw in ((-1, 0.0), (1, np.pi)):
            for dx in (-tw / 4, tw / 4):
                pieces.append(Piece("chair", 0.45, 0.45, dx=dx, dy=side * (td / 2 + 0.12), dyaw=yaw))
        return Group(tw + 0.1, td + 2 * 0.6, False, pieces)
    if name == "desk_set":
        dw, dd = u(1.2, 1.4), 0.65
        D = dd + 0.6
        return Group(dw, D, True, [Piece("desk", dw, dd, dy=-D / 2 + dd / 2),
                                   Piece("office_chair", 0.55, 0.55, dy=-D / 2 + dd + 0.18, dyaw=np.pi)])
    if name == "armchair":
        return Group(0.95, 0.9, True, [Piece("armchair", u(0.85, 0.95), 0.85, dyaw=u(-0.5, 0.5))])
    sizes = {"bookshelf": (u(0.8, 1.0), 0.35), "wardrobe": (u(1.0, 1.4), 0.6),
             "fridge": (u(0.7, 0.8), 0.7), "bottom_cabinet": (u(1.6, 2.4), 0.6),
             "bathtub": (u(1.5, 1.7), 0.75), "toilet": (0.45, 0.7), "sink": (u(0.6, 0.8), 0.5),
             "potted_plant": (u(0.4, 0.55),) * 2, "floor_lamp": (0.4, 0.4)}
    w, d = sizes[name]
    free = name in ("potted_plant", "floor_lamp")
    dyaw = u(-np.pi, np.pi) if name == "potted_plant" else 0.0
    # A rotated armchair or plant needs an envelope of its rotated size.
    return Group(w, d, not free, [Piece(name, w, d, dyaw=dyaw)], corner=free)


class _Room:
    def __init__(self, room: Room, doors: list[Door]):
        x0, y0, x1, y1 = room.rect
        e = WALL_T / 2 + 0.01
        self.inner = (x0 + e, y0 + e, x1 - e, y1 - e)
        self.room = room
        self.doors = doors
        self.taken: list[tuple[float, float, float, float]] = []
        for d in doors:
            cx, cy = d.center
            a, b = (DOOR_KEEPOUT, DOOR_W / 2 + 0.2) if d.vertical else (DOOR_W / 2 + 0.2, DOOR_KEEPOUT)
            self.taken.append((cx - a, cy - b, cx + a, cy + b))
        self.n_keepout = len(self.taken)
        self.polygons: list[np.ndarray] = []     # obstacle footprints placed so far

    def fits(self, poly: np.ndarray) -> bool:
        lo, hi = poly.min(0), poly.max(0)
        x0, y0, x1, y1 = self.inner
        if lo[0] < x0 or lo[1] < y0 or hi[0] > x1 or hi[1] > y1:
            return False
        for a0, b0, a1, b1 in self.taken:
            if lo[0] < a1 + MARGIN and hi[0] > a0 - MARGIN and lo[1] < b1 + MARGIN and hi[1] > b0 - MARGIN:
                return False
        return True

    def candidates(self, g: Group, rng: np.random.Generator, tries: int = 10):
        """Group poses (x, y, yaw) to try, in order."""
        x0, y0, x1, y1 = self.inner
        if g.against_wall:
            for side in rng.permutation(list(SIDES)):
                yaw = SIDES[side]
                along = (x0, x1) if side in "SN" else (y0, y1)
                lo, hi = along[0] + g.width / 2, along[1] - g.width / 2
                if hi < lo:
                    continue
                off = WALL_GAP + g.depth / 2
                for t in rng.uniform(lo, hi, tries):
                    if side == "S":
                        yield t, y0 + off, yaw
                    elif side == "N":
                        yield t, y1 - off, yaw
                    elif side == "W":
                        yield x0 + off, t, yaw
                    else:
                        yield x1 - off, t, yaw
            return
        r = max(g.width, g.depth) / 2 + 0.05
        if g.corner:
            corners = [(x0 + r, y0 + r), (x1 - r, y0 + r), (x1 - r, y1 - r), (x0 + r, y1 - r)]
            for k in rng.permutation(4):
                yield (*corners[k], 0.0)
        for _ in range(tries * 3):
            yaw = float(rng.choice([0.0, np.pi / 2]))
            yield float(rng.uniform(x0 + r, x1 - r)), float(rng.uniform(y0 + r, y1 - r)), yaw

    def walkable(self, polygons: list[np.ndarray]) -> bool:
        """All doors of the room reachable from each other, and enough open floor."""
        grid = FloorGrid.around(self.room.rect, 0.05, margin=0.0)
        x0, y0, x1, y1 = self.inner
        cells = grid.to_world(np.argwhere(np.ones((grid.ny, grid.nx), bool)))
        outside = ~((cells[:, 0] > x0) & (cells[:, 0] < x1) & (cells[:, 1] > y0) & (cells[:, 1] < y1))
        blocked = outside.reshape(grid.ny, grid.nx) | grid.rasterise(np.array(polygons).reshape(-1, 4, 2))
        free = grid.clearance(blocked) > BODY_R + 0.03
        labels = connected_label(free)
        c = self.room.center
        probes = [d.center + 0.45 * np.sign(c - d.center) * ([1, 0] if d.vertical else [0, 1])
                  for d in self.doors]
        ids = {int(labels[tuple(grid.to_cell(p)[0])]) for p in probes}
        if 0 in ids or len(ids) > 1:
            return False
        main = next(iter(ids)) if ids else np.bincount(labels.ravel())[1:].argmax() + 1
        return (labels == main).sum() * grid.res ** 2 >= 0.3 * self.room.area


def furnish_room(room: Room, doors: list[Door], ids: IdMaker, rng: np.random.Generator) -> list[Instance]:
    state = _Room(room, doors)
    out: list[Instance] = []
    for name in RECIPES[room.kind]:
        g = _with_envelope(_group(name, rng))
        for x, y, yaw in state.candidates(g, rng):
            env = oriented_polygon((x, y), g.width, g.depth, yaw)
            if not state.fits(env):
                continue
            placed = [_instantiate(p, x, y, yaw, room, ids) for p in g.pieces]
            polys = [fp for inst in placed for fp in inst.footprints]
            if not state.walkable(state.polygons + polys):
                ids.release(placed)
                continue
            lo, hi = env.min(0), env.max(0)
            state.taken.append((lo[0], lo[1], hi[0], hi[1]))
            state.polygons += polys
            out += placed
            break
    return out


def _with_envelope(g: Group) -> Group:
    """Grow the envelope so that it covers every rotated piece."""
    for p in g.pieces:
        poly = oriented_polygon((p.dx, p.dy), p.width, p.depth, p.dyaw)
        g.width = max(g.width, 2 * float(np.abs(poly[:, 0]).max()))
        g.depth = max(g.depth, 2 * float(np.abs(poly[:, 1]).max()))
    return g


def _instantiate(p: Piece, gx: float, gy: float, gyaw: float, room: Room, ids: IdMaker) -> Instance:
    c, s = np.cos(gyaw), np.sin(gyaw)
    x, y = gx + c * p.dx - s * p.dy, gy + s * p.dx + c * p.dy
    yaw = float(np.arctan2(np.sin(gyaw + p.dyaw), np.cos(gyaw + p.dyaw)))
    mesh = F.KINDS[p.category].build(p.width, p.depth, **(p.kwargs or {}))
    lo, hi = mesh.bounds
    local_c = (lo + hi) / 2
    cy, sy = np.cos(yaw), np.sin(yaw)
    m = np.eye(4)
    m[:2, :2] = [[cy, -sy], [sy, cy]]
    m[:2, 3] = [x, y]
    mesh.apply_transform(m)
    center = np.array([x + cy * local_c[0] - sy * local_c[1], y + sy * local_c[0] + cy * local_c[1], local_c[2]])
    size = hi - lo
    footprints = [] if p.on_top else [oriented_polygon(center[:2], size[0], size[1], yaw)]
    return Instance(ids.make(p.category), p.category, room.name, mesh, center, size, yaw, footprints)
