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

from ..diagnostics import UserError
from ..geometry import recompute_ground_truth
from .types import Finding, Tally, json_safe

if TYPE_CHECKING:
    from ..release import Release
    from ..scene import QuestionGeometry, Scene
    from .images import ImageSource, ImageSourceFactory
    from .registry import Check
    from .visibility import Visibility, VisibilityFactory


class SceneAuditor:
    def __init__(self, scene: Scene | None, questions: list, tally: Tally, visibility: VisibilityFactory | None,
                 images: ImageSourceFactory | None = None, scene_id: str | None = None):
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
