"""Opening a GST-Bench release: questions, their media and their ground truth.

Layouts (spec section 1), tried in this order:
  1. `questions.jsonl` or `questions.json` at the root, media relative to the root;
  2. every `question.json` below the root, media relative to its folder.
A release may also be given as the path of one of those files.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .answers import Parsed, parse_ground_truth
from .diagnostics import Diagnostics, UserError
from .media import MediaIndex, MediaRef
from .tasks import COLUMNS, UNKNOWN_COLUMN, AnswerType, Column, column_index
from .textio import iter_json_lines, parse_json_document, read_text
from .uid import parse_uid

ROOT_FILES = ("questions.jsonl", "questions.json")
QUESTION_FILE = "question.json"


@dataclass(slots=True)
class Question:
    uid: str
    task: str
    scene: str
    column_index: int            # into tasks.COLUMNS, or UNKNOWN_COLUMN
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

    @property
    def column(self) -> Column | None:
        return None if self.column_index == UNKNOWN_COLUMN else COLUMNS[self.column_index]

    @property
    def answer_type(self) -> AnswerType | None:
        c = self.column
        return c.answer_type if c else None

    @property
    def n_options(self) -> int:
        return len(self.images) if self.images else 4

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
        if self.answer_type is AnswerType.CHOICE:
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


@dataclass
class Release:
    root: Path
    questions: list[Question]
    diagnostics: Diagnostics
    layout: str                                 # which of the layouts it used
    index: dict[str, int] = field(default_factory=dict)
    # Columnar ground truth for vectorised scoring; NaN where it does not parse.
    column: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))
    truth_value: np.ndarray = field(default_factory=lambda: np.zeros(0))
    truth_point: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))

    def __len__(self) -> int:
        return len(self.questions)

    def get(self, uid: str) -> Question | None:
        i = self.index.get(uid)
        return None if i is None else self.questions[i]

    @property
    def scenes(self) -> list[str]:
        return sorted({q.scene for q in self.questions}, key=_natural_key)

    def missing_media(self) -> list[tuple[Question, MediaRef]]:
        out = []
        for q in self.questions:
            for m in ([q.video] if q.video else []) + q.images:
                if not m.exists:
                    out.append((q, m))
        return out


def load_release(path: str | Path, progress=None) -> Release:
    """Read a release; raises UserError only when nothing can be read at all."""
    root = Path(path).expanduser()
    if not root.exists():
        raise UserError(f"{root}: no such file or folder")
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
                              root)
        else:
            files, layout = _find_question_files(root), "question-folders"
    if not files:
        raise UserError(f"{root}: no questions.jsonl, questions.json or question.json found")

    media = MediaIndex(str(root_dir))
    questions: list[Question] = []
    index: dict[str, int] = {}
    for k, f in enumerate(files):
        base_dir = str(f.parent) if layout == "question-folders" else str(root_dir)
        for rec, line in _records(f, diags):
            q = _question(rec, f, line, base_dir, media, diags)
            if q is None:
                continue
            if q.uid in index:
                prev = questions[index[q.uid]]
                diags.warning(f"duplicate uid {q.uid!r} (first at {_where(prev)}); the last one wins",
                              f, line)
                questions[index[q.uid]] = q
            else:
                index[q.uid] = len(questions)
                questions.append(q)
        if progress is not None:
            progress(k + 1, len(files))
    release = Release(root_dir, questions, diags, layout, index)
    _fill_columns(release)
    _report(release)
    return release


def _natural_key(s: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def _where(q: Question) -> str:
    return f"{q.source}:{q.line}" if q.line else q.source


def _find_question_files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        if QUESTION_FILE in filenames:
            out.append(Path(dirpath) / QUESTION_FILE)
    return out


def _records(path: Path, diags: Diagnostics) -> Iterable[tuple[dict, int | None]]:
    try:
        text = read_text(path, diags)
    except UserError as e:
        diags.error(str(e).split(": ", 1)[-1], path)
        return
    if path.suffix == ".jsonl":
        for line, rec in iter_json_lines(text, path, diags):
            yield rec, line
        return
    doc = parse_json_document(text, path, diags)
    if doc is None:
        return
    if isinstance(doc, list):                      # questions.json: a list of records
        for i, rec in enumerate(doc):
            yield rec, None if len(doc) == 1 else -(i + 1)
    else:
        yield doc, None


def _question(rec: Any, path: Path, line: int | None, base_dir: str, media: MediaIndex,
              diags: Diagnostics) -> Question | None:
    # Negative "lines" are 1-based record numbers inside a JSON list.
    where = dict(file=path, line=line if line and line > 0 else None)
    label = f"record {-line}: " if line and line < 0 else ""
    if not isinstance(rec, dict):
        diags.error(f"{label}a question must be a JSON object, got {type(rec).__name__}", **where)
        return None
    uid, task = rec.get("uid"), rec.get("task")
    if not isinstance(uid, str) or not uid:
        diags.error(f"{label}question without a 'uid' string; skipped", **where)
        return None
    if not isinstance(task, str) or not task:
        diags.error(f"{label}question {uid!r} has no 'task'; skipped", **where)
        return None
    col = column_index(task)
    if col == UNKNOWN_COLUMN:
        diags.warning(f"{label}question {uid!r}: task {task!r} is not one of the 12 GST-Bench "
                      "tasks; kept out of the leaderboard", **where)
    column = COLUMNS[col] if col != UNKNOWN_COLUMN else None

    texts = rec.get("texts") or []
    if not isinstance(texts, list):
        texts = [str(texts)]
    texts = [t if isinstance(t, str) else str(t) for t in texts]

    video = None
    vp = rec.get("copied_video_path")
    if vp is not None:
        video = media.resolve(vp, base_dir)
    images = []
    raw_images = rec.get("images") or []
    if isinstance(raw_images, list):
        entries = [im for im in raw_images if isinstance(im, dict)]
        if all(isinstance(im.get("index"), (int, float)) for im in entries):
            entries.sort(key=lambda im: im["index"])
        images = [media.resolve(im.get("copied_path", ""), base_dir) for im in entries]
        if len(entries) != len(raw_images):
            diags.warning(f"{label}question {uid!r}: {len(raw_images) - len(entries)} image "
                          "entries are not objects; ignored", **where)

    answer = rec.get("answer")
    if column is None:
        truth = Parsed(None, "unknown_task")
    else:
        truth = parse_ground_truth(answer, column.answer_type, len(images) or 4)

    meta = rec.get("meta") if isinstance(rec.get("meta"), dict) else {}
    parts = parse_uid(uid, task, bool(column and column.has_target))
    scene = rec.get("scene") if isinstance(rec.get("scene"), str) else (parts.scene or "")
    return Question(
        uid=uid, task=task, scene=scene, column_index=col, answer_raw=answer, truth=truth,
        texts=texts, video=video, images=images, meta=meta,
        target=_str_or(meta.get("target"), parts.target),
        viewpoint=_str_or(meta.get("viewpoint"), parts.viewpoint),
        video_id=_str_or(meta.get("video"), parts.video),
        topdown=_str_or(meta.get("topdown"), None),
        source=str(path), line=line if line and line > 0 else None,
    )


def _str_or(value: Any, default: str | None) -> str | None:
    return value if isinstance(value, str) and value else default


def _fill_columns(release: Release) -> None:
    n = len(release.questions)
    column = np.full(n, UNKNOWN_COLUMN, np.int16)
    value = np.full(n, np.nan)
    point = np.full((n, 2), np.nan)
    for i, q in enumerate(release.questions):
        column[i] = q.column_index
        if q.truth.ok:
            v = q.truth.value
            if isinstance(v, tuple):
                point[i] = v
            else:
                value[i] = v
    release.column, release.truth_value, release.truth_point = column, value, point


def _report(release: Release) -> None:
    d = release.diagnostics
    for q in release.questions:
        if q.column is not None and not q.truth.ok:
            d.error(f"question {q.uid!r}: ground truth {q.answer_raw!r} is not a valid "
                    f"{q.column.answer_type.value} answer ({q.truth.status})", q.source, q.line)
    missing = release.missing_media()
    for q, m in missing:
        kind = "video" if m is q.video else "image"
        d.warning(f"question {q.uid!r}: {kind} {m.declared!r}: {m.problem}", q.source, q.line)
