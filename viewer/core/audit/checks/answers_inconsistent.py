"""answers_inconsistent: a viewpoint's and a target's questions agree with each other (any release, 3D or not).

From the map geometry the answers give (`core/reconstruct.py`):

- an ED truth against the bearing from the viewpoint (Pos) to the target (GP)
  on the map, relative to the viewpoint's heading (Ori): within 5° plus what
  the points' 1-unit rounding allows at that range;
- an EDist truth against the fitted scale times the pixel distance (with the
  fitted camera height): within max(0.15 m, 5 %) plus one unit of rounding.

A finding names every question involved. What stops the comparison (uids
that link nothing, contradictory duplicates, a heading with no position, a
weak scale, maps of different sizes) is reported too. With scene metadata,
the rebuilt viewpoints, headings and targets are also compared with the 3D
geometry.
"""
from __future__ import annotations

import numpy as np

from ... import geometry as geo
from ...column import Columns
from ...reconstruct import (
    ANGLE_TOLERANCE,
    DISTANCE_TOLERANCE_M,
    DISTANCE_TOLERANCE_REL,
    ED,
    EDIST,
    Reconstruction,
    map_bearing,
    pair_rows,
    pixel_offsets,
    reconstruct,
    scene_sizes,
    wrap,
)
from ..auditors import ReleaseAuditor
from ..registry import Check
from ..types import VIEW_TARGET_COLUMNS, Finding

ROUNDING_UNITS = 1.5         # normalised units a point may be off by its floor() rounding, both ends together
SCENE_POINT_UNITS = 3.0      # 3D cross-check: a rebuilt point this far from the scene's is flagged


def involved(rec: Reconstruction, row: int, v: int, t: int) -> list[str]:
    """The question itself, then those that placed its viewpoint, heading and target."""
    rows = [row] + rec.rows("position", v) + rec.rows("heading", v) + rec.rows("target", t)
    return list(dict.fromkeys(rec.uids[r] for r in rows))


class AnswersInconsistent(Check):
    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        release, tally = audit.release, audit.tally
        rec = reconstruct(release)
        # With 3D metadata, questions link to their scene through `meta`: a uid outside the pattern is no problem.
        quiet = ("reconstruct.uid_unlinked",) if (release.root / "scenes").is_dir() else ()
        out = [Finding(None, self.id, d.level, d.message, {"code": d.code}) for d in rec.diagnostics
               if not d.code.startswith(quiet)]
        out += self._directions(rec, tally)
        out += self._distances(rec, tally)
        linked = set(pair_rows(rec, ED)[0].tolist()) | set(pair_rows(rec, EDIST)[0].tolist())
        for i in np.flatnonzero(np.isin(rec.column, ED + EDIST)).tolist():
            if i not in linked:
                tally.skip(self.id, "viewpoint or target not placed by Pos / Ori / GP questions")
        out += self._scene_geometry(release, rec)
        return out

    def _directions(self, rec: Reconstruction, tally) -> list[Finding]:
        rows, v, t = pair_rows(rec, ED)
        out = []
        off = pixel_offsets(rec, v, t)
        for row, vi, ti, (dx, dy) in zip(rows.tolist(), v.tolist(), t.tolist(), off.tolist()):
            heading = rec.view_heading[vi]
            if np.isnan(heading) or np.isnan(dx):
                tally.skip(self.id, "no heading (Ori) or no map size for the viewpoint")
                continue
            dist = float(np.hypot(dx, dy))
            size = scene_sizes(rec)[rec.view_scene[vi]]
            unit = float(np.hypot(*size)) / 1000.0 / np.sqrt(2)
            slack = float(np.degrees(np.arctan2(ROUNDING_UNITS * unit, max(dist, 1e-9))))
            expected = float(wrap(map_bearing(dx, dy) - heading))
            truth = float(rec.truth[row, 0])
            diff = abs(float(wrap(truth - expected)))
            if diff <= ANGLE_TOLERANCE + slack:
                tally.passed(self.id)
                continue
            tally.flag(self.id)
            uids = involved(rec, row, vi, ti)
            out.append(Finding(rec.uids[row], self.id, self.severity,
                               f"direction {truth:g}° but the map gives {expected:.0f}° (Pos, Ori and GP answers): "
                               f"{diff:.0f}° apart; questions: {', '.join(uids)}",
                               {"what": "direction", "truth": truth, "expected": expected, "difference": diff,
                                "tolerance": ANGLE_TOLERANCE + slack, "questions": uids}))
        return out

    def _distances(self, rec: Reconstruction, tally) -> list[Finding]:
        rows, v, t = pair_rows(rec, EDIST)
        out = []
        p = np.linalg.norm(pixel_offsets(rec, v, t), axis=1)
        for row, vi, ti, px in zip(rows.tolist(), v.tolist(), t.tolist(), p.tolist()):
            scale = rec.scenes[rec.scene_names[rec.view_scene[vi]]].scale
            if scale is None or np.isnan(px):
                tally.skip(self.id, "no scale fitted for the scene")
                continue
            s = scale.metres_per_px
            expected = float(np.hypot(s * px, scale.height))
            truth = float(rec.truth[row, 0])
            size = scene_sizes(rec)[rec.view_scene[vi]]
            rounding = s * ROUNDING_UNITS * float(np.max(size)) / 1000.0
            tol = max(DISTANCE_TOLERANCE_M, DISTANCE_TOLERANCE_REL * truth) + rounding
            diff = abs(truth - expected)
            if diff <= tol:
                tally.passed(self.id)
                continue
            tally.flag(self.id)
            uids = involved(rec, row, vi, ti)
            out.append(Finding(rec.uids[row], self.id, self.severity if not scale.weak else "warning",
                               f"distance {truth:g} m but the map gives {expected:.2f} m "
                               f"({scale.describe()}); questions: {', '.join(uids)}",
                               {"what": "distance", "truth": truth, "expected": expected, "difference": diff,
                                "tolerance": tol, "questions": uids, "scale_weak": scale.weak}))
        return out

    def _scene_geometry(self, release, rec: Reconstruction) -> list[Finding]:
        """With scene metadata: the rebuilt viewpoints, headings and targets against the 3D geometry."""
        from ...scene.model import link_question, load_scene
        out = []
        scenes: dict[str, object] = {}
        checked: set[tuple[str, int]] = set()
        for i in np.flatnonzero((rec.q_view >= 0) | (rec.q_target >= 0)).tolist():
            v, t = int(rec.q_view[i]), int(rec.q_target[i])
            q = release.questions[i]
            if q.scene not in scenes:
                scenes[q.scene] = load_scene(release.root, q.scene) if q.scene else None
            scene = scenes[q.scene]
            if scene is None:
                continue
            g = link_question(q, scene)
            tmap = g.topdown
            if tmap is None or tmap.world_to_pixel is None or not tmap.width:
                continue
            W = np.asarray(tmap.world_to_pixel, float)
            size = np.array([tmap.width, tmap.height], float)

            def norm(world_xy, W=W, size=size):
                return geo.world_to_pixel(W, world_xy) / size * 1000.0
            if v >= 0 and g.viewpoint is not None and ("v", v) not in checked:
                checked.add(("v", v))
                c = geo.camera_center(g.viewpoint.pose)[:2]
                gap = float(np.linalg.norm(norm(c) - rec.view_point[v]))
                if gap > SCENE_POINT_UNITS:
                    out.append(self._scene_finding(rec, "position", v, f"{gap:.0f} units from the scene's viewpoint"))
                h = rec.view_heading[v]
                true_h = float(geo.map_heading(g.viewpoint.pose, W))
                if not np.isnan(h) and abs(float(wrap(h - true_h))) > ANGLE_TOLERANCE:
                    out.append(self._scene_finding(rec, "heading", v, f"heading {h:g}° but the scene's pose "
                                                                      f"gives {true_h:.0f}°"))
            if t >= 0 and g.target is not None and g.target.bbox is not None and ("t", t) not in checked:
                checked.add(("t", t))
                gap = float(np.linalg.norm(norm(g.target.bbox.center[:2]) - rec.target_point[t]))
                if gap > SCENE_POINT_UNITS:
                    out.append(self._scene_finding(rec, "target", t, f"{gap:.0f} units from the scene's target"))
        return out

    def _scene_finding(self, rec: Reconstruction, what: str, k: int, text: str) -> Finding:
        uids = [rec.uids[r] for r in rec.rows(what, k)]
        return Finding(uids[0] if uids else None, self.id, self.severity,
                       f"3D check: the {what} the answers give is {text}; questions: {', '.join(uids)}",
                       {"what": f"scene_{what}", "questions": uids})


ANSWERS_INCONSISTENT = AnswersInconsistent(
    "answers_inconsistent", "error", "a viewpoint's and target's answers disagree",
    VIEW_TARGET_COLUMNS | Columns(on_map=True), per_question=False)
