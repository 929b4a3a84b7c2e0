"""Opening a VSI-Bench release: its questions, their videos and their ground truth.

Layouts, told apart by their files:
  - the dataset's own `test.jsonl` (or a `.parquet` of it, read with pyarrow when installed),
    one question a line with `id, dataset, scene_name, question_type, question, options,
    ground_truth`;
  - a folder of per-scene files `<scene>_questions.json`, each
    `{scene_name, video_path, questions: [{dataset, scene_name, question, question_type,
    ground_truth, options?}]}`.
A release may also be given as the path of one of those files.

uids: the question's `id` when it has one; otherwise `<scene_name>#<k>`, k being the question's
0-based position among its scene's questions in file order (stable as long as the file is).
Videos are `<dataset>/<scene_name>.mp4` under the release folder, as lmms-eval lays them out (or
a per-scene file's `video_path`); they are usually absent, since ScanNet's terms forbid
redistribution, and that is only noted once.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from ...answers import EMPTY, OK, Parsed
from ...column import UNKNOWN_COLUMN
from ...diagnostics import Diagnostics, UserError
from ...media import MediaIndex
from ...release import Question, Release, natural_key, refuse_mixed
from ...textio import parse_json_document, read_json_lines, read_text
from ..registry import owner_of
from .benchmark import VSI, prompt_text

SCENE_FILE_SUFFIX = "_questions.json"
DATASET_FILES = ("test.jsonl",)
_SNIFF_CHARS = 4096


def is_vsi_release(root: Path) -> bool:
    """Whether a path holds VSI-Bench questions (decided from file names, else the first record's fields)."""
    if root.is_file():
        return root.name.endswith(SCENE_FILE_SUFFIX) or root.suffix == ".parquet" or _looks_vsi(root)
    for name in ("questions.jsonl", "questions.json"):
        if (root / name).is_file():
            return _looks_vsi(root / name)
    return bool(_files(root))


def _looks_vsi(path: Path) -> bool:
    """The first record names a `question_type` before any `task` (GST-Bench's field)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(_SNIFF_CHARS)
    except OSError:
        return False
    at_vsi, at_gst = head.find('"question_type"'), head.find('"task"')
    return at_vsi >= 0 and (at_gst < 0 or at_vsi < at_gst)


def describe_files(root: Path) -> str:
    """The files that make `root` a VSI-Bench release, counted by kind: "5 `*_questions.json` files"."""
    files = _files(root)
    scene = sum(p.name.endswith(SCENE_FILE_SUFFIX) for p in files)
    other = [p.name for p in files if not p.name.endswith(SCENE_FILE_SUFFIX)]
    parts = ([f"{scene} `*{SCENE_FILE_SUFFIX}` file{'s' if scene != 1 else ''}"] if scene else []) + other[:3]
    return ", ".join(parts)


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    scene_files = sorted((p for p in root.glob("*" + SCENE_FILE_SUFFIX) if p.is_file()),
                         key=lambda p: natural_key(p.name))
    # The study's answer-free copies sit beside the real ones; they carry no ground truth.
    scene_files = [p for p in scene_files if not p.name.endswith("_no_ground_truth.json")]
    return ([root / n for n in DATASET_FILES if (root / n).is_file()] + sorted(root.glob("*.parquet"))
            + [root / n for n in ("questions.jsonl", "questions.json") if (root / n).is_file()] + scene_files)


def owns_record(rec) -> bool:
    """A VSI-Bench question record: it names its `question_type`."""
    return type(rec) is dict and "question_type" in rec


def load_vsi_release(root: Path) -> Release:
    files = _files(root)
    if not files:
        raise UserError(f"{root}: no test.jsonl, .parquet or *{SCENE_FILE_SUFFIX} of VSI-Bench questions found")
    root_dir = root.parent if root.is_file() else root
    diags = Diagnostics()
    media = MediaIndex(str(root_dir))
    records: list[tuple[dict, str, int | None, str, str | None]] = []   # rec, file, line, json path, video
    foreign: list[tuple[str, int | None]] = []       # records another benchmark says are its own
    foreign_owner = None
    for f in files:
        for rec, line, path, video in _records(f, diags):
            owner = owner_of(rec, VSI) if "question_type" not in rec else None
            if owner is not None:
                foreign_owner = foreign_owner or owner
                foreign.append((str(f), line))
                continue
            records.append((rec, str(f), line, path, video))
    if foreign:
        refuse_mixed(VSI, len(records), [(r[1], r[2]) for r in records[:1]], foreign_owner, len(foreign), foreign)

    questions: list[Question] = []
    index: dict[str, int] = {}
    per_scene: dict[str, int] = {}
    unknown: dict[str, int] = {}
    videos: dict[tuple[str, str], Any] = {}
    for rec, source, line, jpath, declared_video in records:
        scene = rec.get("scene_name") if isinstance(rec.get("scene_name"), str) else ""
        k = per_scene.get(scene, 0)
        per_scene[scene] = k + 1
        uid = _uid(rec, scene, k)
        label = f"{jpath}: " if jpath else ""
        qtype = rec.get("question_type")
        col = VSI.column_index(qtype)
        if col == UNKNOWN_COLUMN:
            unknown[str(qtype)] = unknown.get(str(qtype), 0) + 1
        q = _question(rec, uid, scene, col, source, line, label, diags)
        q.video = _video(rec, scene, declared_video, media, root_dir, videos)
        at = index.get(uid)
        if at is not None:
            prev = questions[at]
            diags.warning(f"{label}duplicate uid {uid!r} (first at {prev.source}"
                          f"{':' + str(prev.line) if prev.line else ''}); the last one wins",
                          source, line, code="release.duplicate_uid")
            questions[at] = q
        else:
            index[uid] = len(questions)
            questions.append(q)

    for qtype, count in unknown.items():
        diags.warning(f"question type {qtype!r} ({count} questions) is not one of VSI-Bench's 10; "
                      "kept out of the leaderboard", root, code="task.unknown")
    absent = sorted({s for (d, s), v in videos.items() if v is None}, key=natural_key)
    if absent:
        diags.info(f"{len(absent)} of {len(videos)} scene videos are not in the release (expected "
                   "<dataset>/<scene_name>.mp4; ScanNet's terms forbid redistributing them)",
                   root_dir, code="media.vsi_video_absent")

    n = len(questions)
    truth = np.full((n, 2), np.nan)
    for i, q in enumerate(questions):
        if q.truth.value is not None and q.column is not None:
            truth[i, 0] = q.truth.value
    return Release(root_dir, questions, diags, "vsi-" + ("scene-files" if files[0].name.endswith(SCENE_FILE_SUFFIX)
                                                          else files[0].suffix.lstrip(".")),
                   index, [q.uid for q in questions], [q.scene for q in questions],
                   np.array([q.column_index for q in questions], np.int16).reshape(n), truth,
                   np.array([q.n_options for q in questions], np.int16).reshape(n), [], benchmark=VSI)


def _uid(rec: dict, scene: str, k: int) -> str:
    rid = rec.get("id")
    if isinstance(rid, (int, str)) and not isinstance(rid, bool) and str(rid) != "":
        return str(rid)
    return f"{scene}#{k}"


def _question(rec: dict, uid: str, scene: str, col: int, source: str, line: int | None, label: str,
              diags: Diagnostics) -> Question:
    qtype = rec.get("question_type")
    text = rec.get("question") if isinstance(rec.get("question"), str) else ""
    options = rec.get("options")
    options = [str(o) for o in options] if isinstance(options, list) else []
    column = VSI.column(col)
    answer = rec.get("ground_truth")
    truth = Parsed(None, "unknown_task")
    if column is not None:
        truth = column.kind.parse_truth(answer, len(options) or 4)
        _report_truth(uid, answer, truth, column, len(options), source, line, label, diags)
    meta = {k: rec[k] for k in ("dataset", "question", "question_type") if k in rec}
    return Question(uid=uid, task=str(qtype), scene=scene, column_index=col, answer_raw=answer, truth=truth,
                    texts=[prompt_text(text, str(qtype), options)], video=None, images=[], meta=meta,
                    target=None, viewpoint=None, video_id=scene or None, topdown=None, source=source,
                    line=line, benchmark=VSI, options=options)


def _report_truth(uid, answer, truth: Parsed, column, n_options: int, source, line, label, diags) -> None:
    if truth.status == OK:
        return
    at = dict(file=source, line=line)
    if column.kind_name == "mra":
        if truth.value == 0:
            diags.error(f"{label}question {uid!r}: ground truth 0 for {column.key} (upstream divides by it); "
                        "scored 0 for every model", **at, code="truth.zero")
        elif truth.value is not None:
            diags.error(f"{label}question {uid!r}: ground truth {answer!r} is negative; scored as upstream "
                        "scores it", **at, code="truth.invalid")
        else:
            diags.error(f"{label}question {uid!r}: ground truth {answer!r} is not a number; scored 0 for every "
                        "model, as upstream scores it", **at, code="truth.invalid")
    elif truth.value is not None:
        diags.error(f"{label}question {uid!r}: ground truth {answer!r} is beyond its {n_options} options",
                    **at, code="truth.invalid")
    else:
        why = "empty" if truth.status == EMPTY else "not an option letter"
        diags.error(f"{label}question {uid!r}: ground truth {answer!r} is {why}; scored 0 for every model",
                    **at, code="truth.invalid")


def _video(rec: dict, scene: str, declared: str | None, media: MediaIndex, root: Path, cache: dict):
    dataset = rec.get("dataset") if isinstance(rec.get("dataset"), str) else ""
    key = (dataset, scene)
    if key not in cache:
        found = None
        for cand in ([f"{dataset}/{scene}.mp4"] if dataset and scene else []) + ([declared] if declared else []):
            ref = media.resolve(cand, str(root))
            if ref.exists:
                found = ref
                break
        cache[key] = found
    return cache[key]


def _records(path: Path, diags: Diagnostics) -> Iterable[tuple[dict, int | None, str | None, str | None]]:
    """(record, line, JSON path, declared video) for every question object in a file."""
    if path.suffix == ".parquet":
        yield from ((r, None, f"row {i}", None) for i, r in enumerate(_parquet_rows(path)))
        return
    try:
        text = read_text(path, diags)
    except UserError as e:
        diags.error(str(e).split(": ", 1)[-1], path, code="file.unreadable")
        return
    if path.suffix == ".jsonl":
        numbers, values = read_json_lines(text, path, diags)
        for n, v in zip(numbers, values):
            if isinstance(v, dict):
                yield v, n, None, None
            else:
                diags.error(f"a question must be a JSON object, got {type(v).__name__}", path, n,
                            code="question.not_object")
        return
    doc = parse_json_document(text, path, diags)
    if isinstance(doc, dict) and isinstance(doc.get("questions"), list):
        video = doc.get("video_path") if isinstance(doc.get("video_path"), str) else None
        items = [(q, f"questions[{k}]") for k, q in enumerate(doc["questions"])]
    elif isinstance(doc, list):
        video, items = None, [(q, f"[{k}]") for k, q in enumerate(doc)]
    else:
        if doc is not None:
            diags.error("expected {scene_name, questions: [...]} or a list of questions", path,
                        code="question.not_object")
        return
    for q, jpath in items:
        if isinstance(q, dict):
            yield q, None, jpath, _relative_video(video, path)
        else:
            diags.error(f"{jpath}: a question must be a JSON object, got {type(q).__name__}", path,
                        code="question.not_object")


def _relative_video(video: str | None, path: Path) -> str | None:
    # The study writes "data/scannet/<scene>.mp4" from its repository root; keep the last two parts.
    return None if not video else "/".join(video.replace(os.sep, "/").split("/")[-2:])


def _parquet_rows(path: Path) -> list[dict]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UserError(f"{path}: reading parquet needs pyarrow (pip install pyarrow), or use test.jsonl") from None
    try:
        return pq.read_table(path).to_pylist()
    except Exception as e:    # pyarrow raises many types for a bad file
        raise UserError(f"{path}: not a readable parquet file ({e})") from None


__all__ = ["is_vsi_release", "load_vsi_release", "owns_record"]
