"""The 12 subtasks of GST-Bench and the columns of the paper's Table 1.

Task names in releases match case-insensitively; a task that maps to no
column is reported by the loader and kept out of the leaderboard.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class AnswerType(str, Enum):
    ANGLE = "angle"
    DISTANCE = "distance"
    POINT = "point"
    CHOICE = "choice"


@dataclass(frozen=True)
class Column:
    key: str           # Table 1 column, e.g. "ED_v"
    task: str          # canonical task name
    answer_type: AnswerType
    title: str         # human label for tables and figures
    has_target: bool   # the question is about an object instance
    has_view: bool     # the question has a current view (a query viewpoint)
    on_map: bool       # the answer is placed on the top-down map


COLUMNS: tuple[Column, ...] = (
    Column("ED_v", "Object_Localization_Egocentric_Direction_visual", AnswerType.ANGLE,
           "Egocentric direction (visual)", True, True, False),
    Column("EDist_v", "Object_Localization_Egocentric_Distance_visual", AnswerType.DISTANCE,
           "Egocentric distance (visual)", True, True, False),
    Column("GP_v", "Object_Localization_Global_Position_visual", AnswerType.POINT,
           "Global position (visual)", True, False, True),
    Column("ED_s", "Object_Localization_Egocentric_Direction_semantic", AnswerType.ANGLE,
           "Egocentric direction (semantic)", True, True, False),
    Column("EDist_s", "Object_Localization_Egocentric_Distance_semantic", AnswerType.DISTANCE,
           "Egocentric distance (semantic)", True, True, False),
    Column("GP_s", "Object_Localization_Global_Position_semantic", AnswerType.POINT,
           "Global position (semantic)", True, False, True),
    Column("Pos", "Self_Localization_Global_Position", AnswerType.POINT,
           "Self position", False, True, True),
    Column("Ori", "Self_Localization_Global_Orientation", AnswerType.ANGLE,
           "Self orientation", False, True, True),
    Column("TDS_E", "Global_Structure_Understanding_Topdown_Selection_Easy", AnswerType.CHOICE,
           "Top-down selection (easy)", False, False, False),
    Column("TDS_M", "Global_Structure_Understanding_Topdown_Selection_Medium", AnswerType.CHOICE,
           "Top-down selection (medium)", False, False, False),
    Column("TDS_H", "Global_Structure_Understanding_Topdown_Selection_Hard", AnswerType.CHOICE,
           "Top-down selection (hard)", False, False, False),
    Column("Traj", "Global_Structure_Understanding_Trajection_Selection", AnswerType.CHOICE,
           "Trajectory selection", False, False, False),
)

COLUMN_KEYS: tuple[str, ...] = tuple(c.key for c in COLUMNS)
COLUMN_BY_KEY: dict[str, Column] = {c.key: c for c in COLUMNS}
# Index into COLUMNS used by the columnar arrays; -1 marks an unknown task.
UNKNOWN_COLUMN = -1

_BY_TASK: dict[str, int] = {c.task.lower(): i for i, c in enumerate(COLUMNS)}
# The published sample spells "Trajection"; the paper's text says "Trajectory".
_BY_TASK["global_structure_understanding_trajectory_selection"] = COLUMN_KEYS.index("Traj")


def column_index(task: str) -> int:
    """Index of the Table 1 column for a task name, or UNKNOWN_COLUMN."""
    if not isinstance(task, str):
        return UNKNOWN_COLUMN
    return _BY_TASK.get(task.strip().lower(), UNKNOWN_COLUMN)


def column_for_task(task: str) -> Column | None:
    i = column_index(task)
    return None if i == UNKNOWN_COLUMN else COLUMNS[i]


def is_semantic(column: Column) -> bool:
    return column.key.endswith("_s")


def column_keys(answer_type: AnswerType | None = None, *, has_target: bool | None = None,
                has_view: bool | None = None, on_map: bool | None = None,
                semantic: bool | None = None) -> frozenset[str]:
    """Keys of the columns matching every condition given, e.g. the angle questions with a view."""
    return frozenset(c.key for c in COLUMNS
                     if (answer_type is None or c.answer_type is answer_type)
                     and (has_target is None or c.has_target == has_target)
                     and (has_view is None or c.has_view == has_view)
                     and (on_map is None or c.on_map == on_map)
                     and (semantic is None or is_semantic(c) == semantic))
