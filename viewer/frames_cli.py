"""`gst-viewer frames`: what each model saw of each question's video (docs/frames.md).

    gst-viewer frames RELEASE --frames POLICY [-p [NAME=]PRED ...] [--frames NAME=POLICY ...] [--json]
                      [--executor local|dask] [--address ADDR] [--workers N]

Per question: the video's frame count, the indices the model's policy samples, the frames that show the
target and how they were found (red box, metadata, ray cast), k (sampled frames showing it) and the
largest box at the model's resolution. Without prediction files the policy is reported on its own.
`score --by target-sampled` (viewer/score_cli.py) uses the same analysis (`analyse`).
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field

from .cli_args import (
    EXIT_FAILED,
    EXIT_OK,
    add_benchmark_option,
    add_executor_options,
    batch_executor,
    check_prediction_args,
    check_release_arg,
    print_problems,
)
from .core.diagnostics import UserError

PROBLEMS_SHOWN = 30
POLICY_ONLY = "policy"          # the row name when no prediction file is given


def add_frames_options(p: argparse.ArgumentParser, required: bool) -> None:
    p.add_argument("--frames", action="append", default=[], metavar="[NAME=]POLICY", required=required,
                   help="the frames a model is given: uniform:N[,vlmevalkit], fps:F[,max:N], all or list:FILE, "
                        "optionally @SIDE or @WxH for its input resolution (e.g. uniform:32@448); NAME= sets "
                        "one model's policy. A record's own 'frames' field wins (docs/frames.md)")


def frame_policies(frames_args: list[str]):
    """core.frames.FramePolicies from the --frames arguments (the window's too); UserError if bad."""
    from .core.frames import FramePolicies
    from .core.frames.sampling import PolicyError
    try:
        return FramePolicies.parse(frames_args)
    except PolicyError as e:
        raise UserError(str(e)) from None


@dataclass
class Analysis:
    """Per model, per question: core.frames.QuestionFrames; and the problems met, one line each."""
    models: dict[str, list] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def analyse(release, frames_args: list[str], sources: dict[str, str], executor=None,
            progress=None, ray_cast: bool = False) -> Analysis:
    """Every question for every model (`sources`: model name -> its prediction file, "" for none).
    With `ray_cast`, targets are also found by ray casting their scene's mesh (open3d): where the metadata
    has none, and to report how it agrees where it has."""
    from .core.frames import target_seen
    from .core.frames.sampling import PolicyError
    from .core.scene.model import link_question
    from .core.scene.sources import SceneLibrary
    from .render.frames_scan import facts_of, release_video_facts

    policies = frame_policies(frames_args)
    unknown = policies.unknown_models(sources)
    if unknown:
        raise UserError(f"--frames names {', '.join(unknown)}, which is no model here "
                        f"(models: {', '.join(sources) or 'none'})")
    out = Analysis()
    facts = release_video_facts(release, executor, progress)
    out.problems += sorted({f.problem for f in facts.values() if f.problem})
    out.problems += sorted({f"{f.path}: variable frame rate: frames are sampled by index, not by time"
                            for f in facts.values() if f.variable_rate})
    scenes = SceneLibrary(release.root)
    keys = release.benchmark.keys
    cast = _memo_cast() if ray_cast else None
    per_q = []
    for q in release.questions:
        vf = facts_of(q, facts)
        target = target_seen(q, link_question(q, scenes.get(q.scene)), vf, cast)
        per_q.append((q, keys[q.column_index] if q.column is not None else None, vf, target))
    missing = sorted({vf.problem for _, _, vf, _ in per_q if vf is not None and vf.problem} - set(out.problems))
    out.problems += missing
    counts = {q.uid: vf.n_frames for q, _, vf, _ in per_q if vf is not None and not vf.problem}
    for model, source in sources.items():
        try:
            mf = policies.model_frames(model, source)
        except PolicyError as e:
            raise UserError(str(e)) from None
        if mf.lists is not None:
            mf.problems += mf.lists.check(release.uids, counts)
        if mf.policy is None and not mf.per_question:
            raise UserError(f"no frame policy for {model}: give --frames POLICY (or {model}=POLICY), "
                            "or a frames field in its records")
        out.problems += mf.problems
        rows = [mf.question(q, key, vf, target) for q, key, vf, target in per_q]
        out.models[model] = rows
    return out


def _memo_cast():
    """render.target_frames.ray_cast_target_frames, once per (scene, video, target)."""
    from .render.target_frames import ray_cast_target_frames
    done: dict = {}

    def cast(scene, video, target):
        key = (scene.id, video.id, target)
        if key not in done:
            done[key] = ray_cast_target_frames(scene, video, target)
        return done[key]
    return cast


def cmd_frames(argv: list[str]) -> int:
    """What each model saw: sampled frames, target frames, k and the box at the model's resolution."""
    p = argparse.ArgumentParser(prog="gst-viewer frames",
                                description="Per question: the video's frames, those a model's sampling "
                                            "policy gives it, the frames showing the target and how they were "
                                            "found, k (sampled frames showing it) and the box size at the "
                                            "model's resolution. Exit code 1 when a video could not be read.")
    p.add_argument("release", help="release folder (or its questions file)")
    p.add_argument("--predictions", "-p", dest="predictions", nargs="+", action="extend", default=[],
                   metavar="[NAME=]PRED", help="prediction files (NAME= names the model)")
    add_frames_options(p, required=False)
    p.add_argument("--json", action="store_true", help="one JSON document: per model, per question")
    p.add_argument("--ray-cast", action="store_true",
                   help="also find targets by ray casting the scenes' meshes: where the metadata lists no frames "
                        "(semantic questions), and its agreement with the metadata where it does (slow)")
    p.add_argument("--workers", type=int, help="worker processes scanning videos (default: one, here)")
    add_executor_options(p, "the video scans")
    add_benchmark_option(p)
    args = p.parse_args(argv)
    check_release_arg(args.release)
    check_prediction_args(args.predictions)
    if not args.frames and not args.predictions:
        p.error("give --frames POLICY (and prediction files, or none to see the policy alone)")

    from .core.release import load_release
    from .textprogress import ProgressBar
    release = load_release(args.release, args.benchmark)
    sources = _model_sources(args.predictions) if args.predictions else {POLICY_ONLY: ""}
    executor = batch_executor(args)
    try:
        from .render.frames_scan import videos_of
        with ProgressBar("scanning videos", len(videos_of(release)), min_total=4) as bar:
            analysis = analyse(release, args.frames, sources, executor, progress=bar, ray_cast=args.ray_cast)
    finally:
        if executor is not None:
            executor.close()
    if args.json:
        print(json.dumps({"models": {m: [r.json() for r in rows] for m, rows in analysis.models.items()},
                          "problems": analysis.problems}, indent=1))
    else:
        print(format_frames(analysis, release))
    if analysis.problems:
        print_problems(analysis.problems, PROBLEMS_SHOWN)
    unreadable = [x for x in analysis.problems if "variable frame rate" not in x]
    return EXIT_FAILED if unreadable else EXIT_OK


def _model_sources(predictions: list[str]) -> dict[str, str]:
    """Model name -> prediction file: NAME= when given, else the name the file's records give."""
    from .core.predictions import load_predictions, named_path
    out: dict[str, str] = {}
    for arg in predictions:
        try:
            sets = load_predictions(arg)
        except UserError as e:
            print(f"gst-viewer: {e}", file=sys.stderr)
            continue
        path = str(named_path(arg)[1])
        for s in sets:
            out[s.model] = path
    if not out:
        raise UserError("no prediction file could be read")
    return out


def format_frames(analysis: Analysis, release) -> str:
    """One line per model and question, then per model how many targets were never sampled."""
    lines = []
    for model, rows in analysis.models.items():
        lines.append(f"== {model}")
        head = f"{'question':44s} {'column':8s} {'frames':>6s} {'sampled':>7s} {'target':>6s}  {'found by':10s}" \
               f" {'k':>3s}  box@model"
        lines += [head, "-" * len(head)]
        for r in rows:
            uid = release.benchmark.short_uid(release.questions[release.index[r.uid]])
            if r.problem:
                lines.append(f"{uid[:44]:44s} {(r.column or '-'):8s} {r.problem}")
                continue
            t = r.target
            known = t is not None and t.source not in ("unknown", "no target")
            box = f"{r.box_at_model[0]}x{r.box_at_model[1]}" if r.box_at_model else "-"
            lines.append(f"{uid[:44]:44s} {(r.column or '-'):8s} {r.n_frames or 0:6d} {len(r.sampled):7d} "
                         f"{(len(t.frames) if known else '-'):>6}  {(t.source if t else 'unknown'):10s} "
                         f"{('-' if r.k is None else r.k):>3}  {box}" + (f"  ({r.note})" if r.note else ""))
        known = [r for r in rows if r.k is not None]
        never = sum(1 for r in known if r.k == 0)
        lines.append(f"{model}: target never sampled in {never} of {len(known)} questions with known target frames")
        lines.append("")
    return "\n".join(lines).rstrip()
