"""query_near_trajectory: the current view must not be (nearly) a frame of the exploration video."""
from __future__ import annotations

import numpy as np

from ...scene.model import QuestionGeometry
from ..auditors import SceneAuditor, geometry_problem
from ..registry import SCENE, Check
from ..types import VIEW_COLUMNS

NEAR_DISTANCE = 0.3              # metres
NEAR_ANGLE = 30.0                # degrees between the optical axes


class QueryNearTrajectory(Check):
    def check_question(self, auditor: SceneAuditor, q, g: QuestionGeometry) -> None:
        if g.viewpoint is None:
            auditor.skip(self, geometry_problem(g, "viewpoint", "no viewpoint"))
            return
        if g.video is None:
            auditor.skip(self, geometry_problem(g, "video", "the question names no video"))
            return
        poses = g.video.poses
        valid = np.flatnonzero(g.video.valid)
        if len(valid) == 0:
            auditor.skip(self, f"video {g.video.id} has no valid camera pose")
            return
        centres = poses[valid, :3, 3]
        axes = poses[valid, :3, 2]
        dist = np.linalg.norm(centres - g.viewpoint.pose[:3, 3], axis=1)
        cos = np.clip(axes @ g.viewpoint.pose[:3, 2], -1.0, 1.0)
        angle = np.degrees(np.arccos(cos))
        near = (dist <= NEAR_DISTANCE) & (angle <= NEAR_ANGLE)
        if not near.any():
            auditor.passed(self)
            return
        k = np.flatnonzero(near)[np.argmin(dist[near])]
        auditor.flag(self, q, f"current view {g.viewpoint.id} is {dist[k]:.2f} m and {angle[k]:.0f}° from "
                              f"frame {valid[k]} of {g.video.id}",
                     {"viewpoint": g.viewpoint.id, "video": g.video.id, "nearest_frame": int(valid[k]),
                      "distance_m": dist[k], "angle_deg": angle[k], "frames_within": int(near.sum()),
                      "max_distance_m": NEAR_DISTANCE, "max_angle_deg": NEAR_ANGLE})


QUERY_NEAR_TRAJECTORY = QueryNearTrajectory("query_near_trajectory", "error",
                                            "current view within 0.3 m and 30 deg of a video pose", VIEW_COLUMNS,
                                            frozenset({SCENE}))
