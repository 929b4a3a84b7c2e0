"""`make-demo --settings`: the Local-Video and Local-Image variants of every object question (paper §4.3).

Local-Video asks the global question again from a query view in which the
target is visible, the video still in the prompt; Local-Image asks it from
that view alone. The view is one of the scene's candidate query views
(sampled off the walk, trajectory.VIEW_MIN_OFFSET), chosen because the
ray-cast render shows the target on at least LOCAL_MIN_FRACTION of the image:
ten times the share the audit calls unmistakably visible
(audit/checks/ray_cast.VIEW_ERROR_FRACTION). Answers are left to `generate`,
which recomputes them from the written geometry like every other one.

A visual target is marked by a red box in the video; with no video, the
Local-Image view carries the red box itself.
"""
from __future__ import annotations

import numpy as np

from viewer.core.audit.checks.ray_cast import VIEW_ERROR_FRACTION
from viewer.core.settings_table import LOCAL_IMAGE, LOCAL_VIDEO
from viewer.render.raycast import Raycaster, instance_bboxes_2d

from . import prompts
from .drawing import with_target_box
from .questions import Needs, Planned, map_path, scene_path, view_path
from .scenebuild import BuiltScene, DemoConfig

LOCAL_MIN_FRACTION = 0.01
assert LOCAL_MIN_FRACTION >= 10 * VIEW_ERROR_FRACTION
OBJECT_BASES = ("ED", "EDist", "GP")
MARKED_IN_VIEW = "the object marked with a red box in your current view"


def local_view(s: BuiltScene, target: str, cfg: DemoConfig, used: dict[str, int]) -> str | None:
    """The least-used candidate view showing `target` on at least LOCAL_MIN_FRACTION of the image (most first)."""
    need = LOCAL_MIN_FRACTION * cfg.width * cfg.height
    shown = [(n, v.visible.get(target, 0)) for n, v in sorted(s.views.items())]
    shown = [(n, px) for n, px in shown if px >= need]
    if not shown:
        return None
    name = min(shown, key=lambda t: (used.get(t[0], 0), -t[1], t[0]))[0]
    used[name] = used.get(name, 0) + 1
    return name


def _boxed_view(s: BuiltScene, view: str, target: str, cfg: DemoConfig) -> np.ndarray:
    r = Raycaster(s.mesh).render_view(s.views[view].pose, s.intrinsics, outlines=cfg.outlines)
    i = s.index(target)
    return with_target_box([s.views[view].color], [instance_bboxes_2d(r.instance)], i, np.array([0]))[0]


def plan_variants(s: BuiltScene, planned: list[Planned], needs: Needs, cfg: DemoConfig,
                  log=lambda msg: None) -> list[Planned]:
    """Both local variants of every object question in `planned` whose target some candidate view shows."""
    out: list[Planned] = []
    used: dict[str, int] = {}
    views: dict[str, str | None] = {}
    for p in planned:
        base, _, kind = p.key.partition("_")
        if base not in OBJECT_BASES:
            continue
        rec = p.record
        target = rec["meta"]["target"]
        if target not in views:
            views[target] = local_view(s, target, cfg, used)
            if views[target] is None:
                log(f"{s.id}: no candidate view shows {target} clearly; no local variants for it")
        view = views[target]
        if view is None:
            continue
        needs.views.add(view)
        category = s.apt.instance(target).category
        for setting in (LOCAL_VIDEO, LOCAL_IMAGE):
            out.append(Planned(p.key, _variant(s, p, setting, view, category, needs, cfg)))
    return out


def _variant(s: BuiltScene, p: Planned, setting: str, view: str, category: str, needs: Needs,
             cfg: DemoConfig) -> dict:
    base = p.record
    target = base["meta"]["target"]
    texts = prompts.texts(p.key, category)           # [video intro, (view or map) intro, question]
    image = view_path(s, view)
    if setting == LOCAL_IMAGE and p.key.endswith("_v"):
        image = scene_path(s, f"views/{view}_obj_{target}.jpg")
        needs.option_images[image] = _boxed_view(s, view, target, cfg)
        texts[-1] = texts[-1].replace(prompts.MARKED, MARKED_IN_VIEW)
    if p.key.startswith("GP"):                         # the global GP has no view: it comes before the map
        texts = [texts[0], prompts.CURRENT_VIEW, *texts[1:]]
        images = [image, map_path(s.id, "occupancy")]
    else:
        images = [image]
    if setting == LOCAL_IMAGE:
        texts = texts[1:]
    record = {"task": base["task"], "uid": f"{base['uid']}_{setting}", "setting": setting,
              "base_uid": base["uid"], "scene": s.id, "answer": None, "texts": texts}
    if setting == LOCAL_VIDEO:
        record["copied_video_path"] = base["copied_video_path"]
    record["images"] = [{"index": i + 1, "copied_path": path} for i, path in enumerate(images)]
    # The video stays in meta for Local-Image too: it is where the trajectory drawn on the map comes from.
    record["meta"] = {**base["meta"], "viewpoint": view}
    return record
