"""The known benchmarks, by name; a release's benchmark is detected from its files or forced.

This is the one place that lists the built-in benchmark packages. A new benchmark is its package
(viewer/core/benchmarks/<name>/) and one `register` line here, or a `register` call of its own.
"""
from __future__ import annotations

from pathlib import Path

from ..diagnostics import UserError
from .base import Benchmark
from .gst import GST
from .vsi import VSI

BENCHMARKS: dict[str, Benchmark] = {}     # by name, in the order their `detect` is tried


def register(benchmark: Benchmark) -> Benchmark:
    """Add a benchmark (its name then opens with --benchmark) and its own prediction formats."""
    from ..predictions import register_format
    BENCHMARKS[benchmark.name] = benchmark
    for fmt in benchmark.prediction_formats:
        register_format(fmt)
    return benchmark


def unregister(benchmark: Benchmark) -> None:
    from ..predictions import unregister_format
    if BENCHMARKS.get(benchmark.name) is benchmark:
        del BENCHMARKS[benchmark.name]
    for fmt in benchmark.prediction_formats:
        unregister_format(fmt)


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise UserError(f"no benchmark {name!r}; known: {', '.join(BENCHMARKS)}") from None


def detect_benchmark(root: Path) -> Benchmark:
    """The first benchmark whose `detect` recognises `root`; else DEFAULT."""
    return next((b for b in BENCHMARKS.values() if b.detect(root)), DEFAULT)


def owner_of(record, reader: Benchmark) -> Benchmark | None:
    """Another benchmark that says a record `reader`'s loader cannot read is one of its own, or None."""
    return next((b for b in BENCHMARKS.values() if b is not reader and b.owns_record(record)), None)


register(GST)
register(VSI)
# A path no benchmark recognises (a broken or unusual question file) is read by GST-Bench's loader,
# which reads any question file it is given and says what is wrong with it, line by line.
DEFAULT: Benchmark = GST
