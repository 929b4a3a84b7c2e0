"""What a release is, whichever benchmark it belongs to: its questions, their media and their ground truth.

`load_release` finds the release's benchmark (benchmarks/registry.py: each benchmark's `detect`, or
the one forced) and lets it read its own files (`Benchmark.load`, in the benchmark's package). A
loader returns a `Release` whose columnar arrays cover the bulk work and whose `questions` are
built when first looked at.
"""
from __future__ import annotations

import os
import re
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .answers import Parsed
from .column import Column
from .diagnostics import Diagnostics, UserError
from .kinds import AnswerKind
from .media import MediaRef
from .settings_table import GLOBAL, GLOBAL_CODE
from .textio import no_gc

if TYPE_CHECKING:
    from .benchmarks.base import Benchmark


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
    benchmark: Benchmark         # whose column table column_index points into
    options: list[str] = field(default_factory=list)   # text options, in order (when the options are texts)
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
    """A release's questions, each built from its record on first access.

    A training-set release has 200,000 records; building every Question (and
    resolving every image) up front would dominate loading, while a session
    looks at a few hundred. The columnar arrays on Release cover the bulk work.
    `build(i)` is the loader's: the Question of record i.
    """

    def __init__(self, records: list, where: list[tuple[str, int | None]], build: Callable[[int], Question]):
        self._records, self._where, self._build = records, where, build
        self._built: list[Question | None] = [None] * len(records)

    def __len__(self) -> int:
        return len(self._records)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        q = self._built[i]
        if q is None:
            q = self._built[i] = self._build(i)
        return q

    def peek(self, i: int) -> Question:
        """Question i, built for the moment and not kept when it is not built yet."""
        q = self._built[i]
        return self._build(i) if q is None else q

    def passing(self) -> Iterator[Question]:
        """Every question in order, those not built yet built for the moment and not kept, so that a
        pass over a training-set release (the audit, `score --per-sample`) holds one at a time."""
        built, build = self._built, self._build
        for i in range(len(built)):
            q = built[i]
            yield build(i) if q is None else q


@dataclass
class Release:
    root: Path
    questions: Sequence[Question]               # a QuestionList, or a list
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
    benchmark: Benchmark                        # its columns, kinds, aggregation, files (core/benchmarks)
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

    def each_question(self) -> Iterator[Question]:
        """The questions in order, without keeping those not built yet (QuestionList.passing)."""
        q = self.questions
        return q.passing() if isinstance(q, QuestionList) else iter(q)

    def question_for_now(self, i: int) -> Question:
        """Question i, not kept by the release when it was not built yet (QuestionList.peek)."""
        q = self.questions
        return q.peek(i) if isinstance(q, QuestionList) else q[i]

    def get(self, uid: str) -> Question | None:
        i = self.index.get(uid)
        return None if i is None else self.questions[i]

    @property
    def scenes(self) -> list[str]:
        return sorted(set(self.scene_of), key=natural_key)

    def missing_video_rows(self) -> np.ndarray:
        """The questions whose video is missing or refused (MissingMedia's columns where it has them)."""
        m = self.missing
        if isinstance(m, MissingMedia):
            return m.video_rows()
        return np.unique(np.array([i for i, kind, _, _ in m if kind == "video"], np.int64))

    def missing_media(self) -> list[tuple[Question, MediaRef]]:
        out = []
        for i, kind, declared, _ in self.missing:
            q = self.questions[i]
            refs = [q.video] if kind == "video" else q.images
            out.extend((q, m) for m in refs if m is not None and m.declared == declared)
        return out


def load_release(path: str | Path, benchmark: str | None = None) -> Release:
    """Read a release; raises UserError only when nothing can be read at all.

    Its benchmark is the first whose `detect` recognises the path (benchmarks/registry.py), or the one
    named by `benchmark` (a registered name, as --benchmark takes it).
    """
    from .benchmarks.registry import detect_benchmark, get_benchmark
    root = Path(path).expanduser()
    if not root.exists():
        raise UserError(f"{root}: no such file or folder")
    reader = get_benchmark(benchmark) if benchmark is not None else detect_benchmark(root)
    if benchmark is not None and not reader.detect(root):
        actual = detect_benchmark(root)
        if actual is not reader and actual.detect(root):      # forced, and the folder is another's: say whose
            what = actual.describe_release(root)
            raise UserError(f"{root}: this {'file' if root.is_file() else 'folder'} is a {actual.title} release"
                            + (f" ({what})" if what else "") + f"; drop --benchmark {reader.name}")
    with no_gc():
        release = reader.load(root)
    _LOADED[os.path.realpath(release.root)] = release
    return release


# Releases read in this process and still held (the window's, a command's), by their folder.
_LOADED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def loaded_release(root: str | Path) -> Release | None:
    """The release of `root` this process read last and still holds, else None: a scene source that needs
    the answers (scene/sfm_scene.py) then does not read a large release a second time."""
    return _LOADED.get(os.path.realpath(root))


def refuse_mixed(ours: Benchmark, n_ours: int, our_at: list, theirs: Benchmark, n_theirs: int,
                 their_at: list) -> None:
    """A release holding two benchmarks' questions cannot be scored as either: say so (UserError).

    `our_at`, `their_at`: (file, line) of records of each, the first one named."""
    def where(at):
        return f"{at[0][0]}:{at[0][1]}" if at and at[0][1] and at[0][1] > 0 else (at[0][0] if at else "?")
    raise UserError(f"this release mixes {n_ours} {ours.title} questions (first at {where(our_at)}) and "
                    f"{n_theirs} {theirs.title} questions (first at {where(their_at)}); open each "
                    "benchmark's questions as a release of its own")


_DIGITS = re.compile(r"\d+")


def _number_key(m: re.Match) -> str:
    digits = m.group().lstrip("0") or "0"
    return "\x00" + chr(len(digits)) + digits


def natural_key(s: str) -> str:
    """Sort key putting scene2 before scene10, as a plain string so that `sorted` compares in C (a list of
    number and word tokens was 3x slower to sort 200,000 uids): each run of digits becomes NUL, its length
    (leading zeros dropped) as one character, and the digits, so a number sorts before any word, numbers by
    length, then by digits, and words by their letters."""
    return _DIGITS.sub(_number_key, s)


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

    def video_rows(self) -> np.ndarray:
        """The questions whose video is missing or refused, from the columns (no tuple made)."""
        return np.unique(self._rows[self._refs < self._n_videos])

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        j = int(self._refs[k])
        return (int(self._rows[k]), "video" if j < self._n_videos else "image", str(self._declared[j]),
                self._whys[k])
