"""A benchmark's question column: one question type, the answer kind that reads and scores it, and what it links.

Each benchmark's package has its own column table (`Benchmark.columns`); the release's `column`
array indexes it, -1 (UNKNOWN_COLUMN) marking a task the benchmark does not have.
"""
from __future__ import annotations

from dataclasses import dataclass

from .kinds import AnswerKind, get_kind

EGOCENTRIC, MAP_HEADING = "egocentric", "map"


@dataclass(frozen=True)
class Column:
    key: str           # leaderboard column, e.g. GST-Bench's "ED_v"
    task: str          # canonical task name
    kind_name: str     # its answer kind, by registered name (viewer.core.kinds)
    title: str         # human label for tables and figures
    has_target: bool   # the question is about an object instance
    has_view: bool     # the question has a current view (a query viewpoint)
    on_map: bool       # the answer is placed on the top-down map
    frame: str = EGOCENTRIC  # angles: measured from the view's forward (egocentric) or from map up (map)

    @property
    def kind(self) -> AnswerKind:
        return get_kind(self.kind_name)


# Index into a benchmark's columns used by the columnar arrays; -1 marks an unknown task.
UNKNOWN_COLUMN = -1
