"""Benchmarks: GST-Bench and VSI-Bench, each a column table, parsing, aggregation and chance (see base.py)."""
from .base import METRES, Benchmark, Scale, ScoringVariant
from .gst import GST
from .registry import BENCHMARKS, get_benchmark, register
from .vsi import VSI

__all__ = ["Benchmark", "METRES", "Scale", "ScoringVariant", "GST", "VSI", "BENCHMARKS", "get_benchmark", "register"]
