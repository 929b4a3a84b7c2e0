"""Geometry inferred from a release's answers rather than read from a scene: what a benchmark that can
rebuild a question's map from the other questions' answers (`Benchmark.inferred`) hands the overlays."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScaleFit:
    metres_per_px: float         # in the pixels of the scene's reference map size: the band's middle
    low: float                   # the band of scales the agreeing pairs all allow
    high: float
    pairs: int
    spread: float                # the band's half width over its middle
    weak: bool
    uids: tuple[str, ...]        # the EDist questions it was fitted from
    inliers: int = 0             # the pairs that agree with the fit (within the distance tolerance)
    outliers: tuple[str, ...] = ()   # the EDist questions of the pairs that do not
    weakness: str = ""           # why it is weak ("" when it is not)

    def describe(self) -> str:
        text = (f"{100 * self.low:.2f}-{100 * self.high:.2f} cm per map pixel from {self.inliers} of {self.pairs} "
                f"distance answer{'s' if self.pairs != 1 else ''} (spread {100 * self.spread:.1f} %)")
        return text + (f", weak: {self.weakness}" if self.weak else "")



@dataclass(frozen=True)
class Inferred:
    """What the answers say about one question's geometry, for drawing it on a map."""
    scene: str
    viewpoint: np.ndarray | None             # normalised (0..1000, cell centre), None when unknown
    heading: float | None                    # map heading, degrees
    target: np.ndarray | None                # normalised
    scale: ScaleFit | None
    map_size: tuple[int, int] | None
    map_question: int | None
    sources: tuple[tuple[str, str], ...]     # (what it gave, uid)
    missing: tuple[str, ...]                 # what could not be inferred, and which question would supply it
    # The sources for people, one line ("inferred from answers: position ← Pos pos_12_orient_1; ..."),
    # as the benchmark that inferred them names its questions; "" when there are none.
    note: str = ""


def inferred_for(release, i: int) -> Inferred | None:
    """What the other answers give for question i, as the release's benchmark infers it (None: nothing)."""
    return release.benchmark.inferred(release, i)


def linked_map(release, i: int):
    """(uid, MediaRef) of the question whose map image shows question i's scene, for a question with none."""
    inf = inferred_for(release, i)
    if inf is None or inf.map_question is None:
        return None
    q = release.questions[inf.map_question]
    ref = q.role_image("map")
    return (q.uid, ref) if ref is not None else None
