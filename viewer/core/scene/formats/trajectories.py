"""Camera trajectories in five public formats, read into one convention (numpy only).

Every reader returns a `Trajectory` whose poses are camera-to-world in the
OpenCV camera convention (x right, y down, z forward) in the file's own
world frame: the one conversion from the format's convention happens here,
per format, and is documented in docs/scene-import.md. The up axis is not
stored by any of these formats; the importer turns the world z-up afterwards
(`--up`).

A bad line or entry is reported with its file and line (or JSON path) and
skipped: its pose becomes NaN, so pose k still belongs to frame k. A file
with no usable pose at all, or one that cannot be read, stops the import
(UserError).
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ...diagnostics import Diagnostics, UserError
from ...geometry import opengl_to_opencv, quaternion_to_matrix, rigid_problems
from ...textio import parse_json_document, read_text
from ..model import Intrinsics

FORMATS = ("tum", "colmap", "nerfstudio", "scannet", "arkitscenes")
# COLMAP camera models whose first parameters are f or fx, fy, then cx, cy (distortion ignored).
_COLMAP_ONE_FOCAL = {"SIMPLE_PINHOLE", "SIMPLE_RADIAL", "RADIAL", "SIMPLE_RADIAL_FISHEYE", "RADIAL_FISHEYE"}
_COLMAP_TWO_FOCALS = {"PINHOLE", "OPENCV", "OPENCV_FISHEYE", "FULL_OPENCV", "FOV", "THIN_PRISM_FISHEYE"}


@dataclass
class Trajectory:
    format: str
    source: str                                # the file or folder read
    poses: np.ndarray                          # (N, 4, 4) OpenCV camera-to-world; NaN where skipped
    timestamps: np.ndarray | None = None       # (N,) seconds, when the format has them
    intrinsics: Intrinsics | None = None
    names: list[str] = field(default_factory=list)     # per pose: image name / line, for messages
    diagnostics: Diagnostics = field(default_factory=Diagnostics)

    @property
    def valid(self) -> np.ndarray:
        return np.isfinite(self.poses).all(axis=(1, 2))


def read_trajectory(path: str | Path, fmt: str | None = None, intrinsics: str | Path | None = None) -> Trajectory:
    """The trajectory at `path` in format `fmt` (guessed when None: see `guess_format`)."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    guessed = fmt is None
    if guessed:
        fmt = guess_format(path)
    if fmt not in READERS:
        raise UserError(f"--trajectory-format {fmt!r}: expected one of {', '.join(FORMATS)}")
    traj = READERS[fmt](path, Path(intrinsics) if intrinsics else None)
    if traj.timestamps is not None:
        _in_time_order(traj)
    if guessed:
        traj.diagnostics.info(f"trajectory format not given; assumed {fmt!r} from the file",
                              path, code="import.format_guessed")
    if not traj.valid.any():
        raise UserError(f"{path}: no usable camera pose in this {fmt} trajectory"
                        + _first_problem(traj.diagnostics))
    return traj


def _in_time_order(traj: Trajectory) -> None:
    """Poses sorted by time, each timestamp once: a file out of order would zig-zag (and tie a video to
    nothing), and poses sharing a time cannot both be frame k. Each change is said, with how many poses."""
    t = traj.timestamps
    where = traj.names
    finite = np.isfinite(t)
    if not finite.all():
        k = int(np.flatnonzero(~finite)[0])
        traj.diagnostics.error(f"{int((~finite).sum())} poses have a NaN or infinite timestamp (first at "
                               f"{where[k]}); dropped", traj.source, code="import.bad_timestamp")
    order = np.flatnonzero(finite)
    backwards = np.flatnonzero(np.diff(t[order]) < 0)
    if len(backwards):
        k = order[backwards[0] + 1]
        traj.diagnostics.warning(f"timestamps are not in order ({len(backwards)} steps back in time, the first at "
                                 f"{where[k]}): the poses are sorted by time", traj.source,
                                 code="import.timestamps_unsorted")
        order = order[np.argsort(t[order], kind="stable")]
    repeated = np.flatnonzero(np.diff(t[order]) == 0) + 1
    if len(repeated):
        k = order[repeated[0]]
        traj.diagnostics.warning(f"{len(repeated)} poses repeat the timestamp of the pose before them (the first "
                                 f"at {where[k]}, t = {t[k]!r}); only the first pose of each timestamp is kept",
                                 traj.source, code="import.duplicate_timestamps")
        order = np.delete(order, repeated)
    if len(order) == len(t) and not len(backwards):
        return
    traj.poses, traj.timestamps = traj.poses[order], t[order]
    traj.names = [where[k] for k in order]


def guess_format(path: Path) -> str:
    """The format a file or folder looks like; UserError when it looks like none."""
    if path.is_dir():
        if (path / "pose").is_dir():
            return "scannet"
        if (path / "images.txt").is_file():
            return "colmap"
        if (path / "transforms.json").is_file():
            return "nerfstudio"
        raise UserError(f"{path}: a folder, but neither ScanNet (pose/), COLMAP (images.txt) nor "
                        f"nerfstudio (transforms.json); give --trajectory-format")
    name = path.name.lower()
    if name == "images.txt":
        return "colmap"
    if name.endswith(".json"):
        return "nerfstudio"
    if name.endswith(".traj"):
        return "arkitscenes"
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = [ln.split() for ln in (f.readline() for _ in range(50)) if ln.strip() and not ln.startswith("#")]
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror or e})") from None
    counts = {len(t) for t in head}
    if counts == {8}:
        return "tum"
    if counts == {7}:
        return "arkitscenes"
    raise UserError(f"{path}: cannot tell its trajectory format (lines of {sorted(counts)} fields); "
                    f"give --trajectory-format, one of {', '.join(FORMATS)}")


# ------------------------------------------------------------------ helpers
def _first_problem(diags: Diagnostics) -> str:
    errors = diags.of_level("error")
    return f" (first problem: {errors[0]})" if errors else ""


def _numbers(tokens: list[str]) -> list[float] | None:
    try:
        return [float(t) for t in tokens]
    except ValueError:
        return None


def _text_lines(path: Path, diags: Diagnostics) -> list[tuple[int, str]]:
    """Numbered lines that are neither blank nor comments."""
    text = read_text(path, diags)
    return [(k, ln) for k, ln in enumerate(text.splitlines(), 1) if ln.strip() and not ln.lstrip().startswith("#")]


def _rigid(poses: np.ndarray, where: list[tuple[str, int | None]], diags: Diagnostics, what: str) -> np.ndarray:
    """Poses that are not rigid (not a rotation, NaN) reported at their file and line, set to NaN."""
    problems = rigid_problems(poses) if len(poses) else []
    # An all-NaN pose is one a reader skipped and reported already (a bad quaternion, an absurd angle).
    bad = [i for i, p in enumerate(problems) if p is not None and not np.isnan(poses[i]).all()]
    for i in bad[:10]:
        diags.error(f"{what} {problems[i]}; pose skipped", where[i][0], where[i][1], code="import.bad_pose")
    if len(bad) > 10:
        diags.error(f"{len(bad) - 10} more invalid poses skipped ({len(bad)} of {len(poses)})",
                    where[0][0], code="import.bad_pose_summary")
    poses = poses.copy()
    poses[[i for i, p in enumerate(problems) if p is not None]] = np.nan
    return poses


# A quaternion's norm outside this range is not a rotation written with some rounding but a broken one
# (a norm of 1e-12 or 1e200): reported as degenerate rather than normalised into an arbitrary rotation.
QUATERNION_NORMS = (1e-6, 1e6)
# Axis-angle rotations beyond this many radians lose every digit of their angle (and 1e300 overflows).
MAX_AXIS_ANGLE = 1e6


def vector_norm(v) -> float:
    """The Euclidean norm of `v` without overflow or underflow (1e200 or 1e-200 components); inf or NaN when a
    component is."""
    v = np.asarray(v, float)
    if not np.isfinite(v).all():
        return math.nan if np.isnan(v).any() else math.inf
    m = float(np.abs(v).max()) if v.size else 0.0
    return 0.0 if m == 0 else m * float(np.linalg.norm(v / m))


def _quaternion(q_xyzw: np.ndarray, file: str, line: int, diags: Diagnostics) -> np.ndarray | None:
    n = vector_norm(q_xyzw)
    if not math.isfinite(n):
        diags.error(f"quaternion {q_xyzw.tolist()} has NaN or infinite components; pose skipped", file, line,
                    code="import.bad_quaternion")
        return None
    if not QUATERNION_NORMS[0] <= n <= QUATERNION_NORMS[1]:
        diags.error(f"degenerate quaternion {q_xyzw.tolist()} (norm {n:.3g}): not a rotation; pose skipped",
                    file, line, code="import.bad_quaternion")
        return None
    if abs(n - 1.0) > 1e-2:
        diags.warning(f"quaternion norm is {n:.4g}, not 1; normalised", file, line,
                      code="import.unnormalised_quaternion")
    return quaternion_to_matrix(q_xyzw / n)


def axis_angle_to_matrix(v) -> np.ndarray:
    """Rodrigues: the rotation of angle |v| about v/|v| (radians). ValueError for an angle that is not a
    usable number (NaN, infinite, or beyond MAX_AXIS_ANGLE radians)."""
    v = np.asarray(v, float)
    theta = vector_norm(v)
    if not math.isfinite(theta) or theta > MAX_AXIS_ANGLE:
        raise ValueError(f"axis-angle rotation {v.tolist()} has an angle of {theta:.3g} radians: not a usable "
                         "rotation")
    if theta < 1e-12:
        return np.eye(3)
    k = v / theta
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(theta) * K + (1 - math.cos(theta)) * (K @ K)


def _intrinsics(values: dict, file: str, line: int | None, diags: Diagnostics, what: str) -> Intrinsics | None:
    try:
        return Intrinsics.from_dict(values)
    except ValueError as e:
        diags.error(f"{what}: {e}; the camera's intrinsics are left out (frustums are not drawn)", file, line,
                    code="import.bad_intrinsics")
        return None


def _pose(R: np.ndarray, t) -> np.ndarray:
    p = np.eye(4)
    p[:3, :3] = R
    p[:3, 3] = t
    return p


# ------------------------------------------------------------------ TUM
def read_tum(path: Path, intrinsics: Path | None = None) -> Trajectory:
    """`timestamp tx ty tz qx qy qz qw` per line, camera-to-world (TUM RGB-D, rpg_trajectory_evaluation)."""
    d = Diagnostics()
    f = str(path)
    poses, stamps, where = [], [], []
    for line, text in _text_lines(path, d):
        v = _numbers(text.split())
        if v is None or len(v) != 8:
            d.error("malformed line: expected 'timestamp tx ty tz qx qy qz qw' (8 numbers), "
                    f"got {text.strip()[:60]!r}; skipped", f, line, code="import.malformed_line")
            continue
        R = _quaternion(np.array(v[4:8]), f, line, d)
        poses.append(_pose(R, v[1:4]) if R is not None else np.full((4, 4), np.nan))
        stamps.append(v[0])
        where.append((f, line))
    arr = _rigid(np.array(poses).reshape(-1, 4, 4), where, d, "pose")
    traj = Trajectory("tum", f, arr, np.array(stamps, float), None, [f"line {w[1]}" for w in where], d)
    if intrinsics is not None:
        traj.intrinsics = read_pincam(intrinsics, d)
    return traj


# ------------------------------------------------------------------ COLMAP
def read_colmap(path: Path, intrinsics: Path | None = None) -> Trajectory:
    """COLMAP text model: images.txt (world-to-camera, QW QX QY QZ first, every second line 2D points)
    and cameras.txt beside it. Poses come in the order of IMAGE_ID."""
    images = path / "images.txt" if path.is_dir() else path
    cameras_file = images.parent / "cameras.txt"
    d = Diagnostics()
    f = str(images)
    cameras = _colmap_cameras(cameras_file, d) if cameras_file.is_file() else {}
    if not cameras_file.is_file():
        d.warning("no cameras.txt beside images.txt; no intrinsics", cameras_file, code="import.no_intrinsics")
    rows = []          # (image_id, pose, camera_id, name, line)
    text = read_text(images, d).splitlines()
    first_at: dict[int, int] = {}
    unpaired: list[int] = []
    for line, text_line in _colmap_image_lines(text, unpaired):
        tokens = text_line.split()
        v = _numbers(tokens[:9]) if len(tokens) >= 10 else None
        if v is None or not all(float(x).is_integer() for x in (v[0], v[8])):
            d.error("malformed image line: expected 'IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME' "
                    "(every second line holds 2D points); skipped", f, line, code="import.malformed_line")
            continue
        image_id = int(v[0])
        if image_id in first_at:
            d.error(f"IMAGE_ID {image_id} again (first at line {first_at[image_id]}); this image is skipped", f, line,
                    code="import.duplicate_image_id")
            continue
        first_at[image_id] = line
        q_wxyz = np.array(v[1:5])
        R = _quaternion(q_wxyz[[1, 2, 3, 0]], f, line, d)
        if R is None:
            pose = np.full((4, 4), np.nan)
        else:
            w2c = _pose(R, v[5:8])
            pose = _invert_rigid(w2c)
        rows.append((image_id, pose, int(v[8]), " ".join(tokens[9:]), line))
    if unpaired:
        d.warning(f"{len(unpaired)} image lines are not followed by their 2D-points line (the first at line "
                  f"{unpaired[0]}): read as images.txt without point lines, every line an image", f, unpaired[0],
                  code="import.colmap_no_points_lines")
    rows.sort(key=lambda r: r[0])
    poses = np.array([r[1] for r in rows]).reshape(-1, 4, 4)
    poses = _rigid(poses, [(f, r[4]) for r in rows], d, "pose")
    used = sorted({r[2] for r in rows})
    missing = [c for c in used if c not in cameras]
    if missing and cameras_file.is_file():
        d.warning(f"images use camera {missing[0]}, which cameras.txt does not define usably; no intrinsics",
                  f, code="import.no_intrinsics")
    intr = cameras.get(used[0]) if used else None
    if len(used) > 1:
        d.warning(f"{len(used)} cameras; the frustums use camera {used[0]}'s intrinsics", f,
                  code="import.several_cameras")
    return Trajectory("colmap", f, poses, None, intr, [r[3] for r in rows], d)


def _points_line(text: str) -> bool:
    """A COLMAP 2D-points line: `X Y POINT3D_ID` triples (possibly none: an empty line)."""
    tokens = text.split()
    return len(tokens) % 3 == 0 and _numbers(tokens) is not None


def _colmap_image_lines(text: list[str], unpaired: list[int]) -> list[tuple[int, str]]:
    """The numbered image lines of images.txt. Each is followed by its 2D-points line, which may be empty;
    a writer that leaves the points out (a common export) puts image lines one after another, so a line that
    cannot be a points line where one is due is taken as the next image, and its number goes to `unpaired`."""
    lines = [(k, ln) for k, ln in enumerate(text, 1) if not ln.lstrip().startswith("#")]
    while lines and not lines[-1][1].strip():
        lines.pop()
    out, expect_image = [], True
    for k, ln in lines:
        if expect_image:
            out.append((k, ln))
            expect_image = False
        elif _points_line(ln):
            expect_image = True
        else:
            unpaired.append(out[-1][0])
            out.append((k, ln))
    return out


def _colmap_cameras(path: Path, d: Diagnostics) -> dict[int, Intrinsics]:
    out: dict[int, Intrinsics] = {}
    f = str(path)
    for line, text in _text_lines(path, d):
        t = text.split()
        v = _numbers([t[0], *t[2:]]) if len(t) >= 5 else None
        if v is None:
            d.error("malformed camera line: expected 'CAMERA_ID MODEL WIDTH HEIGHT PARAMS[]'; skipped", f, line,
                    code="import.malformed_line")
            continue
        cam_id, model, (w, h), params = int(v[0]), t[1].upper(), v[1:3], v[3:]
        if model in _COLMAP_ONE_FOCAL and len(params) >= 3:
            fx = fy = params[0]
            cx, cy = params[1:3]
        elif model in _COLMAP_TWO_FOCALS and len(params) >= 4:
            fx, fy, cx, cy = params[:4]
        else:
            d.error(f"unknown camera model {t[1]!r} (or too few parameters) for camera {cam_id}; "
                    "its images get no intrinsics", f, line, code="import.unknown_camera_model")
            continue
        intr = _intrinsics({"width": w, "height": h, "fx": fx, "fy": fy, "cx": cx, "cy": cy}, f, line, d,
                           f"camera {cam_id}")
        if intr is not None:
            out[cam_id] = intr
    return out


def _invert_rigid(p: np.ndarray) -> np.ndarray:
    out = np.eye(4)
    R = p[:3, :3]
    out[:3, :3] = R.T
    out[:3, 3] = -R.T @ p[:3, 3]
    return out


# ------------------------------------------------------------------ nerfstudio
def read_nerfstudio(path: Path, intrinsics: Path | None = None) -> Trajectory:
    """transforms.json: camera-to-world `transform_matrix` per frame, OpenGL camera axes; intrinsics as
    `fl_x/fl_y/cx/cy/w/h` (top level or per frame) or the Blender `camera_angle_x`."""
    file = path / "transforms.json" if path.is_dir() else path
    d = Diagnostics()
    f = str(file)
    doc = parse_json_document(read_text(file, d), file, d)
    if doc is None:
        first = d.of_level("error")[0]
        raise UserError(f"{first.file}:{first.line}: {first.message}" if first.line else f"{file}: {first.message}")
    if not isinstance(doc, dict) or not isinstance(doc.get("frames"), list):
        raise UserError(f"{file}: 'frames' must be a list of frames (a nerfstudio transforms.json)")
    poses, names, where = [], [], []
    for k, frame in enumerate(doc["frames"]):
        at = f"frames[{k}]"
        m = frame.get("transform_matrix") if isinstance(frame, dict) else None
        try:
            arr = np.array(m, dtype=float)
            if arr.shape == (3, 4):
                arr = np.vstack([arr, [0, 0, 0, 1]])
            if arr.shape != (4, 4):
                raise ValueError
        except (ValueError, TypeError):
            d.error(f"{at}.transform_matrix must be a 4x4 (or 3x4) matrix of numbers; frame skipped", f,
                    code="import.malformed_entry")
            arr = np.full((4, 4), np.nan)
        poses.append(arr)
        names.append(str(frame.get("file_path", at)) if isinstance(frame, dict) else at)
        where.append(at)
    arr = np.array(poses).reshape(-1, 4, 4)
    problems = rigid_problems(arr) if len(arr) else []
    for k, p in enumerate(problems):
        if p is not None and np.isfinite(arr[k]).all():
            d.error(f"frames[{k}].transform_matrix: pose {p}; frame skipped", f, code="import.bad_pose")
            arr[k] = np.nan
    arr = opengl_to_opencv(arr)
    intr = _nerfstudio_intrinsics(doc, f, d)
    return Trajectory("nerfstudio", f, arr, None, intr, names, d)


def _nerfstudio_intrinsics(doc: dict, f: str, d: Diagnostics) -> Intrinsics | None:
    src = doc
    if "fl_x" not in doc and doc["frames"] and isinstance(doc["frames"][0], dict) and "fl_x" in doc["frames"][0]:
        src = doc["frames"][0]               # per-frame intrinsics: the first frame's
    if "fl_x" in src:
        w, h = src.get("w"), src.get("h")
        vals = {"width": w, "height": h, "fx": src.get("fl_x"), "fy": src.get("fl_y", src.get("fl_x")),
                "cx": src.get("cx", (w or 0) / 2), "cy": src.get("cy", (h or 0) / 2)}
        return _intrinsics(vals, f, None, d, "intrinsics (fl_x, fl_y, cx, cy, w, h)")
    if "camera_angle_x" in doc:
        angle = doc["camera_angle_x"]
        # The Blender synthetic scenes are 800 x 800 and do not say so.
        w, h = doc.get("w", 800), doc.get("h", 800)
        if not ("w" in doc and "h" in doc):
            d.info("camera_angle_x without w/h: assuming the Blender scenes' 800 x 800 images", f,
                   code="import.assumed_image_size")
        try:
            if not isinstance(angle, (int, float)) or not 0 < float(angle) < math.pi:
                raise ValueError
            fx = 0.5 * float(w) / math.tan(0.5 * float(angle))
        except (ValueError, TypeError, ZeroDivisionError):
            d.error(f"camera_angle_x must be an angle in (0, pi) radians, got {angle!r}; no intrinsics", f,
                    code="import.bad_intrinsics")
            return None
        return _intrinsics({"width": w, "height": h, "fx": fx, "fy": fx, "cx": w / 2, "cy": h / 2}, f, None, d,
                           "intrinsics (camera_angle_x)")
    d.warning("no intrinsics (neither fl_x nor camera_angle_x)", f, code="import.no_intrinsics")
    return None


# ------------------------------------------------------------------ ScanNet
def read_scannet(path: Path, intrinsics: Path | None = None) -> Trajectory:
    """A ScanNet export folder: pose/<frame>.txt (4x4 camera-to-world, OpenCV axes) and
    intrinsic/intrinsic_color.txt (4x4 K). Frames in numeric order of their names."""
    d = Diagnostics()
    pose_dir = path / "pose"
    files = sorted(pose_dir.glob("*.txt"), key=lambda p: _natural(p.stem))
    if not files:
        raise UserError(f"{pose_dir}: no pose/*.txt files (a ScanNet export folder has one per frame)")
    poses, where = [], []
    for p in files:
        poses.append(_matrix_file(p, 4, d))
        where.append((str(p), None))
    arr = np.array(poses).reshape(-1, 4, 4)
    infinite = [i for i in range(len(arr)) if np.isinf(arr[i]).any()]
    if infinite:
        # ScanNet writes -inf where tracking was lost: expected, one line for all.
        d.warning(f"{len(infinite)} poses are -inf (ScanNet's 'tracking lost'), e.g. {files[infinite[0]].name}; "
                  "those frames have no pose", files[infinite[0]], code="import.tracking_lost")
        arr[infinite] = np.nan
    problems = rigid_problems(arr)
    for i, prob in enumerate(problems):
        if prob is not None and np.isfinite(arr[i]).all():
            d.error(f"pose {prob}; skipped", where[i][0], code="import.bad_pose")
            arr[i] = np.nan
    kfile = intrinsics or path / "intrinsic" / "intrinsic_color.txt"
    intr = None
    if kfile.is_file():
        K = _matrix_file(kfile, 4, d)
        if np.isfinite(K).all():
            # intrinsic_color.txt has no image size; ScanNet's colour camera has its centre near the middle.
            w, h = int(round(2 * K[0, 2])), int(round(2 * K[1, 2]))
            d.info(f"image size not stored in {kfile.name}; taken as {w} x {h} (twice the principal point)",
                   kfile, code="import.assumed_image_size")
            intr = _intrinsics({"width": w, "height": h, "fx": K[0, 0], "fy": K[1, 1], "cx": K[0, 2], "cy": K[1, 2]},
                               str(kfile), None, d, "intrinsic_color")
    else:
        d.warning("no intrinsic/intrinsic_color.txt; no intrinsics", kfile, code="import.no_intrinsics")
    return Trajectory("scannet", str(path), arr, None, intr, [p.stem for p in files], d)


def _natural(s: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def _matrix_file(p: Path, n: int, d: Diagnostics) -> np.ndarray:
    rows = []
    for line, text in _text_lines(p, d):
        v = _numbers(text.split())
        if v is None or len(v) != n:
            d.error(f"malformed line: expected {n} numbers, got {text.strip()[:60]!r}; matrix skipped", p, line,
                    code="import.malformed_line")
            return np.full((n, n), np.nan)
        rows.append(v)
    if len(rows) != n:
        d.error(f"expected {n} rows of {n} numbers, got {len(rows)} rows; matrix skipped", p,
                code="import.malformed_line")
        return np.full((n, n), np.nan)
    return np.array(rows, float)


# ------------------------------------------------------------------ ARKitScenes
def read_arkitscenes(path: Path, intrinsics: Path | None = None) -> Trajectory:
    """`.traj`: `timestamp ax ay az tx ty tz`, the world-to-camera rotation as axis-angle (radians) and
    translation, OpenCV camera axes (as ARKitScenes' own TrajStringToMatrix reads it);
    `.pincam`: `w h fx fy cx cy`, found beside it or given with --intrinsics."""
    d = Diagnostics()
    f = str(path)
    poses, stamps, where = [], [], []
    for line, text in _text_lines(path, d):
        v = _numbers(text.split())
        if v is None or len(v) != 7:
            d.error(f"malformed line: expected 'timestamp ax ay az tx ty tz' (7 numbers), got {text.strip()[:60]!r}; "
                    "skipped", f, line, code="import.malformed_line")
            continue
        try:
            poses.append(_invert_rigid(_pose(axis_angle_to_matrix(v[1:4]), v[4:7])) if np.isfinite(v).all()
                         else np.full((4, 4), np.nan))
        except ValueError as e:
            d.error(f"{e}; pose skipped", f, line, code="import.bad_pose")
            poses.append(np.full((4, 4), np.nan))
        stamps.append(v[0])
        where.append((f, line))
    arr = _rigid(np.array(poses).reshape(-1, 4, 4), where, d, "pose")
    pincam = intrinsics or _find_pincam(path)
    intr = read_pincam(pincam, d) if pincam is not None else None
    if pincam is None:
        d.warning("no .pincam beside the .traj (nor --intrinsics); no intrinsics", f, code="import.no_intrinsics")
    return Trajectory("arkitscenes", f, arr, np.array(stamps, float), intr, [f"line {w[1]}" for w in where], d)


def _find_pincam(traj: Path) -> Path | None:
    same = traj.with_suffix(".pincam")
    if same.is_file():
        return same
    folder = traj.parent / f"{traj.stem}_intrinsics"
    found = sorted(folder.glob("*.pincam")) if folder.is_dir() else []
    return found[0] if found else None


def read_pincam(path: Path, d: Diagnostics) -> Intrinsics | None:
    """An ARKitScenes .pincam: one line `width height fx fy cx cy`."""
    if not os.path.isfile(path):
        d.error("intrinsics file not found", path, code="import.no_intrinsics")
        return None
    for line, text in _text_lines(Path(path), d):
        v = _numbers(text.split())
        if v is None or len(v) != 6:
            d.error("malformed line: expected 'width height fx fy cx cy'; no intrinsics", path, line,
                    code="import.malformed_line")
            return None
        return _intrinsics(dict(zip(("width", "height", "fx", "fy", "cx", "cy"), v)), str(path), line, d,
                           "pincam")
    d.error("empty intrinsics file", path, code="import.no_intrinsics")
    return None


READERS: dict[str, Callable[[Path, Path | None], Trajectory]] = {
    "tum": read_tum, "colmap": read_colmap, "nerfstudio": read_nerfstudio,
    "scannet": read_scannet, "arkitscenes": read_arkitscenes,
}
