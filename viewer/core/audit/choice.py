"""Judging multiple-choice questions by their pictures: which option is this scene, which path this clip.

Shared by `choice_answer_mismatch` and `choice_options_ambiguous`: each
choice question is judged once per audit, in its scene's job of the scene
stage (`judge_choices`, memoised on the SceneAuditor), into a
`ChoiceJudgement` holding every option's score, or into the reason it could
not be judged. Everything a judgement reads belongs to its scene: the
option images, the scene's metadata (when it has any) and the maps its own
Pos/GP questions show, so scenes are judged independently, on any worker.

Top-down selection (TDS_E/M/H) compares each option with a reference map
of the scene at the question's level (choice_measures.similarity, higher
is better). The reference is, in this order:
  1. the scene rendered from its geometry at that level (scene metadata);
  2. the scene's own map image at that level, named by scene.json, when
     the scene cannot be rendered;
  3. the map the scene's Pos/GP questions show, when its look says it is
     of that level (choice_measures.guess_level).
Trajectory selection (Traj) projects the clip's camera positions onto the
scene's map and measures each option's red path against them
(choice_measures.path_distance, in map pixels, lower is better).
"""
from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from ..column import MAP_FLOORPLAN, MAP_OCCUPANCY, MAP_PHOTO, TRAJECTORY, AnyOf, Columns
from ..diagnostics import UserError
from ..scene.model import Scene, link_question, load_scene
from . import choice_measures as measures
from .auditors import SceneAuditor
from .images import ImageSourceFactory
from .registry import Check
from .types import Tally

LETTERS = "ABCDEFGH"
# What a choice question's option images show (Column.option_images) -> the map level they are judged at.
TOPDOWN_LEVELS = {MAP_PHOTO: "photo", MAP_OCCUPANCY: "occupancy", MAP_FLOORPLAN: "floorplan"}
CHOICE_COLUMNS = AnyOf(tuple(Columns(option_images=shows) for shows in (*TOPDOWN_LEVELS, TRAJECTORY)))
MAP_COLUMNS = Columns(kind="point", on_map=True)        # questions that show the scene's map
# Ambiguous: the runner-up is this close to the best. Similarities are
# correlations (a clean demo scores its true map 0.97-0.99 and the nearest
# mirrored copy at most 0.83); path distances are map pixels, and a path
# drawn at stroke width 5 lies about 1-2 px from the walk it was drawn from.
SIMILARITY_MARGIN = 0.05
PATH_MARGIN_PX = 4.0
PATH_MARGIN_SHARE = 0.25                  # ... or this share of the best distance, whichever is larger
REFERENCE_WIDTH = 320                     # pixels across a rendered reference map (5 per signature cell)
MIN_PATH_PIXELS = 10
# A release offers the same distractor maps in many scenes' questions, and a worker judges many scenes:
# what is measured on an image file (its size, its signature per level) is kept per process (this many
# facts, least recently used dropped), under the file's identity (path, size, modification time) and the
# reader's class, so a changed file is measured again and a shared map is not read again in every scene.
PER_FILE_FACTS = 2048
_per_file: OrderedDict[tuple, object] = OrderedDict()
NO_IMAGE_READER = "the audit was given no image reader (run_audit's images)"


@dataclass
class ChoiceJudgement:
    uid: str
    task: str                       # "topdown" or "trajectory"
    scores: list[float]             # per option, in letter order
    truth: int                      # the stored answer's option
    higher_is_better: bool
    measure: str                    # what the scores are, for people
    reference: dict                 # where the reference came from
    extra: dict = field(default_factory=dict)   # per-task numbers for the details

    @property
    def ranking(self) -> list[int]:
        order = sorted(range(len(self.scores)), key=lambda k: self.scores[k], reverse=self.higher_is_better)
        return order

    @property
    def best(self) -> int:
        return self.ranking[0]

    @property
    def runner_up(self) -> int:
        return self.ranking[1]

    @property
    def margin(self) -> float:
        """How close the runner-up may come to the best and still be told apart."""
        if self.higher_is_better:
            return SIMILARITY_MARGIN
        return max(PATH_MARGIN_PX, PATH_MARGIN_SHARE * self.scores[self.best])

    def gap(self, k: int) -> float:
        """How much worse option k scores than the best (>= 0)."""
        return abs(self.scores[self.best] - self.scores[k])

    @property
    def mismatch(self) -> bool:
        return self.best != self.truth

    @property
    def ambiguous(self) -> bool:
        return self.gap(self.runner_up) < self.margin

    def shown(self, value: float) -> str:
        """A score as people read it: a similarity, or a distance in map pixels."""
        return f"{value:.2f}" if self.higher_is_better else f"{value:.1f} px"

    def details(self) -> dict:
        return {"task": self.task, "measure": self.measure,
                "scores": {LETTERS[k]: s for k, s in enumerate(self.scores)},
                "higher_is_better": self.higher_is_better,
                "truth": LETTERS[self.truth], "best": LETTERS[self.best],
                "runner_up": LETTERS[self.runner_up], "gap": self.gap(self.runner_up),
                "margin": self.margin, "reference": self.reference, **self.extra}


class ChoiceJudgementCheck(Check):
    """A check that reads each choice question's judgement (`judge_choices`, made once per scene).

    A question that could not be judged is skipped with the reason; otherwise
    `verdict` says whether it is flagged: None when it passes, else the
    message and the severity of its finding.
    """

    def check_scene(self, auditor: SceneAuditor, questions: list) -> None:
        judged = judge_choices(auditor)
        for q in questions:
            j = judged[q.uid]
            if isinstance(j, str):
                auditor.skip(self, j)
                continue
            verdict = self.verdict(j)
            if verdict is None:
                auditor.passed(self)
            else:
                message, severity = verdict
                auditor.flag(self, q, message, j.details(), severity)

    def verdict(self, j: ChoiceJudgement) -> tuple[str, str] | None:
        raise NotImplementedError


class Skip(Exception):
    """A question the checks cannot judge; the message is the reason counted."""


def judge_choices(auditor: SceneAuditor) -> dict[str, ChoiceJudgement | str]:
    """Per choice question of the auditor's scene, by uid in release order: its judgement, or why it was
    skipped. Once per scene, however many checks ask."""
    return auditor.memo("choice_judgements", lambda: _Judge(auditor).all())


def judge_release(release, images: ImageSourceFactory | None) -> dict[str, ChoiceJudgement | str]:
    """Every choice question of `release` judged as the audit's scene stage judges it, scene by scene, here
    (for tools and tests; the audit itself judges in its scene jobs)."""
    by_scene: dict[str, list] = {}
    for q in release.questions:
        by_scene.setdefault(q.scene, []).append(q)
    out: dict[str, ChoiceJudgement | str] = {}
    for sid, questions in by_scene.items():
        auditor = SceneAuditor(load_scene(release.root, sid), questions, Tally([]), None, images, sid)
        out.update(judge_choices(auditor))
    return out


class _Judge:
    def __init__(self, auditor: SceneAuditor):
        self.questions, self.scene_id, self._scene = auditor.questions, auditor.scene_id, auditor.scene
        self.images = auditor.images()
        self._signatures: dict[tuple, measures.Signature | str] = {}
        self._pictures: dict[str, np.ndarray | str] = {}
        # (reference, option) -> similarity: a scene's questions of one level offer the same few maps.
        # Keyed by the signatures' ids, which the entry keeps alive (so no id is reused while it is kept).
        self._similarities: dict[tuple[int, int], tuple[measures.Signature, measures.Signature, float]] = {}
        self._release_maps: dict[str, list[tuple[str, str | None]]] | None = None

    def all(self) -> dict[str, ChoiceJudgement | str]:
        out: dict[str, ChoiceJudgement | str] = {}
        for q in self.questions:
            if not CHOICE_COLUMNS.matches(q.column):
                continue
            try:
                out[q.uid] = self.judge(q, q.column.option_images)
            except Skip as e:
                out[q.uid] = str(e)
        return out

    def judge(self, q, shows: str) -> ChoiceJudgement:
        """Judge a choice question whose option images show `shows` (Column.option_images)."""
        if not q.truth.ok:
            raise Skip("the stored answer is not a valid option letter")
        if self.images is None:
            raise Skip(NO_IMAGE_READER)
        if len(q.images) < 2:
            raise Skip("fewer than 2 option images")
        truth = int(q.truth.value)
        if truth >= len(q.images):
            raise Skip(f"the stored answer {LETTERS[truth]} has no option image")
        # A top-down option is compared by its signature: a map known in this process is not read again.
        sizes = {self.size(im, LETTERS[k]) for k, im in enumerate(q.images)}
        if len(sizes) > 1:
            shown = ", ".join(f"{w}x{h}" for h, w in sorted(sizes))
            raise Skip(f"the options differ in size ({shown})")
        if shows == TRAJECTORY:
            return self.trajectory(q, sizes.pop(), truth)
        return self.topdown(q, TOPDOWN_LEVELS[shows], truth)

    # ------------------------------------------------------------ inputs
    def picture(self, ref, letter: str) -> np.ndarray:
        if ref.path is None or not ref.exists:
            raise Skip(f"option {letter} is missing ({ref.problem or 'no such file'})")
        got = self._pictures.get(ref.path)
        if got is None:
            try:
                got = self.images.read(ref.path)
            except (OSError, ValueError) as e:
                got = str(e) or type(e).__name__
            self._pictures[ref.path] = got
        if isinstance(got, str):
            raise Skip(f"option {letter} cannot be read: {got}")
        return got

    def scene(self, scene_id: str) -> Scene | None:
        """The scene's metadata (None without); every question judged here is of the auditor's scene."""
        if scene_id != self.scene_id:
            raise RuntimeError(f"question of scene {scene_id} judged in scene {self.scene_id}'s job")
        return self._scene

    def signature(self, key: tuple, rgb_of, level: str, what: str, path: str | None = None) -> measures.Signature:
        """The signature of an image (memoised under `key`: options recur across questions; and, for the
        image file at `path`, across the scenes this process judges)."""
        got = self._signatures.get(key)
        if got is None:
            got = self._per_file(path, ("signature", level), lambda: self._measure(rgb_of, level))
            self._signatures[key] = got
        if isinstance(got, str):
            raise Skip(f"{what}: {got}")
        return got

    @staticmethod
    def _measure(rgb_of, level: str) -> measures.Signature | str:
        try:
            return measures.signature(rgb_of(), level)
        except measures.MapUnusable as e:
            return str(e)
        except (OSError, ValueError, UserError) as e:
            return f"cannot be read: {e}"

    def marks(self, ref, letter: str) -> tuple[np.ndarray, np.ndarray | None]:
        """A trajectory option's red path and blue start dot (measures.trajectory_marks), kept per file:
        a clip's options recur across the scene's questions."""
        return self._per_file(ref.path, ("trajectory marks",),
                              lambda: measures.trajectory_marks(self.picture(ref, letter)))

    def size(self, ref, letter: str) -> tuple[int, int]:
        """An option's (height, width): from a read of it in this process when there was one."""
        if ref.path is None or not ref.exists:
            raise Skip(f"option {letter} is missing ({ref.problem or 'no such file'})")
        return self._per_file(ref.path, ("size",), lambda: self.picture(ref, letter).shape[:2])

    def _per_file(self, path: str | None, what: tuple, compute):
        """compute(), kept for this process under the identity of the image file at `path` (path, size,
        modification time, the reader's class) and `what`; computed afresh when there is no such file."""
        if path is None:
            return compute()
        try:
            st = os.stat(path)
        except OSError:
            return compute()
        key = (path, st.st_size, st.st_mtime_ns, type(self.images).__qualname__, *what)
        if key in _per_file:
            _per_file.move_to_end(key)
            return _per_file[key]
        got = _per_file[key] = compute()
        while len(_per_file) > PER_FILE_FACTS:
            _per_file.popitem(last=False)
        return got

    # ------------------------------------------------------------ top-down selection
    def topdown(self, q, level: str, truth: int) -> ChoiceJudgement:
        ref, reference = self.reference_map(q.scene, level)
        scores = []
        for k, im in enumerate(q.images):
            sig = self.signature(("option", im.path, level), lambda im=im, k=k: self.picture(im, LETTERS[k]),
                                 level, f"option {LETTERS[k]}", im.path)
            scores.append(self.similarity(ref, sig))
        measure = ("similarity of free space (occupancy, correlation)" if level == "occupancy" else
                   "similarity of the plan's walls and rooms (grey levels, correlation)" if level == "floorplan"
                   else "similarity of the aligned colour images (correlation)")
        return ChoiceJudgement(q.uid, "topdown", scores, truth, True, measure, reference, {"level": level})

    def similarity(self, ref: measures.Signature, option: measures.Signature) -> float:
        """measures.similarity(ref, option), once per pair of signatures in this scene."""
        key = (id(ref), id(option))
        got = self._similarities.get(key)
        if got is None:
            got = self._similarities[key] = (ref, option, measures.similarity(ref, option))
        return got[2]

    def reference_map(self, scene_id: str, level: str) -> tuple[measures.Signature, dict]:
        scene = self.scene(scene_id)
        if scene is not None:
            key = ("render", scene_id, level)
            try:
                sig = self.signature(key, lambda: self.images.topdown(scene, level, REFERENCE_WIDTH), level,
                                     f"the {level} map rendered from scene {scene_id}")
                return sig, {"source": "render", "scene": scene_id, "level": level}
            except Skip as not_rendered:
                declared = scene.topdown.get(level)
                if declared is None or not declared.image:
                    raise Skip(f"no reference map: {not_rendered}, and scene.json names no {level} map image") from None
                path = declared.image
                sig = self.signature(("file", path, level), lambda: self.images.read(path), level,
                                     f"the scene's {level} map {path}", path)
                return sig, {"source": "scene map", "scene": scene_id, "level": level, "path": path}
        maps = self.release_maps().get(scene_id, [])
        if not maps:
            raise Skip("no reference map: no scene metadata, and no Pos/GP question shows this scene's map")
        at_level = [path for path, shown in maps if shown == level]
        if not at_level:
            levels = sorted({shown or "unrecognised" for _, shown in maps})
            raise Skip(f"no reference map at level {level}: no scene metadata, and the scene's own map is "
                       f"{' / '.join(levels)}")
        path = at_level[0]
        sig = self.signature(("file", path, level), lambda: self.images.read(path), level,
                             f"the scene's map {path}", path)
        return sig, {"source": "release map", "scene": scene_id, "level": level, "path": path}

    def release_maps(self) -> dict[str, list[tuple[str, str | None]]]:
        """Per scene (here: the one): (path, level it looks like) of each map its Pos/GP questions show."""
        if self._release_maps is None:
            found: dict[str, dict[str, str | None]] = {}
            for q in self.questions:
                if not MAP_COLUMNS.matches(q.column):
                    continue
                im = q.role_image("map")
                if im is None or im.path is None or not im.exists or im.path in found.get(q.scene, {}):
                    continue
                found.setdefault(q.scene, {})[im.path] = self.map_level(im.path, q.topdown)
            self._release_maps = {sid: list(paths.items()) for sid, paths in found.items()}
        return self._release_maps

    def map_level(self, path: str, named: str | None) -> str | None:
        """The level a map looks like; the name the question gives it when its look says nothing."""
        try:
            rgb = self.images.read(path)
        except (OSError, ValueError):
            return None
        return measures.guess_level(rgb) or (named if named in measures.LEVELS else None)

    # ------------------------------------------------------------ trajectory selection
    def trajectory(self, q, size: tuple[int, int], truth: int) -> ChoiceJudgement:
        scene = self.scene(q.scene)
        if scene is None:
            raise Skip("no poses: no scene metadata")
        g = link_question(q, scene)
        if g.video is None:
            raise Skip("no poses: " + next((p for p in g.problems if "video" in p), "the question names no video"))
        positions = clip_positions(g.video.poses, q.meta.get("frames"))
        if len(positions) < 2:
            raise Skip(f"no poses: fewer than 2 valid poses in {g.video.id}'s clip")
        tmap = g.topdown if g.topdown is not None and g.topdown.world_to_pixel is not None else next(
            (m for m in scene.topdown.values() if m.world_to_pixel is not None), None)
        if tmap is None:
            raise Skip("no map to project the clip onto (no top-down map with world_to_pixel)")
        W = tmap.world_to_pixel
        walked = positions[:, :2] @ W[:, :2].T + W[:, 2]
        h, w = size
        to_map = np.array([(tmap.width or w) / w, (tmap.height or h) / h])
        marks = [self.marks(im, LETTERS[k]) for k, im in enumerate(q.images)]
        for k, (drawn, start) in enumerate(marks):
            if len(drawn) < MIN_PATH_PIXELS:
                raise Skip(f"no red path found in option {LETTERS[k]}")
            if start is None:
                raise Skip(f"no blue start dot found in option {LETTERS[k]}")
        walk = measures.walk_points(walked)        # the same for every option
        parts = [measures.path_distance_to(drawn * to_map, start * to_map, walk) for drawn, start in marks]
        step = max(1, len(walked) // 60)
        extra = {"chamfer_px": {LETTERS[k]: p.chamfer for k, p in enumerate(parts)},
                 "start_offset_px": {LETTERS[k]: p.start_offset for k, p in enumerate(parts)},
                 "walked_px": walked[::step].tolist() + ([walked[-1].tolist()] if (len(walked) - 1) % step else []),
                 "map": {"name": tmap.name, "width": tmap.width, "height": tmap.height}, "video": g.video.id}
        return ChoiceJudgement(q.uid, "trajectory", [p.total for p in parts], truth, False,
                               "symmetric chamfer distance + start-dot offset, map pixels",
                               {"source": "poses", "scene": q.scene, "video": g.video.id, "map": tmap.name}, extra)


def clip_positions(poses: np.ndarray, frames) -> np.ndarray:
    """Camera positions (N, 3) over the clip's frames: the whole track when it is the clip, else the
    frames [a, b] the question's meta names."""
    poses = np.asarray(poses, float)
    if isinstance(frames, (list, tuple)) and len(frames) == 2:
        try:
            a, b = int(frames[0]), int(frames[1])
        except (TypeError, ValueError):
            a, b = 0, -1
        # A clip's own track holds exactly its frames; a longer one is the whole video.
        if 0 <= a <= b < len(poses) and len(poses) != b - a + 1:
            poses = poses[a:b + 1]
    valid = np.isfinite(poses).all(axis=(1, 2))
    return poses[valid, :3, 3]
