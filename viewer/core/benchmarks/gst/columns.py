"""The 12 subtasks of GST-Bench and the columns of the paper's Table 1.

Task names in releases match case-insensitively; a task that maps to no
column is reported by the loader and kept out of the leaderboard.
"""
from __future__ import annotations

from ...column import MAP_FLOORPLAN, MAP_HEADING, MAP_OCCUPANCY, MAP_PHOTO, TRAJECTORY, Column

COLUMNS: tuple[Column, ...] = (
    Column("ED_v", "Object_Localization_Egocentric_Direction_visual", "angle",
           "Egocentric direction (visual)", True, True, False),
    Column("EDist_v", "Object_Localization_Egocentric_Distance_visual", "distance",
           "Egocentric distance (visual)", True, True, False),
    Column("GP_v", "Object_Localization_Global_Position_visual", "point",
           "Global position (visual)", True, False, True),
    Column("ED_s", "Object_Localization_Egocentric_Direction_semantic", "angle",
           "Egocentric direction (semantic)", True, True, False, semantic=True),
    Column("EDist_s", "Object_Localization_Egocentric_Distance_semantic", "distance",
           "Egocentric distance (semantic)", True, True, False, semantic=True),
    Column("GP_s", "Object_Localization_Global_Position_semantic", "point",
           "Global position (semantic)", True, False, True, semantic=True),
    Column("Pos", "Self_Localization_Global_Position", "point",
           "Self position", False, True, True),
    Column("Ori", "Self_Localization_Global_Orientation", "angle",
           "Self orientation", False, True, True, frame=MAP_HEADING),
    Column("TDS_E", "Global_Structure_Understanding_Topdown_Selection_Easy", "choice",
           "Top-down selection (easy)", False, False, False, option_images=MAP_PHOTO),
    Column("TDS_M", "Global_Structure_Understanding_Topdown_Selection_Medium", "choice",
           "Top-down selection (medium)", False, False, False, option_images=MAP_OCCUPANCY),
    Column("TDS_H", "Global_Structure_Understanding_Topdown_Selection_Hard", "choice",
           "Top-down selection (hard)", False, False, False, option_images=MAP_FLOORPLAN),
    Column("Traj", "Global_Structure_Understanding_Trajection_Selection", "choice",
           "Trajectory selection", False, False, False, option_images=TRAJECTORY),
)

COLUMN_KEYS: tuple[str, ...] = tuple(c.key for c in COLUMNS)
COLUMN_BY_KEY: dict[str, Column] = {c.key: c for c in COLUMNS}

# The published sample spells "Trajection"; the paper's text says "Trajectory".
TASK_ALIASES = {"Global_Structure_Understanding_Trajectory_Selection": "Traj"}


def column_index(task: str) -> int:
    """Index of the Table 1 column for a task name, or UNKNOWN_COLUMN (GST.column_index)."""
    from .benchmark import GST  # the benchmark is built from this table
    return GST.column_index(task)


def column_for_task(task: str) -> Column | None:
    from .benchmark import GST
    return GST.column(GST.column_index(task))
