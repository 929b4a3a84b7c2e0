"""What a check's run functions are given: a SceneAuditor per scene, a ReleaseAuditor once.

The SceneAuditor lives in the scene's worker process. It collects what the
checks report (findings, tallies, evidence for release-wide judgements) and
holds what several questions of the scene share: the recomputed ground
truth, the ray caster and the image reader (each built on first use) and
whatever a check memoises.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Hashable

import numpy as np

from ..diagnostics import UserError
from ..geometry import recompute_ground_truth
from .types import Finding, Tally, json_safe

if TYPE_CHECKING:
    from ..release import Release
    from ..scene.model import QuestionGeometry, Scene
    from .images import ImageSource, ImageSourceFactory
    from .registry import Check
    from .visibility import Visibility, VisibilityFactory


class SceneAuditor:
    """One job's view of a scene. A scene whose video casts are longer than the audit's frame chunk is
    audited in several jobs (run.py): the scene job defers those casts (`pending`) and sends what it cast
    (`casts`); frame-chunk jobs (`chunk_index`) cast their chunk of each (`chunks`); a last job gets
    everything merged (`precast`) and casts nothing again."""

    def __init__(self, scene: Scene | None, questions: list, tally: Tally, visibility: VisibilityFactory | None,
                 images: ImageSourceFactory | None = None, scene_id: str | None = None,
                 frame_chunk: int | None = None, chunk_index: int | None = None, precast: dict | None = None):
        self.scene, self.tally = scene, tally
        self.scene_id = scene_id if scene_id is not None else (scene.id if scene is not None else None)
        self.questions = questions          # all the scene's questions, in release order
        self.findings: list[Finding] = []
        self.evidence: dict[str, list] = {}
        self.targets = sorted({q.target for q in questions if q.target})
        self._factory = visibility
        self._visibility: Visibility | None = None
        self._visibility_error: str | None = None
        self._images_factory = images
        self._images: ImageSource | None = None
        self._memo: dict[Hashable, Any] = {}
        self.frame_chunk, self.chunk_index = frame_chunk, chunk_index
        self.precast: dict[Hashable, Any] = precast or {}
        self.casts: dict[Hashable, Any] = {}        # what this job cast, by key (for the scene's later jobs)
        self.pending: dict[Hashable, int] = {}      # casts left to frame-chunk jobs: key -> frames
        self.chunks: dict[Hashable, tuple] = {}     # a chunk job's casts: key -> (counts over its chunk, samples)

    # ------------------------------------------------------------ reporting
    def flag(self, check: Check, q, message: str, details: dict, severity: str | None = None) -> None:
        self.tally.flag(check.id)
        self.findings.append(Finding(q.uid, check.id, severity or check.severity, message, json_safe(details)))

    def passed(self, check: Check) -> None:
        self.tally.passed(check.id)

    def skip(self, check: Check, reason: str) -> None:
        self.tally.skip(check.id, reason)

    def gather(self, check: Check, item) -> None:
        """Keep `item` for the check's release-wide judgement (ReleaseAuditor.evidence)."""
        self.evidence.setdefault(check.id, []).append(item)

    # ------------------------------------------------------------ shared work
    def memo(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """compute(), once per scene and key (e.g. what one camera sees)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def cast(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """compute() (a ray cast), once per scene and key: taken from an earlier job of the scene when it
        sent it, else computed and kept for the scene's later jobs."""
        if key in self.precast:
            return self.precast[key]
        if key not in self.casts:
            self.casts[key] = compute()
        return self.casts[key]

    def target_over_frames(self, key: Hashable, poses: np.ndarray, intrinsics, target_id: str,
                           min_fraction: float) -> tuple[np.ndarray, int]:
        """Visibility.target_over_frames over `poses` (the checker has made sure there is a caster), once per
        scene and key, through cast(). Over more poses than the frame chunk it is split: the scene's first
        job leaves it pending (counting 0 everywhere: run.py drops that job's visibility findings), each
        chunk job casts its chunk, and the last job gets the chunks concatenated in `precast`."""
        if key in self.precast or self.frame_chunk is None or len(poses) <= self.frame_chunk:
            return self.cast(key, lambda: self.visibility().target_over_frames(poses, intrinsics, target_id,
                                                                                min_fraction))
        counts = np.zeros(len(poses), np.int64)
        if self.chunk_index is None:
            self.pending[key] = len(poses)
            return counts, 1
        a = self.chunk_index * self.frame_chunk
        b = min(len(poses), a + self.frame_chunk)
        if a >= b:
            return counts, 1
        if key not in self.chunks:
            self.chunks[key] = self.visibility().target_over_frames(poses[a:b], intrinsics, target_id,
                                                                    min_fraction)
        counts[a:b], per_frame = self.chunks[key]
        return counts, per_frame

    def recomputed(self, q, g: QuestionGeometry):
        """The ground truth recomputed from the geometry (geometry.recompute_ground_truth), once per question."""
        return self.memo(("recomputed", q.uid), lambda: recompute_ground_truth(q, g))

    def visibility(self) -> Visibility | None:
        """The scene's ray caster, built on first use; None when it cannot be (see visibility_error)."""
        if self._visibility is None and self._visibility_error is None:
            if self._factory is None:      # run_audit skips such checks: reaching here is a bug
                raise RuntimeError("visibility() is only for checks that need VISIBILITY")
            try:
                self._visibility = self._factory(self.scene, self.targets)
            except UserError as e:
                self._visibility_error = str(e)
        return self._visibility

    def images(self) -> ImageSource | None:
        """The image reader (built on first use, in this process); None when the audit was given none."""
        if self._images is None and self._images_factory is not None:
            self._images = self._images_factory()
        return self._images

    @property
    def has_ray_caster(self) -> bool:
        """Whether the audit was given a ray caster (run_audit's visibility)."""
        return self._factory is not None

    @property
    def visibility_error(self) -> str | None:
        return self._visibility_error

    @property
    def rays_cast(self) -> int:
        return self._visibility.rays_cast if self._visibility is not None else 0

    @property
    def rays_covered(self) -> int:
        return getattr(self._visibility, "rays_covered", self.rays_cast) if self._visibility is not None else 0

    @property
    def visibility_note(self) -> str | None:
        return self._visibility.note if self._visibility is not None else None


@dataclass
class ReleaseAuditor:
    release: Release
    results: list                 # evaluate.ModelResult of the scored models
    findings: list[Finding]       # so far: every scene finding, and those of the checks run before
    tally: Tally
    gathered: dict[str, list]     # check id -> what its check_question gathered, over all scenes
    _memo: dict = field(default_factory=dict, repr=False)
    videos: Callable[[str], str | None] | None = None    # run_audit's video probe: why a file cannot be shown

    def evidence(self, check: Check) -> list:
        return self.gathered.get(check.id, [])

    def memo(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """compute(), once per audit and key: work that several release-wide checks share."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]


def geometry_problem(g: QuestionGeometry, about: str, default: str) -> str:
    """Why the question's `about` ("target", "viewpoint", "video") could not be linked, for a skip reason."""
    return next((p for p in g.problems if about in p), default)
