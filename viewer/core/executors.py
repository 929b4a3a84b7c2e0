"""Where batch work runs: the seam between a job list and the machines that run it.

A batch command (the audit's scene stage) hands an executor a function and
one argument tuple per job; the executor runs them wherever it runs things
and yields each result as it finishes, in any order. The caller puts results
back in its own order, so the output never depends on where or in which order
the jobs ran.

`LocalExecutor` runs jobs here (worker processes when there are enough jobs).
The Dask executor (viewer/cluster.py, outside the core: it imports dask) runs
them on a cluster. Both are picked by `--executor local|dask` (cluster.executor_for).
"""
from __future__ import annotations

import os
from typing import Any, Callable, Iterator, Protocol


class Executor(Protocol):
    def map_unordered(self, fn: Callable, jobs: list[tuple], keys: list[str]) -> Iterator[tuple[str, Any]]:
        """(key, fn(*job)) for every job, as each finishes; keys[i] names jobs[i]."""

    def close(self) -> None:
        """Release what the executor started (processes, a cluster)."""


class LocalExecutor:
    """Jobs on this machine: in this process, or in `workers` spawned processes."""

    def __init__(self, workers: int | None = None):
        self.workers = workers

    def map_unordered(self, fn: Callable, jobs: list[tuple], keys: list[str]) -> Iterator[tuple[str, Any]]:
        workers = min(self.workers or os.cpu_count() or 1, len(jobs))
        if workers <= 1:
            for key, job in zip(keys, jobs):
                yield key, fn(*job)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        # spawn, not fork: the window calls this from a worker thread, and forking
        # a threaded (Qt, open3d) process can deadlock the child.
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(fn, *job): key for key, job in zip(keys, jobs)}
            for fut in as_completed(futures):
                yield futures[fut], fut.result()

    def close(self) -> None:
        pass
