"""Where a walking camera fits: a 2D grid of the apartment's floor.

Obstacles (walls and furniture footprints, as 4-corner polygons) are
rasterised onto a grid; the clearance of a cell is its distance in metres to
the nearest obstacle, so "free for a body of radius r" is `clearance > r`.
Both the furniture placement (is this room still walkable?) and the
trajectory planner work on it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class FloorGrid:
    x0: float          # world coordinates of the grid's lower-left corner
    y0: float
    res: float         # metres per cell
    nx: int
    ny: int

    @classmethod
    def around(cls, bounds: tuple[float, float, float, float], res: float, margin: float = 0.3) -> "FloorGrid":
        x0, y0, x1, y1 = bounds
        nx = int(np.ceil((x1 - x0 + 2 * margin) / res))
        ny = int(np.ceil((y1 - y0 + 2 * margin) / res))
        return cls(x0 - margin, y0 - margin, res, nx, ny)

    def to_cell(self, xy: np.ndarray) -> np.ndarray:
        """(N, 2) world xy -> (N, 2) integer (row, col), clipped to the grid."""
        xy = np.atleast_2d(np.asarray(xy, float))
        col = np.clip(np.floor((xy[:, 0] - self.x0) / self.res), 0, self.nx - 1)
        row = np.clip(np.floor((xy[:, 1] - self.y0) / self.res), 0, self.ny - 1)
        return np.stack([row, col], 1).astype(np.int64)

    def to_world(self, cells: np.ndarray) -> np.ndarray:
        """(N, 2) (row, col) -> (N, 2) world xy of the cell centres."""
        cells = np.atleast_2d(cells)
        return np.stack([self.x0 + (cells[:, 1] + 0.5) * self.res,
                         self.y0 + (cells[:, 0] + 0.5) * self.res], 1)

    def rasterise(self, polygons: np.ndarray) -> np.ndarray:
        """Boolean (ny, nx) mask of the cells covered by (K, 4, 2) world polygons."""
        from .opencv import import_cv2
        cv2 = import_cv2()
        mask = np.zeros((self.ny, self.nx), np.uint8)
        if len(polygons):
            shift = 4                                   # sub-cell precision for cv2.fillPoly
            pts = (np.asarray(polygons, float) - [self.x0, self.y0]) / self.res - 0.5
            pts = np.round(pts * (1 << shift)).astype(np.int32)
            cv2.fillPoly(mask, list(pts), 1, lineType=cv2.LINE_8, shift=shift)
        return mask.astype(bool)

    def clearance(self, obstacles: np.ndarray) -> np.ndarray:
        """Distance in metres from each cell centre to the nearest obstacle cell."""
        from scipy.ndimage import distance_transform_edt
        return distance_transform_edt(~obstacles) * self.res


def rect_polygon(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)


def oriented_polygon(center_xy, width: float, depth: float, yaw: float) -> np.ndarray:
    """Corners of a width x depth rectangle rotated by yaw (radians) about its centre."""
    c, s = np.cos(yaw), np.sin(yaw)
    local = np.array([[-width / 2, -depth / 2], [width / 2, -depth / 2],
                      [width / 2, depth / 2], [-width / 2, depth / 2]])
    return local @ np.array([[c, s], [-s, c]]) + np.asarray(center_xy, float)


def connected_label(free: np.ndarray) -> np.ndarray:
    """4-connected component labels of a boolean mask (0 = not free)."""
    from scipy.ndimage import label
    labels, _ = label(free)
    return labels
