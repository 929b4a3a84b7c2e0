"""`gst-viewer make-demo OUT`: a complete generated GST-Bench release with 3D scenes.

Per scene: an apartment (GLB), an exploration video rendered by ray casting,
query views, top-down maps at three levels, and questions for all 12 Table-1
columns in the published question.json format (one `questions.jsonl` at the
root). Geometric answers are computed by the core (`recompute_ground_truth`)
from the scene.json just written, and cross-checked against the generator's
own camera headings, so a convention slip anywhere fails the generation
rather than shipping wrong ground truth. Simulated models' predictions go to
`predictions/<model>.jsonl`.

Deterministic: every random choice comes from numpy Generators seeded with
(seed, purpose), nothing depends on time or on the order files are listed.
The release is assembled in a sibling folder and moved into place at the end.
"""
from __future__ import annotations

import json
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from viewer import __version__
from viewer.core.diagnostics import UserError
from viewer.core.geometry import recompute_ground_truth

from ..core.benchmarks.gst.columns import COLUMN_BY_KEY, COLUMN_KEYS
from ..core.column import Column
from ..core.scene.model import link_question, load_scene
from ..core.scene.writer import readable_json
from . import models, settings_models
from .drawing import write_image
from .questions import Planned, map_path, plan_scene
from .scenebuild import BuiltScene, DemoConfig, build_distractor, build_scene
from .settings import LOCAL_IMAGE, LOCAL_VIDEO, plan_variants
from .writer import write_scene

MARKER = "demo.json"
TDS_CHOICE = ("Easy: the true photo-like map among photo-like maps of other layouts; Medium: the same "
              "with occupancy maps; Hard: floor plans (walls only), two distractors being the scene's own "
              "plan mirrored left-right and top-bottom (look-alikes no rotation produces), the third another "
              "layout's plan.")


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def generate_demo(out: Path, scenes: int = 3, seed: int = 0, *, config: DemoConfig | None = None,
                  with_scenes: bool = True, with_settings: bool = False, log=_stderr, executor=None) -> dict:
    """Write the demo release into `out`; returns its summary (also written as demo.json).

    `with_scenes=False` writes the same questions, media and predictions with
    no 3D metadata, as the real release ships: no scene.json, no meshes, no
    `meta` links (only the uids link questions), media under `media/`.
    `with_settings=True` also writes the Local-Video and Local-Image variants of
    the object questions (demo/settings.py) after the global questions, and the
    predictions of the models built for Table 2 (demo/settings_models.py).
    `executor` (core/executors.py) builds the scenes elsewhere, a job each; the release is the same.
    """
    cfg = config or DemoConfig()
    out = Path(out)
    if scenes < 1:
        raise UserError("--scenes must be at least 1")
    if with_settings and not with_scenes:
        raise UserError("--settings needs the 3D metadata: a local variant's query view is named only in its "
                        "`meta`, which --no-scenes removes")
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).is_file())):
        raise UserError(f"{out}: exists and is not an earlier generated demo (no {MARKER}); "
                        "choose an empty or new folder")
    work = out.parent / f".{out.name}.partial"
    try:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        summary = _generate(work, scenes, seed, cfg, log, with_scenes, with_settings, executor)
        _replace(work, out)
    except OSError as e:
        shutil.rmtree(work, ignore_errors=True)
        raise UserError(f"{e.filename or out}: cannot write the demo ({e.strerror or e})") from None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    log(f"demo written to {out}: {summary['total_questions']} questions in {scenes} scenes")
    return summary


def _replace(work: Path, out: Path) -> None:
    old = out.parent / f".{out.name}.old"
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    work.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def _generate(root: Path, n_scenes: int, seed: int, cfg: DemoConfig, log, with_scenes: bool = True,
              with_settings: bool = False, executor=None) -> dict:
    pool_all: list[tuple[str, dict[str, str]]] = []
    for j in range(cfg.distractors):
        label = f"apartment_{j}"
        maps = build_distractor(j, root / "distractors" / label, np.random.default_rng([seed, 1000 + j]), cfg)
        for level, image in maps.items():
            write_image(root / "distractors" / label / f"{level}.png", image)
        pool_all.append((label, {level: f"distractors/{label}/{level}.png" for level in maps}))
    scene_ids = [f"scene_{k}" for k in range(1, n_scenes + 1)]
    pool_all += [(sid, {lv: map_path(sid, lv) for lv in ("photo", "occupancy", "floorplan")}) for sid in scene_ids]

    records: list[dict] = []
    variants: list[dict] = []                   # local variants go after every global question
    jobs = [(k, root, seed, cfg, pool_all, with_settings) for k in range(1, n_scenes + 1)]
    if executor is None:
        done = {sid: _scene_work(*job, log=log) for sid, job in zip(scene_ids, jobs)}
    else:
        # Each scene draws from its own generator: the same release whichever machine made which scene.
        done = dict(executor.map_unordered(_scene_work, jobs, scene_ids))
    for sid in scene_ids:
        records += done[sid][0]
        variants += done[sid][1]
    n_global = len(records)
    records += variants
    if not with_scenes:
        _strip_scenes(root, records, scene_ids)
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

    (root / "predictions").mkdir()
    writers = {name: models.predictions for name in models.PROFILES}
    if with_settings:
        writers.update({name: settings_models.predictions for name in settings_models.PROFILES})
    for name in sorted(writers):
        preds = writers[name](name, records, seed)
        (root / "predictions" / f"{name}.jsonl").write_text(
            "\n".join(json.dumps(p, ensure_ascii=False) for p in preds) + "\n", encoding="utf-8")

    counts = {key: sum(1 for r in records[:n_global] if r["task"] == COLUMN_BY_KEY[key].task)
              for key in COLUMN_KEYS}
    summary = {"generator": "gst-viewer make-demo", "version": __version__, "seed": seed,
               "scenes": scene_ids, "config": asdict(cfg), "questions": counts,
               "total_questions": len(records), "scene_metadata": with_scenes, "models": models.PROFILES,
               "topdown_options": TDS_CHOICE}
    if with_settings:
        summary["local_variants"] = {setting: sum(1 for r in variants if r["setting"] == setting)
                                     for setting in (LOCAL_VIDEO, LOCAL_IMAGE)}
        summary["models"] = {**models.PROFILES, **settings_models.PROFILES}
    (root / MARKER).write_text(readable_json(summary) + "\n", encoding="utf-8")
    (root / "README.md").write_text(_readme(summary), encoding="utf-8")
    empty = [k for k, n in counts.items() if n == 0]
    if empty:
        log(f"warning: no questions for {', '.join(empty)} (scenes too small for them)")
    return summary


def _scene_work(k: int, root: Path, seed: int, cfg: DemoConfig, pool_all: list, with_settings: bool,
                log=_stderr) -> tuple[list[dict], list[dict]]:
    """Build scene k, write its folder, and return its questions and local variants (one job)."""
    # The textures draw their own seed, so the flat and the textured release share every other choice.
    texture_seed = int(np.random.SeedSequence([seed, k, 2]).generate_state(1)[0])
    s = build_scene(k, root / "scenes" / f"scene_{k}", np.random.default_rng([seed, k]), cfg, log, texture_seed)
    pool = [p for p in pool_all if p[0] != s.id]
    planned, needs = plan_scene(s, pool, np.random.default_rng([seed, k, 1]), cfg)
    local = plan_variants(s, planned, needs, cfg, log) if with_settings else []
    write_scene(s, needs, cfg, root)
    _answer(planned + local, s, root)
    s.frames.clear()                            # the next scene's frames need the memory
    return [p.record for p in planned], [p.record for p in local]


MEDIA = "media"                 # where a release without scene metadata keeps the scenes' media


def _strip_scenes(root: Path, records: list[dict], scene_ids: list[str]) -> None:
    """Drop the 3D metadata: scene.json, meshes and `meta`; the media move from scenes/ to media/."""
    for sid in scene_ids:
        folder = root / "scenes" / sid
        for name in ("scene.json", "scene.glb"):
            (folder / name).unlink(missing_ok=True)
    (root / "scenes").rename(root / MEDIA)

    def moved(path: str) -> str:
        return MEDIA + path[len("scenes"):] if path.startswith("scenes/") else path
    for r in records:
        r.pop("meta", None)
        r["copied_video_path"] = moved(r["copied_video_path"])
        for im in r["images"]:
            im["copied_path"] = moved(im["copied_path"])


@dataclass(frozen=True)
class _Ask:
    """What link_question and recompute_ground_truth read from a question."""
    column: Column
    task: str
    scene: str
    video_id: str | None
    viewpoint: str | None
    target: str | None
    topdown: str | None


def _answer(planned: list[Planned], s: BuiltScene, root: Path) -> None:
    """Geometric answers from the written scene.json, by the core; cross-checked."""
    scene = load_scene(root, s.id)
    problems = [str(d) for d in scene.diagnostics.of_level("error")] if scene else ["scene.json missing"]
    if problems:
        raise RuntimeError(f"generated scene.json of {s.id} does not load cleanly: {problems[:3]}")
    for p in planned:
        if p.record["answer"] is not None:
            continue
        meta = p.record["meta"]
        column = COLUMN_BY_KEY[p.key]
        ask = _Ask(column, column.task, s.id, meta.get("video"), meta.get("viewpoint"), meta.get("target"),
                   meta.get("topdown"))
        r = recompute_ground_truth(ask, link_question(ask, scene))
        if r.value is None:
            raise RuntimeError(f"{p.record['uid']}: no ground truth from the geometry ({r.reason})")
        _cross_check(p, s, r.value)
        if column.kind_name == "point":
            p.record["answer"] = f"<point>{r.value[0]} {r.value[1]}</point>"
        elif column.kind_name == "distance":
            p.record["answer"] = float(r.value)
        else:
            p.record["answer"] = str(int(r.value))


def _cross_check(p: Planned, s: BuiltScene, value) -> None:
    """The same answer from the generator's own pose and box, without the core's geometry."""
    meta = p.record["meta"]
    key = p.key
    vp = s.views[meta["viewpoint"]].pose if meta.get("viewpoint") else None
    target = np.array(s.apt.instance(meta["target"]).bbox3()["translation"]) if meta.get("target") else None
    if key in ("ED_v", "ED_s", "Ori"):
        heading = np.degrees(np.arctan2(vp[1, 2], vp[0, 2]))
        if key == "Ori":                     # image up is world +y on these maps
            expected = heading - 90.0
        else:
            d = target[:2] - vp[:2, 3]
            expected = np.degrees(np.arctan2(d[1], d[0])) - heading
        ok = abs((expected - value + 180.0) % 360.0 - 180.0) <= 0.5 + 1e-6
    elif key in ("EDist_v", "EDist_s"):
        ok = abs(np.linalg.norm(target - vp[:3, 3]) - value) <= 0.05 + 1e-6
    else:
        where = target if key in ("GP_v", "GP_s") else vp[:3, 3]
        px = s.world_to_pixel[:, :2] @ where[:2] + s.world_to_pixel[:, 2]
        exact = px / [s.maps["occupancy"].shape[1], s.maps["occupancy"].shape[0]] * 1000.0
        ok = bool(np.all(np.abs(np.clip(exact, 0, 999) - np.asarray(value)) <= 1.0))
    if not ok:
        raise RuntimeError(f"{p.record['uid']}: the core computes {value!r} but the generator's own "
                           "geometry disagrees (camera convention or map transform out of step)")


def _readme(summary: dict) -> str:
    q = summary["questions"]
    lines = [
        "# Generated GST-Bench demo",
        "",
        f"Made by `gst-viewer make-demo` (version {summary['version']}) with seed {summary['seed']}: "
        f"{len(summary['scenes'])} procedurally generated apartments and {summary['total_questions']} "
        "questions in the published question format (`questions.jsonl`), "
        + ("with 3D scene metadata (`scenes/<scene>/scene.json`, spec section 3). "
           if summary["scene_metadata"] else
           "without 3D metadata, as the real release ships (`--no-scenes`: media under `media/`, "
           "questions linked only by their uids). ")
        + "Regenerate it with the same command and seed.",
        "",
        "Linked question sets: every query view of an ED or EDist question also has its Pos and Ori "
        "questions, and every target its GP question, so the map geometry can be rebuilt from the answers.",
        "",
        "Questions per column: " + ", ".join(f"{k} {n}" for k, n in q.items()) + ".",
        "",
        "## Simulated models (`predictions/`)",
        "",
        *[f"- `{name}`: {text}" for name, text in summary["models"].items()],
        "",
        "## Top-down selection options",
        "",
        summary["topdown_options"],
        "",
        "## Promises kept (checked by ray casting when generating)",
        "",
        "- the target of an object question appears in the exploration video (visual questions: in a "
        "red box, in the per-target copy `video0_obj_<target>.mp4`);",
        "- the target is not visible from the current view;",
        "- current views stand at least 0.6 m from every camera position of the video;",
        "- semantic questions only name categories with a single instance in the scene.",
        "",
        "Scenes with an even number store their poses in the OpenGL camera convention, the others in OpenCV.",
        "",
    ]
    if summary["config"].get("textured"):
        lines[-1:-1] = [
            "Surfaces carry procedural textures (`--textured`: wallpaper with pictures, floorboards, tiles, "
            "wood grain, fabric, plaster), fixed to the surfaces and drawn from the seed, so the videos hold "
            "features for structure from motion as real footage does.",
            "",
        ]
    if "local_variants" in summary:
        n = summary["local_variants"]
        lines[-1:-1] = [
            "## Settings (Table 2 of the paper)",
            "",
            f"Every object question also comes as a Local-Video ({n[LOCAL_VIDEO]}) and a Local-Image "
            f"({n[LOCAL_IMAGE]}) variant (`setting`, `base_uid`): asked from a query view in which the target "
            "is visible (at least 1 % of the image, by ray casting), with and without the video. "
            "Local variants are listed after the global questions; Table 1 counts only the global ones.",
            "",
        ]
    return "\n".join(lines)
