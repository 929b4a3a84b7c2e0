"""The 12 subtasks of GST-Bench and the columns of the paper's Table 1.

Task names in releases match case-insensitively; a task that maps to no
column is reported by the loader and kept out of the leaderboard.
"""
from __future__ import annotations

from ...column import MAP_HEADING, UNKNOWN_COLUMN, Column

COLUMNS: tuple[Column, ...] = (
    Column("ED_v", "Object_Localization_Egocentric_Direction_visual", "angle",
           "Egocentric direction (visual)", True, True, False),
    Column("EDist_v", "Object_Localization_Egocentric_Distance_visual", "distance",
           "Egocentric distance (visual)", True, True, False),
    Column("GP_v", "Object_Localization_Global_Position_visual", "point",
           "Global position (visual)", True, False, True),
    Column("ED_s", "Object_Localization_Egocentric_Direction_semantic", "angle",
           "Egocentric direction (semantic)", True, True, False),
    Column("EDist_s", "Object_Localization_Egocentric_Distance_semantic", "distance",
           "Egocentric distance (semantic)", True, True, False),
    Column("GP_s", "Object_Localization_Global_Position_semantic", "point",
           "Global position (semantic)", True, False, True),
    Column("Pos", "Self_Localization_Global_Position", "point",
           "Self position", False, True, True),
    Column("Ori", "Self_Localization_Global_Orientation", "angle",
           "Self orientation", False, True, True, frame=MAP_HEADING),
    Column("TDS_E", "Global_Structure_Understanding_Topdown_Selection_Easy", "choice",
           "Top-down selection (easy)", False, False, False),
    Column("TDS_M", "Global_Structure_Understanding_Topdown_Selection_Medium", "choice",
           "Top-down selection (medium)", False, False, False),
    Column("TDS_H", "Global_Structure_Understanding_Topdown_Selection_Hard", "choice",
           "Top-down selection (hard)", False, False, False),
    Column("Traj", "Global_Structure_Understanding_Trajection_Selection", "choice",
           "Trajectory selection", False, False, False),
)

COLUMN_KEYS: tuple[str, ...] = tuple(c.key for c in COLUMNS)
COLUMN_BY_KEY: dict[str, Column] = {c.key: c for c in COLUMNS}

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


def column_keys(kind: str | None = None, *, has_target: bool | None = None,
                has_view: bool | None = None, on_map: bool | None = None,
                semantic: bool | None = None, frame: str | None = None) -> frozenset[str]:
    """Keys of the columns matching every condition given, e.g. the angle questions with a view."""
    return frozenset(c.key for c in COLUMNS
                     if (kind is None or c.kind_name == kind)
                     and (frame is None or c.frame == frame)
                     and (has_target is None or c.has_target == has_target)
                     and (has_view is None or c.has_view == has_view)
                     and (on_map is None or c.on_map == on_map)
                     and (semantic is None or is_semantic(c) == semantic))
