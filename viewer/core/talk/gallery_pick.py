"""Choosing one clean, well-rendered example per Table-1 column for the task gallery (no Qt).

A slide explains a task at a glance only if nothing on it distracts: every
medium is there, the scene metadata links without problems, an object
question's target is large in its best frame (`best_bbox` in scene.json)
and, when models are loaded, their answers differ so the slide shows both a
hit and a miss. Each candidate gets a score from these; ties go to the
first uid in natural order, so the gallery is the same on every run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..release import Release, natural_key
from ..scene.model import QuestionGeometry
from .storyboard import best_frame

# Weights: a clean example always beats a large target, which beats a
# mixed hit/miss answer set (a nicety).
W_CLEAN = 10.0
W_TARGET_AREA = 4.0
W_MIXED = 1.0
FULL_AREA = 0.3           # a target covering this share of its best frame counts as "large"


@dataclass
class Candidate:
    qi: int
    score: float
    reasons: list[str] = field(default_factory=list)   # what counted against it


def media_problems(release: Release, qi: int, geometry: QuestionGeometry | None) -> list[str]:
    q = release.questions[qi]
    out = []
    video_ok = (q.video is not None and q.video.exists) or (
        geometry is not None and geometry.video is not None and bool(geometry.video.file))
    if not video_ok:
        out.append("no video")
    out += [f"image {im.name} missing" for im in q.images if not im.exists]
    if not q.truth.ok:
        out.append("ground truth does not parse")
    return out


def target_area(release: Release, qi: int, geometry: QuestionGeometry | None) -> float | None:
    """Share of its best video frame the target's best_bbox covers, or None if not recorded."""
    q = release.questions[qi]
    if geometry is None or geometry.video is None or not q.target:
        return None
    _, box = best_frame(geometry.video.instances, q.target)
    intr = geometry.video.intrinsics
    if box is None or intr is None:
        return None
    x0, y0, x1, y1 = box
    return max(0.0, x1 - x0) * max(0.0, y1 - y0) / float(intr.width * intr.height)


def rate(release: Release, qi: int, geometry: QuestionGeometry | None, scores: list[float]) -> Candidate:
    reasons = media_problems(release, qi, geometry)
    if geometry is None or geometry.scene is None:
        reasons.append("no scene metadata")
    elif geometry.problems:
        reasons += geometry.problems
    value = 0.0 if reasons else W_CLEAN
    col = release.questions[qi].column
    if col is not None and col.has_target:
        area = target_area(release, qi, geometry)
        if area is None:
            reasons.append("no best_bbox for the target")
        else:
            value += W_TARGET_AREA * min(area / FULL_AREA, 1.0)
    finite = [s for s in scores if s == s]
    if finite and min(finite) < 0.5 <= max(finite):
        value += W_MIXED
    return Candidate(qi, value, reasons)


def pick_examples(release: Release, link: Callable[[int], QuestionGeometry | None],
                  model_scores: list[np.ndarray] = (), among: np.ndarray | None = None) -> dict[str, Candidate | None]:
    """Per column key, the best-rated question (None for a column without questions).

    `link(qi)` gives a question's scene geometry (None when the release has none);
    `model_scores` are the models' per-question scores (ModelResult.score); `among`, a mask
    over the questions, keeps the choice to those (`gallery --filter`).
    """
    out: dict[str, Candidate | None] = {}
    for c, col in enumerate(release.benchmark.columns):
        keep = release.column == c
        rows = np.flatnonzero(keep if among is None else keep & among).tolist()
        rows.sort(key=lambda i: natural_key(release.uids[i]))
        best: Candidate | None = None
        for qi in rows:
            cand = rate(release, qi, link(qi), [float(s[qi]) for s in model_scores])
            if best is None or cand.score > best.score:
                best = cand
        out[col.key] = best
    return out


def rate_chosen(release: Release, link: Callable[[int], QuestionGeometry | None], questions: list[int],
                model_scores: list[np.ndarray] = ()) -> list[tuple[str, Candidate]]:
    """The questions a user named (`gallery --uid`), in their order, each rated as a pick would be
    (its caveats said in gallery.json) and named by its column key, "-2", "-3" for a key's later ones."""
    out, seen = [], {}
    for qi in questions:
        col = release.questions[qi].column
        key = col.key if col is not None else "unknown"
        seen[key] = seen.get(key, 0) + 1
        out.append((key if seen[key] == 1 else f"{key}-{seen[key]}",
                    rate(release, qi, link(qi), [float(s[qi]) for s in model_scores])))
    return out
