"""Importing real scenes into gst-scene/1 (numpy only): the parts that need no mesh library.

  trajectories   five camera-trajectory formats -> `Trajectory` (OpenCV camera-to-world)
  omnigibson     OmniGibson / BEHAVIOR-1K scene files -> instances with oriented boxes
  here           the up axis, tying poses to video frames, the units and inverted-trajectory
                 checks, and `staging_folder` (an import is written to a temporary folder and
                 renamed into place, so nothing half-written is ever left in OUT_DIR)

`viewer.render.scene_import.import_scene` puts them together with the mesh
(read with trimesh) and the rendered maps, and writes the folder with the
one writer, `scene_writer.write_scene`.
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

__all__ = ["FORMATS", "Trajectory", "read_trajectory", "UP_AXES", "z_up", "z_up_points", "tie_to_video",
           "check_units", "inverted_trajectory", "staging_folder", "UNITS_RATIO"]

# World rotations that make the given up axis the viewer's +z (right-handed: y-up (x, y, z) -> (x, -z, y)).
UP_AXES = {"z": np.eye(3), "y": np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])}
UNITS_RATIO = 100.0            # trajectory extent vs mesh extent beyond which the units must differ


def _up(up: str) -> np.ndarray:
    if up not in UP_AXES:
        raise UserError(f"--up {up!r}: expected one of {', '.join(UP_AXES)}")
    return UP_AXES[up]


def z_up(poses: np.ndarray, up: str) -> np.ndarray:
    """Camera-to-world poses of a world whose up axis is `up`, in the z-up world (cameras unchanged)."""
    T = np.eye(4)
    T[:3, :3] = _up(up)
    return T @ np.asarray(poses, float)


def z_up_points(points: np.ndarray, up: str) -> np.ndarray:
    return np.asarray(points, float) @ _up(up).T


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
    t = traj.timestamps - traj.timestamps[0]
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


def inverted_trajectory(poses: np.ndarray, lo, hi, margin: float = 0.1) -> str | None:
    """Why the poses look inverted (world-to-camera read as camera-to-world), or None.

    Camera centres of a capture are inside the scene's bounds. When most of
    them are far outside while the centres of the inverted poses are inside,
    the file's convention was not the one assumed.
    """
    p = np.asarray(poses, float)
    p = p[np.isfinite(p).all(axis=(1, 2))]
    if len(p) == 0:
        return None
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    pad = margin * np.max(hi - lo) + 0.25

    def inside(centres) -> float:
        return float(((centres >= lo - pad) & (centres <= hi + pad)).all(axis=1).mean())

    centres = p[:, :3, 3]
    R = p[:, :3, :3]
    inverted = -np.einsum("nji,nj->ni", R, centres)        # centre of inv(pose) = -R^T t
    now, then = inside(centres), inside(inverted)
    if now < 0.5 and then >= 0.8:
        return (f"only {now:.0%} of the camera centres are inside the mesh's bounds, but {then:.0%} of the "
                "inverted poses' are: the file probably holds world-to-camera poses")
    return None


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
