"""GST-Bench: the 12 subtasks of the paper's Table 1 (the column table lives in core/tasks.py)."""
from __future__ import annotations

from ..base import Benchmark
from .columns import COLUMNS

GST = Benchmark(
    name="gst",
    title="GST-Bench",
    columns=COLUMNS,
    # The published sample spells "Trajection"; the paper's text says "Trajectory".
    task_aliases={"Global_Structure_Understanding_Trajectory_Selection": "Traj"},
    prompt_convention="answers as the task asks: degrees, metres, <point>x y</point> or an option letter",
)
