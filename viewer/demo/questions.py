"""Choosing the questions of one scene, keeping the benchmark's promises.

- A visual or semantic target appears clearly in the exploration video
  (at least `target_fraction` of the image at its best frame).
- The query view does not show the target at all (zero pixels, ray cast).
- Query views were sampled away from the walk (trajectory.VIEW_MIN_OFFSET).
- A semantic target's category has a single instance in the scene.

Geometric answers are left out here: `generate` computes them with the
core's `recompute_ground_truth` once scene.json is written. Choice answers
(TDS, Traj) are set here, the correct option at a random letter.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from . import prompts
from .scenebuild import BuiltScene, DemoConfig

LETTERS = "ABCD"
SUB_LENGTH = 40              # frames in a Traj sub-trajectory (4 s at 10 fps)
SUB_SPACING = 30             # frames between the starts of two sub-trajectories (they may overlap a little)
SUB_MIN_PATH = 2.0           # m walked in it
SUB_MIN_SPAN = 1.5           # m between its ends
SHAPE_APART = 1.0            # m: mean distance between two option paths
TELLING = {"sofa", "armchair", "bed", "fridge", "television", "potted_plant", "floor_lamp", "bookshelf",
           "wardrobe", "dining_table", "desk", "office_chair", "bathtub", "toilet", "coffee_table"}


@dataclass
class Planned:
    key: str
    record: dict             # a question record; "answer" is None for geometric tasks until computed


@dataclass
class Needs:
    """Files a scene's questions refer to, written by `generate`."""
    views: set[str] = field(default_factory=set)
    boxed: set[str] = field(default_factory=set)                  # targets with a red-box video copy
    subs: dict[int, tuple[int, int]] = field(default_factory=dict)  # sub-trajectory clips: k -> frames
    traj_options: dict[int, tuple[int, int]] = field(default_factory=dict)
    option_images: dict[str, np.ndarray] = field(default_factory=dict)   # relpath -> RGB


def scene_path(s: BuiltScene, rel: str) -> str:
    return f"scenes/{s.id}/{rel}"


def view_path(s: BuiltScene, name: str) -> str:
    return scene_path(s, f"views/{name}.jpg")


def map_path(scene_id: str, level: str) -> str:
    return f"scenes/{scene_id}/topdown/{level}.png"


def _record(s: BuiltScene, key: str, uid: str, texts: list[str], video: str, images: list[str],
            meta: dict, answer=None) -> dict:
    return {"task": prompts.task(key), "uid": uid, "scene": s.id, "answer": answer, "texts": texts,
            "copied_video_path": video,
            "images": [{"index": i + 1, "copied_path": p} for i, p in enumerate(images)],
            "meta": meta}


class _ViewPicker:
    """Query views hiding a given instance, spread over the scene's views."""

    def __init__(self, s: BuiltScene, rng: np.random.Generator):
        self.s, self.rng = s, rng
        self.used: Counter = Counter()

    def hiding(self, iid: str | None, exclude: set[str] = frozenset()) -> str | None:
        names = [n for n, v in self.s.views.items()
                 if n not in exclude and (iid is None or v.visible.get(iid, 0) == 0)]
        if not names:
            return None
        low = min(self.used[n] for n in names)
        best = [n for n in names if self.used[n] == low]
        pick = best[int(self.rng.integers(len(best)))]
        self.used[pick] += 1
        return pick


def _diverse(candidates: list, count: int, rng: np.random.Generator, category) -> list:
    """Up to `count` items in random order, distinct categories first."""
    order = [candidates[i] for i in rng.permutation(len(candidates))]
    first, rest, seen = [], [], set()
    for c in order:
        (rest if category(c) in seen else first).append(c)
        seen.add(category(c))
    return (first + rest)[:count]


def plan_scene(s: BuiltScene, pool: list[tuple[str, dict[str, str]]], rng: np.random.Generator,
               cfg: DemoConfig) -> tuple[list[Planned], Needs]:
    """The questions of scene `s`; `pool` holds (label, level -> map path) of other layouts."""
    needs = Needs()
    picker = _ViewPicker(s, rng)
    out: list[Planned] = []
    objects, object_views = _object_questions(s, picker, needs, rng, cfg)
    out += objects
    out += _self_questions(s, picker, needs, object_views, cfg)
    for key in ("TDS_E", "TDS_M", "TDS_H"):
        for variant in range(cfg.per_column):
            q = _topdown_question(s, key, variant, pool, needs, rng)
            if q is not None:
                out.append(q)
    out += _trajectory_questions(s, needs, rng, cfg)
    return out, needs


def _object_questions(s, picker, needs, rng, cfg) -> tuple[list[Planned], list[str]]:
    """ED, EDist and GP questions per target, and the query views they use (in order).

    A target's ED and EDist questions share one query view, so the release
    links a (viewpoint, target) pair to a direction and a distance together.
    """
    n_pixels = cfg.width * cfg.height
    appears = s.appears(max(1, int(cfg.appear_fraction * n_pixels)))
    best = np.where(appears, s.pixels, 0).max(axis=0)
    objects = [o for o in s.apt.objects()
               if best[s.index(o.id)] >= cfg.target_fraction * n_pixels
               and any(v.visible.get(o.id, 0) == 0 for v in s.views.values())]
    counts = Counter(o.category for o in s.apt.objects())
    # A red box around a plain cabinet says little; prefer furniture with a telling shape.
    telling = [o for o in objects if o.category in TELLING]
    visual = _diverse(telling if len(telling) >= cfg.per_column else objects, cfg.per_column, rng,
                      lambda o: o.category)
    unique = [o for o in objects if counts[o.category] == 1]
    fresh = [o for o in unique if o not in visual]
    semantic = _diverse(fresh if len(fresh) >= cfg.per_column else unique, cfg.per_column, rng,
                        lambda o: o.category)
    out, views = [], []
    for kind, targets in (("v", visual), ("s", semantic)):
        for o in targets:
            view = picker.hiding(o.id)
            needs.views.add(view)
            views.append(view)
            if kind == "v":
                video = scene_path(s, f"videos/video0_obj_{o.id}.mp4")
                needs.boxed.add(o.id)
            else:
                video = scene_path(s, "videos/video_0.mp4")
            for base in ("ED", "EDist"):
                key = f"{base}_{kind}"
                uid = prompts.uid(key, s.number, target=o.id, viewpoint=view)
                meta = {"video": "video_0", "viewpoint": view, "target": o.id, "topdown": "occupancy"}
                out.append(Planned(key, _record(s, key, uid, prompts.texts(key, o.category), video,
                                                [view_path(s, view)], meta)))
            key = f"GP_{kind}"
            uid = prompts.uid(key, s.number, target=o.id)
            meta = {"video": "video_0", "target": o.id, "topdown": "occupancy"}
            out.append(Planned(key, _record(s, key, uid, prompts.texts(key, o.category), video,
                                            [map_path(s.id, "occupancy")], meta)))
    return out, views


def _self_questions(s, picker, needs, object_views, cfg) -> list[Planned]:
    """Pos and Ori for every view an object question uses (linked sets), topped up to `per_column` views."""
    views = list(dict.fromkeys(object_views))
    while len(views) < cfg.per_column:
        view = picker.hiding(None, exclude=set(views))
        if view is None:
            break
        views.append(view)
    out = []
    for key in ("Pos", "Ori"):
        for view in views:
            needs.views.add(view)
            uid = prompts.uid(key, s.number, viewpoint=view)
            meta = {"video": "video_0", "viewpoint": view, "topdown": "occupancy"}
            out.append(Planned(key, _record(s, key, uid, prompts.texts(key), scene_path(s, "videos/video_0.mp4"),
                                            [view_path(s, view), map_path(s.id, "occupancy")], meta)))
    return out


def _mirrors(s: BuiltScene, level: str, needs: Needs) -> list[tuple[str, str]]:
    """The scene's own map mirrored: a look-alike that no rotation of the scene gives."""
    out = []
    image = s.maps[level]
    for name, flipped in (("mirrored left-right", image[:, ::-1]), ("mirrored top-bottom", image[::-1])):
        # A (nearly) symmetric layout mirrors onto itself: no use as a distractor.
        if np.mean(np.any(flipped != image, axis=2)) < 0.03:
            continue
        rel = scene_path(s, f"options/{level}_{name.split()[1]}.png")
        needs.option_images[rel] = np.ascontiguousarray(flipped)
        out.append((f"{s.id} {level} {name}", rel))
    return out


def _topdown_question(s, key, variant, pool, needs, rng) -> Planned | None:
    """Easy: photo-like maps of other layouts; Medium: their occupancy maps;
    Hard: floor plans, two of them the scene's own plan mirrored."""
    level = {"TDS_E": "photo", "TDS_M": "occupancy", "TDS_H": "floorplan"}[key]
    others = [(f"{label} {level}", maps[level]) for label, maps in pool]
    picks = [others[i] for i in rng.permutation(len(others))]
    if key == "TDS_H":
        picks = _mirrors(s, level, needs) + picks
    if len(picks) < 3:
        return None
    distractors = picks[:3]
    correct = int(rng.integers(4))
    options = distractors[:correct] + [(f"{s.id} {level}", map_path(s.id, level))] + distractors[correct:]
    uid = prompts.uid(key, s.number, variant=variant)
    meta = {"video": "video_0", "topdown": level, "options": [label for label, _ in options]}
    return Planned(key, _record(s, key, uid, prompts.texts(key), scene_path(s, "videos/video_0.mp4"),
                                [p for _, p in options], meta, answer=LETTERS[correct]))


def sub_trajectories(s: BuiltScene, rng: np.random.Generator, limit: int = 12) -> list[tuple[int, int]]:
    """Windows of the walk that actually go somewhere, in time order."""
    xy = s.walk.xy
    walked = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(xy, axis=0), axis=1))])
    starts = np.arange(0, len(xy) - SUB_LENGTH, 3)
    ok = [a for a in starts if walked[a + SUB_LENGTH - 1] - walked[a] >= SUB_MIN_PATH
          and np.linalg.norm(xy[a + SUB_LENGTH - 1] - xy[a]) >= SUB_MIN_SPAN]
    chosen: list[int] = []
    for a in (ok[i] for i in rng.permutation(len(ok))):
        if all(abs(a - b) >= SUB_SPACING for b in chosen):
            chosen.append(int(a))
        if len(chosen) == limit:
            break
    return [(a, a + SUB_LENGTH) for a in sorted(chosen)]


def _shape(xy: np.ndarray, n: int = 16) -> np.ndarray:
    walked = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(xy, axis=0), axis=1))])
    t = np.linspace(0, walked[-1], n)
    return np.stack([np.interp(t, walked, xy[:, 0]), np.interp(t, walked, xy[:, 1])], 1)


def _apart(a: np.ndarray, b: np.ndarray) -> bool:
    """Two paths look different on a map, also when one is walked backwards."""
    return min(np.linalg.norm(a - b, axis=1).mean(), np.linalg.norm(a - b[::-1], axis=1).mean()) >= SHAPE_APART


def _trajectory_questions(s, needs, rng, cfg) -> list[Planned]:
    subs = sub_trajectories(s, rng)
    shapes = [_shape(s.walk.xy[a:b]) for a, b in subs]
    out = []
    for c in rng.permutation(len(subs)):
        if len(out) == cfg.per_column:
            break
        others = [k for k in rng.permutation(len(subs)) if k != c and _apart(shapes[k], shapes[c])]
        distractors: list[int] = []
        for k in others:
            if all(_apart(shapes[k], shapes[d]) for d in distractors):
                distractors.append(int(k))
            if len(distractors) == 3:
                break
        if len(distractors) < 3:
            continue
        correct = int(rng.integers(4))
        options = distractors[:correct] + [int(c)] + distractors[correct:]
        needs.subs[int(c)] = subs[c]
        for k in options:
            needs.traj_options[k] = subs[k]
        uid = prompts.uid("Traj", s.number, sub=int(c))
        a, b = subs[c]
        meta = {"video": f"sub_trajectory_{c}", "topdown": "occupancy", "frames": [a, b - 1],
                "options": [f"sub_trajectory_{k}" for k in options]}
        images = [scene_path(s, f"trajectories/sub_trajectory_{k}.png") for k in options]
        out.append(Planned("Traj", _record(s, "Traj", uid, prompts.texts("Traj"),
                                           scene_path(s, f"videos/sub_trajectory_{c}.mp4"), images, meta,
                                           answer=LETTERS[correct])))
    return out
