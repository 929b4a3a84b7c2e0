"""An exploration walk through every room, and query viewpoints away from it.

The camera is carried at eye height with a slight downward pitch. The walk
visits the rooms in depth-first order of the door graph: in each room it
goes to the most open spot, looks around once, then heads for the next room
along a shortest path on the free floor (cells with clearance above the
body radius, costs favouring the middle of corridors and doorways), turning
on the spot when the path bends sharply. One frame per video frame.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .apartment import BODY_R, Apartment
from .freespace import FloorGrid

EYE_HEIGHT = 1.5             # m
PITCH_DEG = -12.0            # looking slightly down, like a person walking
STEP = 0.14                  # m per frame (1.4 m/s at 10 fps)
TURN_DEG = 15.0              # max heading change per frame
LOOK_AROUND_FRAMES = 24      # a full turn on the spot in each room
GRID_RES = 0.05
WALK_CLEARANCE = BODY_R + 0.07
VIEW_MIN_OFFSET = 0.6        # query views stand this far from every walk position (m)


class NoWalk(ValueError):
    """The layout drawn has rooms the walk cannot reach (furniture blocks a door)."""


@dataclass
class Walk:
    xy: np.ndarray           # (N, 2) camera position per frame
    yaw: np.ndarray          # (N,) heading in radians, counter-clockwise from +x
    room_order: list[str]    # rooms in the order they are first entered

    def __len__(self) -> int:
        return len(self.yaw)

    def poses(self) -> np.ndarray:
        return camera_poses(self.xy, self.yaw)


def camera_poses(xy, yaw, height: float = EYE_HEIGHT, pitch_deg: float = PITCH_DEG) -> np.ndarray:
    """(N, 4, 4) OpenCV camera-to-world (x right, y down, z forward) for ground xy and heading."""
    xy = np.atleast_2d(np.asarray(xy, float))
    yaw = np.atleast_1d(np.asarray(yaw, float))
    p = np.radians(pitch_deg)
    fwd = np.stack([np.cos(yaw) * np.cos(p), np.sin(yaw) * np.cos(p), np.full_like(yaw, np.sin(p))], 1)
    right = np.stack([np.sin(yaw), -np.cos(yaw), np.zeros_like(yaw)], 1)
    down = np.cross(fwd, right)
    out = np.zeros((len(yaw), 4, 4))
    out[:, :3, 0], out[:, :3, 1], out[:, :3, 2] = right, down, fwd
    out[:, :2, 3] = xy
    out[:, 2, 3] = height
    out[:, 3, 3] = 1.0
    return out


class FreeFloor:
    """The apartment's walkable floor as a grid, with shortest paths on it."""

    def __init__(self, apt: Apartment, res: float = GRID_RES):
        self.apt = apt
        self.grid = FloorGrid.around(apt.bounds, res)
        blocked = self.grid.rasterise(apt.obstacle_polygons())
        centres = self.grid.to_world(np.argwhere(np.ones((self.grid.ny, self.grid.nx), bool)))
        x0, y0, x1, y1 = apt.bounds
        outside = ~((centres[:, 0] > x0) & (centres[:, 0] < x1) & (centres[:, 1] > y0) & (centres[:, 1] < y1))
        blocked |= outside.reshape(self.grid.ny, self.grid.nx)
        self.clearance = self.grid.clearance(blocked)
        self.free = self.clearance > WALK_CLEARANCE
        self._graph = None

    def is_free(self, xy, margin: float = 0.0) -> np.ndarray:
        cells = self.grid.to_cell(xy)
        return self.clearance[cells[:, 0], cells[:, 1]] > WALK_CLEARANCE + margin

    def anchor(self, room) -> np.ndarray:
        """The most open free spot of a room, not far from its centre."""
        cells = np.argwhere(self.free)
        xy = self.grid.to_world(cells)
        inside = room.contains(xy)
        if not inside.any():
            raise NoWalk(f"{self.apt.name}: room {room.name} has no walkable floor")
        xy, cells = xy[inside], cells[inside]
        clear = np.minimum(self.clearance[cells[:, 0], cells[:, 1]], 1.0)
        score = clear - 0.3 * np.linalg.norm(xy - room.center, axis=1)
        return xy[int(np.argmax(score))]

    def _build_graph(self):
        from scipy.sparse import coo_matrix
        ny, nx = self.free.shape
        index = np.full(self.free.shape, -1, np.int64)
        cells = np.argwhere(self.free)
        index[cells[:, 0], cells[:, 1]] = np.arange(len(cells))
        rows, cols, weights = [], [], []
        # Cost per metre grows near obstacles so paths keep to the middle of passages.
        penalty = 1.0 + 0.6 / np.maximum(self.clearance, 0.05)
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            a = cells
            b = a + [dr, dc]
            ok = (b[:, 0] >= 0) & (b[:, 0] < ny) & (b[:, 1] >= 0) & (b[:, 1] < nx)
            a, b = a[ok], b[ok]
            ok = self.free[b[:, 0], b[:, 1]]
            a, b = a[ok], b[ok]
            length = np.hypot(dr, dc) * self.grid.res
            w = length * (penalty[a[:, 0], a[:, 1]] + penalty[b[:, 0], b[:, 1]]) / 2
            rows.append(index[a[:, 0], a[:, 1]])
            cols.append(index[b[:, 0], b[:, 1]])
            weights.append(w)
        n = len(cells)
        g = coo_matrix((np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
        self._graph = (g.tocsr(), index, cells)

    def shortest_path(self, a_xy, b_xy) -> np.ndarray:
        """(K, 2) world points from a to b over free cells; NoWalk if unreachable."""
        from scipy.sparse.csgraph import dijkstra
        if self._graph is None:
            self._build_graph()
        graph, index, cells = self._graph
        ia = int(index[tuple(self.grid.to_cell(a_xy)[0])])
        ib = int(index[tuple(self.grid.to_cell(b_xy)[0])])
        if ia < 0 or ib < 0:
            raise NoWalk(f"{self.apt.name}: path end point is not on free floor")
        dist, pred = dijkstra(graph, directed=False, indices=ia, return_predecessors=True)
        if not np.isfinite(dist[ib]):
            raise NoWalk(f"{self.apt.name}: no walkable path between two rooms")
        chain = [ib]
        while chain[-1] != ia:
            chain.append(int(pred[chain[-1]]))
        return self.grid.to_world(cells[chain[::-1]])

    def line_is_free(self, a, b) -> bool:
        n = max(2, int(np.ceil(np.linalg.norm(np.subtract(b, a)) / (self.grid.res / 2))))
        t = np.linspace(0, 1, n)[:, None]
        return bool(self.is_free(a + t * (np.subtract(b, a))).all())


def _shortcut(floor: FreeFloor, pts: np.ndarray) -> np.ndarray:
    """Drop intermediate points while the straight line stays on free floor."""
    out = [pts[0]]
    i = 0
    while i < len(pts) - 1:
        j = i + 1
        while j + 1 < len(pts) and floor.line_is_free(pts[i], pts[j + 1]):
            j += 1
        out.append(pts[j])
        i = j
    return np.array(out)


def _resample(pts: np.ndarray, step: float) -> np.ndarray:
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    s = np.concatenate([[0], np.cumsum(seg)])
    if s[-1] < 1e-9:
        return pts[:1]
    n = max(1, int(np.ceil(s[-1] / step)))
    t = np.linspace(0, s[-1], n + 1)
    return np.stack([np.interp(t, s, pts[:, 0]), np.interp(t, s, pts[:, 1])], 1)


def _wrap(a):
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


def _turn(yaw_from: float, yaw_to: float) -> list[float]:
    """Headings that turn on the spot from one heading to another at TURN_DEG per frame."""
    delta = float(_wrap(yaw_to - yaw_from))
    n = int(np.ceil(abs(delta) / np.radians(TURN_DEG)))
    return [yaw_from + delta * k / n for k in range(1, n + 1)]


def _room_order(apt: Apartment, start: int, rng: np.random.Generator) -> list[int]:
    neighbours: dict[int, list[int]] = {i: [] for i in range(len(apt.rooms))}
    for d in apt.doors:
        a, b = d.rooms
        neighbours[a].append(b)
        neighbours[b].append(a)
    order, stack, seen = [], [start], set()
    while stack:
        r = stack.pop()
        if r in seen:
            continue
        seen.add(r)
        order.append(r)
        nxt = [n for n in neighbours[r] if n not in seen]
        stack += [nxt[k] for k in rng.permutation(len(nxt))]
    return order


def plan_walk(apt: Apartment, floor: FreeFloor, rng: np.random.Generator) -> Walk:
    """The exploration walk: every room, a look-around in each."""
    order = _room_order(apt, int(rng.integers(len(apt.rooms))), rng)
    anchors = [floor.anchor(apt.rooms[i]) for i in order]
    xy: list[np.ndarray] = []
    yaw: list[float] = []
    heading = float(rng.uniform(-np.pi, np.pi))

    def look_around(at):
        nonlocal heading
        sense = 1.0 if rng.random() < 0.5 else -1.0
        for k in range(1, LOOK_AROUND_FRAMES + 1):
            xy.append(at)
            yaw.append(heading + sense * 2 * np.pi * k / LOOK_AROUND_FRAMES)
        heading = yaw[-1]

    xy.append(anchors[0])
    yaw.append(heading)
    look_around(anchors[0])
    for a, b in zip(anchors[:-1], anchors[1:]):
        path = _resample(_shortcut(floor, floor.shortest_path(a, b)), STEP)
        for p, q in zip(path[:-1], path[1:]):
            target = float(np.arctan2(q[1] - p[1], q[0] - p[0]))
            if abs(_wrap(target - heading)) > np.radians(TURN_DEG):
                for h in _turn(heading, target)[:-1]:
                    xy.append(p)
                    yaw.append(h)
            heading = target
            xy.append(q)
            yaw.append(heading)
        look_around(b)
    return Walk(np.array(xy, float), np.asarray(_wrap(np.array(yaw)), float),
                [apt.rooms[i].name for i in order])


def viewpoint_candidates(apt: Apartment, floor: FreeFloor, walk: Walk, rng: np.random.Generator,
                         count: int) -> list[tuple[np.ndarray, int]]:
    """Positions (with an orientation index 0..11, 30 degrees apart) away from the walk.

    Every position is at least VIEW_MIN_OFFSET from every walk position, so no
    video frame was taken from (nearly) the same place.
    """
    from scipy.spatial import cKDTree
    cells = np.argwhere(floor.clearance > WALK_CLEARANCE + 0.05)
    xy = floor.grid.to_world(cells)
    dist, _ = cKDTree(walk.xy).query(xy)
    xy = xy[dist >= VIEW_MIN_OFFSET]
    if len(xy) == 0:
        return []
    picks = rng.choice(len(xy), size=min(count * 4, len(xy)), replace=False)
    out: list[tuple[np.ndarray, int]] = []
    for i in picks:                         # spread out: 0.8 m between two positions
        if all(np.linalg.norm(xy[i] - p) > 0.8 for p, _ in out):
            out.append((np.round(xy[i], 3), int(rng.integers(12))))
        if len(out) == count:
            break
    return out
