"""Finding the red bounding box GST-Bench draws around the target in a visual question's video.

The box is a thin outline of saturated red. A red object in the scene is red *mass*; the box is red
*lines*: what is looked for is a rectangle of thin, long red strokes, not red pixels as such.

Per frame (numpy only, on the RGB frame):
1. red pixels: R well above G and B (compression and blur soften the line's colour, not its hue);
2. each red pixel's run length along its row and its column: a pixel of a horizontal stroke is in a long
   row run and a short column run (the line's thickness), a vertical one the other way round; a blob is
   long both ways and is dropped;
3. strokes grouped into edges (rows of one horizontal line merge, likewise columns);
4. rectangles assembled from two vertical edges with matching extents and the horizontal edges at their
   ends (or the reverse), each side covered for most of its length; a side may be missing where the box
   runs off the frame. The best covered rectangle wins.

A box is "whole" when its four sides are inside the frame, "cut" when a side is at or beyond the frame's
edge, and a frame without one is "absent". The limits (docs/frames.md): a box thinner than MIN_SIDE pixels
is a red dot and not found; a red scene object drawn as a thin rectangle (a red picture frame) can be
taken for the box.
"""
from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# A red stroke: R above RED_MIN, and above G and B by RED_MARGIN (the demo draws (230, 40, 40); H.264 at
# crf 26 leaves its core above (190, 70, 70) and its blurred rim about (170, 100, 100)).
RED_MIN = 120
RED_MARGIN = 60
MAX_THICK = 7        # a stroke is at most this thick (3 px drawn, widened by blur and chroma subsampling)
MIN_SIDE = 8         # shorter strokes are noise or a red dot
COVER = 0.6          # a side must be red over this share of its length
INSIDE_RED = 0.35   # an outline's inside may be this red (a red part of the target itself)
EDGE_MARGIN = 3      # a side this near the frame's border is cut by it

WHOLE, CUT, ABSENT = "whole", "cut", "absent"


@dataclass(frozen=True)
class RedBox:
    x0: int
    y0: int
    x1: int          # inclusive
    y1: int
    state: str       # WHOLE or CUT

    @property
    def size(self) -> tuple[int, int]:
        return self.x1 - self.x0 + 1, self.y1 - self.y0 + 1


def red_mask(rgb: np.ndarray) -> np.ndarray:
    """Saturated red pixels. In uint8 without widening: where R >= RED_MIN, R - RED_MARGIN cannot wrap."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    mask = r >= RED_MIN
    if not mask.any():
        return mask
    floor = r - np.uint8(RED_MARGIN)
    mask &= g <= floor
    mask &= b <= floor
    return mask


def _runs(mask: np.ndarray):
    """Runs of True along each row: (row, start, end exclusive) arrays, in row order."""
    h, w = mask.shape
    pad = np.zeros((h, w + 2), np.int8)
    pad[:, 1:-1] = mask
    d = np.diff(pad, axis=1)
    rs, starts = np.nonzero(d == 1)
    _, ends = np.nonzero(d == -1)
    return rs, starts, ends


def _run_length(mask: np.ndarray) -> np.ndarray:
    """Each True pixel's run length along its row (0 elsewhere)."""
    h, w = mask.shape
    rs, starts, ends = _runs(mask)
    delta = np.zeros((h, w + 1), np.int32)
    delta[rs, starts] = ends - starts
    delta[rs, ends] -= ends - starts
    return np.cumsum(delta, axis=1)[:, :w] * mask


def _edges(strokes: np.ndarray) -> list[tuple[float, int, int]]:
    """Horizontal edges from a stroke mask: (row centre, x0, x1 exclusive), adjacent rows merged."""
    rs, starts, ends = _runs(strokes)
    keep = ends - starts >= MIN_SIDE
    rs, starts, ends = rs[keep], starts[keep], ends[keep]
    edges: list[list] = []          # [row sum, rows, x0, x1, last row]
    for y, a, b in zip(rs.tolist(), starts.tolist(), ends.tolist()):
        for e in edges:
            if y - e[4] <= 1 and min(b, e[3]) - max(a, e[2]) > 0.5 * min(b - a, e[3] - e[2]):
                e[0] += y
                e[1] += 1
                e[2], e[3], e[4] = min(a, e[2]), max(b, e[3]), y
                break
        else:
            edges.append([y, 1, a, b, y])
    return [(e[0] / e[1], e[2], e[3]) for e in edges]


def find_red_box(rgb: np.ndarray, region: tuple[int, int, int, int] | None = None) -> RedBox | None:
    """The drawn red box in one RGB frame, or None when it has none. `region` (y0, y1, x0, x1) limits the
    search to where red can be (scan_video's chroma hint); the box is in frame pixels either way."""
    ry, rx = (region[0], region[2]) if region is not None else (0, 0)
    mask = red_mask(rgb[region[0]:region[1], region[2]:region[3]] if region is not None else rgb)
    if mask.sum() < 2 * MIN_SIDE:
        return None
    ys, xs = np.nonzero(mask.any(axis=1))[0], np.nonzero(mask.any(axis=0))[0]
    oy, ox = int(ys[0]), int(xs[0])
    m = mask[oy:ys[-1] + 1, ox:xs[-1] + 1]            # only the part with red in it
    oy, ox = oy + ry, ox + rx
    hlen, vlen = _run_length(m), _run_length(m.T).T
    hstroke = (hlen >= MIN_SIDE) & (vlen <= MAX_THICK)
    vstroke = (vlen >= MIN_SIDE) & (hlen <= MAX_THICK)
    if not hstroke.any() and not vstroke.any():
        return None
    hedges = _edges(hstroke)                           # (y, x0, x1)
    vedges = _edges(vstroke.T)                         # (x, y0, y1)
    h, w = rgb.shape[:2]
    box = _best_rectangle(m, hedges, vedges, (ox, oy, w, h))
    if box is None:
        return None
    x0, y0, x1, y1 = box[0] + ox, box[1] + oy, box[2] + ox, box[3] + oy
    at_edge = x0 <= EDGE_MARGIN or y0 <= EDGE_MARGIN or x1 >= w - 1 - EDGE_MARGIN or y1 >= h - 1 - EDGE_MARGIN
    return RedBox(x0, y0, x1, y1, CUT if at_edge else WHOLE)


def _candidates(values: list[tuple[float, float]], limit: int = 10) -> list[int]:
    """Positions (value, weight) merged within a stroke's thickness, the heaviest `limit` kept."""
    out: list[list[float]] = []               # [weighted sum, weight]
    for v, wt in sorted(values):
        if out and abs(v - out[-1][0] / out[-1][1]) <= MAX_THICK / 2:
            out[-1][0] += v * wt
            out[-1][1] += wt
        else:
            out.append([v * wt, wt])
    out.sort(key=lambda e: -e[1])
    return sorted(int(round(e[0] / e[1])) for e in out[:limit])


def _profiles(mask: np.ndarray, at: list[int]) -> np.ndarray:
    """(len(at), W + 1): per line `at` (a row of `mask`), the cumulative count of columns red within a
    stroke's thickness of it."""
    n, w = mask.shape
    out = np.zeros((len(at), w + 1), np.int32)
    for r, y in enumerate(at):
        a, b = max(0, y - MAX_THICK // 2), min(n, y + MAX_THICK // 2 + 1)
        if a < b:
            np.cumsum(mask[a:b].any(axis=0), out=out[r, 1:])
    return out


def _pairs(v: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index pairs (i < j) of positions at least MIN_SIDE apart, and the positions."""
    v = np.asarray(v, int)
    i, j = np.triu_indices(len(v), 1)
    keep = v[j] - v[i] >= MIN_SIDE
    return i[keep], j[keep], v


def _cover(prof: np.ndarray, line: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Share of [lo, hi] red along each profile line: (len(line), len(lo)), broadcast over both."""
    hi1 = np.minimum(hi + 1, prof.shape[1] - 1)
    lo = np.maximum(lo, 0)
    span = np.maximum(hi1 - lo, 1)
    return (prof[line][:, hi1] - prof[line][:, lo]) / span


def _best_rectangle(m: np.ndarray, hedges, vedges, frame: tuple[int, int, int, int]):
    """The rectangle (x0, y0, x1, y1) in the crop whose sides are best covered by red, or None.

    Its sides are taken where strokes are (a vertical edge's x, a horizontal one's y, or where an edge
    ends: a side hidden by a red object still ends the strokes meeting it). A side along the frame's
    border may be missing (the box runs off the frame there). The inside must be mostly not red. Every
    rectangle of candidate sides is scored at once (numpy), then the best ones are tried for a hollow inside.
    """
    ox, oy, w, h = frame                         # the crop's place in the frame, and the frame's size
    xs = _candidates([(x, y1 - y0) for x, y0, y1 in vedges]
                     + [(v, (x1 - x0) / 4) for _, x0, x1 in hedges for v in (x0, x1 - 1)])
    ys = _candidates([(y, x1 - x0) for y, x0, x1 in hedges]
                     + [(v, (y1 - y0) / 4) for _, y0, y1 in vedges for v in (y0, y1 - 1)])
    xi, xj, xv = _pairs(xs)
    yi, yj, yv = _pairs(ys)
    if not len(xi) or not len(yi):
        return None
    rows, cols = _profiles(m, ys), _profiles(m.T, xs)
    x0, x1, y0, y1 = xv[xi], xv[xj], yv[yi], yv[yj]
    # (P, Q): x pairs down, y pairs across
    top, bottom = _cover(rows, yi, x0, x1).T, _cover(rows, yj, x0, x1).T
    left, right = _cover(cols, xi, y0, y1), _cover(cols, xj, y0, y1)
    sides = np.stack([top, bottom, left, right])
    border = np.stack(np.broadcast_arrays((oy + y0 <= EDGE_MARGIN)[None, :], (oy + y1 >= h - 1 - EDGE_MARGIN)[None, :],
                                          (ox + x0 <= EDGE_MARGIN)[:, None], (ox + x1 >= w - 1 - EDGE_MARGIN)[:, None]))
    found = sides >= COVER
    ok = (found | border).all(axis=0) & (found.sum(axis=0) >= 2) & (found[0] | found[1]) & (found[2] | found[3])
    score = np.where(found, sides, 0).sum(axis=0) * ((x1 - x0)[:, None] + (y1 - y0)[None, :])
    score = np.where(ok, score, 0.0).ravel()
    t = MAX_THICK // 2 + 1
    for flat in np.argsort(-score, kind="stable"):
        if score[flat] <= 0:
            break
        p, q = divmod(int(flat), len(yi))
        a, b, c, d = int(x0[p]), int(x1[p]), int(y0[q]), int(y1[q])
        # an outline has a hollow inside: past half a stroke from the sides, mostly not red
        inside = m[c + t:d - t + 1, a + t:b - t + 1]
        if inside.shape[0] < 3 or inside.shape[1] < 3 or inside.mean() > INSIDE_RED:
            continue                # red mass (a book, a red object), not an outline
        return a, c, b, d
    return None


# --- a whole video, cached -----------------------------------------------------------------------------------

# Bumped whenever the detector's answers change, so a cache written by an older one is not used.
DETECTOR_VERSION = 2
STATES = ("absent", WHOLE, CUT)           # the codes stored per frame: 0, 1, 2


@dataclass(frozen=True)
class VideoBoxes:
    """The red box of every frame of one video: `boxes` (n, 4) x0, y0, x1, y1 (-1 where absent) and
    `state` (n,) codes into STATES, at the video's `width` x `height`."""
    path: str
    boxes: np.ndarray
    state: np.ndarray
    width: int
    height: int
    fps: float
    variable_rate: bool = False      # frame intervals differ (VFR): index sampling is not time sampling

    @property
    def n_frames(self) -> int:
        return len(self.state)

    def frames(self) -> tuple[int, ...]:
        """The frames that show the box (whole or cut)."""
        return tuple(int(k) for k in np.flatnonzero(self.state > 0))

    def box(self, k: int) -> RedBox | None:
        if not (0 <= k < len(self.state)) or self.state[k] == 0:
            return None
        x0, y0, x1, y1 = (int(v) for v in self.boxes[k])
        return RedBox(x0, y0, x1, y1, STATES[int(self.state[k])])


# The chroma hint: a video frame is YUV; red has a high Cr (the drawn box about 210, grey 128, the demo's
# wooden floors and furniture below 160). A frame whose Cr plane nowhere reaches CR_HINT has no red box, and
# is not converted to RGB at all; otherwise only where Cr does (with a margin) is searched.
CR_HINT = 165
HINT_MARGIN = 8
_PLANAR = {"yuv420p": 2, "yuvj420p": 2, "yuv422p": 2, "yuvj422p": 2, "yuv444p": 1, "yuvj444p": 1}


def red_region(frame) -> tuple[int, int, int, int] | None | bool:
    """Where a PyAV video frame may have red, from its Cr plane without converting it: (y0, y1, x0, x1) in
    frame pixels, False when nowhere, None when the frame's format gives no hint (search it all)."""
    sub = _PLANAR.get(frame.format.name)
    if sub is None:
        return None
    plane = frame.planes[2]
    cr = np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)[:, :plane.width]
    hot = cr >= CR_HINT
    rows = np.flatnonzero(hot.any(axis=1))
    if not len(rows):
        return False
    cols = np.flatnonzero(hot.any(axis=0))
    sy = frame.height // plane.height
    return (max(0, rows[0] * sy - HINT_MARGIN), min(frame.height, (rows[-1] + 1) * sy + HINT_MARGIN),
            max(0, cols[0] * sub - HINT_MARGIN), min(frame.width, (cols[-1] + 1) * sub + HINT_MARGIN))


def variable_rate(times: np.ndarray, tolerance: float = 0.25) -> bool:
    """Whether frame intervals differ by more than `tolerance` of their median (a variable frame rate)."""
    d = np.diff(np.asarray(times, float))
    if len(d) < 2:
        return False
    med = float(np.median(d))
    return med > 0 and bool(np.any(np.abs(d - med) > tolerance * med))


class ScanCancelled(Exception):
    pass


def cache_dir() -> Path:
    """Where scans are kept: the user's cache folder (platformdirs), `GST_VIEWER_CACHE` when set."""
    env = os.environ.get("GST_VIEWER_CACHE")
    if env:
        return Path(env) / "redbox"
    import platformdirs
    return Path(platformdirs.user_cache_dir("gst-viewer", appauthor=False)) / "redbox"


def _cache_file(path: str) -> tuple[Path, str]:
    """The cache file of a video and the key it must carry: its size and mtime (and the detector's version)."""
    st = os.stat(path)
    key = f"{st.st_size}:{st.st_mtime_ns}:{DETECTOR_VERSION}"
    name = hashlib.sha1(os.path.abspath(path).encode("utf-8")).hexdigest()
    return cache_dir() / f"{name}.npz", key


def cached_boxes(path: str) -> VideoBoxes | None:
    """The scan of `path` from the cache, when it is there and the file has not changed since."""
    try:
        file, key = _cache_file(path)
        with np.load(file, allow_pickle=False) as z:
            if str(z["key"]) != key:
                return None
            w, h, fps, vfr = (float(v) for v in z["meta"])
            return VideoBoxes(path, z["boxes"], z["state"], int(w), int(h), fps, bool(vfr))
    except (OSError, KeyError, ValueError):
        return None


def _store(vb: VideoBoxes) -> None:
    from ..core.atomic import atomic_write_bytes
    try:
        file, key = _cache_file(vb.path)
        buf = io.BytesIO()
        np.savez(buf, key=np.array(key), boxes=vb.boxes, state=vb.state,
                 meta=np.array([vb.width, vb.height, vb.fps, vb.variable_rate], float))
        file.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(file, buf.getvalue())
    except OSError:
        pass                  # a cache that cannot be written costs time, not correctness


def scan_video(path: str, progress: Callable[[int, int], None] | None = None,
               cancelled: Callable[[], bool] | None = None, use_cache: bool = True) -> VideoBoxes:
    """The red box in every frame of a video, decoded in order once (PyAV); from the cache when the file
    is unchanged. VideoError for a video that cannot be read (the message names the file): not a video,
    no frame, or fewer frames decoded than its container lists (truncated); ScanCancelled when
    `cancelled()` turns true. `progress(done, total)` may raise to stop it (the window's jobs)."""
    from ..core.media import LFS_PROBLEM, lfs_pointer_file
    from .video import VideoError, import_av
    if use_cache:
        hit = cached_boxes(path)
        if hit is not None:
            return hit
    if not path or not os.path.isfile(path):
        raise VideoError(f"{path}: file not found")
    if lfs_pointer_file(path):
        raise VideoError(f"{path}: {LFS_PROBLEM}")
    av = import_av()
    if av is None:
        raise VideoError(f"{path}: cannot decode video without PyAV (pip install av)")
    boxes: list[tuple[int, int, int, int]] = []
    state: list[int] = []
    pts: list[int] = []
    try:
        with av.open(path) as container:
            if not container.streams.video:
                raise VideoError(f"{path}: no video stream")
            stream = container.streams.video[0]
            listed = int(stream.frames or 0)          # the container's count (0: it does not say)
            rate = stream.average_rate or stream.guessed_rate
            fps = float(rate) if rate else 0.0
            tb = float(stream.time_base) if stream.time_base else 0.0
            w, h = stream.codec_context.width, stream.codec_context.height
            stream.thread_type = "AUTO"
            total = listed or 1
            try:
                for frame in container.decode(stream):
                    region = red_region(frame)
                    b = None if region is False else find_red_box(frame.to_ndarray(format="rgb24"), region)
                    boxes.append((b.x0, b.y0, b.x1, b.y1) if b is not None else (-1, -1, -1, -1))
                    state.append(STATES.index(b.state) if b is not None else 0)
                    if frame.pts is not None:
                        pts.append(frame.pts)
                    k = len(state)
                    if k % 16 == 0:
                        if progress:
                            progress(k, max(total, k))
                        if cancelled and cancelled():
                            raise ScanCancelled(path)
            except av.FFmpegError as e:
                raise VideoError(f"{path}: frame {len(state)} cannot be decoded ({e})") from None
    except (av.FFmpegError, OSError, ValueError) as e:
        raise VideoError(f"{path}: not a readable video ({e})") from None
    n = len(state)
    if not n:
        raise VideoError(f"{path}: no frame can be decoded (corrupt or unsupported video)")
    if listed and n < listed:
        raise VideoError(f"{path}: truncated: {n} of its {listed} frames could be decoded")
    if progress:
        progress(n, n)
    times = np.sort(np.asarray(pts, float)) * tb
    vb = VideoBoxes(path, np.asarray(boxes, np.int32).reshape(-1, 4), np.asarray(state, np.uint8), w, h, fps,
                    variable_rate(times))
    if use_cache:
        _store(vb)
    return vb


def red_box_target_frames(path: str, progress: Callable[[int, int], None] | None = None):
    """core.timeline.target_frames' red-box source: the frames of the video with the box, the largest box's
    frame as the best; None when no frame has one. VideoError when the video cannot be read."""
    from ..core.timeline import TargetFrames
    vb = scan_video(path, progress)
    frames = vb.frames()
    if not frames:
        return None
    b = vb.boxes
    area = np.where(vb.state > 0, (b[:, 2] - b[:, 0] + 1) * (b[:, 3] - b[:, 1] + 1), 0)
    return TargetFrames(frames, int(np.argmax(area)), "red box")
