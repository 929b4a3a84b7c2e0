"""A benchmark's question column: one question type, the answer kind that reads and scores it, and what it links.

Each benchmark's package has its own column table (`Benchmark.columns`); the release's `column`
array indexes it, -1 (UNKNOWN_COLUMN) marking a task the benchmark does not have.
"""
from __future__ import annotations

from dataclasses import dataclass

from .kinds import AnswerKind, get_kind

EGOCENTRIC, MAP_HEADING = "egocentric", "map"
# What a multiple-choice question's option images show ("" for a question whose options are not
# pictures of the scene): a top-down map in one of three styles, or a camera trajectory drawn on one.
MAP_PHOTO, MAP_OCCUPANCY, MAP_FLOORPLAN, TRAJECTORY = "map-photo", "map-occupancy", "map-floorplan", "trajectory"


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
    semantic: bool = False   # the target is named by its category in the text, not marked in a picture
    option_images: str = ""  # what the option images show: MAP_PHOTO, ..., TRAJECTORY; "" none

    @property
    def kind(self) -> AnswerKind:
        return get_kind(self.kind_name)


# Index into a benchmark's columns used by the columnar arrays; -1 marks an unknown task.
UNKNOWN_COLUMN = -1


@dataclass(frozen=True)
class Columns:
    """A set of columns described by what they are, not by their keys, so that one description (an audit
    check's, a figure's) selects the right columns of every benchmark. None: any value."""
    kind: str | None = None
    has_target: bool | None = None
    has_view: bool | None = None
    on_map: bool | None = None
    semantic: bool | None = None
    frame: str | None = None
    option_images: str | None = None      # "" selects the columns without option images
    key: str | None = None                # one column by its key: only for a benchmark's own checks, in its wing

    def matches(self, column: Column | None) -> bool:
        return column is not None and all(
            want is None or getattr(column, name) == want
            for name, want in ((("kind_name", self.kind), ("has_target", self.has_target),
                                ("has_view", self.has_view), ("on_map", self.on_map),
                                ("semantic", self.semantic), ("frame", self.frame),
                                ("option_images", self.option_images), ("key", self.key))))

    def keys(self, columns) -> frozenset[str]:
        """The keys of those of `columns` that match."""
        return frozenset(c.key for c in columns if self.matches(c))

    def __or__(self, other: Columns | AnyOf) -> AnyOf:
        return AnyOf((self,)) | other


@dataclass(frozen=True)
class AnyOf:
    """The columns that match any of several descriptions."""
    parts: tuple[Columns, ...]

    def matches(self, column: Column | None) -> bool:
        return any(p.matches(column) for p in self.parts)

    def keys(self, columns) -> frozenset[str]:
        return frozenset(c.key for c in columns if self.matches(c))

    def __or__(self, other: Columns | AnyOf) -> AnyOf:
        return AnyOf(self.parts + (other.parts if isinstance(other, AnyOf) else (other,)))


ANY_COLUMN = Columns()
