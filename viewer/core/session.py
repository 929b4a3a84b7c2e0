"""A release with its models' results: what the CLI and the window both work on."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from .answers import STRICT, check_profile
from .diagnostics import Diagnostics, UserError
from .evaluate import (
    ModelResult,
    ProfileComparison,
    compare_profiles,
    evaluate,
    leaderboard,
    random_baseline,
    result_of,
)
from .predictions import PredictionSet, load_predictions
from .release import Release, load_release
from .settings_table import settings_table

if TYPE_CHECKING:
    from .browse import BrowseIndex


@dataclass
class Session:
    release: Release
    results: list[ModelResult] = field(default_factory=list)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    parse_cache: dict = field(default_factory=dict, repr=False)
    # Where its scenes come from; None: the release's own sources (scene_sources.SOURCE_KINDS).
    scene_sources: list | None = None
    profile: str = STRICT              # how answers are read (answers.PROFILES)
    _random_row: dict | None = field(default=None, repr=False)
    _profiles: dict = field(default_factory=dict, repr=False)     # id(result) -> (result, ProfileComparison)
    _board_rows: dict = field(default_factory=dict, repr=False)   # id(result) -> (result, its leaderboard row)
    _browse_index: BrowseIndex | None = field(default=None, repr=False)

    def __post_init__(self):
        check_profile(self.profile)

    @property
    def models(self) -> list[str]:
        return [r.model for r in self.results]

    @property
    def browse_index(self) -> BrowseIndex:
        """The browser's index of the release (filtering and sorting arrays), made once: the window's job that
        opens a release makes it, off the GUI thread (~60 ms at 200,000 questions)."""
        if self._browse_index is None:
            from .browse import BrowseIndex
            self._browse_index = BrowseIndex(self.release)
        return self._browse_index

    def result(self, model: str) -> ModelResult | None:
        return next((r for r in self.results if r.model == model), None)

    def add_predictions(self, path: str | Path) -> list[ModelResult]:
        """Load, score and add one prediction file; UserError if unreadable."""
        sets = self.release.benchmark.merge_predictions(load_predictions(path))
        return [r for r in map(self.add_prediction_set, sets) if r is not None]

    def read_prediction_files(self, paths: list[str | Path], progress: Callable[[int, int], None] | None = None
                              ) -> tuple[list[PredictionSet], list[str]]:
        """The files' prediction sets, merged as the release's benchmark merges them (one model's answers
        split over files become one set), and the message of each file that could not be read."""
        sets: list[PredictionSet] = []
        errors: list[str] = []
        for k, p in enumerate(paths):
            try:
                sets += load_predictions(p)
            except UserError as e:
                errors.append(str(e))
            if progress:
                progress(k + 1, len(paths))
        return self.release.benchmark.merge_predictions(sets), errors

    def score_prediction_files(self, paths: list[str | Path], progress: Callable[[int, int], None] | None = None
                               ) -> tuple[list[ModelResult], list[str]]:
        """`read_prediction_files`, each set scored under the session's profile with its parse cache, but not
        added: the window scores on a worker thread and adds the results (`add_result`) on its own."""
        sets, errors = self.read_prediction_files(paths, progress)
        results = [evaluate(self.release, s, self.parse_cache, self.profile) for s in sets]
        return [r for r in results if not r.unmatched], errors + [unmatched_message(r) for r in results if r.unmatched]

    def score_files_as_read(self, paths: list[str | Path], progress: Callable[[int, int], None] | None = None,
                            taken: list[str] = (), pool=None) -> tuple[list[ModelResult], list[str]]:
        """Each file read and its sets scored (`score_set`) before the next is read, so that only one file's
        answers are held beside the results (22 files of 200,000 answers held together cost a gigabyte).
        The results in file order, not added yet (`add_scored`), and the message of each file that could
        not be read; `taken` are the names of models scored before, to be added before these. Only for a
        benchmark that does not merge sets across files (merges_predictions). A file that `pool` (a
        core/scoring_pool.ScoringPool) was given is taken from its worker, the same results."""
        results: list[ModelResult] = []
        errors: list[str] = []
        for k, p in enumerate(paths):
            payload = pool.scored(str(p), progress) if pool is not None else None
            if payload is not None:
                sets, file_errors = payload
                errors += file_errors
                for s, scored, read_as, n_given in sets:
                    s.model = self._unique_name(s.model, [*taken, *(r.model for r in results if not r.unmatched)])
                    results.append(result_of(self.release, s, scored, read_as, n_given))
                if progress:
                    progress(k + 1, len(paths))
                continue
            try:
                sets = load_predictions(p)
            except UserError as e:
                errors.append(str(e))
            else:
                while sets:
                    coming = [*taken, *(r.model for r in results if not r.unmatched)]
                    results.append(self.score_set(sets.pop(0), coming))
            if progress:
                progress(k + 1, len(paths))
        return results, errors

    def score_files(self, paths: list[str | Path], progress: Callable[[int, int], None] | None = None,
                    taken: list[str] = (), pool=None) -> tuple[list[ModelResult], list[str]]:
        """Files scored as `open_session` scores them, not added: merged first where the benchmark merges
        files (`read_prediction_files`), else each as it is read (`score_files_as_read`, taking the files
        `pool` scored from it)."""
        if not self.release.benchmark.merges_predictions:
            return self.score_files_as_read(paths, progress, taken, pool)
        sets, errors = self.read_prediction_files(list(paths), progress)
        results: list[ModelResult] = []
        for s in sets:
            results.append(self.score_set(s, [*taken, *(r.model for r in results if not r.unmatched)]))
        return results, errors

    def score_set(self, s: PredictionSet, coming: list[str] = ()) -> ModelResult:
        """A set scored under the session's profile and named apart from the session's models and from
        `coming` (those to be added before it), not added."""
        s.model = self._unique_name(s.model, coming)
        return evaluate(self.release, s, self.parse_cache, self.profile)

    def add_files_scored(self, results: list[ModelResult], errors: list[str]) -> list[ModelResult]:
        """What `score_files` gave, added: each unreadable file's error said, then each result
        (`add_scored`); the results added."""
        for e in errors:
            self.diagnostics.error(e, code="prediction.unreadable")
        return [r for r in map(self.add_scored, results) if r is not None]

    def add_scored(self, r: ModelResult) -> ModelResult | None:
        """Add a result of `score_set`; None (with one error said) when none of its answers matches a
        question: such a file is left out of the leaderboard rather than shown as a row of zeros."""
        if r.unmatched:
            self.diagnostics.error(unmatched_message(r), code="prediction.no_match")
            return None
        self.results.append(r)
        self.diagnostics.extend(r.diagnostics)
        return r

    def add_prediction_set(self, s: PredictionSet) -> ModelResult | None:
        """Score a set and add it (`add_scored`)."""
        return self.add_scored(self.score_set(s))

    def add_result(self, r: ModelResult) -> ModelResult:
        """Add a result scored elsewhere (the window scores on a worker thread)."""
        r.model = self._unique_name(r.model)
        self.results.append(r)
        self.diagnostics.extend(r.diagnostics)
        return r

    def leaderboard(self) -> dict:
        """The `score --json` document; "warnings" lists the session's warnings and errors."""
        board = leaderboard(self.release, self.results, self.profile, self.random_row(), self._board_rows)
        for model, row in settings_table(self.release, self.results).items():
            board["models"][model].update(row.json())
        board["warnings"] = [{"level": d.level, "code": d.code, "message": d.message, "file": d.file,
                              "line": d.line} for d in self.diagnostics if d.level != "info"]
        return board

    def make_board_rows(self, results: list[ModelResult]) -> None:
        """Each result's leaderboard row made now and kept for `leaderboard` (which makes a row the first time
        it shows a result): the window makes them on the scoring job's thread, not at the redraw that adds
        the models (a row counts every answer's status: ~35 ms at 200,000 questions)."""
        leaderboard(self.release, results, self.profile, self.random_row(), self._board_rows)

    def compare_profiles(self, model: str) -> ProfileComparison | None:
        """One model's strict and lenient Avg and what each lenient rescue was worth."""
        r = self.result(model)
        if r is None:
            return None
        # Cached per result (it reparses every answer): the leaderboard redraws for many reasons.
        kept = self._profiles.get(id(r))
        if kept is None or kept[0] is not r:
            kept = self._profiles[id(r)] = (r, compare_profiles(self.release, r, self.parse_cache))
        return kept[1]

    def random_row(self) -> dict[str, float | None]:
        """The analytic Random (uniform) row, computed once per release (it integrates map areas)."""
        if self._random_row is None:
            self._random_row = random_baseline(self.release)
        return self._random_row

    def _unique_name(self, name: str, coming: list[str] = ()) -> str:
        taken = set(self.models) | set(coming)
        if name not in taken:
            return name
        k = 2
        while f"{name} ({k})" in taken:
            k += 1
        return f"{name} ({k})"


def unmatched_message(r: ModelResult) -> str:
    """The one message of a prediction file none of whose answers matches a question."""
    return f"{r.source}: {r.unmatched}; left out"


def open_session(release_path: str | Path, prediction_paths: list[str | Path] = (),
                 progress: Callable[[int, int], None] | None = None, profile: str = STRICT, *,
                 benchmark: str | None = None, scoring_variant: str | None = None) -> Session:
    """Release plus predictions read under `profile`; an unreadable prediction file is reported, not fatal.

    `benchmark` forces the release's benchmark (a registered name); `scoring_variant` scores with one
    of its known deviations (core/benchmarks).
    """
    release = load_release(release_path, benchmark)
    release.benchmark = release.benchmark.with_variant(scoring_variant)
    session = Session(release, profile=profile)
    session.diagnostics.extend(release.diagnostics)
    results, errors = session.score_files(list(prediction_paths), progress)
    session.add_files_scored(results, errors)
    return session
