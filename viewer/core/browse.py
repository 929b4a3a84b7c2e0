"""Filtering, sorting and stepping through questions, for the sample browser.

Everything works on index arrays into `release.questions` so that a release
of 200,000 questions filters and sorts in milliseconds; the window's table
model only ever formats the handful of rows on screen.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import repeat

import numpy as np

from .answers import MISSING, OK, STATUS_TEXT, is_scored, scored_mask
from .compare import comparison_mask, error_range_mask, wrong_mask
from .evaluate import ModelResult
from .release import Release, natural_key
from .settings_table import PATTERNS, pattern_mask  # noqa: F401  (PATTERNS: the browser's choices)

# Parse-status filter choices: name -> what it keeps (for the selected model). Besides these
# groups, every parse status (answers.STATUS_TEXT, e.g. "several_numbers") filters for itself.
STATUS_FILTERS = {
    "any": "every question",
    "failed": "score below 1 (wrong, unparsed or missing)",
    "wrong": "score 0",
    "parsed": "the answer is scored (parsed, possibly flagged)",
    "flagged": "scored but suspect: several numbers, out of range, or a lenient rescue",
    "unparsed": "an answer that does not parse",
    "missing": "no answer from the model",
}
STATUS_FILTERS.update({s: f"status {s}: {text}" for s, text in STATUS_TEXT.items()
                       if s not in STATUS_FILTERS and s != MISSING})

# Reviewer-verdict filter choices (flags.VERDICTS keys keep questions with that verdict).
VERDICT_FILTERS = {
    "any": "every question",
    "unreviewed": "no verdict yet",
    "reviewed": "any verdict",
    "ok": "ok",
    "bad_gt": "bad ground truth",
    "ambiguous": "ambiguous",
    "bad_media": "bad media",
}

# Sort keys that do not depend on a model; model keys are ("answer"|"error"|"score", m).
QUESTION_KEYS = ("row", "uid", "scene", "column", "truth")
MODEL_KEYS = ("answer", "error", "score")


# "Target in k of the N sampled frames" (core/frames/; k is set on the index by ui/target_k.py).
TARGET_K_FILTERS = {
    "any": None,
    "target never sampled": lambda k: k == 0,
    "target sampled": lambda k: k >= 1,
    "target frames unknown": np.isnan,
}


@dataclass(frozen=True)
class BrowseFilter:
    columns: frozenset[int] | None = None     # indices into the benchmark's columns; None = all
    scenes: frozenset[str] | None = None      # None = all
    model: int | None = None                  # index into session.results, for score/status
    score_min: float = 0.0
    score_max: float = 1.0
    status: str = "any"                       # a key of STATUS_FILTERS
    text: str = ""                            # words that must all occur in uid/task/target
    verdict: str = "any"                      # a key of VERDICT_FILTERS
    pattern: str = "any"                      # a key of settings_table.PATTERNS (Global vs local variants)
    compare: str = "none"                     # a key of compare.COMPARISONS: A is `model`, B is `model_b`
    model_b: int | None = None
    error_min: float | None = None            # the selected model's error range (None: unbounded); a brushed
    error_max: float | None = None            # histogram range or "error above X"; NaN errors are left out
    target_k: str = "any"                     # a key of TARGET_K_FILTERS: k of the selected model's policy


def default_sort(model: int | None) -> tuple:
    """The browser's sort on opening: the selected model's score, worst first (its failures are what one
    looks for; equal scores by the larger error first, unscored questions last: `BrowseIndex.sort`); row
    order when no model is loaded."""
    return (("score", model), False) if model is not None else ("row", False)


def opening_filter(f: BrowseFilter, models: int) -> BrowseFilter:
    """The filter a newly opened release with `models` models is browsed with, from the one before (its
    status, text, verdict, pattern and k choices are kept): every column and scene, the first model as A and
    the second as B, no comparison, no error range."""
    return replace(f, columns=None, scenes=None, model=0 if models else None, model_b=1 if models > 1 else None,
                   compare="none", error_min=None, error_max=None)


def first_question(index: BrowseIndex, f: BrowseFilter, results: list[ModelResult], asked: int | None = None,
                   verdicts: dict[str, str] | None = None) -> int | None:
    """The question the browser shows first for filter `f` under its default sort: `asked` (a uid's row) when
    the filter lists it, else the first listed; None when it lists none (the browser's own rows and order:
    `BrowseIndex.rows` and `sort`; `InspectorState.first_listed`)."""
    rows = index.rows(f, results, verdicts)
    if asked is not None and bool((rows == asked).any()):
        return asked
    if not len(rows):
        return None
    return int(index.sort(rows, *default_sort(f.model), results)[0])


ORDERS_KEPT = 8       # sorts of every question a BrowseIndex keeps (8 bytes a question each)


class BrowseIndex:
    """Per-question arrays the browser filters and sorts on, built once per release."""

    def __init__(self, release: Release):
        self.release = release
        self.n = len(release)
        # Columnar fields only: touching release.questions would build every Question.
        scenes = sorted(set(release.scene_of), key=natural_key)
        self.scene_names: list[str] = scenes
        code = {s: k for k, s in enumerate(scenes)}
        self.scene_code = np.fromiter((code[s] for s in release.scene_of), np.int32, self.n)
        self._uid_rank: np.ndarray | None = None
        self.column = release.column.astype(np.int32)
        # Points sort by x, then y; the other types by their value.
        self.truth_key = _sort_key(release.truth)
        tasks = [c.task.lower() for c in release.benchmark.columns] + [""]
        # The uid carries the target instance id, so searching it finds targets too.
        self._haystack = [f"{u.lower()} {tasks[c]}" for u, c in zip(release.uids, self.column.tolist())]
        self._raw_lower: dict[int, tuple] = {}     # per ModelResult: (its raw, `_lowered`), on first search
        # Each question's error scale (its column's loosest tolerance): errors in degrees, map units and
        # relative distances rank together as shares of it.
        scales = [c.kind.error_scale or 1.0 for c in release.benchmark.columns] + [1.0]
        self.error_scale = np.asarray(scales, float)[self.column]
        # Per question, under the selected model's frame policy: sampled frames showing the target (NaN: unknown) and
        # frames sampled (0: not computed); set by ui/target_k.py.
        self.target_k = np.full(self.n, np.nan)
        self.sampled_n = np.zeros(self.n, np.int32)
        # Every question's order under a sort, kept for the last few sorts (`sort`): choosing a model sorts
        # by its score, which the browser asked for twice (the sort, then the filter's rows) at 200,000 rows.
        self._orders: dict[tuple, tuple[tuple, np.ndarray]] = {}
        self._orders_kept = 0

    def target_k_text(self, i: int) -> str:
        k, n = self.target_k[i], int(self.sampled_n[i])
        if not n:
            return ""
        return "?" if np.isnan(k) else f"{int(k)} of {n}"

    @property
    def uid_rank(self) -> np.ndarray:
        """Natural-order rank of each uid (scene2 before scene10), computed on first use (0.6 s at 200,000
        questions: not made ahead, as the window would be ready that much later for a sort seldom asked for)."""
        if self._uid_rank is None:
            keys = list(map(natural_key, self.release.uids))
            self._uid_rank = _ranks(sorted(range(self.n), key=keys.__getitem__), self.n)
        return self._uid_rank

    # ------------------------------------------------------------- filtering
    def mask(self, f: BrowseFilter, results: list[ModelResult],
             verdicts: dict[str, str] | None = None) -> np.ndarray:
        """Rows `f` keeps; `verdicts` (uid -> reviewer verdict) serves the verdict filter."""
        m = np.ones(self.n, bool)
        if f.verdict != "any":
            m &= self._verdict_mask(f.verdict, verdicts or {})
        if f.columns is not None:
            m &= np.isin(self.column, np.fromiter(f.columns, np.int32, len(f.columns)))
        if f.scenes is not None:
            codes = [k for k, s in enumerate(self.scene_names) if s in f.scenes]
            m &= np.isin(self.scene_code, np.asarray(codes, np.int32))
        r = results[f.model] if f.model is not None and 0 <= f.model < len(results) else None
        if r is not None:
            m &= _status_mask(r, f.status)
            if f.score_min > 0.0 or f.score_max < 1.0:
                with np.errstate(invalid="ignore"):
                    m &= (r.score >= f.score_min - 1e-12) & (r.score <= f.score_max + 1e-12)
            if f.error_min is not None or f.error_max is not None:
                m &= error_range_mask(r.error, f.error_min, f.error_max)
        compared = comparison_mask(f.compare, [x.score for x in results], f.model, f.model_b)
        if compared is not None:
            m &= compared
        if f.pattern != "any":
            m &= self._pattern_mask(f.pattern, [r] if r is not None else results)
        want = TARGET_K_FILTERS.get(f.target_k)
        if want is not None:
            with np.errstate(invalid="ignore"):
                m &= want(self.target_k) & (self.sampled_n > 0)
        words = f.text.lower().split()
        if words:
            m &= self._text_mask(words, results)
        return m

    def rows(self, f: BrowseFilter, results: list[ModelResult],
             verdicts: dict[str, str] | None = None) -> np.ndarray:
        return np.flatnonzero(self.mask(f, results, verdicts))

    def _pattern_mask(self, pattern: str, results: list[ModelResult]) -> np.ndarray:
        """Global questions whose variants show `pattern` for the model (or, with none selected, any model)."""
        m = np.zeros(self.n, bool)
        for r in results:
            m |= pattern_mask(self.release, r.score, pattern)
        return m

    def _verdict_mask(self, want: str, verdicts: dict[str, str]) -> np.ndarray:
        index = self.release.index
        keep = [index[u] for u, v in verdicts.items()
                if u in index and v is not None and (want in ("reviewed", "unreviewed") or v == want)]
        m = np.zeros(self.n, bool)
        m[keep] = True
        return ~m if want == "unreviewed" else m

    def _text_mask(self, words: list[str], results: list[ModelResult]) -> np.ndarray:
        """Rows where all words occur in the uid/task, or all in one model's answer."""
        hit = _all_words(self._haystack, words, self.n)
        # Also search what the models said: "cannot determine" finds refusals.
        for r in results:
            kept = self._raw_lower.get(id(r))
            if kept is None or kept[0] is not r.raw:
                kept = self._raw_lower[id(r)] = (r.raw, _lowered(r.raw))
            hit |= _all_words(kept[1], words, self.n)
        return hit

    # --------------------------------------------------------------- sorting
    def sort(self, rows: np.ndarray, key: str | tuple[str, int], descending: bool,
             results: list[ModelResult]) -> np.ndarray:
        """`rows` reordered by `key`; rows without a value (NaN) always go last.

        The order is total (ties broken by the row), so the order of any rows is the order of all questions
        with the others left out: for many rows that order is sorted once and kept (ORDERS_KEPT sorts)."""
        rows = np.asarray(rows, np.int64)
        if key == "row" and not descending:
            # A filter's rows come in order (flatnonzero): told in a pass, where sorting them took 5 ms.
            return rows if len(rows) < 2 or bool((rows[1:] > rows[:-1]).all()) else np.sort(rows)
        if len(rows) * 4 < self.n:
            return self._sort(rows, key, descending, results)
        order = self.order(key, descending, results)
        if len(rows) == self.n:                    # every question (rows hold each once)
            return order.copy()
        member = np.zeros(self.n, bool)
        member[rows] = True
        return order[member[order]]

    def order(self, key: str | tuple[str, int], descending: bool, results: list[ModelResult]) -> np.ndarray:
        """Every question in the order of `key`, kept (ORDERS_KEPT of them, or one per model when
        `keep_orders` made more; may be called from a job thread)."""
        # What the values are read from, compared by identity: another result (a reparse) or new k arrays.
        used = (results[key[1]],) if isinstance(key, tuple) else (self.target_k, self.sampled_n)
        kept = self._orders.get((key, descending))
        if kept is None or len(kept[0]) != len(used) or any(a is not b for a, b in zip(kept[0], used)):
            order = self._sort(np.arange(self.n), key, descending, results)
            while len(self._orders) >= max(ORDERS_KEPT, self._orders_kept):
                self._orders.pop(next(iter(self._orders)), None)
            kept = self._orders[(key, descending)] = (used, order)
        return kept[1]

    def keep_orders(self, sorts: list[tuple], results: list[ModelResult]) -> None:
        """Sort every question by each of `sorts` ((key, descending) pairs, the default sort of each model)
        ahead of time and keep them all: choosing a model then sorts nothing (a job's work)."""
        self._orders_kept = len(sorts) + ORDERS_KEPT
        for key, descending in sorts:
            self.order(key, descending, results)

    def _sort(self, rows: np.ndarray, key: str | tuple[str, int], descending: bool,
              results: list[ModelResult]) -> np.ndarray:
        values = self.sort_values(key, results)[rows]
        nan = np.isnan(values)
        v = np.where(nan, 0.0, -values if descending else values)
        if isinstance(key, tuple) and key[0] == "score":
            # Equal scores: the larger error (as a share of its column's tolerance) is the worse answer;
            # no error at all (unparsed, missing) the worst.
            err = self.sort_values(("error", key[1]), results)[rows]
            err = np.where(np.isnan(err), np.inf, err)
            order = np.lexsort((rows, err if descending else -err, v, nan))
        else:
            # lexsort: last key is primary; the row index keeps ties stable.
            order = np.lexsort((rows, v, nan))
        return rows[order]

    def sort_values(self, key: str | tuple[str, int], results: list[ModelResult]) -> np.ndarray:
        if key == "row":
            return np.arange(self.n, dtype=float)
        if key == "uid":
            return self.uid_rank.astype(float)
        if key == "scene":
            return self.scene_code.astype(float)
        if key == "column":
            return np.where(self.column < 0, np.nan, self.column).astype(float)
        if key == "truth":
            return self.truth_key
        if key == "target_k":
            return np.where(self.sampled_n > 0, self.target_k, np.nan)
        name, m = key
        r = results[m]
        if name == "score":
            return r.score
        if name == "error":
            return r.error / self.error_scale          # comparable across columns (see error_scale)
        if name == "answer":
            return np.where(r.scored, _sort_key(r.answer), np.nan)
        raise ValueError(f"unknown sort key {key!r}")


def _all_words(texts: list[str], words: list[str], n: int) -> np.ndarray:
    """Which of `texts` hold every one of `words`: the first word over all of them, each next one over those
    still in (a second word costs what its candidates do, not another pass over 200,000 answers)."""
    # map() over str.__contains__ runs the loop in C: ~10x a generator expression.
    m = np.fromiter(map(str.__contains__, texts, repeat(words[0])), bool, n)
    for w in words[1:]:
        rows = np.flatnonzero(m)
        if not len(rows):
            break
        m[rows] = np.fromiter(map(str.__contains__, map(texts.__getitem__, rows.tolist()), repeat(w)), bool,
                              len(rows))
    return m


def _lowered(raw) -> list[str]:
    """The answers in lower case for `_all_words`; an answer already so is kept, not copied (about half of
    them: numbers, points; a copy of every answer held ~14 MB a model at 200,000 answers)."""
    out = []
    for x in raw:
        if x is None:
            out.append("")
        else:
            x = str(x)
            low = x.lower()
            out.append(x if low == x else low)
    return out


def _ranks(order: list[int], n: int) -> np.ndarray:
    rank = np.empty(n, np.int64)
    rank[np.asarray(order, np.int64)] = np.arange(n)
    return rank


def _status_mask(r: ModelResult, status: str) -> np.ndarray:
    if status == "any":
        return np.ones(len(r.score), bool)
    if status == "failed":
        return failure_mask(r.score)
    if status == "wrong":
        with np.errstate(invalid="ignore"):
            return r.score == 0.0
    scored = scored_mask(r.status)
    missing = r.status == MISSING
    if status == "parsed":
        return scored
    if status == "flagged":
        return scored & (r.status != OK)
    if status == "unparsed":
        return ~scored & ~missing & (r.status != "unscored")
    if status == "missing":
        return missing
    if status in STATUS_TEXT:
        return r.status == status
    raise ValueError(f"unknown status filter {status!r}")


def failure_mask(score: np.ndarray) -> np.ndarray:
    """Scored questions a model did not get fully right (NaN = unscorable, not a failure)."""
    return wrong_mask(score)


def step_failure(rows: np.ndarray, score: np.ndarray, position: int, step: int) -> int | None:
    """Position in `rows` of the next (step=+1) or previous (-1) failure after `position`.

    `position` may be -1 (nothing selected): the next failure is then the first.
    None when there is no failure in that direction.
    """
    fails = np.flatnonzero(failure_mask(score[rows]))
    if step > 0:
        k = np.searchsorted(fails, position, side="right")
        return int(fails[k]) if k < len(fails) else None
    k = np.searchsorted(fails, position, side="left") - 1
    return int(fails[k]) if k >= 0 else None


# ------------------------------------------------------------------ cell texts
# The model's cells are read off the arrays and the question's column (`kind_of`): no Question is built for them.
def kind_of(release: Release, i: int):
    """Question i's answer kind, from the columnar `release.column` (None: a task the benchmark does not know)."""
    c = release.benchmark.column(int(release.column[i]))
    return c.kind if c is not None else None


def truth_text(release: Release, i: int) -> str:
    return question_truth_text(release.questions[i])


def question_truth_text(q) -> str:
    if q.kind is None:
        return str(q.answer_raw)
    if not q.truth.ok:
        return f"{q.answer_raw!r} (invalid)"
    return q.kind.text(q.truth.value)


def answer_text(r: ModelResult, release: Release, i: int) -> str:
    status = r.status[i]
    if is_scored(status):
        return kind_of(release, i).text(r.parsed(release, i))
    if status == MISSING:
        return "(missing)"
    if status == "unscored":
        return "(unscored)"
    return "(unparsed)"


def status_text(r: ModelResult, i: int) -> str:
    s = r.status[i]
    return STATUS_TEXT.get(s, "task not scored" if s == "unscored" else s)


def error_unit(release: Release, columns: frozenset | None) -> str | None:
    """The unit of the errors in `columns` (None: every column of the release), as "error > X" shows it;
    None when they are in different units (degrees and map units, say)."""
    cols = release.benchmark.columns
    # bincount: the columns present in a pass (np.unique sorted 200,000 codes at every filter change).
    picked = set((np.flatnonzero(np.bincount(release.column + 1)) - 1).tolist()) if columns is None else set(columns)
    units = {cols[c].kind.error_unit for c in picked if 0 <= c < len(cols)}
    return units.pop() if len(units) == 1 else None


def error_text(r: ModelResult, release: Release, i: int) -> str:
    e = float(r.error[i])
    kind = kind_of(release, i)
    if kind is None or math.isnan(e):
        return ""
    return kind.error_text(e)


def score_text(r: ModelResult, i: int) -> str:
    s = float(r.score[i])
    return "" if math.isnan(s) else f"{s:.2f}"


def column_label(i: int, benchmark) -> str:
    """A column's short label in lists (the benchmark's own, e.g. VSI-Bench's "ObjSize"; else its key)."""
    c = benchmark.column(i)
    return benchmark.label(c.key) if c is not None else "?"


def column_texts(index: BrowseIndex) -> dict[str, list[str]]:
    """Every text the browser's task and scene columns can show, so each is sized to its widest."""
    bench = index.release.benchmark
    return {"column": [column_label(i, bench) for i in range(len(bench.columns))] + ["?"],
            "scene": index.scene_names}


def _sort_key(rows: np.ndarray) -> np.ndarray:
    """One sortable number per stored answer: the value, or x * 1000 + y for a map point."""
    return np.where(np.isnan(rows[:, 1]), rows[:, 0], rows[:, 0] * 1000.0 + rows[:, 1])
