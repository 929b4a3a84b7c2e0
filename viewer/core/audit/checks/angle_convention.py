"""gt_angle_convention, the convention detective: which angle convention do the stored answers follow?

When many stored directions disagree with the geometry, the usual cause is
one systematic slip rather than many random ones: angles measured
clockwise, written in radians, counted from map-up (or the world x axis)
instead of the view direction, or camera poses read in the other camera
convention (OpenCV +z forward vs OpenGL -z forward). Every combination is
tried on every angle question at once and the one that explains the most
stored answers is reported, with how many it explains and how many the
spec's own convention explains.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ... import geometry as geo
from ...column import EGOCENTRIC, MAP_HEADING
from ...scene.model import QuestionGeometry
from ..auditors import ReleaseAuditor, SceneAuditor
from ..registry import SCENE, Check
from ..types import ANGLE_COLUMNS, Finding, Tally
from .ground_truth import ANGLE_TOLERANCE, DIRECTION_MISMATCH

TOLERANCE = ANGLE_TOLERANCE      # degrees, as gt_direction_mismatch
INVESTIGATE_MIN = 3              # mismatches before the detective looks at all ...
INVESTIGATE_SHARE = 0.2          # ... and their share of the family's questions
EXPLAIN_SHARE = 0.6              # an alternative must explain this share to be named
FAMILIES = {"ED": "egocentric direction", "Ori": "orientation (heading on the map)"}
SPEC_ZERO = {"ED": "forward", "Ori": "map_up"}
# An angle column's family by how it is measured (Column.frame); the names are the ones docs/audit.md
# documents in a finding's details.
FAMILY_OF_FRAME = {EGOCENTRIC: "ED", MAP_HEADING: "Ori"}
ZERO_TEXT = {"forward": "0 = the viewing direction", "map_up": "0 = map up", "world_x": "0 = the world +x axis"}


@dataclass
class AngleEvidence:
    uid: str
    scene: str
    family: str                                  # "ED" or "Ori"
    stored: float                                # degrees as written
    base: dict[tuple[str, str], float]           # (camera, zero) -> counter-clockwise degrees


def angle_evidence(q, g, stored: float) -> AngleEvidence:
    """The angle under each camera reading and zero direction, for one question with geometry."""
    pose = g.viewpoint.pose
    # Reading a pose in the other camera convention negates camera y and z,
    # whichever way round the file was declared.
    poses = {"declared": pose, "swapped": geo.opengl_to_opencv(pose)}
    W = g.topdown.world_to_pixel if g.topdown is not None else None
    base: dict[tuple[str, str], float] = {}
    if q.column.frame == MAP_HEADING:
        for cam, p in poses.items():
            if W is not None:
                base[(cam, "map_up")] = float(geo.map_heading(p, W))
            f = geo.forward_on_ground(p)
            base[(cam, "world_x")] = float(np.degrees(np.arctan2(f[1], f[0])))
        return AngleEvidence(q.uid, q.scene, FAMILY_OF_FRAME[MAP_HEADING], stored, base)
    target = g.target.bbox.center
    for cam, p in poses.items():
        base[(cam, "forward")] = float(geo.egocentric_direction(p, target))
    to_target = np.asarray(target, float)[:2] - pose[:2, 3]
    base[("declared", "world_x")] = float(np.degrees(np.arctan2(to_target[1], to_target[0])))
    if W is not None:
        d = to_target @ np.asarray(W, float)[:, :2].T      # the direction as drawn on the map
        base[("declared", "map_up")] = float(np.degrees(np.arctan2(-d[0], -d[1])))
    return AngleEvidence(q.uid, q.scene, FAMILY_OF_FRAME[EGOCENTRIC], stored, base)


@dataclass(frozen=True)
class Hypothesis:
    camera: str          # "declared" | "swapped"
    zero: str            # "forward" | "map_up" | "world_x"
    sign: int            # +1 counter-clockwise, -1 clockwise
    unit: str            # "deg" | "rad"

    def deviations(self, family: str) -> int:
        return ((self.camera != "declared") + (self.zero != SPEC_ZERO[family]) + (self.sign != 1)
                + (self.unit != "deg"))

    def describe(self, family: str) -> str:
        parts = []
        if self.sign < 0:
            parts.append("clockwise positive (left and right swapped)")
        if self.unit == "rad":
            parts.append("radians instead of degrees")
        if self.zero != SPEC_ZERO[family]:
            parts.append(ZERO_TEXT[self.zero])
        if self.camera == "swapped":
            parts.append("poses read in the other camera convention (OpenCV +z vs OpenGL -z forward)")
        return ", ".join(parts) or "the spec's convention"

    def to_json(self) -> dict:
        return {"camera": self.camera, "zero": self.zero,
                "sign": "counter-clockwise" if self.sign > 0 else "clockwise", "unit": self.unit}


def fit(evidence: list[AngleEvidence]) -> tuple[dict[Hypothesis, np.ndarray], Hypothesis]:
    """Per hypothesis, which questions it explains (bool mask); and the spec's hypothesis."""
    family = evidence[0].family
    stored = np.array([e.stored for e in evidence], float)
    combos = sorted({c for e in evidence for c in e.base})
    masks: dict[Hypothesis, np.ndarray] = {}
    for (cam, zero), sign, unit in itertools.product(combos, (1, -1), ("deg", "rad")):
        base = np.array([e.base.get((cam, zero), np.nan) for e in evidence], float)
        s = stored if unit == "deg" else np.degrees(stored)
        with np.errstate(invalid="ignore"):
            masks[Hypothesis(cam, zero, sign, unit)] = np.abs(_wrap(s - sign * base)) <= TOLERANCE
    return masks, Hypothesis("declared", SPEC_ZERO[family], 1, "deg")


def detect_stored_convention(angles: list[AngleEvidence], findings: list[Finding], tally: Tally) -> list[Finding]:
    """Release-wide (then per scene) conventions of the stored angles; annotates the mismatch findings."""
    check = "gt_angle_convention"
    if not angles:
        tally.skip(check, "no angle question with scene geometry")
        return []
    mismatches = {f.uid: f for f in findings if f.check == DIRECTION_MISMATCH.id}
    out: list[Finding] = []
    for family in FAMILIES:
        evidence = [a for a in angles if a.family == family]
        if not evidence:
            continue
        found = _investigate(evidence, family, "release", mismatches)
        if found is None or found.details.get("convention"):
            _count(tally, found)
            if found is not None:
                out.append(found)
            continue
        # Nothing explains the release as a whole: one scene may still be off on its own
        # (a misdeclared camera convention, say); an explanation per scene beats none.
        by_scene: dict[str, list[AngleEvidence]] = {}
        for a in evidence:
            by_scene.setdefault(a.scene, []).append(a)
        named = [f for scene, ev in sorted(by_scene.items()) if len(by_scene) > 1
                 for f in [_investigate(ev, family, scene, mismatches)]
                 if f is not None and f.details.get("convention")]
        for f in named or [found]:
            _count(tally, f)
            out.append(f)
    return out


def _count(tally: Tally, finding: Finding | None) -> None:
    if finding is None:
        tally.passed("gt_angle_convention")
    else:
        tally.flag("gt_angle_convention")


def _investigate(evidence, family, scope, mismatches) -> Finding | None:
    """A finding when many answers disagree: the convention that explains them, or that none does."""
    check = "gt_angle_convention"
    masks, spec = fit(evidence)
    n = len(evidence)
    spec_count = int(masks[spec].sum())
    wrong = n - spec_count
    if wrong < INVESTIGATE_MIN or wrong < INVESTIGATE_SHARE * n:
        return None
    best = max(masks, key=lambda h: (int(masks[h].sum()), -h.deviations(family)))
    best_count = int(masks[best].sum())
    name = FAMILIES[family]
    where = "" if scope == "release" else f" in {scope}"
    details = {"scope": scope, "family": family, "checked": n, "spec_matched": spec_count,
               "best_matched": best_count, "tolerance_deg": TOLERANCE}
    if best != spec and best_count >= EXPLAIN_SHARE * n and best_count > spec_count:
        desc = best.describe(family)
        uids = [e.uid for e, ok in zip(evidence, masks[best]) if ok]
        for uid in uids:
            if uid in mismatches:
                mismatches[uid].details["fits_convention"] = desc
        details.update(convention=best.to_json(), description=desc,
                       scenes=sorted({e.scene for e in evidence}), examples=uids[:5])
        return Finding(None, check, "error",
                       f"stored {name} answers{where} follow {desc}: {best_count} of {n} agree with it "
                       f"within {TOLERANCE:g}°, {spec_count} with the spec's convention", details)
    details.update(convention=None, best_description=best.describe(family))
    return Finding(None, check, "info",
                   f"{wrong} of {n} stored {name} answers{where} disagree with the geometry and no tested "
                   f"convention explains them (the best, {best.describe(family)}, fits {best_count})", details)


def _wrap(a):
    return (np.asarray(a, float) + 180.0) % 360.0 - 180.0


class StoredAngleConvention(Check):
    """Gathers each angle question's evidence in its scene; judges them all at once, release-wide."""

    def check_question(self, auditor: SceneAuditor, q, g: QuestionGeometry) -> None:
        # The questions gt_direction_mismatch can check: a valid answer and geometry to recompute it.
        if q.truth.ok and auditor.recomputed(q, g).value is not None:
            auditor.gather(self, angle_evidence(q, g, float(q.truth.value)))

    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        return detect_stored_convention(audit.evidence(self), audit.findings, audit.tally)


# Counted once per release (or per scene it names), not per question.
GT_ANGLE_CONVENTION = StoredAngleConvention("gt_angle_convention", "error", "stored angles follow another convention",
                                            ANGLE_COLUMNS, frozenset({SCENE}), per_question=False)
