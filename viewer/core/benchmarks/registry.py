"""The known benchmarks, by name; a release's benchmark is detected from its fields or forced."""
from __future__ import annotations

from ..diagnostics import UserError
from .base import Benchmark
from .gst import GST
from .vsi import VSI

BENCHMARKS: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    BENCHMARKS[benchmark.name] = benchmark
    return benchmark


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise UserError(f"no benchmark {name!r}; known: {', '.join(BENCHMARKS)}") from None


register(GST)
register(VSI)
