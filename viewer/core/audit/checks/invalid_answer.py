"""invalid_answer: the stored ground truth parses as its task's answer type and is in range."""
from __future__ import annotations

from ...answers import STATUS_TEXT
from ..auditors import ReleaseAuditor
from ..registry import Check
from ..types import ALL_COLUMNS, Finding


class InvalidAnswer(Check):
    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        out = []
        bench = audit.release.benchmark
        unknown = f"task is not one of the {len(bench.columns)} {bench.title} tasks"
        for q in audit.release.each_question():
            if q.column is None:
                audit.tally.skip(self.id, unknown)
                continue
            if q.truth.ok:
                audit.tally.passed(self.id)
                continue
            audit.tally.flag(self.id)
            at = q.column.kind_name
            out.append(Finding(q.uid, self.id, self.severity,
                               f"ground truth {q.answer_raw!r} is not a valid {at} answer "
                               f"({STATUS_TEXT.get(q.truth.status, q.truth.status)})",
                               {"answer": q.answer_raw, "answer_type": at, "status": q.truth.status,
                                "options": q.n_options if at == "choice" else None}))
        return out


INVALID_ANSWER = InvalidAnswer("invalid_answer", "error", "ground truth does not parse or is out of range", ALL_COLUMNS)
