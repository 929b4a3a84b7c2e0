"""Ground-truth audit: the questions that break GST-Bench's own promises (spec section 4).

Severities say how sure the audit is that the sample is broken:
  - error:   wrong or broken as posed: the answer disagrees with the geometry,
             media are missing, or a promise the column relies on is broken
             (target visible from the current view, view on the trajectory);
  - warning: worth a reviewer's look, the evidence is indirect (several
             models agree on another answer; visibility measured on boxes);
  - info:    an observation (a model's answers follow another convention).

Every check counts, per question it applies to, whether it was checked
(flagged or passed) or skipped for lack of data, with the reason. A release
without scene metadata (like the published samples) has its geometric
checks skipped, never passed.

Per-scene work (geometry, ray casting) runs in `audit_scene`, in worker
processes when the release is large; the checks that need only the
question records and the predictions run here.
"""
from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .answers import STATUS_TEXT
from .diagnostics import UserError
from .release import Release, natural_key
from .tasks import COLUMN_KEYS, column_keys

ANGLE_KEYS = column_keys("angle")
DISTANCE_KEYS = column_keys("distance")
POINT_KEYS = column_keys("point")
OBJECT_KEYS = column_keys(has_target=True)
VIEW_TARGET_KEYS = column_keys(has_target=True, has_view=True)
VIEW_KEYS = column_keys(has_view=True)
SEMANTIC_KEYS = column_keys(has_target=True, semantic=True)
ALL_KEYS = frozenset(COLUMN_KEYS)


@dataclass(frozen=True)
class Check:
    id: str
    severity: str                 # the usual severity; a finding may soften it
    title: str                    # for the summary table
    columns: frozenset[str]       # Table-1 columns it applies to


CHECKS: tuple[Check, ...] = (
    Check("missing_media", "error", "video or image missing or unreadable", ALL_KEYS),
    Check("invalid_answer", "error", "ground truth does not parse or is out of range", ALL_KEYS),
    Check("gt_direction_mismatch", "error", "stored angle vs geometry > 5 deg", ANGLE_KEYS),
    Check("gt_distance_mismatch", "error", "stored distance vs geometry > max(0.15 m, 5 %)", DISTANCE_KEYS),
    Check("gt_point_mismatch", "error", "stored map point vs geometry > 15 units", POINT_KEYS),
    Check("target_visible_in_query_view", "error", "target visible from the current view", VIEW_TARGET_KEYS),
    Check("target_unseen_in_video", "error", "target in no frame of the video", OBJECT_KEYS),
    Check("query_near_trajectory", "error", "current view within 0.3 m and 30 deg of a video pose", VIEW_KEYS),
    Check("ambiguous_semantic_target", "error", "semantic category has several instances", SEMANTIC_KEYS),
    Check("models_disagree_with_gt", "warning", "several models agree on another answer", ALL_KEYS),
    # Added by this project (spec: "more may be added"); counted per release or scene / per model.
    Check("gt_angle_convention", "error", "stored angles follow another convention", ANGLE_KEYS),
    Check("model_answer_convention", "info", "a model's answers follow another convention", ALL_KEYS),
)
CHECK_BY_ID = {c.id: c for c in CHECKS}
CHECK_IDS = tuple(c.id for c in CHECKS)
SCENE_CHECKS = frozenset({"gt_direction_mismatch", "gt_distance_mismatch", "gt_point_mismatch",
                          "target_visible_in_query_view", "target_unseen_in_video",
                          "query_near_trajectory", "ambiguous_semantic_target"})
# Below this many questions, worker processes cost more to start than they save.
PARALLEL_MIN_QUESTIONS = 300


@dataclass
class Finding:
    uid: str | None               # None for a release- or model-wide finding
    check: str
    severity: str
    message: str
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"uid": self.uid, "check": self.check, "severity": self.severity,
                "message": self.message, "details": self.details}


class Tally:
    """Per check: flagged, passed and skipped counts, and why things were skipped."""

    def __init__(self, checks: Iterable[str] = CHECK_IDS):
        self.counts = {c: Counter() for c in checks}
        self.skip_reasons = {c: Counter() for c in checks}

    def flag(self, check: str) -> None:
        self.counts[check]["flagged"] += 1

    def passed(self, check: str) -> None:
        self.counts[check]["passed"] += 1

    def skip(self, check: str, reason: str) -> None:
        self.counts[check]["skipped"] += 1
        self.skip_reasons[check][reason] += 1

    def merge(self, other: "Tally") -> None:
        for c in self.counts:
            self.counts[c].update(other.counts.get(c, Counter()))
            self.skip_reasons[c].update(other.skip_reasons.get(c, Counter()))

    def summary(self) -> dict[str, dict[str, int]]:
        return {c: {"flagged": n["flagged"], "checked": n["flagged"] + n["passed"], "skipped": n["skipped"]}
                for c, n in self.counts.items()}


@dataclass
class SceneAudit:
    """What `audit_scene` returns (also across a process boundary)."""
    findings: list[Finding]
    tally: Tally
    angles: list                  # conventions.AngleEvidence of the scene's angle questions
    problems: list[str]           # the scene.json's own diagnostics, for the log
    rays_cast: int = 0


@dataclass
class AuditReport:
    findings: list[Finding]
    tally: Tally
    checks: list[str]
    problems: list[str] = field(default_factory=list)
    rays_cast: int = 0
    seconds: float = 0.0

    def summary(self) -> dict[str, dict[str, int]]:
        return self.tally.summary()

    def to_json(self) -> dict:
        return {"findings": [f.to_json() for f in self.findings], "summary": self.summary()}

    def by_uid(self) -> dict[str, list[Finding]]:
        out: dict[str, list[Finding]] = {}
        for f in self.findings:
            if f.uid is not None:
                out.setdefault(f.uid, []).append(f)
        return out


def parse_checks(text: str | None) -> list[str]:
    """`--checks id,id` as a list of check ids; UserError naming the unknown ones."""
    if not text:
        return list(CHECK_IDS)
    wanted = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in wanted if t not in CHECK_BY_ID]
    if unknown:
        raise UserError(f"unknown check {', '.join(unknown)}; known: {', '.join(CHECK_IDS)}")
    return [c for c in CHECK_IDS if c in wanted]


def run_audit(release: Release, results: list = (), checks: Iterable[str] | None = None,
              progress: Callable[[int, int], None] | None = None, workers: int | None = None) -> AuditReport:
    """Audit every question of `release`; `results` are scored models (evaluate.ModelResult)."""
    from . import audit_models, conventions
    from .audit_scene import audit_scene

    started = time.perf_counter()
    chosen = list(CHECK_IDS) if checks is None else [c for c in CHECK_IDS if c in set(checks)]
    tally = Tally(chosen)
    findings: list[Finding] = []
    questions = list(release.questions)
    total = len(questions)
    if "missing_media" in chosen:
        findings += _missing_media(release, tally)
    if "invalid_answer" in chosen:
        findings += _invalid_answers(questions, tally)

    by_scene: dict[str, list] = {}
    for q in questions:
        by_scene.setdefault(q.scene, []).append(q)
    scene_checks = set(chosen) & (SCENE_CHECKS | {"gt_angle_convention"})
    done = 0
    if progress:
        progress(0, total)
    parts: list[SceneAudit] = []
    if scene_checks:
        jobs = [(str(release.root), sid, by_scene[sid], scene_checks)
                for sid in sorted(by_scene, key=natural_key)]
        for part, n in _run_scenes(audit_scene, jobs, workers):
            parts.append(part)
            done += n
            if progress:
                progress(done, total)
    angles, problems, rays = [], [], 0
    for part in parts:
        findings += part.findings
        tally.merge(part.tally)
        angles += part.angles
        problems += part.problems
        rays += part.rays_cast
    if "gt_angle_convention" in chosen:
        findings += conventions.detect_stored_convention(angles, findings, tally)
    if "models_disagree_with_gt" in chosen:
        findings += audit_models.models_disagree(release, list(results), tally)
    if "model_answer_convention" in chosen:
        findings += audit_models.model_conventions(release, list(results), tally)
    if progress:
        progress(total, total)
    order = {c: k for k, c in enumerate(CHECK_IDS)}
    scene_of = {q.uid: q.scene for q in questions}
    findings.sort(key=lambda f: (f.uid is not None, natural_key(scene_of.get(f.uid or "", "")),
                                 f.uid or "", order[f.check]))
    return AuditReport(findings, tally, chosen, problems, rays, time.perf_counter() - started)


def _run_scenes(fn, jobs: list[tuple], workers: int | None):
    """(SceneAudit, question count) per scene, in processes when the release is large."""
    n_questions = sum(len(j[2]) for j in jobs)
    if workers is None:
        workers = min(os.cpu_count() or 1, len(jobs)) if n_questions >= PARALLEL_MIN_QUESTIONS else 1
    if workers <= 1 or len(jobs) < 2:
        for j in jobs:
            yield fn(*j), len(j[2])
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    # spawn, not fork: the window calls this from a worker thread, and forking
    # a threaded (Qt, open3d) process can deadlock the child.
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(fn, *j): len(j[2]) for j in jobs}
        for fut in as_completed(futures):
            yield fut.result(), futures[fut]


# ---------------------------------------------------------------- record checks
_SIGNATURES = {
    ".png": (b"\x89PNG",), ".jpg": (b"\xff\xd8\xff",), ".jpeg": (b"\xff\xd8\xff",),
    ".gif": (b"GIF8",), ".bmp": (b"BM",), ".webp": (b"RIFF",), ".avi": (b"RIFF",),
    ".mkv": (b"\x1a\x45\xdf\xa3",), ".webm": (b"\x1a\x45\xdf\xa3",),
}


def media_problem(path: str) -> str | None:
    """Why an existing media file cannot be read: empty, unopenable, or not what its name says."""
    try:
        with open(path, "rb") as f:
            head = f.read(12)
    except OSError as e:
        return f"cannot be opened ({e.strerror or e})"
    if not head:
        return "empty file"
    ext = os.path.splitext(path)[1].lower()
    if ext in (".mp4", ".mov", ".m4v"):
        return None if head[4:8] == b"ftyp" else f"not an {ext[1:].upper()} file"
    sigs = _SIGNATURES.get(ext)
    if sigs and not head.startswith(sigs):
        return f"not a {ext[1:].upper()} file"
    return None


def _missing_media(release: Release, tally: Tally) -> list[Finding]:
    missing: dict[int, list[dict]] = {}
    for i, kind, declared, why in release.missing:
        missing.setdefault(i, []).append({"kind": kind, "path": declared, "problem": why})
    checked_paths: dict[str, str | None] = {}
    out = []
    for i, q in enumerate(release.questions):
        problems = list(missing.get(i, []))
        for kind, ref in [("video", q.video)] + [("image", im) for im in q.images]:
            if ref is None or not ref.exists or ref.path is None:
                continue
            if ref.path not in checked_paths:
                checked_paths[ref.path] = media_problem(ref.path)
            why = checked_paths[ref.path]
            if why:
                problems.append({"kind": kind, "path": ref.declared, "problem": why})
        if not problems:
            tally.passed("missing_media")
            continue
        tally.flag("missing_media")
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        out.append(Finding(q.uid, "missing_media", "error",
                           f"{first['kind']} {first['path']}: {first['problem']}{more}",
                           {"media": problems}))
    return out


def _invalid_answers(questions: list, tally: Tally) -> list[Finding]:
    out = []
    for q in questions:
        if q.column is None:
            tally.skip("invalid_answer", "task is not one of the 12 GST-Bench tasks")
            continue
        if q.truth.ok:
            tally.passed("invalid_answer")
            continue
        tally.flag("invalid_answer")
        at = q.column.kind_name
        out.append(Finding(q.uid, "invalid_answer", "error",
                           f"ground truth {q.answer_raw!r} is not a valid {at} answer "
                           f"({STATUS_TEXT.get(q.truth.status, q.truth.status)})",
                           {"answer": q.answer_raw, "answer_type": at, "status": q.truth.status,
                            "options": q.n_options if at == "choice" else None}))
    return out


def json_safe(value: Any) -> Any:
    """Numbers as plain floats/ints rounded for reading; numpy scalars and arrays unwrapped."""
    import numpy as np
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return round(v, 4) if np.isfinite(v) else None
    return value
