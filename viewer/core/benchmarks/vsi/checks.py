"""VSI-Bench's ground-truth checks: each stored answer recomputed from the scene's meta_info (objects.py).

thinking-in-space publishes its meta_info files but not its question
generators, so the rules here are the paper's (Yang et al., 2025, sec. 3 and
appendix) as its question texts state them, confirmed on the real files: on
the 291 questions of the Gemini-study scenes (docs/audit.md) every stored
answer of these six types is reproduced by

- object counting: `object_counts[category]`;
- object size: the longest of the box's `axesLengths`, in cm, rounded;
- room size: `room_size`, rounded to 0.1 m²;
- absolute distance: between the two boxes' closest points, rounded to 0.1 m
  (VSI-Bench measured between the objects' points, which lie inside their
  boxes, so a stored distance is up to about a decimetre above the boxes');
- relative distance: the option whose closest point is nearest the target's;
- relative direction: the box centres on the floor plane, standing at the
  first object and facing the second (easy: left or right; medium: back
  when at least 135° away, else left or right; hard: the quadrant).

Each finding gives the stored value, the recomputed one, the rule and the
boxes it used (`details["objects"]`). Where the rule cannot tell (a category
with several boxes, two options within the distance tolerance, a direction
within ANGLE_MARGIN_DEG of a boundary, object_counts disagreeing with the
boxes) the finding says so and is a warning. Appearance order and route plans
need what meta_info does not hold (when each object is first seen; a route's
turns), so no check recomputes them. `vsi_meta_info` says once what the
files do not cover.
"""
from __future__ import annotations

import itertools
import re

import numpy as np

from ...audit.auditors import ReleaseAuditor
from ...audit.registry import Check
from ...audit.types import Finding
from ...column import AnyOf, Columns
from .objects import MetaInfoLibrary, ObjectBox, SceneObjects

SIZE_TOLERANCE_CM = 1.0          # a stored size is the box's, rounded to the centimetre
SIZE_TOLERANCE_REL = 0.02
ROOM_TOLERANCE_M2 = 0.1          # a stored room size is rounded to 0.1 m²
ROOM_TOLERANCE_REL = 0.01
DISTANCE_TOLERANCE_M = 0.15      # rounding to 0.1 m, and points inside their boxes (module docstring)
DISTANCE_TOLERANCE_REL = 0.10
ANGLE_MARGIN_DEG = 5.0           # a direction this near a boundary between two answers is a tie
SURFACE_STEP_M = 0.02            # box surfaces sampled this finely for the closest points

NO_META = "scene not in the meta_info files"
NO_TEMPLATE = "question text not in VSI-Bench's template for its type"
NO_CATEGORY = "a category the question names has no boxes in the scene's meta_info"


# ------------------------------------------------------------------ geometry
def distance_to_box(points: np.ndarray, box: ObjectBox) -> np.ndarray:
    """Each point's distance to the solid box (0 inside)."""
    local = (np.atleast_2d(points) - box.centroid) @ box.axes.T
    outside = np.maximum(np.abs(local) - box.lengths / 2, 0.0)
    return np.sqrt((outside ** 2).sum(axis=1))


def surface_points(box: ObjectBox, step: float = SURFACE_STEP_M) -> np.ndarray:
    """Points on the box's six faces, at most `step` apart along each edge (N, 3)."""
    grids = [np.linspace(-h / 2, h / 2, max(int(np.ceil(h / step)) + 1, 2)) for h in box.lengths]
    faces = []
    for k in range(3):
        a, b = (i for i in range(3) if i != k)
        u, v = np.meshgrid(grids[a], grids[b])
        for side in (-0.5, 0.5):
            p = np.zeros((u.size, 3))
            p[:, a], p[:, b], p[:, k] = u.ravel(), v.ravel(), side * box.lengths[k]
            faces.append(p)
    return box.centroid + np.concatenate(faces) @ box.axes


def closest_distance(a: ObjectBox, b: ObjectBox) -> float:
    """The distance between two boxes' closest points (0 when they touch or overlap), to within the
    surface sampling: the closest point of either lies on its surface."""
    return float(min(distance_to_box(surface_points(a), b).min(), distance_to_box(surface_points(b), a).min()))


def box_record(box: ObjectBox, k: int, of: int) -> dict:
    """A box as a finding lists it: category, which instance, centre and extents (metres)."""
    return {"category": box.category, "instance": k + 1, "of": of, "centroid": box.centroid.round(3).tolist(),
            "lengths": box.lengths.round(3).tolist()}


def _boxes(objects: SceneObjects, category: str) -> list[ObjectBox]:
    return objects.boxes.get(category, [])


def _records(objects: SceneObjects, *categories: str) -> list[dict]:
    out = []
    for c in dict.fromkeys(categories):
        boxes = _boxes(objects, c)
        out += [box_record(b, k, len(boxes)) for k, b in enumerate(boxes)]
    return out


def _near(stored: float, recomputed: float, absolute: float, relative: float) -> bool:
    return abs(stored - recomputed) <= max(absolute, relative * abs(recomputed))


# ------------------------------------------------------------------ the checks
class Verdict:
    """What a recomputation says about one question: nothing (None from `judge`), a skip, or a finding."""

    def __init__(self, message: str = "", details: dict | None = None, warning: bool = False, skip: str = ""):
        self.message, self.details, self.warning, self.skip = message, details or {}, warning, skip


class MetaInfoCheck(Check):
    """A check that recomputes one question type's answers from the meta_info: `pattern` reads the
    question's text, `judge` compares (None: the stored answer is reproduced)."""
    pattern: re.Pattern = re.compile("")

    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        library = meta_info_of(audit)
        out = []
        for q in audit.release.each_question():
            if not self.columns.matches(q.column):
                continue
            objects = library.scene(q.scene)
            found = self.pattern.search(q.meta.get("question", ""))
            verdict = (Verdict(skip=NO_META) if objects is None else Verdict(skip=NO_TEMPLATE) if found is None
                       else Verdict(skip="ground truth does not parse") if q.truth.value is None
                       else self.judge(q, objects, found))
            if verdict is None:
                audit.tally.passed(self.id)
            elif verdict.skip:
                audit.tally.skip(self.id, verdict.skip)
            else:
                audit.tally.flag(self.id)
                out.append(Finding(q.uid, self.id, "warning" if verdict.warning else self.severity,
                                   verdict.message, verdict.details))
        return out

    def judge(self, q, objects: SceneObjects, found: re.Match) -> Verdict | None:
        raise NotImplementedError


def meta_info_of(audit: ReleaseAuditor) -> MetaInfoLibrary:
    """The release's meta_info files: the release's one library (the window's and the figures' too)."""
    from .benchmark import _meta_info
    return _meta_info(audit.release)


class CountMismatch(MetaInfoCheck):
    pattern = re.compile(r"How many (.+?)\(s\) are in this room", re.IGNORECASE)

    def judge(self, q, objects, found):
        category = found.group(1).strip()
        counted, boxes = objects.counts.get(category), len(_boxes(objects, category))
        recomputed = counted if counted is not None else boxes
        if not recomputed and not boxes:
            return Verdict(skip=NO_CATEGORY)
        stored = q.truth.value
        if stored == recomputed:
            return None
        details = {"stored": stored, "recomputed": recomputed, "object_counts": counted, "boxes": boxes,
                   "rule": "object_counts[category]", "objects": _records(objects, category)}
        if counted is not None and stored == boxes:
            return Verdict(f"stored count {stored:g} is the number of {category} boxes, but object_counts says "
                           f"{counted}: the meta_info disagrees with itself", details, warning=True)
        doubt = f"; the meta_info has {boxes} boxes against object_counts {counted}" if (
            counted is not None and counted != boxes) else ""
        return Verdict(f"stored count {stored:g}, the meta_info counts {recomputed} {category}{doubt}", details,
                       warning=bool(doubt))


class SizeMismatch(MetaInfoCheck):
    pattern = re.compile(r"longest dimension \(length, width, or height\) of the (.+?), measured", re.IGNORECASE)

    def judge(self, q, objects, found):
        category = found.group(1).strip()
        boxes = _boxes(objects, category)
        if not boxes:
            return Verdict(skip=NO_CATEGORY)
        sizes = [float(b.lengths.max()) * 100 for b in boxes]
        stored = q.truth.value
        if any(_near(stored, s, SIZE_TOLERANCE_CM, SIZE_TOLERANCE_REL) for s in sizes):
            return None
        best = int(np.argmin([abs(s - stored) for s in sizes]))
        details = {"stored": stored, "recomputed": round(sizes[best], 1), "unit": "cm",
                   "candidates": [round(s, 1) for s in sizes], "rule": "max(axesLengths) in cm",
                   "objects": _records(objects, category)}
        several = f" (nearest of its {len(boxes)} boxes: which one the question means is ambiguous)" \
            if len(boxes) > 1 else ""
        return Verdict(f"stored size {stored:g} cm, the {category}'s box is {sizes[best]:.0f} cm "
                       f"({stored / sizes[best]:.2f}×){several}", details, warning=len(boxes) > 1)


class RoomSizeMismatch(MetaInfoCheck):
    pattern = re.compile(r"size of this room", re.IGNORECASE)

    def judge(self, q, objects, found):
        if objects.room_size is None:
            return Verdict(skip="the scene's meta_info has no room_size")
        stored, room = q.truth.value, objects.room_size
        if _near(stored, room, ROOM_TOLERANCE_M2, ROOM_TOLERANCE_REL):
            return None
        return Verdict(f"stored room size {stored:g} m², the meta_info's room_size is {room:.1f} m² "
                       f"({stored / room:.2f}×)",
                       {"stored": stored, "recomputed": round(room, 2), "unit": "m²", "rule": "room_size",
                        "objects": []})


class AbsDistanceMismatch(MetaInfoCheck):
    pattern = re.compile(r"distance between the (.+?) and the (.+?) \(in", re.IGNORECASE)

    def judge(self, q, objects, found):
        a, b = (g.strip() for g in found.groups())
        if not _boxes(objects, a) or not _boxes(objects, b):
            return Verdict(skip=NO_CATEGORY)
        pairs = [(closest_distance(x, y), i, j) for i, x in enumerate(_boxes(objects, a))
                 for j, y in enumerate(_boxes(objects, b))]
        stored = q.truth.value
        if any(_near(stored, d, DISTANCE_TOLERANCE_M, DISTANCE_TOLERANCE_REL) for d, _, _ in pairs):
            return None
        d, i, j = min(pairs, key=lambda p: abs(p[0] - stored))
        several = len(pairs) > 1
        message = (f"stored distance {stored:g} m, the {a} and {b} boxes are {d:.2f} m apart at their closest "
                   f"points ({stored / d:.2f}×)" if d > 0 else f"stored distance {stored:g} m, the {a} and {b} "
                                                                "boxes touch")
        if several:
            message += " (nearest of several instance pairs: which ones the question means is ambiguous)"
        return Verdict(message,
                       {"stored": stored, "recomputed": round(d, 3), "unit": "m",
                        "candidates": [round(p[0], 3) for p in pairs], "rule": "closest points of the two boxes",
                        "objects": [box_record(_boxes(objects, a)[i], i, len(_boxes(objects, a))),
                                    box_record(_boxes(objects, b)[j], j, len(_boxes(objects, b)))]},
                       warning=several)


def _option_texts(q) -> list[str]:
    """The options without their letters ("A. lamp" -> "lamp")."""
    return [re.sub(r"^\s*[A-Z][.):]\s*", "", o).strip() for o in q.options]


class RelDistanceMismatch(MetaInfoCheck):
    pattern = re.compile(r"which of these objects \((.+?)\) is the (closest|farthest) to the (.+?)\?", re.IGNORECASE)

    def judge(self, q, objects, found):
        farthest = found.group(2).lower() == "farthest"
        target = found.group(3).strip()
        options = _option_texts(q)
        if not _boxes(objects, target) or not all(_boxes(objects, o) for o in options):
            return Verdict(skip=NO_CATEGORY)
        # Per option, per instance: the distance to the nearest target instance; an option is as near as its
        # nearest instance ("the closest point of each object").
        each = [[min(closest_distance(x, t) for t in _boxes(objects, target)) for x in _boxes(objects, o)]
                for o in options]
        dist = [min(d) for d in each]
        pick = int(np.argmax(dist) if farthest else np.argmin(dist))
        stored = int(q.truth.value)
        if stored == pick:
            return None
        letters = "ABCDEFGH"
        why = []
        if stored < len(dist):
            if abs(dist[stored] - dist[pick]) <= DISTANCE_TOLERANCE_M:
                why.append(f"within {DISTANCE_TOLERANCE_M} m of each other: a tie")
            # Another instance of a category with several could be the one meant, and make the stored one win.
            could = max(each[stored]) >= max(each[pick]) if farthest else min(each[stored]) <= max(each[pick])
            several = [c for c in (options[stored], options[pick]) if len(_boxes(objects, c)) > 1]
            if several and could:
                why.append(f"{', '.join(several)} has several boxes: ambiguous")
        stored_d = f"{dist[stored]:.2f} m" if stored < len(dist) else "no such option"
        return Verdict(f"the {'farthest' if farthest else 'closest'} to the {target} is {letters[pick]} "
                       f"{options[pick]} ({dist[pick]:.2f} m), not the stored {letters[stored]} "
                       f"({stored_d})" + (f" ({'; '.join(why)})" if why else ""),
                       {"stored": letters[stored], "recomputed": letters[pick],
                        "distances": {o: round(d, 3) for o, d in zip(options, dist)},
                        "rule": "the option whose box is nearest the target's at their closest points",
                        "objects": _records(objects, target, *options)},
                       warning=bool(why))


# Where each answer of a direction question lies: its range of bearings (degrees, clockwise from facing).
def direction_answer(level: str, bearing: float) -> str:
    """The answer of an `easy`, `medium` or `hard` direction question for a bearing in (-180, 180]."""
    if level == "medium" and abs(bearing) >= 135:
        return "back"
    side = "left" if bearing < 0 else "right"
    if level == "hard":
        return ("front" if abs(bearing) < 90 else "back") + "-" + side
    return side


def _bearing(stand: ObjectBox, face: ObjectBox, locate: ObjectBox) -> float | None:
    """Degrees clockwise from facing (-180, 180] to the located box's centre, on the floor plane; None when
    the standing and facing boxes share a centre."""
    forward = face.centroid[:2] - stand.centroid[:2]
    norm = float(np.linalg.norm(forward))
    if not norm:
        return None
    forward = forward / norm
    right = np.array([forward[1], -forward[0]])
    rel = locate.centroid[:2] - stand.centroid[:2]
    return float(np.degrees(np.arctan2(rel @ right, rel @ forward)))


_BOUNDARIES = {"easy": (0.0, 180.0), "medium": (0.0, 135.0), "hard": (0.0, 90.0, 180.0)}


class RelDirectionMismatch(MetaInfoCheck):
    pattern = re.compile(r"standing by the (.+?) and facing the (.+?), is the (.+?) to ", re.IGNORECASE)

    def judge(self, q, objects, found):
        names = [g.strip() for g in found.groups()]
        if not all(_boxes(objects, n) for n in names):
            return Verdict(skip=NO_CATEGORY)
        level = q.column.key.rsplit("_", 1)[-1]
        bearing = _bearing(*(_boxes(objects, n)[0] for n in names))
        if bearing is None:
            return Verdict(skip="the standing and facing objects share a centre")
        answer = direction_answer(level, bearing)
        options = [o.lower() for o in _option_texts(q)]
        if answer not in options:
            return Verdict(skip="the recomputed direction is not among the options")
        pick, stored = options.index(answer), int(q.truth.value)
        if pick == stored:
            return None
        letters = "ABCDEFGH"
        stored_text = options[stored] if stored < len(options) else "no such option"
        margin = min(abs(abs(bearing) - b) for b in _BOUNDARIES[level])
        why = []
        if margin < ANGLE_MARGIN_DEG:
            why.append(f"{margin:.1f}° from a boundary between answers: a tie")
        # With several boxes of a category (the first is used), another choice of instances may give the stored one.
        several = [n for n in dict.fromkeys(names) if len(_boxes(objects, n)) > 1]
        others = {direction_answer(level, b) for b in (_bearing(*trio) for trio in
                  itertools.product(*(_boxes(objects, n) for n in names))) if b is not None}
        if several and stored_text in others:
            why.append(f"{', '.join(several)} has several boxes (the first is used): ambiguous")
        return Verdict(f"the {names[2]} is {letters[pick]} {answer} (bearing {bearing:.0f}° from facing the "
                       f"{names[1]}), not the stored {letters[stored]} {stored_text}"
                       + (f" ({'; '.join(why)})" if why else ""),
                       {"stored": letters[stored], "recomputed": letters[pick], "bearing_deg": round(bearing, 1),
                        "rule": "box centres on the floor plane, standing at the first, facing the second",
                        "objects": _records(objects, *names)},
                       warning=bool(why))


class MetaInfoCoverage(Check):
    """Says once what the meta_info files leave out: scenes they do not describe, or their absence; and
    each malformed entry they hold."""

    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        library = meta_info_of(audit)
        scenes = {q.scene for q in audit.release.each_question() if self.columns.matches(q.column)}
        if not scenes:
            return []
        library.scenes()
        out = [Finding(None, self.id, "warning", f"{d.message} ({d.file})", {"code": d.code})
               for d in library.diagnostics]
        note = library.coverage(scenes)
        if note:
            audit.tally.flag(self.id)
            out.append(Finding(None, self.id, self.severity, note,
                               {"uncovered": library.uncovered(scenes), "files": [str(f) for f in library.files()]}))
        else:
            audit.tally.passed(self.id)
        return out


def _key(key: str) -> Columns:
    return Columns(key=key)


_DIRECTIONS = _key("object_rel_direction_easy") | _key("object_rel_direction_medium") | \
    _key("object_rel_direction_hard")
_RECOMPUTED = AnyOf((_key("object_counting"), _key("object_size_estimation"), _key("room_size_estimation"),
                     _key("object_abs_distance"), _key("object_rel_distance"))) | _DIRECTIONS

VSI_COUNT = CountMismatch("vsi_count_mismatch", "error", "object count differs from the meta_info's",
                          _key("object_counting"))
VSI_SIZE = SizeMismatch("vsi_size_mismatch", "error", "object size differs from its box's longest side",
                        _key("object_size_estimation"))
VSI_ROOM = RoomSizeMismatch("vsi_room_size_mismatch", "error", "room size differs from the meta_info's",
                            _key("room_size_estimation"))
VSI_ABS_DISTANCE = AbsDistanceMismatch("vsi_abs_distance_mismatch", "error",
                                       "distance differs from the boxes' closest points",
                                       _key("object_abs_distance"))
VSI_REL_DISTANCE = RelDistanceMismatch("vsi_rel_distance_mismatch", "error",
                                       "another option is nearest by the boxes", _key("object_rel_distance"))
VSI_REL_DIRECTION = RelDirectionMismatch("vsi_rel_direction_mismatch", "error",
                                         "the boxes put the object in another direction", _DIRECTIONS)
VSI_META_INFO = MetaInfoCoverage("vsi_meta_info", "info", "scenes the meta_info files do not cover", _RECOMPUTED,
                                 per_question=False)

VSI_CHECKS = (VSI_META_INFO, VSI_COUNT, VSI_SIZE, VSI_ROOM, VSI_ABS_DISTANCE, VSI_REL_DISTANCE, VSI_REL_DIRECTION)

__all__ = ["VSI_CHECKS", "closest_distance", "direction_answer", "distance_to_box", "surface_points"]
