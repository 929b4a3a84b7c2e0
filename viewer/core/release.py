"""Opening a GST-Bench release: questions, their media and their ground truth.

Layouts (spec section 1), tried in this order:
  1. `questions.jsonl` or `questions.json` at the root, media relative to the root;
  2. every `question.json` below the root, media relative to its folder.
A release may also be given as the path of one of those files.
"""
from __future__ import annotations

import operator
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from operator import attrgetter
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .answers import OK, SEVERAL_NUMBERS, STRICT, Parsed
from .benchmarks import GST, Benchmark
from .benchmarks.gst.columns import COLUMNS, column_index
from .benchmarks.gst.uid import parse_uid
from .column import UNKNOWN_COLUMN, Column
from .diagnostics import Diagnostics, UserError
from .kinds import WIDTH, AnswerKind
from .media import MediaIndex, MediaRef
from .settings_table import GLOBAL, GLOBAL_CODE, link_variants, setting_of
from .textio import no_gc, parse_json_document, read_text, stream_json_lines

ROOT_FILES = ("questions.jsonl", "questions.json")
QUESTION_FILE = "question.json"


@dataclass(slots=True)
class Question:
    uid: str
    task: str
    scene: str
    column_index: int            # into benchmark.columns, or UNKNOWN_COLUMN
    answer_raw: Any
    truth: Parsed
    texts: list[str]
    video: MediaRef | None
    images: list[MediaRef]
    meta: dict
    target: str | None           # scene-metadata links, from meta or the uid
    viewpoint: str | None
    video_id: str | None
    topdown: str | None
    source: str                  # the file the record came from
    line: int | None             # its line, for JSON Lines
    options: list[str] = field(default_factory=list)   # text options (VSI-Bench), in order
    benchmark: Benchmark = GST   # whose column table column_index points into
    setting: str = GLOBAL        # "global", "local_video", "local_image" (core/settings_table.py)
    base_uid: str | None = None  # the global question a local variant derives from, as written or by suffix

    @property
    def column(self) -> Column | None:
        return self.benchmark.column(self.column_index)

    @property
    def kind(self) -> AnswerKind | None:
        c = self.column
        return c.kind if c else None

    @property
    def n_options(self) -> int:
        return len(self.images) or len(self.options) or 4

    def prompt_segments(self) -> list[tuple[str, Any]]:
        """Prompt text and media interleaved as the model saw them.

        Each text segment is followed by the next medium: the video first,
        then the images in order (this is how every published sample reads).
        """
        media: list[tuple[str, Any]] = ([("video", self.video)] if self.video else [])
        media += [("image", im) for im in self.images]
        out: list[tuple[str, Any]] = []
        for i, text in enumerate(self.texts):
            out.append(("text", text))
            if i < len(media):
                out.append(media[i])
        out.extend(media[len(self.texts):])
        return out

    def image_role(self, i: int) -> str:
        """'option', 'map' or 'view' for image i, from the text that introduces it."""
        if self.kind is not None and self.kind.picks_an_option:
            return "option"
        offset = 1 if self.video else 0
        k = i + offset
        intro = self.texts[k].lower() if k < len(self.texts) else ""
        if "top-down" in intro or "topdown" in intro or "map" in intro:
            return "map"
        return "view"

    def role_image(self, role: str) -> MediaRef | None:
        for i, im in enumerate(self.images):
            if self.image_role(i) == role:
                return im
        return None


class QuestionList(Sequence):
    """The release's questions, built on first access.

    A training-set release has 200,000 records; building every Question (and
    resolving every image) up front would dominate loading, while a session
    looks at a few hundred. The columnar arrays on Release cover the bulk work.
    """

    def __init__(self, records: list, where: list[tuple[str, int | None]],
                 base_dirs: list[str], media: MediaIndex):
        self._records, self._where, self._base, self._media = records, where, base_dirs, media
        self._built: list[Question | None] = [None] * len(records)

    def __len__(self) -> int:
        return len(self._records)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        q = self._built[i]
        if q is None:
            source, line = self._where[i]
            q = self._built[i] = _question(self._records[i], source, line, self._base[i], self._media)
        return q


@dataclass
class Release:
    root: Path
    questions: QuestionList
    diagnostics: Diagnostics
    layout: str                                 # which of the layouts it used
    index: dict[str, int]
    uids: list[str]
    scene_of: list[str]                         # per question
    # Columnar per-question data for vectorised work; NaN where the truth does not parse.
    column: np.ndarray                          # index into benchmark.columns, -1 = unknown task
    truth: np.ndarray                           # (n, kinds.WIDTH) parsed truth, stored as its kind packs it
    n_options: np.ndarray                       # option count of choice questions
    missing: Sequence[tuple[int, str, str, str]]  # (question, "video"|"image", declared, why): MissingMedia
    benchmark: Benchmark = GST                  # its columns, kinds, aggregation (core/benchmarks)
    # Settings of Table 2 (core/settings_table.py): per question its code in SETTINGS (-1: unknown name)
    # and the row of its global question (-1: none, or left out of Table 2); None when all are global.
    setting: np.ndarray | None = None
    base: np.ndarray | None = None

    @property
    def in_leaderboard(self) -> np.ndarray:
        """Per question, whether the leaderboard's means count it: the global ones (a setting variant is
        scored beside its global question, in the settings table: core/settings_table.py)."""
        if self.setting is None:
            return np.ones(len(self.uids), bool)
        return self.setting == GLOBAL_CODE

    @property
    def has_variants(self) -> bool:
        return self.setting is not None

    def __len__(self) -> int:
        return len(self.uids)

    def get(self, uid: str) -> Question | None:
        i = self.index.get(uid)
        return None if i is None else self.questions[i]

    @property
    def scenes(self) -> list[str]:
        return sorted(set(self.scene_of), key=natural_key)

    def missing_media(self) -> list[tuple[Question, MediaRef]]:
        out = []
        for i, kind, declared, _ in self.missing:
            q = self.questions[i]
            refs = [q.video] if kind == "video" else q.images
            out.extend((q, m) for m in refs if m is not None and m.declared == declared)
        return out


def load_release(path: str | Path, benchmark: str | None = None) -> Release:
    """Read a release; raises UserError only when nothing can be read at all.

    Its benchmark is detected from its files and fields (viewer/core/vsi_release.py),
    or forced with `benchmark` ("gst" or "vsi").
    """
    root = Path(path).expanduser()
    if not root.exists():
        raise UserError(f"{root}: no such file or folder")
    from .benchmarks.vsi.release import is_vsi_release, load_vsi_release
    if benchmark == "vsi" or (benchmark is None and is_vsi_release(root)):
        return load_vsi_release(root)
    if benchmark not in (None, "gst"):
        from .benchmarks import get_benchmark
        get_benchmark(benchmark)
    diags = Diagnostics()
    if root.is_file():
        files, root_dir = [root], root.parent
        layout = "file"
    else:
        root_dir = root
        found = [root / n for n in ROOT_FILES if (root / n).is_file()]
        if found:
            files, layout = found[:1], "root-file"
            if len(found) > 1:
                diags.warning(f"both {ROOT_FILES[0]} and {ROOT_FILES[1]} exist; reading {found[0].name}",
                              root, code="release.two_root_files")
        else:
            files, layout = _find_question_files(root), "question-folders"
    if not files:
        raise UserError(f"{root}: no questions.jsonl, questions.json or question.json found")

    with no_gc():
        return _load(root_dir, files, layout, diags)


def _load(root_dir: Path, files: list[Path], layout: str, diags: Diagnostics) -> Release:
    from .benchmarks.gst.records import QuestionRecord
    media = MediaIndex(str(root_dir))
    records: list[QuestionRecord] = []
    where: list[tuple[str, int | None]] = []
    base_dirs: list[str] = []
    index: dict[str, int] = {}
    vsi_records: list[tuple[str, int | None]] = []
    for f in files:
        base_dir = (os.path.normpath(os.path.abspath(f.parent)) if layout == "question-folders"
                    else media.root)
        source = str(f)
        for numbers, values in _record_chunks(f, diags):
            if type(values[0]) is QuestionRecord:          # msgspec decoded the whole chunk as records
                uids = list(map(_UID, values))
                fresh = set(uids)
                if all(uids) and all(map(_TASK, values)) and len(fresh) == len(uids) and fresh.isdisjoint(index):
                    # The usual chunk, every record new and whole: taken in bulk.
                    index.update(zip(uids, range(len(records), len(records) + len(uids))))
                    records += values
                    where += zip(repeat(source), numbers)
                    base_dirs += repeat(base_dir, len(values))
                    continue
            for rec, line in zip(values, numbers):
                if type(rec) is not QuestionRecord:        # a file msgspec refused: plain JSON values
                    # Cheap test first; the full one explains what is wrong.
                    uid = rec.get("uid") if type(rec) is dict else None
                    if type(uid) is not str or not uid or type(rec.get("task")) is not str or not rec["task"]:
                        if type(rec) is dict and "question_type" in rec:
                            vsi_records.append((source, line))
                            continue
                        _report_invalid_record(rec, source, line, diags)
                        continue
                    rec = QuestionRecord.from_dict(rec)
                elif not rec.uid or not rec.task:
                    _report_invalid_record({"uid": rec.uid, "task": rec.task}, source, line, diags)
                    continue
                uid = rec.uid
                at = index.get(uid)
                if at is not None:
                    shown_line = line if line and line > 0 else None
                    prev_source, prev_line = where[at]
                    prev = f"{prev_source}:{prev_line}" if prev_line else prev_source
                    diags.warning(f"duplicate uid {uid!r} (first at {prev}); the last one wins",
                                  source, shown_line, code="release.duplicate_uid")
                    records[at], where[at], base_dirs[at] = rec, (source, shown_line), base_dir
                else:
                    index[uid] = len(records)
                    records.append(rec)
                    where.append((source, line if line and line > 0 else None))
                    base_dirs.append(base_dir)

    if vsi_records:
        from .benchmarks.vsi.release import refuse_mixed
        refuse_mixed(len(records), where[:1], vsi_records)

    uids = list(index)               # in record order: a duplicate took its first one's place
    scene_of = list(map(_SCENE, records))
    if set(map(type, scene_of)) != {str}:
        scene_of = [s if type(s) is str else "" for s in scene_of]
    tasks = list(map(_TASK, records))
    col_of_task = {task: column_index(task) for task in set(tasks)}
    column = list(map(col_of_task.__getitem__, tasks))
    images = list(map(_IMAGES, records))
    if set(map(type, images)) == {list}:
        n_options = [k or 4 for k in map(len, images)]
    else:
        n_options = [len(im) if type(im) is list and im else 4 for im in images]
    unknown_tasks = {t: tasks.count(t) for t, c in col_of_task.items() if c == UNKNOWN_COLUMN}
    truth, bad_truth = _truths(column, n_options, list(map(_ANSWER, records)))
    for i in np.flatnonzero(np.asarray(column) == UNKNOWN_COLUMN).tolist():
        n_options[i] = 4             # as it always read: a question of an unknown task has no options counted
    column = np.array(column, np.int16)
    n_options = np.array(n_options, np.int16)

    release = Release(root_dir, QuestionList(records, where, base_dirs, media), diags, layout,
                      index, uids, scene_of, column, truth, n_options,
                      _check_media(records, images, base_dirs, media))
    _report(release, unknown_tasks, bad_truth)
    if any(map(operator.is_not, map(_SETTING, records), repeat(None))) or any(
            map(operator.is_not, map(_BASE_UID, records), repeat(None))):
        release.setting, release.base = link_variants(records, where, index, column, diags)
    return release


_UID, _TASK, _SCENE = attrgetter("uid"), attrgetter("task"), attrgetter("scene")
_IMAGES, _ANSWER, _VIDEO = attrgetter("images"), attrgetter("answer"), attrgetter("copied_video_path")
_SETTING, _BASE_UID, _COPIED_PATH = attrgetter("setting"), attrgetter("base_uid"), attrgetter("copied_path")


def _truths(column: list[int], n_options: list[int], answers: list) -> tuple[np.ndarray, list[int]]:
    """(n, WIDTH) parsed truths (NaN where invalid or the task unknown) and the questions whose truth is invalid.

    A kind that reads in bulk (kinds.AnswerKind.truths_in_bulk) reads its questions' truths with
    parse_many, as predictions are read; any other reads each distinct (column, options, answer) once.
    """
    n = len(answers)
    truth = np.full((n, WIDTH), np.nan)
    bad: list[int] = []
    columns = np.asarray(column, np.int64)
    by_kind: dict[AnswerKind, list[int]] = {}
    for c in sorted(set(column) - {UNKNOWN_COLUMN}):
        by_kind.setdefault(COLUMNS[c].kind, []).append(c)
    for kind, cols in by_kind.items():
        rows = np.flatnonzero(np.isin(columns, cols))
        raws = list(map(answers.__getitem__, rows.tolist()))
        options = list(map(n_options.__getitem__, rows.tolist()))
        if kind.truths_in_bulk:
            values, statuses = kind.parse_many(raws, options, {}, STRICT)
            valid = np.isin(np.array(statuses, object), [OK, SEVERAL_NUMBERS])
        else:
            values, valid = _truths_one_by_one(kind, raws, options)
        truth[rows[valid]] = values[valid]
        bad += rows[~valid].tolist()
    bad.sort()
    return truth, bad


def _truths_one_by_one(kind: AnswerKind, raws: list, n_options: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """parse_truth over a list, each distinct (answer, options) once: (n, WIDTH) values and validity."""
    table: dict[tuple, Parsed] = {}
    values = np.full((len(raws), WIDTH), np.nan)
    valid = np.zeros(len(raws), bool)
    for j, key in enumerate(zip(raws, n_options)):
        try:
            p = table.get(key)
            if p is None:
                p = table[key] = kind.parse_truth(*key)
        except TypeError:                  # an answer that is a list or an object: not a key, parsed alone
            p = kind.parse_truth(*key)
        if p.status == OK:
            values[j, :kind.width] = p.value
            valid[j] = True
    return values, valid


def natural_key(s: str):
    """Sort key putting scene2 before scene10; numbers and words never compared with each other."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", s) if t]


def _find_question_files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        if QUESTION_FILE in filenames:
            out.append(Path(dirpath) / QUESTION_FILE)
    return out


def _record_chunks(path: Path, diags: Diagnostics) -> Iterable[tuple[list[int | None], list[Any]]]:
    """(lines, records) of one question file, a chunk at a time: records.QuestionRecord where msgspec
    decoded them, else plain JSON values."""
    try:
        if path.suffix == ".jsonl":
            from .benchmarks.gst.records import QuestionRecord
            yield from stream_json_lines(path, diags, (QuestionRecord,))
            return
        text = read_text(path, diags)
    except UserError as e:
        diags.error(str(e).split(": ", 1)[-1], path, code="file.unreadable")
        return
    doc = parse_json_document(text, path, diags)
    if doc is None:
        return
    if isinstance(doc, list):                      # questions.json: a list of records
        # Negative "lines" are 1-based record numbers inside the list.
        if doc:
            yield [None] if len(doc) == 1 else [-(i + 1) for i in range(len(doc))], doc
    else:
        yield [None], [doc]


def _report_invalid_record(rec: Any, source: str, line: int | None, diags: Diagnostics) -> None:
    label = f"record {-line}: " if line and line < 0 else ""
    at = dict(file=source, line=line if line and line > 0 else None)
    if not isinstance(rec, dict):
        diags.error(f"{label}a question must be a JSON object, got {type(rec).__name__}", **at,
                    code="question.not_object")
    elif not isinstance(rec.get("uid"), str) or not rec.get("uid"):
        diags.error(f"{label}question without a 'uid' string; skipped", **at, code="question.no_uid")
    else:
        diags.error(f"{label}question {rec['uid']!r} has no 'task'; skipped", **at, code="question.no_task")


class MissingMedia(Sequence):
    """Release.missing: (question, "video"|"image", declared, why) for every referenced file that is missing
    or refused, in release order (a question's video before its images).

    Kept as columns and made into tuples on access: a training-set release without its media misses ~10^6.
    """

    def __init__(self, rows: np.ndarray, refs: np.ndarray, n_videos: int, declared: list, whys: list[str]):
        # Entry k is ref refs[k] (an index into `declared`, videos first) of question rows[k], for whys[k].
        self._rows, self._refs, self._n_videos, self._declared, self._whys = rows, refs, n_videos, declared, whys

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        j = int(self._refs[k])
        return (int(self._rows[k]), "video" if j < self._n_videos else "image", str(self._declared[j]),
                self._whys[k])


def _check_media(records: list, image_lists: list, base_dirs: list[str], media: MediaIndex) -> MissingMedia:
    """The release's missing media (MissingMedia), found by C-level maps over columns (`image_lists`: each
    record's `images`)."""
    from .benchmarks.gst.records import ImageEntry, image_path
    videos = list(map(_VIDEO, records))
    has_video = list(map(operator.is_not, videos, repeat(None)))
    paths = list(compress(videos, has_video))
    listed = list(map(operator.is_, map(type, image_lists), repeat(list)))
    image_lists = list(compress(image_lists, listed))
    entries = list(chain.from_iterable(image_lists))
    n_videos = len(paths)
    entry_types = set(map(type, entries))
    if entry_types <= {ImageEntry}:
        paths += map(_COPIED_PATH, entries)
    elif entry_types <= {dict}:
        paths += map(dict.get, entries, repeat("copied_path"), repeat(""))
    else:
        paths += map(image_path, entries)
    # Each ref's question: the videos' in order, then each image list's repeated over its length.
    rows = np.concatenate([np.flatnonzero(has_video),
                           np.repeat(np.flatnonzero(listed), np.fromiter(map(len, image_lists), np.int64,
                                                                         len(image_lists)))])
    folders = base_dirs[0] if len(set(base_dirs)) == 1 else list(map(base_dirs.__getitem__, rows.tolist()))
    at, whys = media.problems(paths, folders)
    refs = np.array(at, np.int64)
    order = np.argsort(rows[refs], kind="stable")     # by question; a video's ref comes before its images'
    refs = refs[order]
    return MissingMedia(rows[refs], refs, n_videos, paths,
                        whys if len(set(whys)) <= 1 else list(map(whys.__getitem__, order.tolist())))


def _question(rec, source: str, line: int | None, base_dir: str, media: MediaIndex) -> Question:
    """The Question of a records.QuestionRecord."""
    from .benchmarks.gst.records import image_entries
    uid, task = rec.uid, rec.task
    col = column_index(task)
    column = COLUMNS[col] if col != UNKNOWN_COLUMN else None
    texts = rec.texts or []
    if not isinstance(texts, list):
        texts = [texts]
    texts = [t if isinstance(t, str) else str(t) for t in texts]
    vp = rec.copied_video_path
    video = media.resolve(vp, base_dir) if vp is not None else None
    images = []
    raw_images = rec.images
    if isinstance(raw_images, list):
        entries = image_entries(raw_images)
        if all(isinstance(index, (int, float)) for index, _ in entries):
            entries.sort(key=lambda e: e[0])
        images = [media.resolve(path, base_dir) for _, path in entries]
    answer = rec.answer
    truth = column.kind.parse_truth(answer, len(images) or 4) if column else Parsed(None, "unknown_task")
    meta = rec.meta if isinstance(rec.meta, dict) else {}
    parts = parse_uid(uid, task, bool(column and column.has_target))
    scene = rec.scene if isinstance(rec.scene, str) else (parts.scene or "")
    return Question(
        uid=uid, task=task, scene=scene, column_index=col, answer_raw=answer, truth=truth,
        texts=texts, video=video, images=images, meta=meta,
        target=_str_or(meta.get("target"), parts.target),
        viewpoint=_str_or(meta.get("viewpoint"), parts.viewpoint),
        video_id=_str_or(meta.get("video"), parts.video),
        topdown=_str_or(meta.get("topdown"), None),
        source=source, line=line, **setting_of(rec),
    )


def _str_or(value: Any, default: str | None) -> str | None:
    return value if isinstance(value, str) and value else default


# Beyond this many, problems of one kind are summarised rather than listed.
REPORT_LIMIT = 50


def _report(release: Release, unknown_tasks: dict[str, int], bad_truth: list[int]) -> None:
    d = release.diagnostics
    for task, count in unknown_tasks.items():
        d.warning(f"task {task!r} ({count} questions) is not one of the 12 GST-Bench tasks; "
                  "kept out of the leaderboard", release.root, code="task.unknown")
    for i in bad_truth[:REPORT_LIMIT]:
        q = release.questions[i]
        d.error(f"question {q.uid!r}: ground truth {q.answer_raw!r} is not a valid "
                f"{q.column.kind_name} answer ({q.truth.status})", q.source, q.line, code="truth.invalid")
    if len(bad_truth) > REPORT_LIMIT:
        d.error(f"... and {len(bad_truth) - REPORT_LIMIT} more questions with invalid ground truth",
                release.root, code="truth.invalid_summary")
    for i, kind, declared, why in release.missing[:REPORT_LIMIT]:
        source, line = release.questions._where[i]
        d.warning(f"question {release.uids[i]!r}: {kind} {declared!r}: {why}", source, line, code="media.missing")
    if len(release.missing) > REPORT_LIMIT:
        d.warning(f"... and {len(release.missing) - REPORT_LIMIT} more missing media files",
                  release.root, code="media.missing_summary")
