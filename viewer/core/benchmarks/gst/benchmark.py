"""GST-Bench: the 12 subtasks of the paper's Table 1 (columns.py), read by loader.py."""
from __future__ import annotations

from pathlib import Path

from ..base import Benchmark
from .columns import COLUMNS, TASK_ALIASES
from .uid import uid_tail


class GstBenchmark(Benchmark):
    def short_uid(self, question) -> str:
        return uid_tail(question.uid, question.target)

    def own_checks(self) -> tuple:
        from .answers_inconsistent import ANSWERS_INCONSISTENT  # the answers judged against each other
        return (ANSWERS_INCONSISTENT,)

    def inferred(self, release, i: int):
        from .reconstruct import inferred_for  # the map rebuilt from the answers (reconstruct.py)
        return inferred_for(release, i)

    def published_rows(self, page: bool):
        from .published import published_rows
        return published_rows(self, page)

    # Its loader is imported when a release is opened: it needs the release types, which need the benchmarks.
    def detect(self, root: Path) -> bool:
        from .loader import detect
        return detect(root)

    def load(self, root: Path):
        from .loader import load
        return load(root)

    def describe_release(self, root: Path) -> str:
        from .loader import describe_files
        return describe_files(root)

    def names_a_release(self, path: Path) -> bool:
        from .loader import names_a_release
        return names_a_release(path)

    def owns_record(self, record) -> bool:
        from .loader import owns_record
        return owns_record(record)


GST = GstBenchmark(
    name="gst",
    title="GST-Bench",
    columns=COLUMNS,
    task_aliases=TASK_ALIASES,
    prompt_convention="answers as the task asks: degrees, metres, <point>x y</point> or an option letter",
)
