"""answers_inconsistent: a viewpoint's and a target's questions agree with each other (any release, 3D or not).

From the map geometry the answers give (`core/reconstruct.py`):

- an ED truth against the bearing from the viewpoint (Pos) to the target (GP)
  on the map, relative to the viewpoint's heading (Ori): within 5° plus what
  the points' 1-unit rounding allows at that range;
- an EDist truth against the scale times the pixel distance, with the
  target's centre up to HEIGHT_MAX above or below the camera: within
  max(0.15 m, 5 %) plus what the points' rounding allows. The
  scale judging an EDist answer is fitted robustly without the pairs of its
  viewpoint and its target (`reconstruct.scale_without`), so the answers under
  suspicion never set it; a weak fit makes the finding a warning.

Each comparison names every question its expectation was built from. Then
the failed comparisons are explained (`explain`): the answer that most of
them share, and that no passing comparison vouches for, is the suspect; when
it explains two or more, they are its dependents ("3 findings depend on
GP_v desk_0"), listed under it. What stops the comparison (uids that link
nothing, contradictory duplicates, a heading with no position, a weak scale,
maps of different sizes) is reported too. With scene metadata, the rebuilt
viewpoints, headings and targets are also compared with the 3D geometry.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ... import geometry as geo
from ...audit.auditors import ReleaseAuditor
from ...audit.registry import Check
from ...audit.types import VIEW_TARGET_COLUMNS, Finding
from ...column import Columns
from .columns import COLUMNS
from .reconstruct import (
    ANGLE_TOLERANCE,
    DISTANCE_TOLERANCE_M,
    DISTANCE_TOLERANCE_REL,
    ED,
    EDIST,
    GP,
    HEIGHT_MAX,
    POS,
    ROUNDING_UNITS,
    Reconstruction,
    distance_pairs,
    expected_distance,
    map_bearing,
    pair_rows,
    pixel_offsets,
    reconstruct,
    scale_without,
    scene_sizes,
    wrap,
)

SCENE_POINT_UNITS = 3.0      # 3D cross-check: a rebuilt point this far from the scene's is flagged


@dataclass
class Comparison:
    """One expectation built from answers, held against one answer (or against the 3D scene)."""
    uid: str | None              # the question its finding is about
    ok: bool
    rows: list[int]              # the answers the expectation rests on (one of them is wrong when it fails)
    severity: str = "error"
    message: str = ""
    details: dict = field(default_factory=dict)
    named: list[str] = field(default_factory=list)   # every question named (rows' uids, then the scale's)
    vouches: bool = True         # whether passing says the answers are right (not against a weak scale)


def label(rec: Reconstruction, row: int) -> str:
    """A question in a few words: its column and what it is about ("GP_v desk_rmftuu_0", "Pos pos_12_orient_1")."""
    key = COLUMNS[rec.column[row]].key
    v, t = int(rec.q_view[row]), int(rec.q_target[row])
    if t >= 0:
        return f"{key} {rec.target_name[t]}" + (f" from pos_{rec.view_pos[v]}_orient_{rec.view_orient[v]}"
                                               if v >= 0 else "")
    if v >= 0:
        return f"{key} pos_{rec.view_pos[v]}_orient_{rec.view_orient[v]}"
    return rec.uids[row]


class AnswersInconsistent(Check):
    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        release, tally = audit.release, audit.tally
        rec = reconstruct(release)
        # With 3D metadata, questions link to their scene through `meta`: a uid outside the pattern is no problem.
        quiet = ("reconstruct.uid_unlinked",) if (release.root / "scenes").is_dir() else ()
        out = [Finding(None, self.id, d.level, d.message, {"code": d.code}) for d in rec.diagnostics
               if not d.code.startswith(quiet)]
        comparisons = self._directions(rec, tally) + self._scene_geometry(release, rec)
        # The places that direction and 3D comparisons put under suspicion set no scale.
        vouched = _vouched(comparisons)
        suspect = {r for c in comparisons if not c.ok for r in _suspects(c, vouched)}
        suspects = ({int(rec.q_view[r]) for r in suspect if rec.column[r] == POS},
                    {int(rec.q_target[r]) for r in suspect if rec.column[r] in GP})
        comparisons += self._distances(rec, tally, suspects)
        linked = set(pair_rows(rec, ED)[0].tolist()) | set(pair_rows(rec, EDIST)[0].tolist())
        for i in np.flatnonzero(np.isin(rec.column, ED + EDIST)).tolist():
            if i not in linked:
                tally.skip(self.id, "viewpoint or target not placed by Pos / Ori / GP questions")
        return out + explain(rec, comparisons, self.id)

    def _directions(self, rec: Reconstruction, tally) -> list[Comparison]:
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
            ok = diff <= ANGLE_TOLERANCE + slack
            (tally.passed if ok else tally.flag)(self.id)
            sources = [row] + rec.rows("position", vi) + rec.rows("heading", vi) + rec.rows("target", ti)
            out.append(Comparison(
                rec.uids[row], ok, sources, self.severity,
                f"direction {truth:g}° but the map gives {expected:.0f}° (Pos, Ori and GP answers): {diff:.0f}° apart",
                {"what": "direction", "truth": truth, "expected": expected, "difference": diff,
                 "tolerance": ANGLE_TOLERANCE + slack}))
        return out

    def _distances(self, rec: Reconstruction, tally, suspects: tuple) -> list[Comparison]:
        pairs = distance_pairs(rec)
        for _ in range(len(pair_rows(rec, EDIST)[0]) - len(pairs.rows)):
            tally.skip(self.id, "no map size for the scene, or a viewpoint on its target, or a distance of 0")
        out = []
        for k, (row, vi, ti) in enumerate(zip(pairs.rows.tolist(), pairs.view.tolist(), pairs.target.tolist())):
            scale = scale_without(rec, pairs, int(pairs.scene[k]), vi, ti, suspects)
            if scale is None:
                tally.skip(self.id, "no other distance answer of the scene to fit a scale without this one")
                continue
            low, high = expected_distance(scale, float(pairs.px[k]), float(pairs.slack_px[k]))
            truth = float(pairs.metres[k])
            tol = max(DISTANCE_TOLERANCE_M, DISTANCE_TOLERANCE_REL * truth)
            diff = max(low - truth, truth - high, 0.0)
            ok = diff <= tol
            (tally.passed if ok else tally.flag)(self.id)
            sources = [row] + rec.rows("position", vi) + rec.rows("target", ti)
            out.append(Comparison(
                rec.uids[row], ok, sources, self.severity if not scale.weak else "warning",
                f"distance {truth:g} m but the map gives {low:.2f}-{high:.2f} m (the target's centre up to "
                f"{HEIGHT_MAX:g} m above or below the camera; {scale.describe()}, fitted without this "
                "viewpoint's and target's pairs)",
                {"what": "distance", "truth": truth, "expected": [low, high], "difference": diff, "tolerance": tol,
                 "scale_weak": scale.weak, "scale_questions": list(scale.uids)},
                named=list(scale.uids), vouches=not scale.weak))
        return out

    def _scene_geometry(self, release, rec: Reconstruction) -> list[Comparison]:
        """With scene metadata: the rebuilt viewpoints, headings and targets against the 3D geometry.

        The first question (in release order) that links a viewpoint or a target to a scene's map gives its
        comparisons. A training-set release has thousands of scenes, each with its videos' poses: they are
        read one at a time, each scene's questions weighed while it is read, and the comparisons put back
        in release order before each viewpoint and target keeps its first."""
        from ...scene.model import load_scene
        by_scene: dict[str, list[int]] = {}
        for i in np.flatnonzero((rec.q_view >= 0) | (rec.q_target >= 0)).tolist():
            by_scene.setdefault(release.question_for_now(i).scene, []).append(i)
        found: list[tuple[int, list[tuple[tuple[str, int], list[Comparison]]]]] = []
        for sid, rows in by_scene.items():
            scene = load_scene(release.root, sid) if sid else None
            # A scene reconstructed from the video is placed by these very answers: it cannot judge them.
            if scene is not None and not scene.provenance:
                found += [(i, self._question_against_scene(release.question_for_now(i), scene, rec, i))
                          for i in rows]
        found.sort(key=lambda f: f[0])
        out = []
        checked: set[tuple[str, int]] = set()
        for _, claims in found:
            for key, comparisons in claims:
                if key not in checked:
                    checked.add(key)
                    out += comparisons
        return out

    def _question_against_scene(self, q, scene, rec: Reconstruction, i: int
                                ) -> list[tuple[tuple[str, int], list[Comparison]]]:
        """The viewpoint ("v", k) and target ("t", k) question i links to the scene, each with what its
        place on the map gives against the scene's geometry (comparisons, possibly none)."""
        from ...scene.model import link_question
        g = link_question(q, scene)
        tmap = g.topdown
        if tmap is None or tmap.world_to_pixel is None or not tmap.width:
            return []
        v, t = int(rec.q_view[i]), int(rec.q_target[i])
        W = np.asarray(tmap.world_to_pixel, float)
        size = np.array([tmap.width, tmap.height], float)

        def norm(world_xy):
            return geo.world_to_pixel(W, world_xy) / size * 1000.0
        claims = []
        if v >= 0 and g.viewpoint is not None:
            out = []
            if not np.isnan(rec.view_point[v, 0]):
                c = geo.camera_center(g.viewpoint.pose)[:2]
                gap = float(np.linalg.norm(norm(c) - rec.view_point[v]))
                out.append(self._scene_comparison(rec, "position", v, gap <= SCENE_POINT_UNITS,
                                                  f"{gap:.0f} units from the scene's viewpoint"))
            h = rec.view_heading[v]
            if not np.isnan(h):
                true_h = float(geo.map_heading(g.viewpoint.pose, W))
                out.append(self._scene_comparison(rec, "heading", v,
                                                  abs(float(wrap(h - true_h))) <= ANGLE_TOLERANCE,
                                                  f"heading {h:g}° but the scene's pose gives {true_h:.0f}°"))
            claims.append((("v", v), out))
        if t >= 0 and g.target is not None and g.target.bbox is not None:
            out = []
            if not np.isnan(rec.target_point[t, 0]):
                gap = float(np.linalg.norm(norm(g.target.bbox.center[:2]) - rec.target_point[t]))
                out.append(self._scene_comparison(rec, "target", t, gap <= SCENE_POINT_UNITS,
                                                  f"{gap:.0f} units from the scene's target"))
            claims.append((("t", t), out))
        return claims

    def _scene_comparison(self, rec: Reconstruction, what: str, k: int, ok: bool, text: str) -> Comparison:
        rows = rec.rows(what, k)
        return Comparison(rec.uids[rows[0]] if rows else None, ok, rows, self.severity,
                          f"3D check: the {what} the answers give is {text}", {"what": f"scene_{what}"})


def explain(rec: Reconstruction, comparisons: list[Comparison], check: str) -> list[Finding]:
    """Findings for the failed comparisons, each dependent on the answer that explains it, when one does.

    Greedily, the answer shared by the most unexplained failures (ties: the one fewest passing comparisons
    vouch for) is a suspect; when it explains two or more, they become its dependents: removing that one
    answer leaves none of them standing. Answers that explain the same failures equally well are named
    together ("GP_v desk_0 or Pos pos_12_orient_1"): the answers alone cannot tell them apart.
    """
    failed = [c for c in comparisons if not c.ok]
    vouched = _vouched(comparisons)
    open_ = set(range(len(failed)))
    groups: list[tuple[list[int], list[int]]] = []        # (suspect rows, failed comparisons they explain)
    while open_:
        covers: dict[int, set[int]] = {}
        for k in open_:
            for r in set(failed[k].rows):
                covers.setdefault(r, set()).add(k)
        best = max((len(ks), -vouched.get(r, 0)) for r, ks in covers.items())
        if best[0] < 2:
            break
        tied = [r for r, ks in covers.items() if (len(ks), -vouched.get(r, 0)) == best]
        explained = covers[tied[0]]
        suspects = sorted(r for r in tied if covers[r] == explained)
        groups.append((suspects, sorted(explained)))
        open_ -= explained

    def finding(c: Comparison, top: bool = True) -> Finding:
        uids = list(dict.fromkeys([rec.uids[r] for r in c.rows] + c.named))
        suspects = _suspects(c, vouched)
        details = dict(c.details, questions=uids, suspects=[rec.uids[r] for r in suspects])
        unverified = _unverified(comparisons, suspects, uids) if top else []
        if unverified:
            details["unverified"] = unverified
        return Finding(c.uid, check, c.severity, f"{c.message}; questions: {', '.join(uids)}"
                       + _unverified_text(unverified), details)

    out: list[Finding] = []
    for suspects, explained in groups:
        names = " or ".join(label(rec, r) for r in suspects)
        head_uid = rec.uids[suspects[0]]
        own = [k for k in explained if failed[k].uid == head_uid]
        members = [failed[k] for k in explained if k not in own[:1]]
        dependents = [m.uid for m in members]
        severity = "error" if any(failed[k].severity == "error" for k in explained) else "warning"
        uids = list(dict.fromkeys(rec.uids[r] for r in suspects))
        for m in members:
            uids += [u for u in dict.fromkeys([rec.uids[r] for r in m.rows] + m.named) if u not in uids]
        unverified = _unverified(comparisons, suspects, uids)
        uids += unverified
        text = (f"{len(members)} finding{'s' if len(members) != 1 else ''} depend on {names}"
                + (" (either answer alone explains them; the answers cannot tell which is wrong)"
                   if len(suspects) > 1 else ": its answer alone explains them"))
        if own:
            head = finding(failed[own[0]], top=False)
            head.message = f"{text}. {head.message}"
            head.severity = severity
            head.details["questions"] += [u for u in uids if u not in head.details["questions"]]
            head.details["suspects"] = [rec.uids[r] for r in suspects]
        else:
            head = Finding(head_uid, check, severity, f"{text}; questions: {', '.join(uids)}",
                           {"what": "suspect", "questions": uids, "suspects": [rec.uids[r] for r in suspects]})
        if unverified:
            head.message += _unverified_text(unverified)
            head.details["unverified"] = unverified
        head.dependents = tuple(dependents)
        out.append(head)
        for m in members:
            f = finding(m, top=False)
            f.depends_on = head_uid
            out.append(f)
    grouped = {k for _, explained in groups for k in explained}
    out += [finding(c) for k, c in enumerate(failed) if k not in grouped]
    return out


def _unverified(comparisons: list[Comparison], suspects: list[int], named: list[str]) -> list[str]:
    """The questions whose comparisons pass only against a suspect answer: they could not be checked."""
    return list(dict.fromkeys(c.uid for c in comparisons if c.ok and c.uid not in named
                              and set(c.rows) & set(suspects)))


def _unverified_text(uids: list[str]) -> str:
    return (f"; {len(uids)} more rest on {'it' if len(uids) == 1 else 'them'} and could not be checked: "
            f"{', '.join(uids)}") if uids else ""


def _vouched(comparisons: list[Comparison]) -> dict[int, int]:
    """Per answer, how many passing comparisons rest on it (one against a weak scale vouches for nothing)."""
    out: dict[int, int] = {}
    for c in comparisons:
        if c.ok and c.vouches:
            for r in set(c.rows):
                out[r] = out.get(r, 0) + 1
    return out


def _suspects(c: Comparison, vouched: dict[int, int]) -> list[int]:
    """The answers of a failed comparison that fewest passing comparisons vouch for: the likeliest wrong."""
    least = min(vouched.get(r, 0) for r in c.rows)
    return list(dict.fromkeys(r for r in c.rows if vouched.get(r, 0) == least))


ANSWERS_INCONSISTENT = AnswersInconsistent(
    "answers_inconsistent", "error", "a viewpoint's and target's answers disagree",
    VIEW_TARGET_COLUMNS | Columns(on_map=True), per_question=False)
