"""Reading a GST-Bench release: its question records, their media and their ground truth.

Layouts (spec section 1), tried in this order:
  1. `questions.jsonl` or `questions.json` at the root, media relative to the root;
  2. every `question.json` below the root, media relative to its folder.
A release may also be given as the path of one of those files.
"""
from __future__ import annotations

import operator
import os
from itertools import chain, compress, repeat
from operator import attrgetter
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from ...answers import OK, SEVERAL_NUMBERS, STRICT, Parsed
from ...column import UNKNOWN_COLUMN
from ...diagnostics import Diagnostics, UserError
from ...kinds import WIDTH, AnswerKind
from ...media import MediaIndex
from ...release import MissingMedia, Question, QuestionList, Release, refuse_mixed
from ...settings_table import link_variants, setting_of
from ...textio import parse_json_document, read_text, stream_json_lines
from ..registry import owner_of
from .benchmark import GST
from .columns import COLUMNS, column_index
from .uid import parse_uid

ROOT_FILES = ("questions.jsonl", "questions.json")
QUESTION_FILE = "question.json"
_SNIFF_BYTES = 4096


def detect(root: Path) -> bool:
    """A question file whose first record names a `task` (before any other benchmark's `question_type`), a
    folder with such a root file, or a folder with a `question.json` below it."""
    if root.is_file():
        return _names_a_task(root)
    found = next((root / n for n in ROOT_FILES if (root / n).is_file()), None)
    if found is not None:
        return _names_a_task(found)
    return bool(_find_question_files(root, first_only=True))


def describe_files(root: Path) -> str:
    """What makes `root` a GST-Bench release: its root question file, or how many `question.json` folders."""
    if root.is_file():
        return root.name
    found = next((n for n in ROOT_FILES if (root / n).is_file()), None)
    if found is not None:
        return f"`{found}`"
    n = len(_find_question_files(root))
    return f"{n} `{QUESTION_FILE}` file{'s' if n != 1 else ''}" if n else ""


def names_a_release(path: Path) -> bool:
    """A root question file or a `question.json` by name, or a folder with one (at its root, or below it)."""
    if not path.is_dir():
        return path.name.lower() in (*ROOT_FILES, QUESTION_FILE)
    return any((path / f).is_file() for f in ROOT_FILES) or bool(_find_question_files(path, first_only=True))


def _names_a_task(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(_SNIFF_BYTES)
    except OSError:
        return False
    at_task, at_type = head.find(b'"task"'), head.find(b'"question_type"')
    return at_task >= 0 and (at_type < 0 or at_task < at_type)


def owns_record(rec: Any) -> bool:
    """A GST-Bench question record: a `task` and no `question_type`."""
    return type(rec) is dict and "question_type" not in rec and isinstance(rec.get("task"), str)


def load(root: Path) -> Release:
    """Read a release; raises UserError only when nothing can be read at all."""
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
    return _load(root_dir, files, layout, diags)


def _load(root_dir: Path, files: list[Path], layout: str, diags: Diagnostics) -> Release:
    from .records import QuestionRecord
    media = MediaIndex(str(root_dir))
    records: list[QuestionRecord] = []
    where: list[tuple[str, int | None]] = []
    base_dirs: list[str] = []
    index: dict[str, int] = {}
    foreign: list[tuple[str, int | None]] = []       # records another benchmark says are its own
    foreign_owner = None
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
                        owner = owner_of(rec, GST) if type(rec) is dict else None
                        if owner is not None:
                            foreign_owner = foreign_owner or owner
                            foreign.append((source, line))
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

    if foreign:
        refuse_mixed(GST, len(records), where[:1], foreign_owner, len(foreign), foreign)

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

    def build(i: int) -> Question:
        return _question(records[i], *where[i], base_dirs[i], media)

    release = Release(root_dir, QuestionList(records, where, build), diags, layout,
                      index, uids, scene_of, column, truth, n_options,
                      _check_media(records, images, base_dirs, media), GST)
    _report(release, unknown_tasks, bad_truth)
    if any(map(operator.is_not, map(_SETTING, records), repeat(None))) or any(
            map(operator.is_not, map(_BASE_UID, records), repeat(None))):
        release.setting, release.base = link_variants(records, where, index, column, COLUMNS, diags)
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


def _find_question_files(root: Path, first_only: bool = False) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        if QUESTION_FILE in filenames:
            out.append(Path(dirpath) / QUESTION_FILE)
            if first_only:
                break
    return out


def _record_chunks(path: Path, diags: Diagnostics) -> Iterable[tuple[list[int | None], list[Any]]]:
    """(lines, records) of one question file, a chunk at a time: records.QuestionRecord where msgspec
    decoded them, else plain JSON values."""
    try:
        if path.suffix == ".jsonl":
            from .records import QuestionRecord
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


def _check_media(records: list, image_lists: list, base_dirs: list[str], media: MediaIndex) -> MissingMedia:
    """The release's missing media (MissingMedia), found by C-level maps over columns (`image_lists`: each
    record's `images`)."""
    from .records import ImageEntry, image_path
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
    from .records import image_entries
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
        source=source, line=line, benchmark=GST, **setting_of(rec),
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
