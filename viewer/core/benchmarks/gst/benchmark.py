"""GST-Bench: the 12 subtasks of the paper's Table 1 (the column table: columns.py)."""
from __future__ import annotations

from ..base import Benchmark
from .columns import COLUMNS, TASK_ALIASES
from .uid import uid_tail


class GstBenchmark(Benchmark):
    def short_uid(self, question) -> str:
        return uid_tail(question.uid, question.target)


GST = GstBenchmark(
    name="gst",
    title="GST-Bench",
    columns=COLUMNS,
    task_aliases=TASK_ALIASES,
    prompt_convention="answers as the task asks: degrees, metres, <point>x y</point> or an option letter",
)
