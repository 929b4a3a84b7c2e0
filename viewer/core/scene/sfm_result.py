"""What structure from motion recovered from one walkthrough video, in the model's own frame.

This is the seam between the SfM run (`render/sfm`, pycolmap, heavy) and
everything that uses its result (the alignment to the map by the release's
answers, the scene source that serves it, the audit check, the window). It is
plain numpy so that core can read a cached result without pycolmap.

Poses are camera-to-world in the OpenCV convention (x right, y down, z
forward), one per video frame, NaN where the frame was not sampled or not
registered, so frame k of the video stays pose k as everywhere else. The
model's frame is SfM's own: arbitrary rotation, translation and scale until
aligned.

A result is cached per video, keyed by the video's size and mtime (and the
pipeline's version), in the user's cache folder: `GST_VIEWER_CACHE` when set.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..atomic import atomic_write_bytes
from .model import Intrinsics

FORMAT = "gst-sfm/1"
# The pipeline's version, part of every cache key (`sfm_cache_file`): bump it when a change of settings
# changes results, so that the scene sources stop serving the old ones.
PIPELINE_VERSION = "1"


@dataclass
class QueryPose:
    """A query view (a question's image) localised against the model from its 2D-3D matches."""
    name: str                           # the image, relative to the release
    pose: np.ndarray                    # (4, 4) camera-to-world, OpenCV, model frame; NaN when not localised
    inliers: int = 0                    # 2D-3D matches consistent with the pose
    matches: int = 0                    # 2D-3D matches tried
    confidence: float = 0.0             # 0..1: how sure the localisation is (inliers, their spread)
    why: str = ""                       # when not localised: the reason, for the user

    def __post_init__(self):
        self.pose = np.asarray(self.pose, float).reshape(4, 4)

    @property
    def localised(self) -> bool:
        return bool(np.isfinite(self.pose).all())


@dataclass
class SfmResult:
    video: str                          # the video file, absolute
    frame_count: int
    poses: np.ndarray                   # (frame_count, 4, 4) camera-to-world OpenCV, model frame; NaN: none
    intrinsics: Intrinsics | None       # one shared camera, as refined
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))    # (M, 3)
    colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.uint8))      # (M, 3) RGB
    queries: dict[str, QueryPose] = field(default_factory=dict)
    # How it went, for reports and the benchmark: sampled_frames, registered_frames, models,
    # largest_model_share, wall_seconds, cpu_seconds, settings, and "problems" (a list of sentences).
    stats: dict = field(default_factory=dict)

    def __post_init__(self):
        self.poses = np.asarray(self.poses, float).reshape(-1, 4, 4)
        self.points = np.asarray(self.points, np.float32).reshape(-1, 3)
        self.colors = np.asarray(self.colors, np.uint8).reshape(-1, 3)

    @property
    def registered(self) -> np.ndarray:
        """(frame_count,) mask of frames with a pose."""
        return np.isfinite(self.poses).all(axis=(1, 2))


def save_sfm_result(result: SfmResult, path: str | Path, key: str = "") -> None:
    """Write `result` to `path` (one .npz) atomically: a cancelled or crashed run leaves no partial file."""
    meta = {
        "format": FORMAT, "key": key, "video": result.video, "frame_count": result.frame_count,
        "intrinsics": None if result.intrinsics is None else vars(result.intrinsics),
        "queries": [{"name": q.name, "inliers": q.inliers, "matches": q.matches,
                     "confidence": q.confidence, "why": q.why} for q in result.queries.values()],
        "stats": result.stats,
    }
    qposes = np.array([q.pose for q in result.queries.values()], float).reshape(-1, 4, 4)
    buf = io.BytesIO()
    np.savez_compressed(buf, meta=np.array(json.dumps(meta)), poses=result.poses, points=result.points,
                        colors=result.colors, query_poses=qposes)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buf.getvalue())
    _index(path, result.video)


# The cache folder's index: one line per result written, its file name and its video (and, once a job of a
# release made it, the release's scene), so the scene source learns which videos and scenes have results from
# one small file rather than from every result's header and the release's questions. Appended (one short
# write: several Dask workers may share the folder); a line whose file is gone, or a torn one, is ignored.
INDEX = "index.tsv"


def _index(path: str | Path, video: str, scene: str = "") -> None:
    if any(c in x for x in (video, scene) for c in "\t\n"):
        return                          # such a path is found by its header instead
    with open(Path(path).parent / INDEX, "a", encoding="utf-8") as f:
        f.write(f"{Path(path).name}\t{video}" + (f"\t{scene}" if scene else "") + "\n")


def note_scene(video: str | Path, scene: str) -> None:
    """Say in the cache's index that `video`'s result (cached) is of the release's scene `scene`."""
    path, _ = sfm_cache_file(video, PIPELINE_VERSION)
    if path.is_file() and scene:
        _index(path, os.path.abspath(video), scene)


def indexed_results(folder: str | Path) -> dict[str, tuple[str, str]]:
    """File name -> (video, scene or "") of the results the folder's index lists (the last line of a name
    that says a scene wins; a later line without one keeps it)."""
    out: dict[str, tuple[str, str]] = {}
    try:
        text = (Path(folder) / INDEX).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) in (2, 3) and parts[0].endswith(".npz") and parts[1]:
            scene = parts[2] if len(parts) == 3 else out.get(parts[0], ("", ""))[1]
            out[parts[0]] = (parts[1], scene)
    return out


def load_sfm_result(path: str | Path, key: str | None = None) -> SfmResult | None:
    """The result saved in `path`; None when `key` is given and the file was made for another key
    (the video changed). Raises ValueError naming the file when it is not a readable result."""
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if meta.get("format") != FORMAT:
                raise KeyError(f"format {meta.get('format')!r}, not {FORMAT}")
            if key is not None and meta.get("key") != key:
                return None
            k = meta.get("intrinsics")
            qposes = z["query_poses"]
            queries = {q["name"]: QueryPose(q["name"], qposes[i], int(q["inliers"]), int(q["matches"]),
                                            float(q["confidence"]), str(q.get("why", "")))
                       for i, q in enumerate(meta["queries"])}
            return SfmResult(meta["video"], int(meta["frame_count"]), z["poses"],
                             None if k is None else Intrinsics.from_dict(k),
                             z["points"], z["colors"], queries, dict(meta.get("stats") or {}))
    except (OSError, KeyError, IndexError, TypeError, ValueError, EOFError, zipfile.BadZipFile) as e:
        # JSONDecodeError is a ValueError; a cut or overwritten .npz is a BadZipFile
        raise ValueError(f"{path}: not a readable structure-from-motion result ({e})") from e


def sfm_cache_dir() -> Path:
    """Where results are kept: the user's cache folder (platformdirs), `GST_VIEWER_CACHE` when set."""
    env = os.environ.get("GST_VIEWER_CACHE")
    if env:
        return Path(env) / "sfm"
    import platformdirs
    return Path(platformdirs.user_cache_dir("gst-viewer", appauthor=False)) / "sfm"


def sfm_cache_file(video: str | Path, version: str) -> tuple[Path, str]:
    """The cache file of a video's result and the key it must carry: the video's size and mtime and the
    pipeline's `version` (a change of settings that changes results bumps it)."""
    st = os.stat(video)
    key = f"{st.st_size}:{st.st_mtime_ns}:{version}"
    name = hashlib.sha1(os.path.abspath(video).encode("utf-8")).hexdigest()
    return sfm_cache_dir() / f"{name}.npz", key
