"""What the audit produces: findings, per-check tallies and reports; and the column sets checks apply to.

The column sets describe columns by what they are (`core.column.Columns`), so a check selects the
matching columns of whatever benchmark the release is.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from ..column import ANY_COLUMN, Columns

ANGLE_COLUMNS = Columns(kind="angle")
DISTANCE_COLUMNS = Columns(kind="distance")
POINT_COLUMNS = Columns(kind="point")
OBJECT_COLUMNS = Columns(has_target=True)
VIEW_TARGET_COLUMNS = Columns(has_target=True, has_view=True)
VIEW_COLUMNS = Columns(has_view=True)
SEMANTIC_COLUMNS = Columns(has_target=True, semantic=True)
ALL_COLUMNS = ANY_COLUMN


@dataclass
class Finding:
    uid: str | None               # None for a release- or model-wide finding
    check: str
    severity: str
    message: str
    details: dict = field(default_factory=dict)
    # Grouping (answers_inconsistent): a finding explained by another finding's question names it in
    # `depends_on` (that finding's uid, same check); the explaining finding lists its dependents' uids.
    depends_on: str | None = None
    dependents: tuple[str, ...] = ()

    @property
    def code(self) -> str:
        """What kind of finding this is, for code to test (as Diagnostic.code): its check's id."""
        return self.check

    def to_json(self) -> dict:
        out = {"uid": self.uid, "check": self.check, "severity": self.severity,
               "message": self.message, "details": json_safe(self.details, digits=None)}
        if self.depends_on is not None:
            out["depends_on"] = self.depends_on
        if self.dependents:
            out["dependents"] = list(self.dependents)
        return out


def listed(findings: list[Finding]) -> list[Finding]:
    """Findings in listing order: each finding with dependents followed by them, each finding once."""
    heads = {(f.check, f.uid): f for f in findings if f.dependents}
    under: dict[tuple[str, str | None], list[Finding]] = {}
    for f in findings:
        if f.depends_on is not None and (f.check, f.depends_on) in heads:
            under.setdefault((f.check, f.depends_on), []).append(f)
    out = []
    for f in findings:
        if f.depends_on is not None and (f.check, f.depends_on) in heads:
            continue
        out.append(f)
        out += under.get((f.check, f.uid), []) if f.dependents else []
    return out


class Tally:
    """Per check: flagged, passed and skipped counts, and why things were skipped."""

    def __init__(self, checks: Iterable[str]):
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
    """What the scene stage returns for one scene (also across a process boundary)."""
    findings: list[Finding]
    tally: Tally
    evidence: dict[str, list]     # check id -> what it gathered for its release-wide judgement
    problems: list[str]           # the scene.json's own diagnostics, for the log
    rays_cast: int = 0
    rays_covered: int = 0         # the samples those rays answered for (a cast restricted to boxes saves rays)
    # A scene audited in several jobs (a video longer than the frame chunk, run._run_scene_stage):
    pending: dict = field(default_factory=dict)   # casts left to frame-chunk jobs: key -> frames
    casts: dict = field(default_factory=dict)     # what this job cast, by key, for the scene's later jobs
    chunks: dict = field(default_factory=dict)    # a chunk job's casts over its chunk: key -> (counts, samples)

    def replacing(self, check_ids: set[str], other: "SceneAudit") -> "SceneAudit":
        """This scene's audit with the findings, counts and evidence of `check_ids` taken from `other` (a
        later job that ran those checks on the whole scene); the rays of both."""
        tally = Tally(list(self.tally.counts))
        for c in tally.counts:
            source = other.tally if c in check_ids else self.tally
            tally.counts[c] = source.counts[c].copy()
            tally.skip_reasons[c] = source.skip_reasons[c].copy()
        findings = [f for f in self.findings if f.check not in check_ids] + other.findings
        evidence = {c: items for c, items in self.evidence.items() if c not in check_ids}
        evidence.update({c: items for c, items in other.evidence.items() if c in check_ids})
        return SceneAudit(findings, tally, evidence, self.problems, self.rays_cast + other.rays_cast,
                          self.rays_covered + other.rays_covered)


@dataclass
class AuditReport:
    findings: list[Finding]
    tally: Tally
    checks: list[str]
    problems: list[str] = field(default_factory=list)
    rays_cast: int = 0
    seconds: float = 0.0
    rays_covered: int = 0

    def summary(self) -> dict[str, dict[str, int]]:
        return self.tally.summary()

    def to_json(self) -> dict:
        return {"findings": [f.to_json() for f in listed(self.findings)], "summary": self.summary()}

    def json_blocks(self, per_block: int = 1024) -> Iterator[str]:
        """`json.dumps(self.to_json(), indent=1, ensure_ascii=False, allow_nan=False)` in pieces of up to
        `per_block` findings, each finding made when its block is: the whole document of a 200,000-question
        release (its dicts, and the million small strings the indenting encoder joins) is never held."""
        encode = json.JSONEncoder(indent=1, ensure_ascii=False, allow_nan=False).encode
        findings = listed(self.findings)
        if not findings:
            yield '{\n "findings": [],\n "summary": '
        else:
            # A finding encoded alone, re-indented to its depth in the document (two levels): JSON strings
            # hold no raw newline, so every newline is the encoder's.
            yield '{\n "findings": [\n  '
            for k in range(0, len(findings), per_block):
                part = ",\n".join(encode(f.to_json()) for f in findings[k:k + per_block])
                yield ("" if k == 0 else ",\n  ") + part.replace("\n", "\n  ")
            yield '\n ],\n "summary": '
        yield encode(self.summary()).replace("\n", "\n ") + "\n}"

    def listed(self) -> list[Finding]:
        """The findings as the table, the JSON and the audit dock list them (`listed`)."""
        return listed(self.findings)

    def by_uid(self) -> dict[str, list[Finding]]:
        out: dict[str, list[Finding]] = {}
        for f in self.findings:
            if f.uid is not None:
                out.setdefault(f.uid, []).append(f)
        return out


def json_safe(value: Any, digits: int | None = 4) -> Any:
    """Numbers as plain floats/ints rounded to `digits` for reading (None: as they are); numpy scalars
    and arrays unwrapped; NaN and infinities as None (JSON has no such numbers; a NaN answer has them)."""
    import numpy as np
    if isinstance(value, dict):
        return {k: json_safe(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, digits) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist(), digits)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if not np.isfinite(v):
            return None
        return v if digits is None else round(v, digits)
    return value
