"""Running the audit: the scene stage per scene (in worker processes when the release is large), then
the release-wide checks, over the checks chosen from the registry.
"""
from __future__ import annotations

import os
import time
from typing import Callable, Iterable

import numpy as np

from ..executors import Executor, LocalExecutor
from ..release import Release, natural_key
from ..scene.model import link_question, load_scene
from .auditors import ReleaseAuditor, SceneAuditor
from .images import ImageSourceFactory
from .registry import CHECKS, SCENE, VISIBILITY, Check
from .types import AuditReport, Finding, SceneAudit, Tally
from .visibility import VisibilityFactory

# Below this many questions, worker processes cost more to start than they save.
PARALLEL_MIN_QUESTIONS = 300
# A video cast over more sampled frames than this is split into chunks of this many, each a job of its own
# (about 8.5 minutes of video sampled every half second), so that one long video does not hold up the audit.
FRAME_CHUNK = 1024
NO_SCENE = "no scene metadata (scenes/<scene>/scene.json)"
NO_RAY_CASTER = "the audit was given no ray caster (run_audit's visibility)"
RECONSTRUCTED = ("the scene is reconstructed from the video and aligned by the answers: its geometry cannot "
                 "judge them")


def run_audit(release: Release, results: list = (), checks: Iterable[str] | None = None,
              progress: Callable[[int, int], None] | None = None, workers: int | None = None,
              visibility: VisibilityFactory | None = None,
              images: ImageSourceFactory | None = None, executor: Executor | None = None,
              frame_chunk: int | None = FRAME_CHUNK,
              videos: Callable[[str], str | None] | None = None) -> AuditReport:
    """Audit every question of `release` with the registered checks named in `checks` (default all).

    `results` are scored models (evaluate.ModelResult); `visibility` casts
    rays in a scene (viewer.render.visibility.SceneVisibility), without which
    the visibility checks are skipped; `images` reads and renders images
    (viewer.render.audit_images.SceneImages), without which the choice
    checks are. Both are factories sent to the scene jobs (picklable: a
    class or a module-level function), called there on first use.
    `videos(path)` says why a video cannot be shown whole, decoding its
    first and last frames (viewer.render.video.probe_video), or None;
    without it `missing_media` checks a video's header alone.
    `executor` (core/executors.py) runs the scene stage, one job per scene
    (and per `frame_chunk` sampled frames of a longer video: _run_scene_stage);
    by default a LocalExecutor of `workers` processes. The report is the
    same wherever the scenes ran, and however they were split.
    """
    started = time.perf_counter()
    selected = CHECKS.select(checks)
    tally = Tally([c.id for c in selected])
    total = len(release)
    if progress:
        progress(0, total)
    findings: list[Finding] = []
    gathered: dict[str, list] = {}
    problems: list[str] = []
    rays = covered = 0
    chosen = [c for c in selected if applies_to(c, release.benchmark)]
    for c in selected:
        if c not in chosen:
            why = not_applicable(c, release.benchmark)
            for _ in range(total):
                tally.skip(c.id, why)
    if len(chosen) < len(selected):
        n_out, title = len(selected) - len(chosen), release.benchmark.title
        what = (f"none of the {len(selected)} audit checks applies to a {title} release; all are skipped"
                if not chosen else f"{n_out} of the {len(selected)} audit checks do not apply to a {title} release "
                                   "and are skipped")
        problems.append(f"{what}: {not_applicable(next(c for c in selected if c not in chosen), release.benchmark)}")
    # Each question's scene. The questions are built here once and kept for the audit's passes (the scene
    # jobs, then each release-wide check's pass): building 200,000 again for every pass cost half as much
    # CPU again as the whole audit, for the 270 MB they take.
    scene_of: dict[str, str] = {}
    by_scene: dict[str, list[int]] = {}
    for i, q in enumerate(release.questions):
        scene_of[q.uid] = q.scene
        by_scene.setdefault(q.scene, []).append(i)
    scene_checks = [c for c in chosen if c.in_scene_stage]
    if scene_checks:
        order = sorted(by_scene, key=natural_key)
        waiting: dict[str, SceneAudit] = {}
        merged = done = 0
        for sid, part in _run_scene_stage(release, by_scene, order, scene_checks, visibility, images,
                                          workers, executor, frame_chunk):
            waiting[sid] = part
            done += len(by_scene[sid])
            if progress:
                progress(done, total)
            # Taken in scene order, however the workers finish, and let go once taken.
            while merged < len(order) and order[merged] in waiting:
                part = waiting.pop(order[merged])
                merged += 1
                findings += part.findings
                tally.merge(part.tally)
                for check_id, items in part.evidence.items():
                    gathered.setdefault(check_id, []).extend(items)
                problems += part.problems
                rays += part.rays_cast
                covered += part.rays_covered
    del by_scene
    audit = ReleaseAuditor(release, list(results), findings, tally, gathered, videos=videos)
    for c in chosen:
        findings += c.check_release(audit)
    if progress:
        progress(total, total)
    rank = {c.id: k for k, c in enumerate(selected)}
    findings.sort(key=lambda f: (f.uid is not None, natural_key(scene_of.get(f.uid or "", "")),
                                 f.uid or "", rank[f.check]))
    return AuditReport(findings, tally, [c.id for c in selected], problems, rays, time.perf_counter() - started,
                       covered)


def applies_to(check: Check, benchmark) -> bool:
    """Whether a check judges questions of this benchmark: the benchmark takes it (Benchmark.audit_checks)
    and some of its columns match the check's."""
    if benchmark.audit_checks is not None and check.id not in benchmark.audit_checks:
        return False
    return any(check.columns.matches(c) for c in benchmark.columns)


def not_applicable(check: Check, benchmark) -> str:
    """Why a check is skipped for a release of `benchmark`: whose questions it was written for."""
    from ..benchmarks import BENCHMARKS
    owners = [b.title for b in BENCHMARKS.values() if applies_to(check, b)]
    return f"a {' and '.join(owners) or 'other benchmark'} check; not applicable to {benchmark.title} questions"


def audit_scene(root: str, scene_id: str, questions: list, checks: list[Check],
                visibility: VisibilityFactory | None, images: ImageSourceFactory | None = None,
                frame_chunk: int | None = None, chunk_index: int | None = None,
                precast: dict | None = None) -> SceneAudit:
    """The scene stage of one scene: each check's check_question on each question of its columns, then
    each check_scene on the scene's questions of its columns. With `frame_chunk`, casts over more video
    frames than that are left pending (SceneAudit.pending) or, in a chunk job (`chunk_index`), cast over
    that chunk only (SceneAudit.chunks); `precast` holds what the scene's earlier jobs cast."""
    scene = load_scene(root, scene_id)
    tally = Tally([c.id for c in checks])
    auditor = SceneAuditor(scene, questions, tally, visibility, images, scene_id, frame_chunk, chunk_index, precast)
    by_question = [c for c in checks if SCENE in c.needs]
    by_scene = [c for c in checks if c.per_scene]
    for q in questions:
        applicable = [c for c in by_question if c.columns.matches(q.column)]
        if not applicable:
            continue
        # A check with its own check_scene judges there what check_question cannot (target_unseen_in_video:
        # through the red box in the video), and tallies those questions itself.
        if scene is None:
            for c in applicable:
                if c.per_question and not c.per_scene:
                    auditor.skip(c, NO_SCENE)
            continue
        g = link_question(q, scene)
        for c in applicable:
            if scene.provenance and not c.judges_reconstructed:
                if c.per_question and not c.per_scene:
                    auditor.skip(c, RECONSTRUCTED)
                continue
            if VISIBILITY in c.needs and visibility is None:
                if c.per_question and not c.per_scene:
                    auditor.skip(c, NO_RAY_CASTER)
                continue
            c.check_question(auditor, q, g)
    for c in by_scene:
        mine = [q for q in questions if c.columns.matches(q.column)]
        if mine:
            # A reconstructed scene is no scene's metadata to a check that cannot judge by it.
            auditor.scene = scene if scene is None or not scene.provenance or c.judges_reconstructed else None
            c.check_scene(auditor, mine)
            auditor.scene = scene
    problems = [str(d) for d in scene.diagnostics] if scene is not None else []
    if auditor.visibility_note:
        problems.append(f"warning: {auditor.visibility_note}")
    return SceneAudit(auditor.findings, tally, auditor.evidence, problems, auditor.rays_cast, auditor.rays_covered,
                      pending=auditor.pending, casts=auditor.casts if auditor.pending else {}, chunks=auditor.chunks)


def _run_scene_stage(release: Release, by_scene: dict[str, list[int]], order: list[str], checks: list[Check],
                     visibility: VisibilityFactory | None, images: ImageSourceFactory | None,
                     workers: int | None, executor: Executor | None, frame_chunk: int | None):
    """(scene id, SceneAudit) per scene, as scenes finish.

    One job per scene (made when the executor takes it: `by_scene` holds the indices of its
    questions); a scene whose video casts span more than `frame_chunk` sampled frames takes three
    rounds: its job audits it, leaving those casts pending; then one job per chunk of frames casts that
    chunk (with what the first job cast, so nothing is cast twice); then a last job runs its visibility
    checks on the chunks put together, and their results replace the first job's. A frame that shows the
    target ends the cast in its chunk only, and a target flagged unseen was cast on every frame in every
    chunk, so the findings are those of the unsplit cast.
    """
    root = str(release.root)
    if executor is None:
        if workers is None:
            workers = min(os.cpu_count() or 1, len(order)) if len(release) >= PARALLEL_MIN_QUESTIONS else 1
        executor = LocalExecutor(workers)

    def questions(sid: str) -> list:
        return [release.question_for_now(i) for i in by_scene[sid]]
    jobs = ((root, sid, questions(sid), checks, visibility, images, frame_chunk) for sid in order)
    first: dict[str, SceneAudit] = {}
    for sid, part in executor.map_unordered(audit_scene, jobs, order):
        if part.pending:
            first[sid] = part
        else:
            yield sid, part
    if not first:
        return
    casting = [c for c in checks if VISIBILITY in c.needs]
    long_scenes = [sid for sid in order if sid in first]
    chunk_jobs, chunk_keys = [], []
    for sid in long_scenes:
        n_chunks = max(-(-n // frame_chunk) for n in first[sid].pending.values())
        for k in range(n_chunks):
            chunk_jobs.append((root, sid, questions(sid), casting, visibility, None, frame_chunk, k,
                               first[sid].casts))
            chunk_keys.append(f"{sid}#{k}")
    by_chunk: dict[str, SceneAudit] = dict(executor.map_unordered(audit_scene, chunk_jobs, chunk_keys))
    last_jobs = []
    for sid in long_scenes:
        chunks = [by_chunk[key] for key in chunk_keys if key.rsplit("#", 1)[0] == sid]   # in frame order
        merged = dict(first[sid].casts)
        for key in first[sid].pending:
            counts = [c.chunks[key] for c in chunks if key in c.chunks]
            merged[key] = (np.concatenate([n for n, _ in counts]), counts[0][1])
        last_jobs.append((root, sid, questions(sid), casting, visibility, None, None, None, merged))
        first[sid].rays_cast += sum(c.rays_cast for c in chunks)
        first[sid].rays_covered += sum(c.rays_covered for c in chunks)
    for sid, last in executor.map_unordered(audit_scene, last_jobs, long_scenes):
        yield sid, first[sid].replacing({c.id for c in casting}, last)
