"""Which way is up in an imported world, decided from the data and said (numpy only).

No trajectory format records its up axis and only some mesh formats do, so
`--up auto` weighs what there is, in this order:

  the scene format's own convention   OmniGibson: z; glTF/GLB: y by its specification
  the cameras                         their mean image-up vector (OpenCV: minus the camera's y axis),
                                      when they agree on it
  the path                            the normal of the plane the camera centres lie in (a walk at
                                      a roughly constant height above a floor), signed by the cameras
  the geometry                        the axis the mesh's surfaces face most, by area (floors and
                                      ceilings outweigh walls), taken positive
  otherwise                           z, said so

Each step gives an `UpEvidence` (an axis and a sentence saying why); the
decision keeps the evidence it rejected, so a mesh whose convention the
cameras contradict is reported naming both.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...diagnostics import UserError

# World rotations that make the given axis the viewer's +z (right-handed; y-up (x, y, z) -> (x, -z, y)).
UP_AXES = {
    "z": np.eye(3),
    "-z": np.diag([1.0, -1.0, -1.0]),
    "y": np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]),
    "-y": np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]),
    "x": np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    "-x": np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]),
}
UP_CHOICES = ("auto", *UP_AXES)
_AXIS_NAMES = ("x", "y", "z")
# How much the cameras must agree before their mean up vector decides: the mean of unit vectors has
# at least this length, and points within ~25 degrees of one axis.
CAMERA_AGREEMENT = 0.5
AXIS_COSINE = 0.9
# A path is planar when its thinnest spread is below this fraction of its widest.
PLANAR_RATIO = 0.15
# The geometry decides only when one axis carries this many times the horizontal area of the next.
AREA_DOMINANCE = 1.5


@dataclass(frozen=True)
class UpEvidence:
    axis: str                 # "y", "-y", ...
    why: str                  # a phrase: "glTF is y-up by its specification"
    source: str               # "format", "cameras", "path", "geometry", "default", "given"


@dataclass(frozen=True)
class UpDecision:
    axis: str
    why: str
    source: str
    disagreement: str | None = None      # the warning when the mesh and the cameras disagree

    def record(self) -> dict:
        """The scene.json `import.up` entry."""
        return {"axis": self.axis, "source": self.source, "why": self.why}


def up_rotation(up: str) -> np.ndarray:
    if up not in UP_AXES:
        raise UserError(f"--up {up!r}: expected one of {', '.join(UP_CHOICES)}")
    return UP_AXES[up]


def snap(v: np.ndarray) -> str | None:
    """The signed axis a unit vector points along (within ~25 degrees), else None."""
    v = np.asarray(v, float)
    n = float(np.linalg.norm(v))
    if not np.isfinite(n) or n < 1e-12:
        return None
    v = v / n
    k = int(np.argmax(np.abs(v)))
    if abs(v[k]) < AXIS_COSINE:
        return None
    return ("" if v[k] > 0 else "-") + _AXIS_NAMES[k]


def _finite(poses: np.ndarray) -> np.ndarray:
    p = np.asarray(poses, float).reshape(-1, 4, 4)
    return p[np.isfinite(p).all(axis=(1, 2))]


def camera_up(poses: np.ndarray) -> UpEvidence | None:
    """The cameras' mean image-up vector (OpenCV camera-to-world: minus the y column), when they agree."""
    p = _finite(poses)
    if len(p) == 0:
        return None
    up = -p[:, :3, 1]
    mean = up.mean(axis=0)
    agreement = float(np.linalg.norm(mean))
    axis = snap(mean)
    if axis is None or agreement < CAMERA_AGREEMENT:
        return None
    share = float((up @ (mean / agreement) > np.cos(np.radians(30))).mean())
    return UpEvidence(axis, f"the cameras' mean up vector points along {axis} ({share:.0%} of {len(p)} cameras "
                            "within 30 degrees of it)", "cameras")


def path_plane_up(poses: np.ndarray) -> UpEvidence | None:
    """The normal of the plane the camera centres lie in, signed by the cameras' up (or +)."""
    p = _finite(poses)
    if len(p) < 4:
        return None
    centres = p[:, :3, 3]
    centred = centres - centres.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    if s[0] <= 1e-9 or s[-1] / s[0] > PLANAR_RATIO:
        return None
    normal = vt[-1]
    if float(normal @ (-p[:, :3, 1]).mean(axis=0)) < 0:
        normal = -normal
    axis = snap(normal)
    if axis is None:
        return None
    return UpEvidence(axis, f"the camera path lies in a plane normal to {axis} (a walk at a constant height)", "path")


def geometry_up(vertices: np.ndarray, triangles: np.ndarray) -> UpEvidence | None:
    """The axis the mesh's surfaces face most, by area (floors and ceilings outweigh walls in a room),
    taken positive: a floor's normal points up in a scan seen from inside but down in a closed shell,
    so the normals cannot tell the sign."""
    v = np.asarray(vertices, np.float64)
    t = np.asarray(triangles)
    if len(t) == 0:
        return None
    n = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])     # length: twice the area
    area = np.abs(n).sum(axis=0)
    order = np.argsort(area)[::-1]
    if area[order[0]] < AREA_DOMINANCE * area[order[1]]:
        return None
    axis = _AXIS_NAMES[int(order[0])]
    share = float(area[order[0]] / area.sum())
    return UpEvidence(axis, f"the mesh's horizontal surfaces (floors, ceilings) face {axis} ({share:.0%} of its "
                            "area)", "geometry")


def decide_up(given: str, *, format_claim: UpEvidence | None = None, poses: np.ndarray | None = None,
              geometry=None) -> UpDecision:
    """The up axis to use. `given` is --up ('auto' or an axis); `format_claim` the scene or mesh format's
    convention; `poses` the trajectory (OpenCV camera-to-world, the file's world); `geometry` a callable
    giving the mesh's `geometry_up` evidence, called only when nothing before it decides."""
    if given != "auto":
        up_rotation(given)
        decision = UpEvidence(given, "given with --up", "given")
    else:
        decision = None
    cameras = None
    if poses is not None:
        cameras = camera_up(poses) or path_plane_up(poses)
    if decision is None and format_claim is not None:
        decision = format_claim
        # A glTF file written z-up despite its specification: its own floors say so.
        if format_claim.source == "format" and geometry is not None and \
                (cameras is None or cameras.axis != format_claim.axis):
            found = geometry()
            if found is not None and found.axis != format_claim.axis:
                decision = UpEvidence(found.axis, f"{format_claim.why}, but {found.why}", "geometry")
    if decision is None:
        decision = cameras
    if decision is None and geometry is not None:
        decision = geometry()
    if decision is None:
        decision = UpEvidence("z", "no format convention, trajectory or floor said otherwise: assumed z "
                                   "(give --up to choose)", "default")
    disagreement = None
    if cameras is not None and cameras.axis != decision.axis and decision.source in ("format", "geometry"):
        disagreement = (f"the mesh and the cameras disagree about up: the mesh says {decision.axis} "
                        f"({decision.why}), the cameras say {cameras.axis} ({cameras.why}); used "
                        f"{decision.axis}; give --up {cameras.axis} if the cameras are right")
    return UpDecision(decision.axis, decision.why, decision.source, disagreement)
