"""Importing real scenes into gst-scene/1 (numpy only): the parts that need no mesh library.

  trajectories   five camera-trajectory formats -> `Trajectory` (OpenCV camera-to-world)
  omnigibson     OmniGibson / BEHAVIOR-1K scene files -> instances with oriented boxes
  up             the up axis: given, or decided from the format, the cameras, the path or the floors
  here           turning the world z-up, tying poses to video frames, the units, inverted-trajectory
                 and one-frame checks, aligning a trajectory to the mesh, and `staging_folder` (an
                 import is written to a temporary folder and renamed into place, so nothing
                 half-written is ever left in OUT_DIR)

`viewer.render.scene_import.import_scene` puts them together with the mesh
(read with trimesh) and the rendered maps, and writes the folder with the
one writer, `scene/writer.write_scene`.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ...diagnostics import Diagnostics, UserError
from .trajectories import FORMATS, Trajectory, read_trajectory
from .up import UP_AXES, UP_CHOICES, UpDecision, UpEvidence, decide_up, up_rotation

__all__ = ["FORMATS", "Trajectory", "read_trajectory", "UP_AXES", "UP_CHOICES", "UpDecision", "UpEvidence",
           "decide_up", "z_up", "z_up_points", "tie_to_video", "check_units", "inverted_trajectory",
           "looking_at", "frame_mismatch", "align_trajectory", "ALIGNMENTS", "staging_folder", "UNITS_RATIO"]

UNITS_RATIO = 100.0            # trajectory extent vs mesh extent beyond which the units must differ


def z_up(poses: np.ndarray, up: str, inverse: bool = False) -> np.ndarray:
    """Camera-to-world poses of a world whose up axis is `up`, in the z-up world (cameras unchanged);
    `inverse`: back from the z-up world to that world."""
    T = np.eye(4)
    T[:3, :3] = up_rotation(up).T if inverse else up_rotation(up)
    return T @ np.asarray(poses, float)


def z_up_points(points: np.ndarray, up: str, inverse: bool = False) -> np.ndarray:
    R = up_rotation(up)
    return np.asarray(points, float) @ (R if inverse else R.T)


def tie_to_video(traj: Trajectory, n_frames: int, fps: float | None, by: str, diags: Diagnostics,
                 video: str) -> np.ndarray:
    """(n_frames, 4, 4) poses, pose k for frame k: by index, or by timestamp (the trajectory's first
    timestamp is the video's time 0; a frame takes the nearest pose within half a frame, else NaN)."""
    poses = traj.poses
    if by == "index":
        if len(poses) != n_frames:
            diags.warning(f"the trajectory has {len(poses)} poses and the video {n_frames} frames; tied by index, "
                          f"{'the extra poses are dropped' if len(poses) > n_frames else 'later frames have no pose'}",
                          video, code="import.frame_count_mismatch")
        out = np.full((n_frames, 4, 4), np.nan)
        k = min(n_frames, len(poses))
        out[:k] = poses[:k]
        return out
    if by != "timestamp":
        raise UserError(f"--tie {by!r}: expected 'index' or 'timestamp'")
    if traj.timestamps is None:
        raise UserError(f"{traj.source}: the {traj.format} format has no timestamps; tie the video with --tie index")
    if not fps or fps <= 0:
        raise UserError(f"{video}: the video's frame rate is unknown; tie it with --tie index")
    t = traj.timestamps - np.nanmin(traj.timestamps)       # read_trajectory sorted them; any order works
    frame_t = np.arange(n_frames) / fps
    order = np.argsort(t)
    ts = t[order]
    j = np.clip(np.searchsorted(ts, frame_t), 1, max(len(ts) - 1, 1))
    left = np.clip(j - 1, 0, len(ts) - 1)
    right = np.clip(j, 0, len(ts) - 1)
    nearest = np.where(np.abs(ts[left] - frame_t) <= np.abs(ts[right] - frame_t), left, right)
    out = poses[order][nearest].copy()
    far = np.abs(ts[nearest] - frame_t) > 0.5 / fps
    out[far] = np.nan
    if far.any():
        diags.warning(f"{int(far.sum())} of {n_frames} video frames have no pose within half a frame; "
                      "they show no camera", video, code="import.frames_without_pose")
    return out


def _extent(points: np.ndarray) -> float:
    p = np.asarray(points, float).reshape(-1, 3)
    p = p[np.isfinite(p).all(axis=1)]
    return float(np.ptp(p, axis=0).max()) if len(p) else 0.0


def check_units(centres: np.ndarray, mesh_lo, mesh_hi, trajectory: str, mesh: str) -> None:
    """UserError when the trajectory's extent is more than 100x the mesh's or less than 1/100 of it:
    one of them is in other units (millimetres, centimetres) or the files do not belong together."""
    traj = _extent(centres)
    mesh_size = float(np.max(np.asarray(mesh_hi, float) - np.asarray(mesh_lo, float)))
    if traj <= 0 or mesh_size <= 0:
        return                   # one pose, or a flat mesh: no scale to compare
    ratio = traj / mesh_size
    if ratio > UNITS_RATIO or ratio < 1 / UNITS_RATIO:
        raise UserError(f"{trajectory}: the trajectory spans {traj:.4g} units but the mesh {mesh} spans "
                        f"{mesh_size:.4g} ({ratio:.3g}x): they look like different units (mm, cm, m) or "
                        "different scenes; convert one of them")


def _inverted(p: np.ndarray) -> np.ndarray:
    """inv(pose) for rigid poses, batched."""
    out = np.zeros_like(p)
    Rt = np.transpose(p[:, :3, :3], (0, 2, 1))
    out[:, :3, :3] = Rt
    out[:, :3, 3] = -np.einsum("nij,nj->ni", Rt, p[:, :3, 3])
    out[:, 3, 3] = 1.0
    return out


def _inside(centres: np.ndarray, lo, hi, pad: float) -> float:
    return float(((centres >= lo - pad) & (centres <= hi + pad)).all(axis=1).mean())


def looking_at(poses: np.ndarray, target, cone_deg: float = 60.0) -> float:
    """The share of cameras (OpenCV camera-to-world: looking along +z) whose view axis is within
    `cone_deg` of the direction to `target`."""
    p = np.asarray(poses, float)
    to = np.asarray(target, float) - p[:, :3, 3]
    dist = np.linalg.norm(to, axis=1)
    ok = dist > 1e-9
    if not ok.any():
        return 0.0
    cos = np.einsum("ni,ni->n", p[ok, :3, 2], to[ok]) / dist[ok]
    return float((cos > np.cos(np.radians(cone_deg))).mean())


def inverted_trajectory(poses: np.ndarray, lo, hi, margin: float = 0.1, up: str = "z") -> str | None:
    """Why the poses look inverted (world-to-camera read as camera-to-world), or None.

    Two tests, on the poses as read and on their inverses. A capture's cameras
    stand inside the scene's bounds (a room scan) or, outside them, look at
    its content (an orbit around an object). When the poses as read do
    neither while their inverses do, the file's convention was not the one
    assumed. `up`: the poses and bounds are in the z-up world made of a
    file whose up was `up`; the inverses are taken in the file's own world,
    where a world-to-camera matrix was written (inverting after the turn
    would invert the turn too).
    """
    p = np.asarray(poses, float)
    p = p[np.isfinite(p).all(axis=(1, 2))]
    if len(p) == 0:
        return None
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    if up != "z":                # back to the file's world; UP_AXES are signed permutations, so boxes stay boxes
        p = z_up(p, up, inverse=True)
        lo, hi = np.sort(np.stack([z_up_points(lo, up, inverse=True), z_up_points(hi, up, inverse=True)]), axis=0)
    pad = margin * np.max(hi - lo) + 0.25
    now = _inside(p[:, :3, 3], lo, hi, pad)
    if now >= 0.5:
        return None
    centre = (lo + hi) / 2
    look_now = looking_at(p, centre)
    # The inverse, and for OpenGL formats (read as P = M F, F = diag(1, -1, -1, 1)) the inverse of M
    # turned to OpenCV again: F inv(P) F.
    inverse = _inverted(p)
    for q in (inverse, _OPENGL_FLIP @ inverse @ _OPENGL_FLIP):
        then = _inside(q[:, :3, 3], lo, hi, pad)
        if then >= 0.8:
            return (f"only {now:.0%} of the camera centres are inside the mesh's bounds, but {then:.0%} of the "
                    "inverted poses' are: the file probably holds world-to-camera poses")
        look_then = looking_at(q, centre)
        # Inverted poses of an orbit sit at one point looking every way; some may still face the mesh
        # (42% of a fox-like arc written y-up): the inverses must look at it far more often.
        if look_then >= 0.7 and (look_now < 0.3 or look_then - look_now >= 0.5):
            return (f"the cameras stand outside the mesh's bounds and only {look_now:.0%} of them look towards it, "
                    f"but {look_then:.0%} of the inverted poses do: the file probably holds world-to-camera poses")
    return None


_OPENGL_FLIP = np.diag([1.0, -1.0, -1.0, 1.0])


FRAME_SCALE_RATIO = 10.0       # trajectory vs mesh extent beyond which they are not in one frame
GEOREFERENCED = 1e5            # metres from the mesh: coordinates of a map projection, not of a room


def frame_mismatch(poses: np.ndarray, lo, hi, up: str = "z") -> str | None:
    """Why the trajectory and the mesh do not look like one frame (most camera centres outside the
    mesh's bounds, or extents more than 10x apart), with the offset, the scale ratio and the likely
    cause; None when they do. `up`: the file's up axis (`inverted_trajectory`)."""
    p = np.asarray(poses, float)
    p = p[np.isfinite(p).all(axis=(1, 2))]
    if len(p) == 0:
        return None
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    size = float(np.max(hi - lo))
    if size <= 0:
        return None
    centres = p[:, :3, 3]
    pad = 0.1 * size + 0.25
    outside = 1.0 - _inside(centres, lo, hi, pad)
    extent = _extent(centres)
    ratio = extent / size if extent > 0 else 1.0
    if outside <= 0.5 and 1 / FRAME_SCALE_RATIO <= ratio <= FRAME_SCALE_RATIO:
        return None
    offset = np.median(centres, axis=0) - (lo + hi) / 2
    distance = float(np.linalg.norm(offset))
    if distance > max(GEOREFERENCED, 1000 * size):
        cause = "a georeferenced file (map-projection or GPS coordinates, far from the mesh's origin)"
    elif inverted_trajectory(p, lo, hi, up=up) is not None:
        # Before the units: inverted poses of an orbit all sit at one point, so their extent says nothing.
        cause = "world-to-camera poses where camera-to-world is expected"
    elif not 1 / FRAME_SCALE_RATIO <= ratio <= FRAME_SCALE_RATIO:
        cause = "other units (mm, cm, m) in one of the files, or files of different scenes"
    elif looking_at(p, (lo + hi) / 2) >= 0.8:
        cause = ("an object-centric capture: the cameras surround the mesh and look at it, which is expected "
                 "(nothing to fix if so)")
    else:
        cause = "another frame: the mesh and the trajectory were registered separately"
    return (f"{outside:.0%} of the camera centres lie outside the mesh's bounds; the path's centre is "
            f"{distance:.4g} m from the mesh's, offset {_vec(offset)}, and it spans {ratio:.3g}x the mesh's extent. "
            f"Likely cause: {cause}. --align-trajectory center moves the path onto the mesh; "
            "--trajectory-scale S scales it")


def _vec(v) -> str:
    return "(" + ", ".join(f"{x:+.4g}" for x in np.asarray(v, float)) + ")"


def align_trajectory(poses: np.ndarray, lo, hi, how: str, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The poses with their centres scaled by `scale` (about the origin) and, for `how` 'center', moved so
    that the path's bounding-box centre is the mesh's; returns (poses, the translation applied)."""
    if how not in ALIGNMENTS:
        raise UserError(f"--align-trajectory {how!r}: expected one of {', '.join(ALIGNMENTS)}")
    if not np.isfinite(scale) or scale <= 0:
        raise UserError(f"--trajectory-scale {scale!r}: expected a positive number")
    out = np.array(poses, float, copy=True)
    out[:, :3, 3] *= scale
    shift = np.zeros(3)
    ok = np.isfinite(out).all(axis=(1, 2))
    if how == "center" and ok.any():
        c = out[ok, :3, 3]
        shift = (np.asarray(lo, float) + np.asarray(hi, float)) / 2 - (c.min(axis=0) + c.max(axis=0)) / 2
        out[ok, :3, 3] += shift
    return out, shift


ALIGNMENTS = ("none", "center")


@contextmanager
def staging_folder(out_dir: str | Path, replace: bool = False):
    """A temporary folder beside `out_dir`, renamed to `out_dir` when the block succeeds and removed
    when it fails: OUT_DIR is either the complete import or untouched."""
    out = Path(out_dir).expanduser().absolute()
    if out.exists() and not (out.is_dir() and not any(out.iterdir())) and not replace:
        raise UserError(f"{out}: already exists and is not empty; choose another folder or pass --replace")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.importing-", dir=out.parent))
    try:
        yield tmp
        os.chmod(tmp, 0o755)
        if out.exists():
            old = out.with_name(f".{out.name}.replaced-{os.getpid()}")
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
