"""The drawing language: what a question's overlay is made of, as typed, tagged primitives.

In the spirit of rerun's archetypes: the core says *what* is drawn (a ring
100 units from the truth, model 2's arrow, the target's footprint) in map
pixels (x right, y down) or world metres, and every renderer (the window's
pyqtgraph map, the QPainter figures, the OpenGL 3D view, the ray-cast
stills) draws any list of them the same way. A renderer picks colours and
pens from a primitive's `role` and `model`, never from the question's task,
so a new answer kind that emits primitives draws everywhere unchanged.

Draw order is the primitive's `z` (stable sort), so a kind may emit its
parts in any order and still land between the shared parts (trajectory
below, truth marker on top).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# Roles: who a primitive belongs to; a renderer's style table is keyed by them.
TRUTH, MODEL, VIEWPOINT, TARGET, PATH, CAMERA = "truth", "model", "viewpoint", "target", "path", "camera"

# Layers a talk reveals one by one (`storyboard.Layers` has one flag each).
L_TRAJECTORY, L_VIEWPOINT, L_TARGET, L_ANSWERS, L_TRUTH = "trajectory", "viewpoint", "target", "answers", "truth"

# Draw order, bottom to top.
Z_PATH, Z_BAND, Z_FOV, Z_TARGET, Z_RING, Z_TRUTH_LINE, Z_MODEL_LINE = 0, 10, 20, 30, 40, 50, 60
Z_TRUTH_ARROW, Z_MODEL_ARROW, Z_VIEW, Z_LINK, Z_MODEL_MARKER, Z_TRUTH_MARKER = 70, 80, 90, 100, 110, 120


@dataclass(frozen=True, eq=False)
class Primitive:
    role: str                                 # TRUTH, MODEL, VIEWPOINT, TARGET, PATH, CAMERA
    model: int | None = None                  # the model's index (its colour and marker) for MODEL
    layers: tuple[str, ...] = ()              # every one must be shown for it to be drawn
    z: int = 0

    def shown(self, visible: set[str] | frozenset[str]) -> bool:
        return all(layer in visible for layer in self.layers)

    def parts(self) -> list[Primitive]:
        """This primitive in simpler ones, for a renderer that has no drawing of its own for it.

        So a new primitive is one class here: every renderer draws its parts
        until it learns to draw the whole (one function in that renderer).
        """
        raise NotImplementedError(f"{type(self).__name__} has no parts and no renderer draws it")


@dataclass(frozen=True, eq=False)
class Marker(Primitive):
    """A symbol at one point: `shape` "circle", "star", "square", or "model" (the model's own shape)."""
    at: np.ndarray = field(default=None)      # (2,) or (3,)
    shape: str = "circle"
    size: float = 1.0                         # relative: 1 = the renderer's usual marker for the role


@dataclass(frozen=True, eq=False)
class Polyline(Primitive):
    """A line through points; NaN rows break it. `mark` puts the model's marker at its "top" or "end"."""
    points: np.ndarray = field(default=None)  # (N, 2) or (N, 3)
    dashed: bool = False
    mark: str | None = None


# Line styles an Arrow may ask for: one per setting of a question's variants (core/settings_table.py).
SOLID, DASHED, DOTTED = "solid", "dashed", "dotted"


@dataclass(frozen=True, eq=False)
class Arrow(Primitive):
    """A ray from `points[0]` to `points[1]` with a head; models also get their marker at the tip.

    `line` is SOLID, DASHED or DOTTED: the settings strip draws one answer per setting on one map.
    """
    points: np.ndarray = field(default=None)  # (2, 2) or (2, 3)
    line: str = SOLID


@dataclass(frozen=True, eq=False)
class Polygon(Primitive):
    """A closed outline (a target's footprint), `filled` translucently (a field of view)."""
    points: np.ndarray = field(default=None)
    filled: bool = False


@dataclass(frozen=True, eq=False)
class Sector(Primitive):
    """A filled tolerance band; `level` (e.g. 15, 30, 45 degrees) sets its opacity, narrow = darker."""
    points: np.ndarray = field(default=None)
    level: float = 0.0


@dataclass(frozen=True, eq=False)
class Ring(Primitive):
    """A dashed score threshold around the truth, labelled with its value at its top."""
    points: np.ndarray = field(default=None)
    label: str = ""


@dataclass(frozen=True, eq=False)
class TimedPath(Primitive):
    """The video's camera path, coloured by time, with the camera's heading per frame."""
    points: np.ndarray = field(default=None)   # (N, 2); NaN rows where a pose is invalid
    heading: np.ndarray | None = None          # (N, 2) unit directions on the image


@dataclass(frozen=True, eq=False)
class Segments(Primitive):
    """Independent 3D segments (S, 2, 3): frustum edges, a box's edges, a ring on the floor."""
    segments: np.ndarray = field(default=None)


@dataclass(frozen=True, eq=False)
class FrameFrustums(Primitive):
    """One frustum per video frame (N, 5, 3: apex + 4 corners); only the current frame's is drawn."""
    frustums: np.ndarray = field(default=None)


@dataclass(frozen=True, eq=False)
class PointCloud(Primitive):
    """Sparse 3D points (N, 3) in world metres, with RGB colours (N, 3) uint8 or None: what structure from
    motion recovered. The 3D view draws them; a renderer without a drawing of its own leaves them out."""
    points: np.ndarray = field(default=None)
    colors: np.ndarray | None = None

    def parts(self) -> list[Primitive]:
        return []


@dataclass(frozen=True, eq=False)
class Label(Primitive):
    """Text anchored at a point, at the renderer's label size, in the role's colour."""
    at: np.ndarray = field(default=None)
    text: str = ""


@dataclass(frozen=True, eq=False)
class Box(Primitive):
    """An axis-aligned rectangle on the map (x0, y0, x1, y1), drawn as its outline."""
    rect: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def parts(self) -> list[Primitive]:
        x0, y0, x1, y1 = self.rect
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
        return [Polygon(self.role, self.model, self.layers, self.z, points=corners)]


def flatten(items, known) -> list[Primitive]:
    """`items` with every primitive whose type is not in `known` replaced by its parts, recursively."""
    out: list[Primitive] = []
    for item in items:
        if type(item) in known:
            out.append(item)
        else:
            out.extend(flatten(item.parts(), known))
    return out


@dataclass(frozen=True, eq=False)
class LegendItem:
    """A line of the legend: `kind` picks its symbol (see LEGEND_ORDER), `model` its colour."""
    kind: str
    text: str
    model: int | None = None
    layers: tuple[str, ...] = ()


# Legend kinds, in the order a legend lists them.
LEGEND_ORDER = ("truth-star", "truth-ray", "truth-line", "model", "band", "ring", "view", "target", "path",
                "marker")


Box2 = tuple[float, float, float, float]     # x0, y0, x1, y1 in map pixels

# How far beyond the map (a share of its size, each side) a view may reach to show a whole circle.
FIT_MARGIN = 0.3


@dataclass
class Overlay:
    """Everything drawn over one map image (pixels) or in one 3D scene (metres).

    `focus` is where the answer is read (map pixels), when that is a small part of the map: the
    view, the rays and the target of a direction. Every map renderer shows it first (the
    window's Fit shows the whole map, and back); None: the whole map.
    """
    width: int = 0
    height: int = 0
    items: list[Primitive] = field(default_factory=list)
    legend: list[LegendItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)        # why something is not drawn
    focus: Box2 | None = None

    def add(self, *items: Primitive) -> None:
        self.items.extend(items)

    def drawn(self, visible=None) -> list[Primitive]:
        """The primitives to draw, bottom first; `visible` (layer names) filters them."""
        items = self.items if visible is None else [p for p in self.items if p.shown(visible)]
        return sorted(items, key=lambda p: p.z)

    def of(self, kind: type, role: str | None = None) -> list:
        return [p for p in self.items if isinstance(p, kind) and (role is None or p.role == role)]

    def path(self) -> TimedPath | None:
        return next((p for p in self.items if isinstance(p, TimedPath)), None)

    def models_drawn(self, visible=None) -> set[int]:
        return {p.model for p in self.items if p.role == MODEL and (visible is None or p.shown(visible))}

    def legend_items(self, visible=None) -> list[LegendItem]:
        """Legend lines for what is drawn, in LEGEND_ORDER (models in their index order)."""
        items = [e for e in self.legend if visible is None or all(layer in visible for layer in e.layers)]
        return sorted(items, key=lambda e: (LEGEND_ORDER.index(e.kind), e.model or 0))

    def extent(self, points: bool = True) -> tuple[float, float, float, float] | None:
        """Bounding box of the answer's drawings (truth and models, not the path), in map pixels;
        without `points`, only its curves (a distance circle): points past the map are drawn on its
        edge, and rays are cut there."""
        def counted(p) -> bool:
            if p.role not in (TRUTH, MODEL) and not (p.role == VIEWPOINT and isinstance(p, Marker)):
                return False
            if isinstance(p, (Sector, Ring)):
                return False
            return points or not (isinstance(p, (Marker, Arrow)) or isinstance(p, Polyline) and len(p.points) <= 2)
        return _bbox([_xy(p) for p in self.items if counted(p)])

    def drawn_box(self) -> Box2 | None:
        """Bounding box of everything placed on the map but the distance rings and bands (the answers,
        the view, the target, the video's path), in map pixels."""
        return _bbox([_xy(p) for p in self.items if not isinstance(p, (Sector, Ring))])

    def shown_box(self, focused: bool = True, content: Box2 | None = None) -> Box2:
        """The map pixel box a view of this overlay shows first.

        `focused` and a `focus`: the focus. Otherwise the map, cropped to `content` (the part of the
        image that is not empty surroundings) together with everything drawn, and grown to the answers
        drawn beyond the map (a distance circle) by FIT_MARGIN at most.
        """
        w, h = float(self.width), float(self.height)
        if focused and self.focus is not None:
            return self.focus
        x0, y0, x1, y1 = 0.0, 0.0, w, h
        if content is not None:
            drawn = self.drawn_box()
            boxes = [content] + ([drawn] if drawn is not None else [])
            x0, y0 = max(0.0, min(b[0] for b in boxes)), max(0.0, min(b[1] for b in boxes))
            x1, y1 = min(w, max(b[2] for b in boxes)), min(h, max(b[3] for b in boxes))
            pad = 0.02 * max(x1 - x0, y1 - y0)
            x0, y0, x1, y1 = max(0.0, x0 - pad), max(0.0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
        ext = self.extent(points=False)
        if ext is not None:
            x0, y0 = max(min(x0, ext[0]), -FIT_MARGIN * w), max(min(y0, ext[1]), -FIT_MARGIN * h)
            x1, y1 = min(max(x1, ext[2]), (1 + FIT_MARGIN) * w), min(max(y1, ext[3]), (1 + FIT_MARGIN) * h)
        return (x0, y0, x1, y1)

    def edge_box(self, shown: Box2) -> Box2:
        """Where points may be drawn in a view showing `shown`: the map and the view both.
        What lies beyond is drawn on this box's edge with an edge mark (`clamp`, `clip_path`)."""
        x0, y0, x1, y1 = shown
        return (max(x0, 0.0), max(y0, 0.0), min(x1, float(self.width)), min(y1, float(self.height)))


def _xy(p: Primitive) -> np.ndarray | None:
    """Where a map primitive lies: its point or points, (N, 2); None for one with neither."""
    xy = p.at if isinstance(p, (Marker, Label)) else getattr(p, "points", None)
    return None if xy is None else np.atleast_2d(np.asarray(xy, float))[:, :2]


def _bbox(pts: list[np.ndarray | None]) -> Box2 | None:
    pts = [p for p in pts if p is not None]
    if not pts:
        return None
    xy = np.concatenate(pts)
    xy = xy[np.isfinite(xy).all(axis=1)]
    if not len(xy):
        return None
    return (float(xy[:, 0].min()), float(xy[:, 1].min()), float(xy[:, 0].max()), float(xy[:, 1].max()))


def box_around(points, pad: float, min_side: float) -> Box2 | None:
    """The bounding box of `points` (N, 2), grown by `pad` (a share of its larger side) and to
    `min_side` at least each way, about its centre."""
    b = _bbox([np.atleast_2d(np.asarray(points, float))[:, :2]])
    if b is None:
        return None
    side = max(b[2] - b[0], b[3] - b[1])
    half_w = max((b[2] - b[0]) / 2 + pad * side, min_side / 2)
    half_h = max((b[3] - b[1]) / 2 + pad * side, min_side / 2)
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    return (cx - half_w, cy - half_h, cx + half_w, cy + half_h)


# ------------------------------------------------------------ the map's edge
# What every renderer does with what lies on or past the edge of the map it shows: a point is drawn
# inside it, with an edge mark pointing where it really is; a path is cut where it leaves, with a
# mark there. Renderers pass the box in their own units (inset by a marker's radius where it matters).

def clamp(at, box: Box2) -> tuple[np.ndarray, np.ndarray | None]:
    """`at` moved into `box`, and the unit direction it was moved against (None when it was inside)."""
    x0, y0, x1, y1 = box
    p = np.asarray(at, float)[:2]
    q = np.array([min(max(p[0], x0), x1), min(max(p[1], y0), y1)])
    d = p - q
    n = float(np.hypot(*d))
    return q, (d / n if n > 1e-9 else None)


def clip_path(points, box: Box2) -> tuple[list[np.ndarray], list[tuple[np.ndarray, np.ndarray]]]:
    """A polyline (NaN rows break it) cut to `box`: the runs inside it, and where it crosses the box's
    edge (point, outward unit direction), to be marked there."""
    pts = np.asarray(points, float)[:, :2]
    finite = np.isfinite(pts).all(axis=1)
    x0, y0, x1, y1 = box
    inside = (pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1)
    if inside[finite].all():       # the usual case, a path on its map: no cut, only the NaN breaks
        pieces = np.split(pts, np.flatnonzero(~finite))
        return [piece[np.isfinite(piece).all(axis=1)] for piece in pieces
                if np.isfinite(piece).all(axis=1).sum() > 1], []
    runs: list[np.ndarray] = []
    marks: list[tuple[np.ndarray, np.ndarray]] = []
    run: list[np.ndarray] = []

    def close():
        nonlocal run
        if len(run) > 1:
            runs.append(np.array(run))
        run = []

    for a, b in zip(pts[:-1], pts[1:]):
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            close()
            continue
        seg = _clip_segment(a, b, box)
        if seg is None:
            close()
            continue
        (p, t0), (q, t1) = seg
        if t0 > 0:                                   # entered here
            close()
            marks.append((p, _outward(p, box)))
        if not run:
            run.append(p)
        run.append(q)
        if t1 < 1:                                   # left here
            marks.append((q, _outward(q, box)))
            close()
    close()
    return runs, marks


def _clip_segment(a, b, box: Box2):
    """Liang-Barsky: the part of segment a-b inside `box` as ((point, t), (point, t)), or None."""
    x0, y0, x1, y1 = box
    d = b - a
    t0, t1 = 0.0, 1.0
    for p, q in ((-d[0], a[0] - x0), (d[0], x1 - a[0]), (-d[1], a[1] - y0), (d[1], y1 - a[1])):
        if abs(p) < 1e-12:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return (a + t0 * d, t0), (a + t1 * d, t1)


def _outward(p, box: Box2) -> np.ndarray:
    """The outward normal of the box side `p` lies on (the nearest side)."""
    x0, y0, x1, y1 = box
    sides = [(abs(p[0] - x0), (-1.0, 0.0)), (abs(p[0] - x1), (1.0, 0.0)),
             (abs(p[1] - y0), (0.0, -1.0)), (abs(p[1] - y1), (0.0, 1.0))]
    return np.array(min(sides, key=lambda s: s[0])[1])
