"""Files in the real layouts of the formats import-scene reads, written for the tests: a room as a GLB in
any world (y-up as glTF says, or not), a closed box as a PLY, the georeferenced TUM walk moved, scaled or
turned into another world; and what the tests measure of an import: the free floor area of its
occupancy map, cameras level in the z-up world (tests/data/scene_import/SOURCES.md)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from viewer.core.geometry import quaternion_to_matrix
from viewer.core.scene.formats import UP_AXES
from viewer.core.scene.reader import read_scene_file
from viewer.render.image_io import read_rgb

DATA = Path(__file__).parent / "data" / "scene_import"
FLOOR = (6.0, 4.0)                    # the room's floor, metres
TABLE = (1.0, 1.0, 0.8)


def written(result):
    return read_scene_file(result.folder / "scene.json", result.folder.name)


def room_glb(path: Path, up: str) -> Path:
    """A floor (6 x 4 m, one quad, facing up) and a 1 x 1 x 0.8 m table on it, as a GLB whose world is
    `up`-up; a `.ply` path gets the two as one PLY (a scan's mesh: no format says its up)."""
    import trimesh
    floor = trimesh.Trimesh([[0, 0, 0], [6, 0, 0], [6, 4, 0], [0, 4, 0]], [[0, 1, 2], [0, 2, 3]], process=False)
    table = trimesh.creation.box(extents=TABLE)
    table.apply_translation([2.0, 2.0, 0.4])
    to_file = UP_AXES[up].T                  # viewer (z-up) -> the file's world
    scene = trimesh.Scene()
    for name, part in (("floors_0", floor), ("table_0", table)):
        part.vertices = part.vertices @ to_file.T
        scene.add_geometry(part, node_name=name, geom_name=name)
    if path.suffix == ".ply":
        trimesh.util.concatenate(list(scene.geometry.values())).export(str(path))
    else:
        path.write_bytes(scene.export(file_type="glb"))
    return path


def room_ply(path: Path, lo=(0, 0, 0), hi=(6, 4, 2.5)) -> Path:
    """A closed box as a z-up PLY."""
    import trimesh
    lo, hi = np.array(lo, float), np.array(hi, float)
    box = trimesh.creation.box(extents=hi - lo)
    box.apply_translation((lo + hi) / 2)
    box.export(str(path))
    return path


def free_area(scene) -> float:
    """Square metres of free floor in the occupancy map."""
    occ = scene.topdown["occupancy"]
    image = read_rgb(occ.image)
    px_per_m = float(np.sqrt(abs(np.linalg.det(occ.world_to_pixel[:, :2]))))
    return float((image[..., 0] > 127).sum()) / px_per_m ** 2


def level_cameras(poses):
    ok = np.isfinite(poses).all(axis=(1, 2))
    assert ok.any()
    assert poses[ok, :3, 1] @ [0, 0, 1] == pytest.approx(-np.ones(ok.sum()), abs=1e-6)   # image down = world down


def matrix_to_quaternion(R) -> list[float]:
    """x, y, z, w of a rotation matrix, from its largest component (any rotation, half-turns too)."""
    m = np.asarray(R, float)
    t = np.trace(m)
    k = int(np.argmax([m[0, 0], m[1, 1], m[2, 2], t]))
    if k == 3:
        w = np.sqrt(1 + t) / 2
        q = [(m[2, 1] - m[1, 2]) / (4 * w), (m[0, 2] - m[2, 0]) / (4 * w), (m[1, 0] - m[0, 1]) / (4 * w), w]
    else:
        i, j, l = k, (k + 1) % 3, (k + 2) % 3
        r = np.sqrt(1 + m[i, i] - m[j, j] - m[l, l])
        q = [0.0, 0.0, 0.0, (m[l, j] - m[j, l]) / (2 * r)]
        q[i], q[j], q[l] = r / 2, (m[j, i] + m[i, j]) / (2 * r), (m[l, i] + m[i, l]) / (2 * r)
    return q


def tum_walk(path: Path, offset=(0.0, 0.0, 0.0), scale: float = 1.0, to_file=np.eye(3)) -> Path:
    """The georeferenced fixture's walk with its UTM offset replaced by `offset`, scaled, in another world."""
    rows = []
    for ln in (DATA / "tum_georeferenced.txt").read_text().splitlines():
        if ln.startswith("#"):
            continue
        t = [float(v) for v in ln.split()]
        c = (np.array(t[1:4]) - [512345.0, 4101234.0, 0.0]) * scale + offset
        R = to_file @ quaternion_to_matrix(np.array(t[4:8]))
        c = to_file @ c
        q = matrix_to_quaternion(R)
        rows.append(" ".join(f"{v:.9f}" for v in [t[0], *c, *q]))
    path.write_text("\n".join(rows) + "\n")
    return path
