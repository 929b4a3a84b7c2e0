"""Per-question scores, exactly as GST-Bench defines them (spec section 2).

All functions take numpy arrays (or scalars) and return arrays in [0, 1]
together with the error each score is based on; NaN predictions score 0.
Thresholds are inclusive.
"""
from __future__ import annotations

import numpy as np

ANGLE_TOLERANCES = np.array([15.0, 30.0, 45.0])
MRA_THETAS = np.round(np.arange(0.50, 0.951, 0.05), 2)          # 0.50, 0.55, ..., 0.95
POINT_THRESHOLDS = np.array([100.0, 150.0, 200.0, 250.0, 300.0])  # normalised units
MRA_TOLERANCE = 1e-9


def angle_error(pred, truth) -> np.ndarray:
    """Circular difference in degrees, in [0, 180]."""
    d = np.mod(np.abs(np.asarray(pred, float) - np.asarray(truth, float)), 360.0)
    return np.minimum(d, 360.0 - d)


def score_angle(pred, truth) -> tuple[np.ndarray, np.ndarray]:
    e = angle_error(pred, truth)
    s = (e[..., None] <= ANGLE_TOLERANCES).mean(axis=-1)
    return np.where(np.isnan(e), 0.0, s), e


def relative_error(pred, truth) -> np.ndarray:
    pred = np.asarray(pred, float)
    truth = np.asarray(truth, float)
    diff = np.abs(pred - truth)
    with np.errstate(divide="ignore", invalid="ignore"):
        # A zero-distance truth is only met by a zero prediction.
        return np.where(truth == 0, np.where(diff == 0, 0.0, np.inf), diff / np.abs(truth))


def score_distance(pred, truth) -> tuple[np.ndarray, np.ndarray]:
    """Mean relative accuracy over theta in {0.50, ..., 0.95}."""
    r = relative_error(pred, truth)
    s = (r[..., None] <= (1.0 - MRA_THETAS) + MRA_TOLERANCE).mean(axis=-1)
    return np.where(np.isnan(r), 0.0, s), r


def point_error(pred, truth) -> np.ndarray:
    """Euclidean distance in normalised [0, 999] units; arrays of shape (..., 2)."""
    d = np.asarray(pred, float) - np.asarray(truth, float)
    return np.hypot(d[..., 0], d[..., 1])


def score_point(pred, truth) -> tuple[np.ndarray, np.ndarray]:
    e = point_error(pred, truth)
    s = (e[..., None] <= POINT_THRESHOLDS).mean(axis=-1)
    return np.where(np.isnan(e), 0.0, s), e


def score_choice(pred, truth) -> tuple[np.ndarray, np.ndarray]:
    """pred and truth are option indices; NaN marks an unparsed prediction."""
    pred = np.asarray(pred, float)
    truth = np.asarray(truth, float)
    hit = (pred == truth).astype(float)
    return hit, np.where(np.isnan(pred), np.nan, 1.0 - hit)


# ---------------------------------------------------------------- chance level
def random_angle_score() -> float:
    """Expected score of a uniform guess on [-180, 180]: P(e <= tau) = tau / 180."""
    return float(np.mean(ANGLE_TOLERANCES / 180.0))


def random_choice_score(n_options: int = 4) -> float:
    return 1.0 / n_options


def random_point_score(truth) -> np.ndarray:
    """Expected score of a uniform guess over the [0, 999]^2 map, per truth.

    P(dist <= tau) is the area of the disc of radius tau around the truth
    that lies inside the map, over the map's area: the disc-area formula
    pi tau^2 / 999^2, clipped at the map's border (in closed form).
    """
    truth = np.atleast_2d(np.asarray(truth, float))
    side = 999.0
    out = np.zeros(len(truth))
    for tau in POINT_THRESHOLDS:
        out += _disc_in_rect_area(truth[:, 0], truth[:, 1], tau, side, side) / side**2
    return out / len(POINT_THRESHOLDS)


def random_distance_score(truth, max_distance: float) -> np.ndarray:
    """Expected MRA of a uniform guess on [0, max_distance], per truth.

    Distances have no natural bound; the caller passes the domain it uses
    (the column's largest true distance), and a guess passes theta when it
    falls in [g (1 - t), g (1 + t)] with t = 1 - theta, clipped to the domain.
    """
    g = np.asarray(truth, float)
    if max_distance <= 0:
        return np.zeros_like(g)
    out = np.zeros_like(g)
    for t in 1.0 - MRA_THETAS:
        lo = np.clip(g * (1 - t), 0, max_distance)
        hi = np.clip(g * (1 + t), 0, max_distance)
        out += (hi - lo) / max_distance
    return out / len(MRA_THETAS)


def _disc_in_rect_area(cx, cy, r, w, h) -> np.ndarray:
    """Area of the disc (cx, cy, r) inside [0, w] x [0, h], exactly (closed form, vectorised).

    With the disc moved to the origin, the area below-left of a corner (a, b)
    is `_disc_below_left`; the rectangle's area is its four corners' signed sum.
    """
    x0, x1 = -np.asarray(cx, float), w - np.asarray(cx, float)
    y0, y1 = -np.asarray(cy, float), h - np.asarray(cy, float)
    return (_disc_below_left(x1, y1, r) - _disc_below_left(x0, y1, r)
            - _disc_below_left(x1, y0, r) + _disc_below_left(x0, y0, r))


def _disc_below_left(a, b, r: float) -> np.ndarray:
    """Area of the disc of radius r at the origin with x <= a and y <= b.

    A vertical chord at x spans [-s, s], s = sqrt(r^2 - x^2); below y = b it
    keeps b + s where |x| < xb = sqrt(r^2 - b^2) (the line cuts the chord),
    and further out all of it (2 s) when b >= 0, none of it when b < 0. Both
    integrate in closed form with the primitive of s.
    """
    a = np.clip(a, -r, r)
    b = np.asarray(b, float)
    xb = np.sqrt(np.maximum(r * r - b * b, 0.0))
    outer = np.where(b >= 0, 2.0, 0.0)

    def s_integral(p, q):                       # integral of s over [p, q]
        return _chord_primitive(q, r) - _chord_primitive(p, r)

    left = outer * s_integral(-r, np.minimum(a, -xb))
    mid_end = np.clip(a, -xb, xb)
    middle = b * (mid_end + xb) + s_integral(-xb, mid_end)
    right = outer * s_integral(xb, np.maximum(a, xb))
    return left + middle + right


def _chord_primitive(x, r: float) -> np.ndarray:
    """A primitive of sqrt(r^2 - x^2) on [-r, r]."""
    x = np.clip(x, -r, r)
    return 0.5 * (x * np.sqrt(np.maximum(r * r - x * x, 0.0)) + r * r * np.arcsin(x / r))
