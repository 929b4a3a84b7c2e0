"""How alike two top-down maps are, and how far a drawn path lies from a walked one (numpy only).

The choice checks compare option images with a reference map. Releases
resize, re-encode and pad their maps, so neither measure trusts pixel
positions as stored:

- A map is first reduced to a *signature*: the content is cut out of its
  background (the border's most common colour) and resampled by area onto
  a fixed grid, so the same map at another size or shifted by a margin
  gives the same grid. Its aspect ratio is kept beside the grid.
- What is compared on the grid depends on the level. Occupancy maps are
  compared by their free space (the share of free floor per cell); floor
  plans by their grey levels (walls, and each room's tint: how the free
  space is divided); a photo-like map by its colours. Either way the similarity is a zero-mean
  normalised cross-correlation, the best over shifts of up to
  `SHIFT_CELLS` cells (what cropping leaves of a small shift), times the
  agreement of the aspect ratios.
- Nothing here is invariant to mirroring or rotation on purpose: the hard
  level's distractors are the right map mirrored, and a measure that
  forgave a flip (histograms, moments, rotation search) would rate them
  equal to the truth.

Trajectory options are read by colour: the red path (`path_pixels`) and
the blue start dot (`start_dot`). `path_distance` compares such a path
with camera positions projected onto the map.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

LEVELS = ("photo", "occupancy", "floorplan")
GRID = 64                  # cells across a signature (the longer side of the content)
SHIFT_CELLS = 2            # residual misalignment searched, in cells
BACKGROUND_TOLERANCE = 40  # colour distance (0..255 per channel) still counted as background
MIN_CONTENT = 0.002        # fraction of pixels: less is a blank image
MIN_LINE_SHARE = 0.01      # a row or column of the crop needs this share of content pixels
FREE_GRAY = 128            # occupancy: brighter is free floor
WALL_GRAY = 110            # floor plan: darker is wall (telling the level of a map)


class MapUnusable(ValueError):
    """The image cannot be compared (blank, too small); the message says why."""


@dataclass(frozen=True)
class Signature:
    level: str
    grid: np.ndarray        # (GRID, GRID, C) float32, standardised per channel
    aspect: float           # content width / height, in pixels


def to_gray(rgb: np.ndarray) -> np.ndarray:
    rgb = np.asarray(rgb)
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def background_color(rgb: np.ndarray) -> np.ndarray:
    """The most common colour along the image's border (coarsely quantised), as RGB floats."""
    border = np.concatenate([rgb[0], rgb[-1], rgb[:, 0], rgb[:, -1]]).astype(np.int32)
    keys = (border[:, 0] // 16) * 256 + (border[:, 1] // 16) * 16 + border[:, 2] // 16
    values, counts = np.unique(keys, return_counts=True)
    common = border[keys == values[np.argmax(counts)]]
    return common.mean(axis=0)


def content_box(rgb: np.ndarray) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1), exclusive ends: where the image differs from its background."""
    h, w = rgb.shape[:2]
    differs = _differs_from(rgb, background_color(rgb), BACKGROUND_TOLERANCE)
    if np.count_nonzero(differs) / differs.size < MIN_CONTENT:
        raise MapUnusable("the image is blank (nothing differs from its background)")
    # Rows and columns with a few stray pixels (JPEG noise, a logo) do not widen the box.
    cols = np.flatnonzero(np.count_nonzero(differs, axis=0) >= max(1, MIN_LINE_SHARE * h))
    rows = np.flatnonzero(np.count_nonzero(differs, axis=1) >= max(1, MIN_LINE_SHARE * w))
    if len(cols) < 4 or len(rows) < 4:
        raise MapUnusable("the image's content is too small to compare")
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def _differs_from(rgb: np.ndarray, color: np.ndarray, tolerance: float) -> np.ndarray:
    """(H, W) bool: some channel is more than `tolerance` from `color` (compared per channel as
    stored: converting a whole map to float would cost more than the rest of the signature)."""
    out = np.zeros(rgb.shape[:2], bool)
    for k in range(3):
        c = rgb[..., k]
        lo, hi = color[k] - tolerance, color[k] + tolerance
        if c.dtype != np.uint8:
            out |= (c < lo) | (c > hi)
            continue
        # For whole numbers c < lo is c < ceil(lo) and c > hi is c > floor(hi): compared as uint8, not
        # as floats (twice as fast), each only where some value can pass.
        below, above = math.ceil(lo), math.floor(hi)
        if below > 255 or above < 0:
            out[:] = True
            continue
        if below > 0:
            out |= c < below
        if above < 255:
            out |= c > above
    return out


def area_resample(values: np.ndarray, out_h: int, out_w: int) -> np.ndarray:
    """(H, W[, C]) averaged over the cells of an out_h x out_w grid, by area.

    A large image is first block-averaged by a whole factor (dropping fewer
    than that many pixels at the edges, half on each side), then each cell
    sums its pixels exactly, fractions at its borders included, from an
    integral image. No matrix products: on a busy machine a threaded BLAS
    can make a small product ten times slower. Values are taken as float32;
    uint8 values (whole numbers) are block-summed as integers first, which
    gives the same float32 sums (whole numbers below 2^24 add exactly).
    """
    v = np.asarray(values)
    if v.dtype != np.uint8:
        v = v.astype(np.float32, copy=False)
    if v.ndim == 2:
        v = v[..., None]
    h, w = v.shape[:2]
    f = max(1, min(h // (2 * out_h), w // (2 * out_w)))
    if f > 1:
        h2, w2 = h // f, w // f
        y0, x0 = (h - h2 * f) // 2, (w - w2 * f) // 2
        v = _block_mean(v[y0:y0 + h2 * f, x0:x0 + w2 * f].reshape(h2, f, w2, f, -1))
        h, w = h2, w2
    v = v.astype(np.float32, copy=False)
    ys = np.linspace(0.0, h, out_h + 1)
    xs = np.linspace(0.0, w, out_w + 1)
    integral = np.zeros((h + 1, w + 1, v.shape[2]))
    integral[1:, 1:] = v.cumsum(0).cumsum(1)
    at = _interp_axis(_interp_axis(integral, ys, 0), xs, 1)
    sums = at[1:, 1:] - at[:-1, 1:] - at[1:, :-1] + at[:-1, :-1]
    return (sums / np.outer(np.diff(ys), np.diff(xs))[..., None]).astype(np.float32)


def _block_mean(blocks: np.ndarray) -> np.ndarray:
    """blocks.astype(float32).mean(axis=(1, 3)) of (h, f, w, f, C) float32 or uint8, to the bit, about
    four times faster.

    The float32 sums are added in the order numpy's reduction adds them (a changed order would
    change the signatures' last bits): with one channel, each block row is summed along x and then
    the rows are added; with several channels, every pixel is added in turn, row by row. At f >= 8
    numpy sums a row with eight accumulators, so there its own mean is used.
    """
    f = blocks.shape[1]
    if blocks.dtype == np.uint8 and f * f * 255 < 2 ** 24:
        # Whole numbers: their float32 sums are exact in any order, so add them as integers, whole
        # rows of blocks first (long contiguous runs), then the columns within each block.
        rows = blocks[:, 0].astype(np.uint16 if f * f * 255 < 2 ** 16 else np.uint32)
        for dy in range(1, f):
            rows += blocks[:, dy]
        out = rows[:, :, 0].copy()
        for dx in range(1, f):
            out += rows[:, :, dx]
        out = out.astype(np.float32)
    elif blocks.dtype != np.float32:
        return blocks.astype(np.float32).mean(axis=(1, 3))
    elif blocks.shape[-1] == 1:
        if f >= 8:
            return blocks.mean(axis=(1, 3))
        rows = blocks[:, :, :, 0].copy()
        for dx in range(1, f):
            rows += blocks[:, :, :, dx]
        out = rows[:, 0].copy()
        for dy in range(1, f):
            out += rows[:, dy]
    else:
        out = blocks[:, 0, :, 0].copy()
        for dy in range(f):
            for dx in range(f):
                if dy or dx:
                    out += blocks[:, dy, :, dx]
    # As np.mean divides: by the count as a numpy integer (in float64), back into float32.
    return np.true_divide(out, np.intp(f * f), out=out, casting="unsafe")


def _interp_axis(a: np.ndarray, where: np.ndarray, axis: int) -> np.ndarray:
    """`a` sampled at fractional indices along `axis`, linearly (exact for an integral image)."""
    lo = np.clip(np.floor(where).astype(int), 0, a.shape[axis] - 2)
    t = (where - lo).reshape([-1 if k == axis else 1 for k in range(a.ndim)])
    return np.take(a, lo, axis) * (1 - t) + np.take(a, lo + 1, axis) * t


def level_channels(rgb: np.ndarray, level: str) -> np.ndarray:
    """What a level's map is compared by, per pixel: free floor (occupancy); the plan's grey level
    (floor plan: walls dark, each room's floor its own light tint, so the partition of the free
    space into rooms counts as well as the walls); colour (photo)."""
    # Occupancy and colour stay uint8 (area_resample sums whole numbers faster as integers).
    if level == "occupancy":
        return (to_gray(rgb) >= FREE_GRAY).view(np.uint8)
    if level == "floorplan":
        return to_gray(rgb).astype(np.float32)
    if level == "photo":
        return np.asarray(rgb, np.uint8)
    raise ValueError(f"unknown map level {level!r}; expected one of {LEVELS}")


def signature(rgb: np.ndarray, level: str) -> Signature:
    """The map's content on the comparison grid. Raises MapUnusable."""
    rgb = np.asarray(rgb)
    if rgb.ndim != 3 or rgb.shape[2] < 3 or min(rgb.shape[:2]) < 8:
        raise MapUnusable(f"not an RGB image of at least 8x8 pixels (shape {rgb.shape})")
    rgb = rgb[..., :3]
    x0, y0, x1, y1 = content_box(rgb)
    grid = area_resample(level_channels(rgb[y0:y1, x0:x1], level), GRID, GRID)
    grid = grid - grid.mean(axis=(0, 1))
    norm = np.sqrt((grid ** 2).sum())
    if norm < 1e-6:
        raise MapUnusable("the image's content is uniform")
    return Signature(level, grid / norm, (x1 - x0) / (y1 - y0))


def similarity(a: Signature, b: Signature) -> float:
    """In [-1, 1]: normalised cross-correlation of the grids at their best small shift, times the
    aspect ratios' agreement (min/max)."""
    best = -1.0
    s = SHIFT_CELLS
    for dy in range(-s, s + 1):
        for dx in range(-s, s + 1):
            pa = a.grid[max(dy, 0):GRID + min(dy, 0), max(dx, 0):GRID + min(dx, 0)]
            pb = b.grid[max(-dy, 0):GRID + min(-dy, 0), max(-dx, 0):GRID + min(-dx, 0)]
            best = max(best, float((pa * pb).sum()))
    aspect = min(a.aspect, b.aspect) / max(a.aspect, b.aspect)
    return best * aspect


def guess_level(rgb: np.ndarray) -> str | None:
    """Which level a map image is, when its look says so: nearly all black and white is an
    occupancy map; a light, mostly grey-free image with dark thin walls a floor plan; a colourful
    one a photo. None when it is neither clearly."""
    rgb = np.asarray(rgb, np.float32)[..., :3]
    gray = to_gray(rgb)
    saturation = rgb.max(axis=2) - rgb.min(axis=2)
    binary = ((gray < 40) | (gray > 215)) & (saturation < 30)
    if binary.mean() > 0.97:
        return "occupancy"
    light = gray > 190
    dark = (gray < WALL_GRAY) & (saturation < 30)
    if light.mean() > 0.85 and 0.003 < dark.mean() < 0.12:
        return "floorplan"
    if saturation.mean() > 12:
        return "photo"
    return None


# ------------------------------------------------------------ trajectories
def _channels(rgb: np.ndarray) -> np.ndarray:
    """(3, H, W) uint8: the colour planes, contiguous (comparisons on them are several times faster
    than on the interleaved channels)."""
    return np.ascontiguousarray(np.moveaxis(np.asarray(rgb)[..., :3], -1, 0), np.uint8)


def _pixels_where(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(xs, ys) of a (H, W) mask's set pixels, in row-major order (as np.nonzero gives them; flat
    indices are found many times faster)."""
    ys, xs = np.divmod(np.flatnonzero(mask), mask.shape[1])
    return xs, ys


def _red_mask(r: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    # r > 150 and r - g > 70 and r - b > 70, in uint8: r - 70 wraps only where r < 70, masked by r > 150.
    lim = r - np.uint8(70)
    return (r > 150) & (g < lim) & (b < lim)


def _blue_mask(r: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    # b > 150 and b - r > 70 and b - g > 50, in uint8 (no wrap where b > 150).
    return (b > 150) & (r < b - np.uint8(70)) & (g < b - np.uint8(50))


def path_pixels(rgb: np.ndarray) -> np.ndarray:
    """(N, 2) x, y of the red path's pixels (the drawn trajectory)."""
    return trajectory_marks(rgb)[0]


def start_dot(rgb: np.ndarray, min_pixels: int = 12) -> np.ndarray | None:
    """x, y of the blue start dot's centre; None when there is none."""
    return trajectory_marks(rgb, min_pixels)[1]


def trajectory_marks(rgb: np.ndarray, min_pixels: int = 12) -> tuple[np.ndarray, np.ndarray | None]:
    """What a trajectory option shows, read by colour: its red path's pixels (N, 2; x, y at pixel
    centres) and its blue start dot's centre (None when fewer than `min_pixels` are blue)."""
    r, g, b = _channels(rgb)
    xs, ys = _pixels_where(_red_mask(r, g, b))
    drawn = np.stack([xs, ys], axis=1).astype(np.float64) + 0.5
    xs, ys = _pixels_where(_blue_mask(r, g, b))
    start = None if len(xs) < min_pixels else np.array([xs.mean(), ys.mean()]) + 0.5
    return drawn, start


def densify(polyline: np.ndarray, step: float = 1.0) -> np.ndarray:
    """Points along the polyline at most `step` apart (its vertices included)."""
    pts = np.asarray(polyline, float)
    if len(pts) < 2:
        return pts
    out = [pts[:1]]
    for a, b in zip(pts[:-1], pts[1:]):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / step)))
        t = np.arange(1, n + 1)[:, None] / n
        out.append(a + (b - a) * t)
    return np.concatenate(out)


def _nearest_both(a: np.ndarray, b: np.ndarray, rows: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """For each point of a, the distance to the nearest point of b; and for each point of b, to the
    nearest of a. One matrix of squared distances serves both ((a - b)^2 is (b - a)^2 exactly),
    made `rows` points of a at a time: blocks that stay in the CPU's cache halve the time."""
    to_b = np.empty(len(a))
    to_a = np.full(len(b), np.inf)
    for k in range(0, len(a), rows):
        d2 = np.subtract.outer(a[k:k + rows, 0], b[:, 0])
        np.square(d2, out=d2)
        dy = np.subtract.outer(a[k:k + rows, 1], b[:, 1])
        np.square(dy, out=dy)
        d2 += dy
        to_b[k:k + rows] = d2.min(axis=1)
        np.minimum(to_a, d2.min(axis=0), out=to_a)
    return np.sqrt(to_b), np.sqrt(to_a)


@dataclass(frozen=True)
class PathDistance:
    chamfer: float          # symmetric: mean of the two directed mean nearest distances, map pixels
    start_offset: float     # from the drawn start dot to where the walk starts, map pixels

    @property
    def total(self) -> float:
        """What options are ranked by: a path drawn backwards is as far as its start is wrong."""
        return self.chamfer + self.start_offset


def walk_points(walked: np.ndarray, max_points: int = 800) -> np.ndarray:
    """The walked polyline as path_distance measures it: points at most a pixel apart, at most
    `max_points` of them (computed once for all of a question's options: see path_distances)."""
    walked = densify(walked, 1.0)
    if len(walked) > max_points:
        walked = walked[np.linspace(0, len(walked) - 1, max_points).astype(int)]
    return walked


def path_distance(drawn: np.ndarray, start: np.ndarray, walked: np.ndarray, max_points: int = 800) -> PathDistance:
    """How far a drawn path (pixels, start dot) lies from a walked one (a polyline), in the same pixels."""
    return path_distance_to(drawn, start, walk_points(walked, max_points), max_points)


def path_distance_to(drawn: np.ndarray, start: np.ndarray, walk: np.ndarray, max_points: int = 800) -> PathDistance:
    """path_distance against a walk already prepared by walk_points."""
    if len(drawn) > max_points:      # a thick stroke has thousands of pixels; a sample measures the same
        drawn = drawn[np.linspace(0, len(drawn) - 1, max_points).astype(int)]
    to_walk, to_drawn = _nearest_both(drawn, walk)
    chamfer = 0.5 * (to_walk.mean() + to_drawn.mean())
    return PathDistance(float(chamfer), float(np.linalg.norm(np.asarray(start) - walk[0])))
