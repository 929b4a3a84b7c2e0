"""Scoring a model's predictions against a release, and the Table 1 leaderboard."""
from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import repeat

import numpy as np

from .answers import LENIENT, MISSING, RESCUES, STRICT, check_profile, is_scored, scored_mask
from .diagnostics import Diagnostics
from .kinds import WIDTH
from .predictions import PredictionSet
from .predictions.formats import AnswersInOrder
from .release import Release


@dataclass
class ModelResult:
    """One model on one release, aligned with `release.questions`."""
    model: str
    source: str
    raw: np.ndarray                # raw answer per question (object array), None when missing
    status: np.ndarray             # parse status per question (object array of str)
    answer: np.ndarray             # (n, kinds.WIDTH) parsed answer as its kind packs it; NaN if none
    score: np.ndarray              # in [0, 1]; NaN where the question cannot be scored
    error: np.ndarray              # degrees, relative error, normalised units, 0/1; NaN if none
    unknown_uids: list[str] = field(default_factory=list)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    profile: str = STRICT          # the parse profile the answers were read with (answers.PROFILES)
    # Why no answer of the file was matched to a question, for people ("" when some were): what the file
    # looks like, and what it was checked against. Session leaves such a file out, with this message.
    unmatched: str = ""
    # What survives a rename (the Models tab's, `-p NAME=PATH`): the file and the name it gives the model
    # (`model_id`); and the names the model had before (the file's own name, renames), which saved views
    # written before may use.
    model_id: str = ""
    aliases: tuple[str, ...] = ()

    def parsed(self, release: Release, i: int):
        """The scored answer to question i as its kind gives it (float, (x, y), option index), or None."""
        # The question's kind from the columnar `release.column`: no Question is built for it.
        c = release.benchmark.column(int(release.column[i]))
        kind = c.kind if c is not None else None
        if kind is None or not is_scored(self.status[i]):
            return None
        return kind.unpack(self.answer[i])

    @property
    def scored(self) -> np.ndarray:
        """Per question, whether the answer is scored on its value (answers.SCORED)."""
        return scored_mask(self.status)

    def parse_counts(self) -> dict[str, int]:
        """How many answers got each parse status (questions of unknown tasks left out), most common first."""
        counts = Counter(self.status.tolist())
        counts.pop("unscored", None)          # the others keep their order of first appearance for ties
        return dict(counts.most_common())

    @property
    def missing(self) -> np.ndarray:
        return np.flatnonzero(self.status == MISSING)

    @property
    def unparsed(self) -> int:
        """Predictions present but not parseable for their task."""
        return int(np.sum(~self.scored & (self.status != MISSING) & (self.status != "unscored")))

    def column_scores(self, release: Release) -> dict[str, float | None]:
        return column_means(release, self.score)

    def column_counts(self, release: Release, counted_in: dict[str, np.ndarray] | None = None) -> dict[str, int]:
        """Scored questions per leaderboard column (a group counts its members'); `counted_in` is
        table_members(release), passed when counting several models."""
        counted_in = table_members(release) if counted_in is None else counted_in
        scored = ~np.isnan(self.score)
        return {k: int(np.count_nonzero(m & scored)) for k, m in counted_in.items()}


def table_members(release: Release) -> dict[str, np.ndarray]:
    """Per leaderboard column, the questions the leaderboard counts in it (a group: its members')."""
    b = release.benchmark
    counted = release.in_leaderboard
    return {k: np.isin(release.column, b.members(k)) & counted for k in b.table_keys}


def column_means(release: Release, score: np.ndarray) -> dict[str, float | None]:
    """100 x mean score per column of the release's benchmark; None for a column without questions.

    Only the questions in the leaderboard count (`release.in_leaderboard`: the global ones); local variants
    are the settings table's (core/settings_table.py).
    """
    out: dict[str, float | None] = {}
    counted = release.in_leaderboard & ~np.isnan(score)
    for i, k in enumerate(release.benchmark.keys):
        s = score[(release.column == i) & counted]
        out[k] = float(100.0 * s.mean()) if len(s) else None
    return out


def average(columns: dict[str, float | None]) -> float | None:
    vals = [v for v in columns.values() if v is not None]
    return float(np.mean(vals)) if vals else None


SHARED_TEXTS = "shared answer texts"     # the parse cache's key for the distinct short answers
SHARED_TEXT_LENGTH = 40


def evaluate(release: Release, preds: PredictionSet,
             parse_cache: dict | None = None, profile: str = STRICT) -> ModelResult:
    """Score one model, reading its answers under `profile` (answers.PROFILES). Pass the same
    `parse_cache` when scoring several models: their answers repeat, and each distinct one is
    then parsed once."""
    check_profile(profile)
    read_as, n_given = preds.read_as, len(preds.raw)
    preds = release.benchmark.prepare_predictions(release, preds)
    return result_of(release, preds, score_answers(release, preds, parse_cache, profile), read_as, n_given)


@dataclass
class AnswersScored:
    """A prediction set's answers matched to the release's questions, read and scored: the columns of its
    `ModelResult`, made by `score_answers` (in this process, or in a worker: core/scoring_pool.py), before
    the model is named and its messages written (`result_of`)."""
    raw: np.ndarray                # per question, as ModelResult's
    present: np.ndarray            # per question, whether the set answers it
    status: np.ndarray
    answer: np.ndarray
    score: np.ndarray
    error: np.ndarray
    unknown: list                  # the set's keys that name no question
    by_position: set               # keys matched by their position (match_by_position)
    refused: str                   # why a positional file was not matched by position ("" if it was, or is not)
    profile: str = STRICT          # the parse profile the answers were read with


def score_answers(release: Release, preds: PredictionSet, parse_cache: dict | None = None,
                  profile: str = STRICT) -> AnswersScored:
    """`preds` (as `prepare_predictions` left it) matched to the questions, each answer read by its kind
    under `profile` and scored: the work of `evaluate`, none of it depending on the model's name."""
    n = len(release)
    given = preds.raw
    if type(given) is AnswersInOrder and type(release.uids) is list and given.uids == release.uids:
        # The release's uids in its order, each once (a file written by running the benchmark): matched by
        # one comparison of the two lists, not by looking up each uid.
        keys, answers = given.uids, given.answers
        found = np.arange(n, dtype=np.int64)
    else:
        keys = list(given)
        answers = list(given.values())
        found = np.fromiter(map(release.index.get, keys, repeat(-1)), np.int64, len(keys))
    unknown = []
    by_position, refused = match_by_position(release, preds, [keys[j] for j in np.flatnonzero(found < 0).tolist()])
    for j in np.flatnonzero(found < 0).tolist():
        key = keys[j]
        if key in by_position:
            found[j] = int(key)
        else:
            unknown.append(key)
    ok = found >= 0
    raw = np.full(n, None, dtype=object)
    kept = answers if ok.all() else [a for a, good in zip(answers, ok.tolist()) if good]
    if parse_cache is not None:
        # Models' short answers repeat ("A", "-120", "3.5"): each distinct one is held once across the
        # session's models (22 models of 200,000 answers held 4.4 million strings). Long answers rarely
        # repeat and are left as they are, so the table never holds every reasoning text twice over.
        texts = parse_cache.setdefault(SHARED_TEXTS, {})
        if kept and set(map(type, kept)) == {str} and max(map(len, kept)) <= SHARED_TEXT_LENGTH:
            kept = list(map(texts.setdefault, kept, kept))      # all short texts, the usual file: C-level
        else:
            kept = [texts.setdefault(a, a) if type(a) is str and len(a) <= SHARED_TEXT_LENGTH else a for a in kept]
    # fromiter keeps each answer whole, even one that is a JSON list.
    raw[found[ok]] = np.fromiter(kept, dtype=object, count=len(kept))
    present = np.zeros(n, bool)
    present[found[ok]] = True

    status, answer = parse_answers(release, raw, present, profile, parse_cache)
    score, error = score_all(release, answer)
    return AnswersScored(raw, present, status, answer, score, error, unknown, by_position, refused, profile)


def result_of(release: Release, preds: PredictionSet, scored: AnswersScored, read_as: str,
              n_given: int) -> ModelResult:
    """The `ModelResult` of a set whose answers `score_answers` scored, under the set's model name, with its
    messages; `read_as` and `n_given` are the set's format and answer count as read (before
    `prepare_predictions`)."""
    unknown, by_position, refused, present = scored.unknown, scored.by_position, scored.refused, scored.present
    diags = Diagnostics()
    diags.extend(preds.diagnostics)
    unmatched = "" if present.any() else _unmatched(release, read_as, n_given, refused)
    if unknown and not unmatched:
        shown = ", ".join(repr(shown_key(u)) for u in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        diags.warning(f"{len(unknown)} predictions name questions not in this release: {shown}"
                      + (f" ({refused})" if refused else ""), preds.source, code="prediction.unknown_uid")
    n_missing = int(np.sum(~present & (release.column >= 0)))
    if n_missing and not unmatched:
        diags.warning(f"{n_missing} questions have no prediction from {preds.model!r}; "
                      "they score 0", preds.source, code="prediction.missing")
    if by_position:
        diags.info(f"{len(by_position)} predictions carry no uid and were matched by their position "
                   "(doc_id / index) in the release, their question texts agreeing with the release's",
                   preds.source, code="prediction.matched_by_position")
        off = [k for k, t in preds.questions.items() if k in by_position and not _same_question(
            t, release.questions[int(k)])]
        if off:                              # matched with the rest, but never without a word
            shown = ", ".join(off[:5]) + (" ..." if len(off) > 5 else "")
            diags.warning(f"{len(off)} of the {len(preds.questions)} rows checked by their question text ask "
                          f"another question than the release's at that position (rows {shown}); they are "
                          "scored at that position all the same", preds.source, code="prediction.position_disagrees")
    own = preds.own_name or preds.model
    return ModelResult(preds.model, preds.source, scored.raw, scored.status, scored.answer, scored.score,
                       scored.error, unknown, diags, scored.profile, unmatched,
                       model_id=model_id(preds.source, own), aliases=(own,) if own != preds.model else ())


def model_id(source: str, own_name: str) -> str:
    """A model's stable id: its file's absolute path and the name the file gives it (a file may hold
    several models), whatever the model is called in the window."""
    from pathlib import Path

    from .predictions import named_path
    path = named_path(source)[1] if source else Path()
    try:
        path = path.resolve()
    except OSError:
        pass                                 # an unreachable path keeps its text
    return f"{path}#{own_name}"


# A match by position is taken when at least this share of the file's rows that carry their own question
# text (up to predictions.QUESTION_SAMPLE of them) agree with the release's question at that position.
POSITION_AGREEMENT = 0.8


def match_by_position(release: Release, preds: PredictionSet, keys: list[str]) -> tuple[set[str], str]:
    """The keys (positions) of a positional file that match their question by position, and why none do
    ("" when they do, or the file is not positional). A position alone proves nothing: the file's own
    question text must agree with the release's at that position."""
    if not preds.positional:
        return set(), ""
    n = len(release)
    candidates = [k for k in keys if k.isdigit() and int(k) < n]
    if not candidates:
        return set(), ""
    texts = [(k, t) for k, t in preds.questions.items() if k.isdigit() and int(k) < n]
    if not texts:
        return set(), "matched by position only when the file gives its own question text, and it gives none"
    agree = sum(_same_question(t, release.questions[int(k)]) for k, t in texts)
    if agree < POSITION_AGREEMENT * len(texts):
        return set(), (f"matched by position only when the questions agree, and {len(texts) - agree} of the "
                       f"{len(texts)} rows checked ask another question than the release's at that position")
    return set(candidates), ""


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def _same_question(text: str, question) -> bool:
    """Whether a file's question text is the release question's: one holds the other, spaces and case aside."""
    mine = _words(text)
    theirs = _words(" ".join(question.texts) + " " + str(question.meta.get("question", "")))
    return bool(mine) and (mine in theirs or (len(theirs) > 20 and theirs in mine)
                           or any(_words(t) in mine for t in question.texts if len(_words(t)) > 20))


def shown_key(key: str) -> str:
    """A prediction key for people: control characters (a reader's internal separators) as " / "."""
    return "".join(" / " if ord(c) < 32 else c for c in key)


def _unmatched(release: Release, read_as: str, n: int, refused: str) -> str:
    """What a file none of whose answers matched looks like, and what it was checked against."""
    from .benchmarks.registry import BENCHMARKS
    owner = next((b for b in BENCHMARKS.values() if any(f.label == read_as for f in b.prediction_formats)), None)
    this = release.benchmark.title
    plural = read_as.split(" (")[0].endswith(("records", "responses"))
    kind = read_as if plural else f"a {read_as}" if read_as else "a prediction file"
    looks = f"a {owner.title} prediction file ({read_as})" if owner is not None and owner is not release.benchmark \
        else kind
    if refused:
        return f"{looks} of {n} rows whose questions match none of this release's prompts ({refused})"
    if owner is not None and owner is not release.benchmark:
        return f"{looks}; this release is {this}: none of its {n} answers matches a question"
    return f"{looks}: {n} answer{'s' if n != 1 else ''}, none of which matches a question of this {this} release"


def parse_answers(release: Release, raw: np.ndarray, present: np.ndarray, profile: str,
                  parse_cache: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each present answer read by its question's kind under `profile`: statuses and (n, WIDTH) values."""
    n = len(release)
    status = np.full(n, MISSING, dtype=object)
    answer = np.full((n, WIDTH), np.nan)
    kinds = column_kinds(release)
    status[present & (kinds < 0)] = "unscored"
    for code, kind in enumerate(release.benchmark.kind_codes[0]):
        idx = np.flatnonzero(present & (kinds == code))
        if not len(idx):
            continue
        cache = None if parse_cache is None else parse_cache.setdefault((kind.name, profile), {})
        vals, stats = kind.parse_many(raw[idx].tolist(), release.n_options[idx].tolist(), cache, profile)
        status[idx] = stats
        answer[idx] = vals
    return status, answer


def reparse(release: Release, result: ModelResult, profile: str, parse_cache: dict | None = None) -> ModelResult:
    """The same model's answers read under another profile (diagnostics and unknown uids kept)."""
    check_profile(profile)
    if profile == result.profile:
        return result
    present = result.status != MISSING
    status, answer = parse_answers(release, result.raw, present, profile, parse_cache)
    score, error = score_all(release, answer)
    return replace(result, status=status, answer=answer, score=score, error=error, profile=profile)


@dataclass(frozen=True)
class ProfileComparison:
    """One model's Avg under the strict and the lenient profile, and what each rescue was worth."""
    strict: float | None
    lenient: float | None
    rescues: dict[str, tuple[int, float]]      # rescue status -> (answers rescued, Avg points it adds)


def compare_profiles(release: Release, result: ModelResult, parse_cache: dict | None = None) -> ProfileComparison:
    """Strict against lenient for one model: each rescue's worth is the Avg gained by rescoring
    only the answers it rescued, so the rescues' worths show where the difference comes from."""
    strict = reparse(release, result, STRICT, parse_cache)
    lenient = reparse(release, result, LENIENT, parse_cache)
    base = average(column_means(release, strict.score))
    rescues = {}
    for s in sorted(RESCUES):
        rows = lenient.status == s
        if not rows.any():
            continue
        score = strict.score.copy()
        score[rows] = lenient.score[rows]
        gained = average(column_means(release, score))
        rescues[s] = (int(rows.sum()), 0.0 if base is None or gained is None else gained - base)
    return ProfileComparison(base, average(column_means(release, lenient.score)), rescues)


def column_kinds(release: Release) -> np.ndarray:
    """Per question, the index of its answer kind in `release.benchmark.kind_codes[0]`, or -1 (unknown task)."""
    return release.benchmark.kind_codes[1][release.column]      # column -1 picks the trailing -1


def _valid_truth(release: Release, kind) -> np.ndarray:
    return ~np.isnan(release.truth[:, :kind.width]).any(axis=1)


def score_all(release: Release, answer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised scores for every question; missing/unparsed score 0 (error NaN).

    Questions whose ground truth is invalid or whose task is unknown get
    NaN scores: they cannot be scored and are left out of the means.
    """
    n = len(release)
    score = np.full(n, np.nan)
    error = np.full(n, np.nan)
    kinds = column_kinds(release)
    for code, kind in enumerate(release.benchmark.kind_codes[0]):
        m = (kinds == code) & _valid_truth(release, kind)
        w = kind.width
        s, e = kind.score(answer[m][:, :w], release.truth[m][:, :w])
        score[m], error[m] = s, e
    if release.benchmark.invalid_truth_scores_zero:
        score[(kinds >= 0) & np.isnan(score)] = 0.0
    return score, error


def random_baseline(release: Release) -> dict[str, float | None]:
    """Analytic expected score of uniform guessing, per leaderboard column (0-100)."""
    out: dict[str, float | None] = {}
    for i, c in enumerate(release.benchmark.columns):
        kind = c.kind
        m = (release.column == i) & _valid_truth(release, kind) & release.in_leaderboard
        out[c.key] = (float(100 * kind.chance(release.truth[m][:, :kind.width], release.n_options[m]))
                      if m.any() else None)
    return release.benchmark.table(out)[0]


def leaderboard(release: Release, results: list[ModelResult], profile: str = STRICT,
                random_row: dict[str, float | None] | None = None, rows: dict | None = None) -> dict:
    """The `score --json` document (docs/score.schema.json): per model the benchmark's columns, Avg,
    counts, unparsed and the parse statuses' counts; the analytic random row.

    A benchmark with grouped columns (VSI-Bench's directions) adds "subcolumns", the groups' members.
    `rows` (a dict the caller keeps for one release, e.g. Session's) keeps each result's row: the window
    redraws its leaderboard as each model arrives, and a row reads every answer's status (200,000 x 22).
    """
    b = release.benchmark
    models = {}
    counted_in = None
    for r in results:
        kept = rows.get(id(r)) if rows is not None else None
        if kept is None or kept[0] is not r:
            counted_in = table_members(release) if counted_in is None else counted_in
            cols, sub = b.table(r.column_scores(release))
            row = {"columns": cols, **({"subcolumns": sub} if b.groups else {}),
                   "avg": b.overall(cols, sub), "counts": r.column_counts(release, counted_in),
                   "unparsed": r.unparsed, "parse": r.parse_counts()}
            kept = (r, row)
            if rows is not None:
                rows[id(r)] = kept
        models[r.model] = copy.deepcopy(kept[1]) if rows is not None else kept[1]
    chance = random_baseline(release) if random_row is None else random_row
    return {"profile": profile, "models": models,
            "random": {"columns": chance, "avg": b.overall(chance, {})}}
