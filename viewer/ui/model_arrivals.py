"""A release's models scored after the release is shown: the window lists the questions first, and each
model's columns appear as its prediction file is scored, off the GUI thread.

Reading and scoring 22 files of 200,000 answers takes some 6-10 s of CPU, which the window used to wait
for before it showed anything. Now `open_release` reads the release alone, shows it, and `ModelArrivals`
takes the files one job after another (one job for all where the benchmark merges files:
`Benchmark.merges_predictions`); the files are read and scored by worker processes where they can be
(core/scoring_pool.py, started by `open_release` with `workers_for`), the job only naming each model.
Arrived models join the state at most every `FLUSH_S` seconds, and `JOIN_SHARE` times a join's own cost
apart, and with the last file: each join redraws the browser and the leaderboard over every question, so
one per file would cost the GUI thread more than it shows. Work over every model that nobody sees until
it is done (the k column) waits for the last file (`InspectorState.models_arriving`). The session ends as
`open_session` would have made it: the same models, names, order, selection and messages.
"""
from __future__ import annotations

import time
from functools import partial
from pathlib import Path
from typing import Callable

from ..core import scoring_pool
from ..core.evaluate import ModelResult
from ..core.session import Session, unmatched_message
from ..core.state import InspectorState
from .jobs import CANCELLED, Jobs

FLUSH_S = 1.5
# Joins are at least this many times their own cost apart: on a large release the GUI thread's redraws
# then never take more than a fifth of the time the files take to score.
JOIN_SHARE = 4.0


class ModelArrivals:
    """Scores `paths` for `session`, the state's session, one file per job; `problem(level, text)` lists a
    message, `done(cancelled)` is called once every file was scored or the scoring was cancelled.
    `keep_question`: the question shown was asked for (`--uid`), and stays when the first model's sort
    comes (`InspectorState.add_results`)."""

    def __init__(self, jobs: Jobs, state: InspectorState, session: Session, paths: list[str],
                 problem: Callable[[str, str], None], done: Callable[[bool], None], keep_question: bool = False,
                 pool: scoring_pool.ScoringPool | None = None):
        self.jobs, self.state, self.session, self.problem, self.done = jobs, state, session, problem, done
        self.keep_question = keep_question
        merged = session.release.benchmark.merges_predictions
        self.batches = [list(paths)] if merged else [[p] for p in paths]
        self.k = 0
        self.waiting: list[ModelResult] = []        # scored, not joined yet
        self.joined_at = time.monotonic()
        self.join_cost = 0.0                         # what the last join took the GUI thread (s)
        # Worker processes score the files that suit them (core/scoring_pool.py: `workers_for`, started with the
        # release's reading; the first job gives them the release, once it is shown); the others are scored
        # on the job thread.
        self.pool = pool
        self._submit()

    def _submit(self) -> None:
        batch = self.batches[self.k]
        what = Path(batch[0]).name if len(batch) == 1 else f"{len(batch)} files"
        taken = [r.model for r in self.waiting]
        self.jobs.submit(partial(self._score, batch, taken), lane="session", scope="session",
                         label=f"scoring {what} ({self.k + 1}/{len(self.batches)})", with_progress=True,
                         done=self._scored, failed=self._failed)

    def _score(self, batch: list[str], taken: list[str], progress: Callable) -> tuple:
        """On a job thread: the batch's results, from the workers where they scored it."""
        pool = self.pool
        if pool is not None and not pool.ready and not pool.start(self.session.release, self.session.profile) \
                and pool.declined:
            pool = self.pool = None                  # this release's files are scored here
        results, errors = self.session.score_files(batch, progress, taken, pool=pool)
        self.session.make_board_rows([r for r in results if not r.unmatched])    # off the GUI thread
        return results, errors

    def close(self) -> None:
        """Stop the workers, if any (the scoring is done, cancelled, or another release is opened)."""
        pool = self.pool                             # the job thread may drop it meanwhile
        if pool is not None:
            pool.close()

    def _scored(self, payload: tuple[list[ModelResult], list[str]]) -> None:
        results, errors = payload
        for e in errors:
            self.session.diagnostics.error(e, code="prediction.unreadable")
            self.problem("error", e)
        for r in results:
            if r.unmatched:
                self.session.diagnostics.error(unmatched_message(r), code="prediction.no_match")
                self.problem("error", unmatched_message(r))
            else:
                self.waiting.append(r)
        self.k += 1
        last = self.k == len(self.batches)
        if last or time.monotonic() - self.joined_at >= max(FLUSH_S, JOIN_SHARE * self.join_cost):
            self._join()
        if last:
            self.close()
            self.done(False)
        else:
            self._submit()

    def _join(self) -> None:
        arrived, self.waiting = self.waiting, []
        start = time.monotonic()
        if arrived:
            self.state.add_results(arrived, opening=True, keep_question=self.keep_question)
            for r in arrived:
                for d in r.diagnostics:
                    self.problem(d.level, str(d))
        self.joined_at = time.monotonic()
        self.join_cost = self.joined_at - start

    def _failed(self, message: str) -> None:
        self.close()
        if message != CANCELLED:                     # a file's own problems are errors of `_scored`
            self.problem("error", f"scoring predictions: {message}")
        self._join()
        self.done(True)



def workers_for(paths: list[str]) -> scoring_pool.ScoringPool:
    """Worker processes for a release's arriving prediction files, started now, so that their start and
    imports overlap the release's reading; they get the release (`ScoringPool.start`) from the first scoring
    job, once the release is shown (scoring before would take the cores the window needs to show it)."""
    return scoring_pool.ScoringPool(paths)
