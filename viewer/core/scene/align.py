"""A structure-from-motion model tied to the top-down map by the release's own answers.

SfM gives the camera path in a frame of its own (any rotation, translation
and scale). The answers place some query views on the map (a position in map
pixels, a heading: 0 = map up, counter-clockwise as displayed), and the
query views were localised in the model. This module fits the similarity
between the two, pure numpy:

1. The floor: cameras of a walkthrough keep a steady height, so the camera
   centres span a plane whose normal is up; its sign (and the normal itself
   when the path is too straight to span a plane) comes from gravity, the
   mean of the cameras' down (OpenCV +y) axes. Points project to 2D on it.
2. The 2D similarity from the floor to the map's pixels. SfM models are
   proper (no mirror) and up is fixed by gravity, so the floor's handedness is
   known: the map's y-down flip is fixed, and no reflection is fitted.
   It is fitted by RANSAC over pairs of position answers (every pair for a
   scene's few views), scored by the answers within POS_TOLERANCE_M (in map
   pixels through the map's scale) and HEADING_TOLERANCE_DEG, then refitted
   by least squares on the inliers; a wrong answer is an outlier and does not
   bend the path. Each answer gets its residual against the fit, and against a
   fit made without its own view's answers (leave-one-out: the consensus's
   inliers but that view's, refitted), which is what the audit judges it by.
3. The metric scale is the map's own (metres per pixel, from the EDist
   answers as `benchmarks/gst/reconstruct.py` fits it); the floor's height
   from the lowest points of the cloud.

Fewer than MIN_POSITIONS usable position answers: no alignment (`ok` False,
`why` says so); the path stays in its own frame.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

MIN_POSITIONS = 2             # distinct places needed to fix rotation, scale and translation
POS_TOLERANCE_M = 1.0         # an answer this far from the fit (metres on the map) is an outlier
POS_TOLERANCE_MAP = 0.05      # ... or this share of the map's diagonal when the map's scale is unknown
HEADING_TOLERANCE_DEG = 20.0
CAMERA_HEIGHT_M = 1.5         # assumed only when neither the map's scale nor a floor is known
FLOOR_PERCENTILE = 2.0        # the floor: this low percentile of the points' heights
MAX_PAIRS = 400               # RANSAC pairs tried at most (every pair below)
PLANE_RATIO = 4.0             # the path spans a plane when its second spread is this much above its third


ANGULAR = ("heading", "bearing")     # anchors that fix a direction: a view's heading, a view-to-target bearing


@dataclass(frozen=True)
class Anchor:
    """One set of answers that ties the model to the map: a place (map pixels) or a direction (map degrees).

    "position": a view's (or a triangulated target's) place; "heading": the direction a view faces;
    "bearing": the direction from a view to its target (its direction answer in the model, the target's
    place answer minus the view's on the map)."""
    kind: str                       # "position", "heading" or "bearing"
    group: str                      # the query view it belongs to (left out together)
    model: np.ndarray               # (3,) a point, or (3,) a direction, model frame
    answer: np.ndarray | float      # (2,) map pixels, or the map heading in degrees
    uids: tuple[str, ...] = ()      # the questions that gave it


@dataclass
class Residual:
    anchor: Anchor
    residual: float                 # map pixels (position) or degrees (heading), against the fit
    left_out: float                 # the same against the fit made without the anchor's view (NaN: none)
    residual_m: float = float("nan")        # position residuals in metres when the scale is known
    left_out_m: float = float("nan")
    inlier: bool = False


@dataclass
class Alignment:
    ok: bool
    why: str = ""                              # when not ok, or what is weak about it
    up: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    basis: np.ndarray = field(default_factory=lambda: np.eye(3))   # rows e1, e2, up: model -> floor axes
    origin: np.ndarray = field(default_factory=lambda: np.zeros(3))
    floor: float = 0.0                         # the floor's height in floor-axis units
    sim2: complex = 1 + 0j                     # floor (flipped) -> map pixels: px = sim2 * a + t2
    t2: complex = 0j
    metres_per_px: float = float("nan")
    scale_source: str = ""                     # "map" (EDist answers), "camera height" (assumed), ""
    residuals: list[Residual] = field(default_factory=list)
    answers: int = 0                           # the answers (question uids) the fit rests on
    positions: int = 0                         # the position anchors given (when too few: why it failed)

    @property
    def world_to_pixel(self) -> np.ndarray:
        """The map's affine for the aligned world (metres, z up; world x = px x * m, y = -px y * m)."""
        k = 1.0 / self.metres_per_px
        return np.array([[k, 0.0, 0.0], [0.0, -k, 0.0]])

    @property
    def scale(self) -> float:
        """Model units to metres."""
        return abs(self.sim2) * self.metres_per_px

    @property
    def rotation(self) -> np.ndarray:
        """Model to world rotation: the floor axes, then the map's rotation (mirrored twice: proper)."""
        th = -np.angle(self.sim2)
        c, s = np.cos(th), np.sin(th)
        return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ self.basis

    def to_world(self, xyz) -> np.ndarray:
        """World points (metres, floor at z = 0) of model points (..., 3)."""
        xyz = np.asarray(xyz, float)
        out = self.scale * (xyz - self.origin) @ self.rotation.T
        t = self.t2 * self.metres_per_px
        return out + np.array([t.real, -t.imag, -self.scale * self.floor])

    def poses_to_world(self, c2w) -> np.ndarray:
        """Camera-to-world poses (..., 4, 4) moved into the world; NaN stays NaN."""
        c2w = np.asarray(c2w, float)
        out = c2w.copy()
        out[..., :3, :3] = self.rotation @ c2w[..., :3, :3]
        out[..., :3, 3] = self.to_world(c2w[..., :3, 3])
        return out

    def describe(self) -> str:
        if not self.ok:
            return self.why
        pos = [r for r in self.residuals if r.anchor.kind == "position" and r.inlier]
        out = [r for r in self.residuals if not r.inlier]
        med = np.median([r.residual_m if np.isfinite(r.residual_m) else r.residual for r in pos]) if pos else 0
        unit = "m" if self.scale_source == "map" else "px"
        text = (f"aligned by {self.answers} answers ({len(pos)} positions, median residual {med:.2f} {unit}; "
                f"{len(out)} answer{'s' if len(out) != 1 else ''} left out)")
        return text + (f"; {self.why}" if self.why else "")


# ------------------------------------------------------------------ floor
def floor_frame(c2w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(basis rows e1, e2, up; origin) of the floor under registered cameras (N, 4, 4)."""
    c2w = np.asarray(c2w, float)
    c2w = c2w[np.isfinite(c2w).all(axis=(1, 2))]
    gravity = -c2w[:, :3, 1].mean(axis=0)               # OpenCV y is down: up is minus the mean down axis
    gravity /= max(np.linalg.norm(gravity), 1e-12)
    centres = c2w[:, :3, 3]
    origin = centres.mean(axis=0)
    up = gravity
    if len(centres) >= 3:
        _, s, vt = np.linalg.svd(centres - origin, full_matrices=False)
        if len(s) == 3 and s[1] > PLANE_RATIO * s[2]:
            up = vt[2] * np.sign(vt[2] @ gravity or 1.0)
    e1 = np.cross(up, [1.0, 0.0, 0.0] if abs(up[0]) < 0.9 else [0.0, 1.0, 0.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(up, e1)
    return np.array([e1, e2, up]), origin


def _flat(basis, origin, xyz) -> np.ndarray:
    """Complex floor coordinates, mirrored (x, -y) as the map's image y runs down."""
    q = (np.asarray(xyz, float) - origin) @ basis.T
    return q[..., 0] - 1j * q[..., 1]


def _heading_dir(deg) -> np.ndarray:
    """The image direction (complex, y down) of a map heading."""
    h = np.radians(np.asarray(deg, float))
    return -np.sin(h) - 1j * np.cos(h)


# ------------------------------------------------------------------ fit
def _solve(a, b, hv, hu):
    """Least-squares similarity b ≈ z a + t from points, its rotation also voted by heading pairs
    (hv model directions, hu answered directions, complex units); None when degenerate."""
    ac, bc = a - a.mean(), b - b.mean()
    norm = float(np.sum(np.abs(ac) ** 2))
    if len(a) < MIN_POSITIONS or norm <= 1e-18:
        return None
    zp = np.sum(np.conj(ac) * bc)
    if abs(zp) < 1e-18:
        return None
    vote = zp / abs(zp) * len(a) + np.sum(hu * np.conj(hv) / np.maximum(np.abs(hv), 1e-12))
    rot = vote / abs(vote) if abs(vote) > 1e-12 else zp / abs(zp)
    s = float(np.real(np.sum(np.conj(rot * ac) * bc)) / norm)
    if s <= 0:
        return None
    z = s * rot
    return z, b.mean() - z * a.mean()


def _errors(z, t, a, b, hv, hu):
    pos = np.abs(z * a + t - b)
    ang = np.degrees(np.abs(np.angle(hu * np.conj(z * hv))))
    return pos, ang


def _fit(a, b, hv, hu, tol_px):
    """RANSAC over pairs of positions, then least squares on the inliers: (z, t, pos inliers, heading inliers)."""
    n = len(a)
    pairs = list(combinations(range(n), 2))
    if len(pairs) > MAX_PAIRS:
        rng = np.random.default_rng(0)
        pairs = [pairs[k] for k in rng.choice(len(pairs), MAX_PAIRS, replace=False)]
    best, best_key = None, None
    for i, j in pairs:
        if abs(a[j] - a[i]) < 1e-12:
            continue
        z = (b[j] - b[i]) / (a[j] - a[i])
        t = b[i] - z * a[i]
        pe, he = _errors(z, t, a, b, hv, hu)
        pin, hin = pe <= tol_px, he <= HEADING_TOLERANCE_DEG
        key = (int(pin.sum() + hin.sum()), -float(np.minimum(pe / tol_px, 1).sum()
                                                   + np.minimum(he / HEADING_TOLERANCE_DEG, 1).sum()))
        if best_key is None or key > best_key:
            best, best_key = (pin, hin), key
    if best is None:
        return None
    return _refine(a, b, hv, hu, tol_px, *best)


def _refine(a, b, hv, hu, tol_px, pin, hin):
    """Least squares on the inliers `pin`, `hin`, refitted until the inlier set settles (3 rounds at most)."""
    if pin.sum() < MIN_POSITIONS:
        return None
    for _ in range(3):
        sol = _solve(a[pin], b[pin], hv[hin], hu[hin])
        if sol is None:
            return None
        z, t = sol
        pe, he = _errors(z, t, a, b, hv, hu)
        new_p, new_h = pe <= tol_px, he <= HEADING_TOLERANCE_DEG
        if new_p.sum() < MIN_POSITIONS or ((new_p == pin).all() and (new_h == hin).all()):
            break
        pin, hin = new_p, new_h
    return z, t, pin, hin


def align(c2w: np.ndarray, anchors: list[Anchor], metres_per_px: float | None = None,
          map_size: tuple[int, int] | None = None, points: np.ndarray | None = None) -> Alignment:
    """The similarity from the model (registered poses `c2w`, sparse `points`) to the map, fitted to `anchors`.

    `metres_per_px` is the map's scale (None when unknown), `map_size` the map's (width, height) in the
    pixels the anchors are given in.
    """
    c2w = np.asarray(c2w, float).reshape(-1, 4, 4)
    registered = np.isfinite(c2w).all(axis=(1, 2))
    if registered.sum() < 2:
        return Alignment(False, "the model has fewer than 2 registered frames")
    basis, origin = floor_frame(c2w[registered])
    positions = [x for x in anchors if x.kind == "position"]
    headings = [x for x in anchors if x.kind in ANGULAR]
    places = {tuple(np.round(np.asarray(x.answer, float), 3)) for x in positions}
    if len(places) < MIN_POSITIONS:
        return Alignment(False, f"only {len(positions)} usable position answer{'s' if len(positions) != 1 else ''}"
                         f" of localised query views (at least {MIN_POSITIONS} at different places are needed): "
                         "the path stays in the model's own frame, 3D only", up=basis[2], basis=basis, origin=origin,
                         positions=len(places))
    known = metres_per_px is not None and np.isfinite(metres_per_px) and metres_per_px > 0
    diag = float(np.hypot(*map_size)) if map_size else 1000.0 * np.sqrt(2)
    tol_px = POS_TOLERANCE_M / metres_per_px if known else POS_TOLERANCE_MAP * diag
    a = _flat(basis, origin, np.array([x.model for x in positions]))
    b = np.array([complex(*np.asarray(x.answer, float)) for x in positions])
    hv = _flat(basis, np.zeros(3), np.array([x.model for x in headings]).reshape(-1, 3))
    hu = _heading_dir([float(x.answer) for x in headings])
    fit = _fit(a, b, hv, hu, tol_px)
    if fit is None:
        return Alignment(False, "the localised query views' position answers do not fix a similarity "
                         "(they coincide in the model)", up=basis[2], basis=basis, origin=origin)
    z, t, pin, hin = fit
    if pin.sum() < MIN_POSITIONS:
        return Alignment(False, "fewer than 2 position answers agree on an alignment", up=basis[2], basis=basis,
                         origin=origin)

    # The floor, and the scale when the map has none: the cloud's lowest points, an assumed camera height.
    heights = ((c2w[registered, :3, 3] - origin) @ basis[2])
    floor, source, why = float(np.median(heights)), "map", ""
    pts = np.asarray(points, float).reshape(-1, 3) if points is not None else np.zeros((0, 3))
    pts = pts[np.isfinite(pts).all(axis=1)]
    low = None
    if len(pts) >= 20:
        ph = (pts - origin) @ basis[2]
        low = float(np.percentile(ph, FLOOR_PERCENTILE))
        if low >= floor:
            low = None
    if not known:
        source = "camera height"
        gap = (floor - low) if low is not None else None
        metres_per_px = CAMERA_HEIGHT_M / (abs(z) * gap) if gap else CAMERA_HEIGHT_M / (abs(z) * 1.0)
        why = (f"the map's scale is unknown: metres assume the camera {CAMERA_HEIGHT_M:g} m above the floor"
               + ("" if gap else " and a camera height of one model unit"))
    if low is not None:
        floor = low
    else:
        floor = floor - CAMERA_HEIGHT_M / (abs(z) * metres_per_px)

    result = Alignment(True, why, basis[2], basis, origin, floor, complex(z), complex(t), float(metres_per_px),
                       source)
    pe, he = _errors(z, t, a, b, hv, hu)
    groups = sorted({x.group for x in anchors})
    loo: dict[str, tuple] = {}
    for g in groups:                    # the fit each view's answers are judged by: made without them
        kp = np.array([x.group != g for x in positions])
        kh = np.array([x.group != g for x in headings], bool)
        # The consensus without the view's answers: the inliers but them, refitted (a view that was an
        # outlier did not move the fit, and one that was an inlier no longer weighs in).
        other = _refine(a[kp], b[kp], hv[kh], hu[kh], tol_px, pin[kp], hin[kh])
        loo[g] = other if other is not None and other[2].sum() >= MIN_POSITIONS else None
    m = metres_per_px if known else float("nan")
    for k, x in enumerate(positions):
        o = loo[x.group]
        lo = float(np.abs(o[0] * a[k] + o[1] - b[k])) if o is not None else float("nan")
        result.residuals.append(Residual(x, float(pe[k]), lo, float(pe[k]) * m, lo * m, bool(pin[k])))
    for k, x in enumerate(headings):
        o = loo[x.group]
        lo = float(_errors(o[0], o[1], a[:0], b[:0], hv[k:k + 1], hu[k:k + 1])[1][0]) if o is not None \
            else float("nan")
        result.residuals.append(Residual(x, float(he[k]), lo, inlier=bool(hin[k])))
    result.answers = len({u for r in result.residuals if r.inlier for u in (r.anchor.uids or (r.anchor.group,))})
    return result
