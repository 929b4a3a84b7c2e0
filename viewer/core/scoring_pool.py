"""Prediction files read and scored in worker processes, while this process does other work.

Reading and scoring a file of 200,000 answers costs about a quarter of a second of CPU, nearly all of it
Python under the GIL (decoding the lines, matching the uids, reading each answer by its kind), so threads
cannot share it out. A `ScoringPool` starts `WORKERS` spawned processes that import only `viewer.core`
(no Qt, and not the main script: `_without_main`) while the window reads the release; `start(release,
profile)` then gives them what scoring needs of it (its uids, columns, truths and option counts, and its
benchmark: `scoring_release`) through a file, and each worker reads its next file with `load_predictions`
(expecting the release's uids in order: json_records.EXPECTED_UIDS), scores every set with
`evaluate.score_answers`, and sends back the columns (`AnswersScored`: raw answers, statuses, values,
scores, errors) with the set minus its answers. This process names each model in file order and writes its
messages (`Session.score_files(..., pool=)`, `evaluate.result_of`), so the results, names and messages are
those of scoring the files here.

A file is sent only when its reading cannot differ between the processes: the benchmark neither merges
files nor re-keys answers and is one of the built-in ones (`suits`), and this process reads the file as
plain JSON Lines records, the format a worker must also find (`file_suits`; a worker that finds another, or
a set matched by position, which needs the questions' texts, gives the file back and it is scored here).
`close()` ends the workers at once (a cancel, another release, the window closing; a worker whose parent
died ends too); a file asked for after that raises `PoolClosed`, never hangs.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import multiprocessing
import operator
import os
import pickle
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Callable

from .diagnostics import Diagnostics, UserError
from .release import Release

WORKERS = 2
RELEASE_FILE = "release.pickle"
POLL_S = 0.25                   # how often a wait for a file's result reports progress (and so can be cancelled)


class PoolClosed(UserError):
    """A file's result was asked for after its pool was closed (a cancel, another release): never scored."""


def suits(release: Release) -> bool:
    """Whether a release's files can be scored in worker processes: its benchmark is a built-in one (a
    worker imports only viewer.core), reads each file alone and keys answers by uid as read."""
    from .benchmarks.base import Benchmark
    b = release.benchmark
    return (not b.merges_predictions and type(b).prepare_predictions is Benchmark.prepare_predictions
            and type(b).__module__.startswith("viewer.core.")
            and all(type(k).__module__.startswith("viewer.core.") for k in b.kind_codes[0]))


def file_suits(path: str | Path) -> str:
    """The label of the format a worker must read `path` as ("" when the file is scored here): plain JSON
    Lines records, as this process's formats identify it (a `.json` document is never parsed to find out)."""
    from .predictions.formats import Head, format_of, named_path
    from .predictions.json_records import JSON_LINES
    _, p = named_path(path)
    if p.suffix.lower() == ".json" or not p.is_file():
        return ""
    try:
        fmt = format_of(p, Head(p, Diagnostics()))
    except UserError:
        return ""
    return fmt.label if fmt is JSON_LINES else ""


def scoring_release(release: Release) -> Release:
    """What scoring needs of a release, for a worker: no questions, scenes, media or messages; its uid index
    is made again there when it is each uid's position (the usual release), else sent."""
    index = release.index
    if len(index) == len(release.uids) and all(map(operator.eq, index.values(), range(len(index)))):
        index = _PositionIndex(release.uids)
    return dataclasses.replace(release, questions=[], scene_of=[], missing=[], diagnostics=Diagnostics(),
                               index=index)


class _PositionIndex(Mapping):
    """uid -> its position in `uids`, as a dict made on first use (only a file in another order needs it)."""

    def __init__(self, uids: list):
        self.uids, self._dict = uids, None

    def __reduce__(self):
        return _PositionIndex, (self.uids,)

    def _map(self) -> dict:
        if self._dict is None:
            self._dict = dict(zip(self.uids, range(len(self.uids))))
        return self._dict

    def __getitem__(self, uid):
        return self._map()[uid]

    def get(self, uid, default=None):
        return self._map().get(uid, default)

    def __contains__(self, uid) -> bool:
        return uid in self._map()

    def __iter__(self):
        return iter(self.uids)

    def __len__(self) -> int:
        return len(self.uids)


# ------------------------------------------------------------------ in the worker
_WORKER: dict = {}


WORKER_CHUNK = 4 * 2**20        # a worker reads JSON Lines 4 MB at a time (its peak counts with the window's)


def _start_worker(folder: str, parent: int) -> None:
    """A worker's start: its imports, then the release to score for, once the main process has read it
    (`ScoringPool.start` writes it into `folder`); a worker whose parent is gone ends."""
    from . import (
        benchmarks,  # noqa: F401  (the built-in benchmarks, their kinds and formats registered)
        textio,
    )
    textio.JSON_LINES_CHUNK = WORKER_CHUNK
    basis = os.path.join(folder, RELEASE_FILE)
    while not os.path.exists(basis):
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.01)
    with open(basis, "rb") as f:
        release, profile = pickle.load(f)
    # Distinct uids, none empty (json_records.EXPECTED_UIDS): a file of the release's uids in its order is
    # read without a copy of them or a set to find duplicates.
    expected = release.uids if type(release.index) is _PositionIndex and all(release.uids) else None
    _WORKER.update(release=release, profile=profile, cache={}, expected=expected)


def _score_file(path: str, label: str):
    """In a worker: ([(set without its answers, AnswersScored, read_as, answers read)], unreadable files'
    messages), or None when this file is to be scored in the main process after all."""
    from .evaluate import SHARED_TEXTS, score_answers
    from .predictions import load_predictions
    from .predictions.json_records import EXPECTED_UIDS
    release, profile, cache = _WORKER["release"], _WORKER["profile"], _WORKER["cache"]
    token = EXPECTED_UIDS.set(_WORKER["expected"])
    try:
        sets = load_predictions(path)
    except UserError as e:
        return [], [str(e)]
    finally:
        EXPECTED_UIDS.reset(token)
    if any(s.read_as != label or s.positional for s in sets):
        return None
    # Each file's short answer texts are held once (then sent once: pickle keeps shared objects shared), and
    # not kept across files, so a worker's memory does not grow with the files it scored.
    out = []
    for s in sets:
        read_as, n_given = s.read_as, len(s.raw)
        scored = score_answers(release, s, cache, profile)
        s.raw, s.lines = {}, {}
        out.append((s, scored, read_as, n_given))
    del sets
    cache.pop(SHARED_TEXTS, None)
    _give_back_memory()
    return out, []


def _give_back_memory() -> None:
    """Return the heap a file's reading freed to the system (glibc keeps it otherwise): the workers' memory
    counts with the window's."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


# ------------------------------------------------------------------ in the main process
class ScoringPool:
    """Worker processes scoring `paths`. They are started at once, so that their start and imports overlap the
    reading of the release, and score once `start(release, profile)` gives it to them; every file that suits
    is sent, the workers taking the next as they finish. `scored(path)` waits for one file's payload."""

    def __init__(self, paths: list[str], workers: int = WORKERS):
        self._lock = threading.Lock()
        self._futures: dict[str, list[concurrent.futures.Future]] = {}      # per path, one per time it is given
        labels = {p: file_suits(p) for p in dict.fromkeys(paths)}
        sent = [p for p in paths if labels[p]]
        self._sent = set(sent)
        self._executor = None
        self._processes: list = []
        self.ready = False               # the workers have the release (`start`) and the pool is not closed
        self.declined = False            # `start` found the release's files are to be scored in this process
        if not sent:
            return
        # The release goes to the workers through a file: initializer arguments stay referenced in each worker
        # for its whole life (24 MB at 200,000 questions), and the workers start before it is read.
        self._folder = tempfile.mkdtemp(prefix="gst-viewer-scoring-")
        self._executor = concurrent.futures.ProcessPoolExecutor(
            min(workers, len(sent)), mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
            initargs=(self._folder, os.getpid()))
        with _without_main():            # the workers are started by these submits, none later
            for p in sent:
                self._futures.setdefault(p, []).append(self._executor.submit(_score_file, p, labels[p]))
        self._processes = list((getattr(self._executor, "_processes", None) or {}).values())
        # The workers end with the pool, whoever drops it last.
        self._finalizer = weakref.finalize(self, _end, self._executor, self._folder)

    @classmethod
    def started(cls, release: Release, profile: str, paths: list[str], workers: int = WORKERS) -> ScoringPool:
        pool = cls(paths, workers)
        pool.start(release, profile)
        return pool

    def start(self, release: Release, profile: str) -> bool:
        """Give the workers the release to score for (called off the GUI thread: pickling it takes ~50 ms at
        200,000 questions). False when the pool was closed, or (`declined`, the pool closed) when the
        release's files are to be scored in this process."""
        if self._executor is None or not suits(release):
            self.declined = self._executor is not None or not self._sent
            self.close()
            return False
        part = os.path.join(self._folder, RELEASE_FILE + ".part")
        with open(part, "wb") as f:
            pickle.dump((scoring_release(release), profile), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(part, os.path.join(self._folder, RELEASE_FILE))       # whole when a worker sees it
        self.ready = self._executor is not None
        return self.ready

    @property
    def processes(self) -> list:
        """The worker processes it started (multiprocessing.Process objects), alive or ended."""
        return list(self._processes)

    def sent(self, path: str) -> bool:
        """Whether `path` was sent to the workers."""
        return path in self._sent

    def scored(self, path: str, progress: Callable | None = None):
        """`path`'s payload from its worker, taken once (a path given twice was sent twice), or None when it is
        to be scored in this process: never sent, or given back by its worker. `progress(0, 1)` is called
        while waiting, so a cancelled job stops here; PoolClosed when the pool was closed before it was done."""
        futures = self._futures.get(path)
        if not futures:
            return None
        future = futures.pop(0)
        while True:
            done, _ = concurrent.futures.wait([future], timeout=POLL_S)
            if self._executor is None and not (done and not future.cancelled() and future.exception() is None):
                # Closed: a file not scored by then never will be (a killed pool's futures may never end).
                raise PoolClosed("scoring stopped")
            if done:
                break
            if progress:
                progress(0, 1)
        return future.result()           # a worker's own exception, or BrokenProcessPool, is raised here

    def close(self) -> None:
        """End the workers now, whatever they are doing (queued files are dropped)."""
        with self._lock:
            ex, self._executor, self.ready = self._executor, None, False
        if ex is not None:
            self._finalizer.detach()
            _end(ex, self._folder)


_SPAWNING = threading.Lock()


@contextlib.contextmanager
def _without_main():
    """Workers started in this block do not run the main script again. A spawned process imports the
    parent's `__main__` (as `__mp_main__`), so a script that opens the window without an `if __name__ ==
    "__main__"` guard would open another window in each worker, and a guarded one still costs its imports
    (pytest's, a console script's). The workers need nothing of it: they run `viewer.core` functions."""
    from multiprocessing import spawn
    original = getattr(spawn, "get_preparation_data", None)
    if original is None:
        yield
        return

    def preparation_data(name):
        data = original(name)
        data.pop("init_main_from_name", None)
        data.pop("init_main_from_path", None)
        return data
    with _SPAWNING:
        spawn.get_preparation_data = preparation_data
        try:
            yield
        finally:
            spawn.get_preparation_data = original


def _end(executor: concurrent.futures.ProcessPoolExecutor, folder: str) -> None:
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.kill()
    for p in processes:
        p.join(5)
    shutil.rmtree(folder, ignore_errors=True)
