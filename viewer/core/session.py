"""A release with its models' results: what the CLI and the window both work on."""
from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .diagnostics import Diagnostics, UserError
from .evaluate import ModelResult, evaluate, leaderboard, random_baseline
from .predictions import PredictionSet, load_predictions
from .release import Release, load_release


@dataclass
class Session:
    release: Release
    results: list[ModelResult] = field(default_factory=list)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    parse_cache: dict = field(default_factory=dict, repr=False)

    @property
    def models(self) -> list[str]:
        return [r.model for r in self.results]

    def result(self, model: str) -> ModelResult | None:
        return next((r for r in self.results if r.model == model), None)

    def add_predictions(self, path: str | Path) -> list[ModelResult]:
        """Load, score and add one prediction file; UserError if unreadable."""
        return [self.add_prediction_set(s) for s in load_predictions(path)]

    def add_prediction_set(self, s: PredictionSet) -> ModelResult:
        s.model = self._unique_name(s.model)
        r = evaluate(self.release, s, self.parse_cache)
        self.results.append(r)
        self.diagnostics.extend(r.diagnostics)
        return r

    def add_result(self, r: ModelResult) -> ModelResult:
        """Add a result scored elsewhere (the window scores on a worker thread)."""
        r.model = self._unique_name(r.model)
        self.results.append(r)
        self.diagnostics.extend(r.diagnostics)
        return r

    def leaderboard(self) -> dict:
        return leaderboard(self.release, self.results)

    def random_row(self) -> dict[str, float | None]:
        return random_baseline(self.release)

    def _unique_name(self, name: str) -> str:
        taken = set(self.models)
        if name not in taken:
            return name
        k = 2
        while f"{name} ({k})" in taken:
            k += 1
        return f"{name} ({k})"


def open_session(release_path: str | Path, prediction_paths: list[str | Path] = (),
                 progress: Callable[[int, int], None] | None = None,
                 processes: int = 1) -> Session:
    """Release plus predictions; an unreadable prediction file is reported, not fatal.

    `processes` > 1 scores the later files in forked worker processes while
    this one scores the first ones (the command line uses it; a process with
    a window and its threads must not fork, so the window keeps the default).
    """
    release = load_release(release_path)
    session = Session(release)
    session.diagnostics.extend(release.diagnostics)
    paths = list(prediction_paths)
    for k, scored in enumerate(_score_files(release, paths, processes, session.parse_cache)):
        if isinstance(scored, UserError):
            session.diagnostics.error(str(scored))
        else:
            for r in scored:
                session.add_result(r)
        if progress:
            progress(k + 1, len(paths))
    return session


# Below this many files a second process costs more than it saves.
PARALLEL_MIN_FILES = 4


def _score_files(release: Release, paths: list, processes: int, cache: dict):
    """Per file, in order: its ModelResults, or the UserError that stopped it."""
    share = 0
    if processes > 1 and len(paths) >= PARALLEL_MIN_FILES and "fork" in mp.get_all_start_methods():
        share = len(paths) // processes
    if not share:
        yield from (_score_file(release, p, cache) for p in paths)
        return
    global _FORKED_RELEASE
    _FORKED_RELEASE = release               # inherited by the children, not pickled
    chunks = [paths[k * share:(k + 1) * share] for k in range(1, processes)]
    chunks[-1] += paths[processes * share:]
    done = 0
    try:
        with ProcessPoolExecutor(processes - 1, mp_context=mp.get_context("fork")) as pool:
            futures = [pool.submit(_score_chunk, c) for c in chunks]
            for p in paths[:share]:
                yield _score_file(release, p, cache)
                done += 1
            for f in futures:
                chunk = f.result()
                yield from chunk
                done += len(chunk)
    except BrokenProcessPool:                # a worker died: finish its share here
        yield from (_score_file(release, p, cache) for p in paths[done:])
    finally:
        _FORKED_RELEASE = None


_FORKED_RELEASE: Release | None = None


def _score_chunk(paths: list) -> list:
    cache: dict = {}
    return [_score_file(_FORKED_RELEASE, p, cache) for p in paths]


def _score_file(release: Release, path, cache: dict):
    try:
        return [evaluate(release, s, cache) for s in load_predictions(path)]
    except UserError as e:
        return e
