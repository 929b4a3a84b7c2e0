"""`gst-viewer reconstruct RELEASE`: the camera path and sparse points of each walkthrough video, by structure
from motion (viewer/render/sfm, pycolmap: the [sfm] extra), and each question's query view localised in it.

    gst-viewer reconstruct RELEASE [--scene S ...] [--video PATH] [--step N] [--executor local|dask]
                                   [--address ADDR] [--workers N] [--refresh] [--json]

One job per video (on a Dask cluster with --executor dask). Each result is cached per video in the user's
cache folder (core/scene/sfm_result.sfm_cache_file), keyed by the video's size and mtime; a run that fails
or is interrupted caches nothing. Exit codes: 0 every video reconstructed; 1 a video failed (its reason is
printed, naming the file); 2 a user error (no release, no video, pycolmap missing).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace

from .cli_args import (
    EXIT_FAILED,
    EXIT_OK,
    add_benchmark_option,
    add_executor_options,
    add_workers_option,
    batch_executor,
    check_release_arg,
    positive_int,
)
from .core.diagnostics import UserError


def cmd_reconstruct(argv: list[str]) -> int:
    """Structure from motion per video of a release, with its query views localised."""
    p = argparse.ArgumentParser(
        prog="gst-viewer reconstruct",
        description="The camera path and sparse points of each walkthrough video of a release, by structure "
                    "from motion (pycolmap), and each question's query view localised in them; cached per video.")
    p.add_argument("release", help="the release folder or questions file")
    p.add_argument("--scene", action="append", default=[], help="only this scene (repeatable)")
    p.add_argument("--video", help="only this video (a file of the release, or any video: then without queries)")
    p.add_argument("--step", type=positive_int, default=None,
                   help="use every N-th frame (default: every 2nd)")
    p.add_argument("--refresh", action="store_true", help="reconstruct again even when a cached result is valid")
    p.add_argument("--json", action="store_true", help="print one JSON object per video instead of the report")
    add_benchmark_option(p)
    add_executor_options(p, "the per-video work")
    add_workers_option(p, "processes (--executor local) or a LocalCluster's workers (dask); default: one video "
                          "after another here")
    args = p.parse_args(argv)
    from .render.sfm import SfmError, SfmSettings, import_pycolmap
    try:
        import_pycolmap()
    except SfmError as e:
        raise UserError(str(e)) from None
    jobs = video_jobs(args)
    settings = SfmSettings() if args.step is None else SfmSettings(step=args.step)
    executor = batch_executor(args)
    results: dict[str, dict] = {}
    keys = [j["video"] for j in jobs]
    copies = {j["video"]: j["copies"] for j in jobs}
    work = [(j["video"], j["queries"], replace(settings, intrinsics=j["intrinsics"]), args.refresh,
             executor is None and not args.json, j["scene"]) for j in jobs]
    try:
        if executor is None:
            for key, job in zip(keys, work):
                results[key] = {**reconstruct_job(*job), "copies": copies[key]}
                if not args.json:
                    print_report(results[key])
        else:
            for key, out in executor.map_unordered(reconstruct_job, work, keys):
                results[key] = out
    finally:
        if executor is not None:
            executor.close()
    ordered = [{**results[k], "copies": copies[k]} for k in keys]
    if args.json:
        for r in ordered:
            print(json.dumps(r))
    elif executor is not None:
        for r in ordered:
            print_report(r)
    failed = [r for r in ordered if not r["ok"]]
    if failed and not args.json:
        print(f"gst-viewer reconstruct: {len(failed)} of {len(ordered)} video(s) failed", file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK


def video_jobs(args) -> list[dict]:
    """One job per walk (a video and its red-box copies, core/scene/walks.py): {video, scene, queries (name →
    image file) of every question of the walk, intrinsics (when the scene knows them), copies}."""
    check_release_arg(args.release)
    from .core.release import load_release
    release = load_release(args.release, benchmark=args.benchmark)
    wanted_scenes = set(args.scene)
    unknown = wanted_scenes - set(release.scenes)
    if unknown:
        raise UserError(f"no scene {', '.join(sorted(unknown))} in {args.release} "
                        f"(its scenes: {', '.join(release.scenes[:10])}{' ...' if len(release.scenes) > 10 else ''})")
    only = os.path.realpath(args.video) if args.video else None
    if only is not None and not os.path.isfile(only):
        raise UserError(f"--video {args.video}: no such file")
    from .core.scene.walks import walk_jobs
    from .render.video import same_frame_count
    jobs = walk_jobs(release, wanted_scenes or None, only, same_walk=same_frame_count)
    if only is not None and not jobs:
        jobs = [{"video": only, "scene": None, "queries": {}, "intrinsics": None, "copies": []}]
    if not jobs:
        where = f" of scene {', '.join(sorted(wanted_scenes))}" if wanted_scenes else ""
        raise UserError(f"{args.release}: no readable video{where} to reconstruct")
    return jobs


def reconstruct_job(video: str, queries: dict, settings, refresh: bool, show_progress: bool = False,
                    scene: str | None = None) -> dict:
    """One video's reconstruction (cached), as the report's plain dict; a failure is a dict with its reason.
    The cache's index is told the release's `scene` of it (the window then finds it without the release)."""
    from .render.sfm import SfmError, cached_reconstruction
    progress, bars = None, {}
    if show_progress:
        from .textprogress import ProgressBar

        def progress(stage, done, total):
            bar = bars.get(stage)
            if bar is None:
                for old in bars.values():
                    old.close()
                bar = bars[stage] = ProgressBar(f"{os.path.basename(video)}: {stage}", total)
            bar(done, total)
    try:
        result, cached = cached_reconstruction(video, queries, settings, progress=progress, refresh=refresh)
    except SfmError as e:
        return {"video": video, "ok": False, "error": str(e)}
    finally:
        for bar in bars.values():
            bar.close()
    if scene:
        from .core.scene.sfm_result import note_scene
        note_scene(video, scene)
    s = result.stats
    return {"video": video, "ok": True, "cached": cached,
            "sampled_frames": s.get("sampled_frames"), "registered_frames": s.get("registered_frames"),
            "models": s.get("models"), "models_before_merge": s.get("models_before_merge"),
            "largest_model_share": s.get("largest_model_share"), "points": s.get("points"),
            "queries": len(result.queries), "queries_localised": sum(q.localised for q in result.queries.values()),
            "not_localised": {n: q.why for n, q in result.queries.items() if not q.localised},
            "wall_seconds": s.get("wall_seconds"), "cpu_seconds": s.get("cpu_seconds"),
            "problems": s.get("problems", [])}


def print_report(r: dict) -> None:
    name = r["video"]
    if not r["ok"]:
        print(f"{name}: FAILED: {r['error']}")
        return
    print(f"{name}: {r['registered_frames']}/{r['sampled_frames']} frames in one model "
          f"({100 * r['largest_model_share']:.0f} %; {r['models_before_merge']} model(s) before merging, "
          f"{r['models']} after), {r['points']} points, {r['queries_localised']}/{r['queries']} query views "
          f"localised, wall {r['wall_seconds']:.0f} s, CPU {r['cpu_seconds']:.0f} s"
          f"{' (cached)' if r['cached'] else ''}")
    if r.get("copies"):
        print(f"  serves its red-box cop{'ies' if len(r['copies']) > 1 else 'y'} too (the same walk, not "
              f"reconstructed again): {', '.join(os.path.basename(c) for c in r['copies'])}")
    for q, why in r["not_localised"].items():
        print(f"  {q}: not localised: {why}")
    for problem in r["problems"]:
        print(f"  {problem}")
