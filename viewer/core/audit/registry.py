"""Every audit check is one `Check` object; `CHECKS` holds them in the order reports list them.

The built-in checks are registered by `checks/__init__.py`; other code may
`register` (and `unregister`) its own. Reports, `--checks`, the summary table
and the window's filter all read the registry, so a registered check is run,
counted, selectable and listed like the built-in ones.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Iterable, Iterator

from ..diagnostics import UserError

if TYPE_CHECKING:
    from ..column import AnyOf, Columns
    from .auditors import ReleaseAuditor, SceneAuditor
    from .types import Finding

# What a check needs besides the question records.
SCENE = "scene"              # the scene's 3D metadata: check_question runs per question, in the scene's worker
VISIBILITY = "visibility"    # ray casting too (skipped, with the reason, when the audit has no ray caster)
IMAGES = "images"            # option images and rendered maps (SceneAuditor.images()), read in the scene's worker
NEEDS = (SCENE, VISIBILITY, IMAGES)
SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Check:
    """One audit check: what it is, what it needs, and how it runs.

    `columns` describe the columns it applies to (`core.column.Columns`: by answer kind and what
    the column links, never by a benchmark's keys), so it selects the matching columns of any benchmark.
    A check implements one or more run functions:

    - `check_question(auditor, q, g)`: when it needs SCENE, for each question
      of its columns whose scene has metadata (`g` links the question to it),
      in the scene's worker process; it reports through the SceneAuditor;
    - `check_scene(auditor, questions)`: once per scene that has questions of
      its columns (`questions`, in release order), in the scene's worker,
      whether or not the scene has metadata (`auditor.scene` is None then):
      for work judged per scene from the scene's files, such as the choice
      checks' pictures (needs IMAGES); it reports through the SceneAuditor;
    - `check_release(audit)`: once, after the scene stage, with the release,
      the models' results, the findings so far and the evidence gathered per
      scene; it returns its findings and counts them in `audit.tally`.

    A `per_question` check tallies every question of its columns (flagged,
    passed or skipped): the scene stage skips a check_question's questions
    whose scene has no metadata; a check_scene tallies its questions itself.
    Otherwise it counts what it judges itself (a release, a scene, a model).
    Check objects are sent to worker processes: define their classes at
    module level.
    """
    id: str
    severity: str                 # the usual severity; a finding may soften it
    title: str                    # for the summary table
    columns: Columns | AnyOf      # the columns it applies to, described
    needs: frozenset[str] = frozenset()
    per_question: bool = True
    # Whether it may judge a scene reconstructed from the video (Scene.provenance): its geometry is what the
    # answers placed, so a check comparing answers with the geometry would judge the answers by themselves.
    judges_reconstructed: bool = False

    def check_question(self, auditor: SceneAuditor, q, g) -> None:
        raise NotImplementedError(f"{self.id} needs {SCENE!r} but has no check_question")

    def check_scene(self, auditor: SceneAuditor, questions: list) -> None:
        raise NotImplementedError(f"{self.id} has no check_scene")

    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        return []

    @property
    def per_scene(self) -> bool:
        """Whether the check has a check_scene."""
        return type(self).check_scene is not Check.check_scene

    @property
    def in_scene_stage(self) -> bool:
        """Whether the check runs in the per-scene jobs (check_question or check_scene)."""
        return SCENE in self.needs or self.per_scene

    def problems(self) -> list[str]:
        """What makes this check unfit to register; [] when it is sound."""
        out = []
        if not self.id or not self.id.replace("_", "").isalnum():
            out.append(f"check id {self.id!r} must be letters, digits and underscores")
        if self.severity not in SEVERITIES:
            out.append(f"severity {self.severity!r} is not one of {', '.join(SEVERITIES)}")
        unknown = set(self.needs) - set(NEEDS)
        if unknown:
            out.append(f"unknown needs {sorted(unknown)}; known: {', '.join(NEEDS)}")
        if VISIBILITY in self.needs and SCENE not in self.needs:
            out.append(f"{VISIBILITY!r} is cast in a scene: it needs {SCENE!r} too")
        by_question = type(self).check_question is not Check.check_question
        by_scene = self.per_scene
        by_release = type(self).check_release is not Check.check_release
        if (SCENE in self.needs) != by_question:
            out.append("check_question runs exactly when the check needs 'scene'")
        if IMAGES in self.needs and not (by_question or by_scene):
            out.append(f"{IMAGES!r} are read in the scene stage: it needs check_question or check_scene")
        if not by_question and not by_scene and not by_release:
            out.append("implements none of check_question, check_scene and check_release")
        return out


_LOADING = threading.RLock()


class CheckRegistry:
    """Checks by id, in registration order. `built_ins`: a module that registers checks here, imported when
    the registry is first used (the built-in checks import every benchmark's; the window reads none of
    them before an audit is run or listed)."""

    def __init__(self, checks: Iterable[Check] = (), built_ins: str | None = None):
        self._all: dict[str, Check] = {}
        self._built_ins = built_ins
        self._loading = False
        for c in checks:
            self.register(c)

    @property
    def _checks(self) -> dict[str, Check]:
        if self._built_ins is not None:
            with _LOADING:                     # re-entered by the module's own `register` calls
                if self._built_ins is not None and not self._loading:
                    self._loading = True
                    try:
                        import_module(self._built_ins)
                    finally:
                        self._built_ins = None
        return self._all

    def register(self, check: Check) -> Check:
        problems = check.problems()
        if check.id in self._checks:
            problems.append(f"a check {check.id!r} is already registered")
        if problems:
            raise ValueError(f"cannot register {check.id!r}: " + "; ".join(problems))
        self._checks[check.id] = check
        return check

    def unregister(self, check_id: str) -> Check:
        return self._checks.pop(check_id)

    def __getitem__(self, check_id: str) -> Check:
        return self._checks[check_id]

    def __contains__(self, check_id: object) -> bool:
        return check_id in self._checks

    def __iter__(self) -> Iterator[Check]:
        return iter(list(self._checks.values()))

    def __len__(self) -> int:
        return len(self._checks)

    def ids(self) -> tuple[str, ...]:
        return tuple(self._checks)

    def select(self, ids: Iterable[str] | None = None) -> list[Check]:
        """The checks named (all when None), in registry order; unknown ids are ignored."""
        if ids is None:
            return list(self)
        wanted = set(ids)
        return [c for c in self if c.id in wanted]

    def parse(self, text: str | None) -> list[str]:
        """`--checks id,id` as a list of check ids; UserError naming the unknown ones."""
        if not text:
            return list(self.ids())
        wanted = [t.strip() for t in text.split(",") if t.strip()]
        unknown = [t for t in wanted if t not in self._checks]
        if unknown:
            raise UserError(f"unknown check {', '.join(unknown)}; known: {', '.join(self.ids())}")
        return [c for c in self.ids() if c in wanted]


CHECKS = CheckRegistry(built_ins=f"{__package__}.checks")
register = CHECKS.register
unregister = CHECKS.unregister
parse_checks = CHECKS.parse
