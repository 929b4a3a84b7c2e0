"""A coarse copy of a big mesh, drawn while the user orbits the 3D view.

Vertex clustering: snap vertices to a grid, merge each cell's vertices into
their mean, drop triangles that collapse. Crude next to quadric decimation,
but one vectorised pass over a million triangles, and while the view moves
the eye cannot tell.
"""
from __future__ import annotations

import numpy as np


def cluster_decimate(vertices: np.ndarray, triangles: np.ndarray, cell: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices, triangles, kept) after merging vertices within `cell` metres.

    `kept` indexes the input triangles that survive, to carry per-face data along.
    """
    v = np.asarray(vertices, np.float64)
    t = np.asarray(triangles, np.int64)
    if len(v) == 0 or len(t) == 0:
        return v.astype(np.float32), t.astype(np.int32), np.arange(len(t))
    lo = v.min(axis=0)
    q = np.floor((v - lo) / cell).astype(np.int64)
    dims = q.max(axis=0) + 1
    key = (q[:, 0] * dims[1] + q[:, 1]) * dims[2] + q[:, 2]
    uniq, inverse = np.unique(key, return_inverse=True)
    counts = np.bincount(inverse, minlength=len(uniq)).astype(np.float64)
    merged = np.stack([np.bincount(inverse, weights=v[:, k], minlength=len(uniq)) for k in range(3)],
                      axis=1) / counts[:, None]
    nt = inverse[t]
    alive = (nt[:, 0] != nt[:, 1]) & (nt[:, 1] != nt[:, 2]) & (nt[:, 0] != nt[:, 2])
    kept = np.flatnonzero(alive)
    return merged.astype(np.float32), nt[kept].astype(np.int32), kept


def decimate_to(vertices: np.ndarray, triangles: np.ndarray, max_triangles: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cluster with growing cells until at most `max_triangles` remain (at most 8 passes)."""
    t = np.asarray(triangles)
    if len(t) <= max_triangles:
        return np.asarray(vertices, np.float32), t.astype(np.int32), np.arange(len(t))
    v = np.asarray(vertices, np.float64)
    extent = np.ptp(v, axis=0)
    area = float(np.sort(extent)[-2:].prod()) or 1.0
    # A surface of area A in cells of side c keeps roughly 2 A / c^2 triangles.
    cell = float(np.sqrt(2.0 * area / max_triangles))
    for _ in range(8):
        out = cluster_decimate(v, t, cell)
        if len(out[1]) <= max_triangles:
            return out
        cell *= 1.5
    return out
