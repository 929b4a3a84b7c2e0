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

import itertools
import os
from typing import Any, Callable, Iterable, Iterator, Protocol


class Executor(Protocol):
    def map_unordered(self, fn: Callable, jobs: Iterable[tuple], keys: list[str]) -> Iterator[tuple[str, Any]]:
        """(key, fn(*job)) for every job, as each finishes; keys[i] names the i-th job. `jobs` may be a
        generator: an executor that can takes each job when it has room for it."""

    def close(self) -> None:
        """Release what the executor started (processes, a cluster)."""


# Jobs handed to the worker processes ahead of those running, per worker: enough that none waits, few
# enough that the jobs' arguments (a scene's questions) are made as they are needed, not all at once.
AHEAD_PER_WORKER = 2


class LocalExecutor:
    """Jobs on this machine: in this process, or in `workers` spawned processes."""

    def __init__(self, workers: int | None = None):
        self.workers = workers

    def map_unordered(self, fn: Callable, jobs: Iterable[tuple], keys: list[str]) -> Iterator[tuple[str, Any]]:
        workers = min(self.workers or os.cpu_count() or 1, len(keys))
        todo = zip(keys, jobs)
        if workers <= 1:
            for key, job in todo:
                yield key, fn(*job)
            return
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        # spawn, not fork: the window calls this from a worker thread, and forking
        # a threaded (Qt, open3d) process can deadlock the child.
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            running: dict = {}

            def submit(n: int) -> None:
                for key, job in itertools.islice(todo, n):
                    running[pool.submit(fn, *job)] = key
            submit(workers * (1 + AHEAD_PER_WORKER))
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                submit(len(done))
                for fut in done:
                    yield running.pop(fut), fut.result()

    def close(self) -> None:
        pass
