"""GST-Bench (arXiv 2608.05747): its 12 subtasks' column table, its uid rules, its record loader (loader.py)."""
from .benchmark import GST

__all__ = ["GST"]
