"""`gst-viewer render | clip | gallery`: figures, clips and slides of questions, for talks.

    gst-viewer render RELEASE --uid UID --out FIG.png|.svg|.pdf [--layout map|panel|3d] [--scale 2]
    gst-viewer clip RELEASE --uid UID --out CLIP.mp4|.gif [--seconds 10] [--size 1280x720]
    gst-viewer gallery RELEASE --out DIR [--uid UID ... | --filter EXPR] [--executor local|dask] [--workers N]

Predictions: `--predictions P ...`, else the release's `predictions/` folder
when it has one. `--models a,b` keeps some of them (colours stay those of
the full list, as in the window).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .cli_args import (
    EXIT_OK,
    add_benchmark_option,
    add_executor_options,
    add_workers_option,
    batch_executor,
    check_prediction_args,
    check_release_arg,
)
from .core.diagnostics import UserError


def _common(p: argparse.ArgumentParser, uid: bool = True) -> None:
    p.add_argument("release", help="release folder (or its questions file)")
    if uid:
        p.add_argument("--uid", required=True, help="the question to show")
    p.add_argument("--predictions", "-p", nargs="*", default=None,
                   help="prediction files, NAME=PATH to name a model (default: the release's predictions/ "
                        "folder)")
    p.add_argument("--models", help="comma-separated model names to show (default: all)")
    add_benchmark_option(p)


def _prediction_paths(args) -> list:
    from .assets import default_predictions
    return args.predictions if args.predictions is not None else default_predictions(Path(args.release))


def _session(args):
    from .core.session import open_session
    from .core.talk.showcase import choose_models
    check_release_arg(args.release)
    check_prediction_args(args.predictions or [])
    session = open_session(args.release, _prediction_paths(args), benchmark=args.benchmark)
    for d in session.diagnostics.of_level("error"):
        if d.code.startswith("prediction.") or (d.file and str(d.file).endswith((".jsonl", ".json", ".tsv"))):
            print(f"gst-viewer: {d}", file=sys.stderr)
    if args.predictions and not session.results and not session.diagnostics.with_code("prediction.no_match"):
        raise UserError("no prediction file could be read")     # given by name, none read: said above
    return session, choose_models(session, args.models)


def _subject(args, frames: bool = True):
    from .core.talk.showcase import find_question
    from .figures.canvas import ensure_gui_app
    from .figures.layouts import prepare
    session, models = _session(args)
    qi = find_question(session.release, args.uid)
    _say_question_problems(session, qi)
    ensure_gui_app()
    subject = prepare(session, qi, models, frames=frames)
    if subject.media.video_problem:                # drawn as far as it goes; said here for scripts too
        print(f"gst-viewer: {subject.media.video_problem}", file=sys.stderr)
    return subject


def _say_question_problems(session, qi: int) -> None:
    """What the figure of question qi must do without (a missing or refused medium), said on stderr:
    the figure shows a note in its place, but a script reading the output should hear it too."""
    q = session.release.questions[qi]
    for d in session.release.diagnostics:
        if d.file == q.source and d.line == q.line:         # its own question.json, or its line
            print(f"gst-viewer: {d}", file=sys.stderr)


# ------------------------------------------------------------------ render
def cmd_render(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gst-viewer render",
                                description="A figure of one question: map, panel (video strip, view, map or "
                                            "options, answers) or a 3D still. PNG, SVG or PDF.")
    _common(p)
    p.add_argument("--out", required=True, help="FILE.png, FILE.svg or FILE.pdf")
    p.add_argument("--layout", default="panel", choices=("map", "panel", "3d", "settings"),
                   help="settings: the question's Global, Local-Video and Local-Image variants side by side")
    p.add_argument("--scale", type=float, default=2.0, help="PNG pixels per logical pixel (default 2)")
    p.add_argument("--camera", default="overview",
                   help="3d layout: overview (default), query (the current view) or frame:K (video frame K)")
    p.add_argument("--theme", default="paper", choices=("paper", "light", "dark"),
                   help="colours: paper (print), light or dark (projector); default paper")
    args = p.parse_args(argv)
    from .figures.canvas import FORMATS
    out = _output(args.out, FORMATS, "figure", ".png, .svg or .pdf")
    if not args.scale > 0 or args.scale > 8:
        raise UserError(f"--scale {args.scale}: expected a number in (0, 8]")
    from .figures.layouts import export_figure
    from .figures.theme import THEMES
    subject = _subject(args, frames=args.layout == "panel")
    try:
        written = export_figure(subject, args.layout, out, args.scale, args.camera, THEMES[args.theme])
    finally:
        subject.close()
    _say_late_problems(subject)
    print(written)
    return EXIT_OK


def _say_late_problems(subject) -> None:
    """What drawing met after `_subject` spoke: a scene mesh refused (boxes drawn instead), a video frame that
    did not decode after all (drawn black)."""
    for problem in subject.assets.problems():
        print(f"gst-viewer: {problem}", file=sys.stderr)
    frames = subject.media.frames
    if frames is not None and frames.problem and frames.problem != subject.media.video_problem:
        print(f"gst-viewer: {frames.problem}", file=sys.stderr)


def _output(path: str, formats, what: str, expected: str) -> Path:
    """A writable output path whose extension names one of `formats`."""
    from .render.clip_writer import check_writable
    out = check_writable(Path(path))
    if out.suffix.lower() not in formats:
        raise UserError(f"{out}: unknown {what} format {out.suffix or '(none)'}; use {expected}")
    return out


# -------------------------------------------------------------------- clip
def cmd_clip(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gst-viewer clip",
                                description="A short clip of one question: the exploration video beside the map "
                                            "with the camera moving along its path, then the question's view, "
                                            "the models' answers and the truth. MP4 (H.264) or GIF.")
    _common(p)
    p.add_argument("--out", required=True, help="CLIP.mp4 or CLIP.gif (.avi also works)")
    p.add_argument("--seconds", type=float, default=10.0, help="clip length (default 10)")
    p.add_argument("--fps", type=float, default=15.0, help="frames per second (default 15)")
    p.add_argument("--size", default=None, help="WIDTHxHEIGHT (default 1280x720; GIF 800x450)")
    p.add_argument("--theme", default="dark", choices=("dark", "light", "paper"),
                   help="colours: paper (print), light or dark (projector); default dark")
    args = p.parse_args(argv)
    from .figures.clip_export import export_clip, parse_size
    from .figures.theme import THEMES
    from .render.clip_writer import SUFFIXES
    from .textprogress import ProgressBar
    out = _output(args.out, SUFFIXES, "clip", ".mp4 or .gif (or .avi)")
    size = parse_size(args.size) if args.size else None
    subject = _subject(args)
    try:
        frames = subject.media.frames
        if frames is not None and frames.note and frames.note != subject.media.video_problem:
            print(f"gst-viewer: {frames.note}", file=sys.stderr)
        with ProgressBar("clip", max(1, int(round(args.seconds * args.fps))), min_total=1, plain=True) as bar:
            result = export_clip(subject, out, args.seconds, args.fps, size, THEMES[args.theme], progress=bar)
    finally:
        subject.close()
    _say_late_problems(subject)
    if result.note:
        print(f"gst-viewer: {result.note}", file=sys.stderr)
    print(f"{result.path}  ({result.frames} frames, {result.size[0]}x{result.size[1]}, {result.codec})")
    return EXIT_OK


# ----------------------------------------------------------------- gallery
def cmd_gallery(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gst-viewer gallery",
                                description="One clean example of each of the 12 tasks: a PNG slide each "
                                            "(slide_01_ED_v.png ...), a grid of all (grid.png) and the "
                                            "choices made (gallery.json).")
    _common(p, uid=False)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--uid", nargs="+", metavar="UID", help="these questions, in this order, a slide each "
                       "(instead of one picked per task)")
    which.add_argument("--filter", metavar="EXPR", help="pick among the questions the browser's search keeps: "
                       "every word in the uid or task, or in one model's answer")
    p.add_argument("--out", required=True, help="output folder (created if missing)")
    p.add_argument("--theme", default="light", choices=("light", "dark", "paper"),
                   help="colours: paper (print), light or dark (projector); default light")
    add_executor_options(p, "the painting of the slides")
    add_workers_option(p, "processes painting slides (--executor local) or a LocalCluster's workers (dask); "
                          "default: one slide after another here")
    args = p.parse_args(argv)
    import uuid

    from .figures.canvas import ensure_gui_app
    from .figures.gallery import SessionSource, build_gallery
    from .figures.theme import THEMES
    from .textprogress import ProgressBar
    check_release_arg(args.release)
    executor = batch_executor(args)
    try:
        session, models = _session(args)
        questions, among = _gallery_questions(session, args)
        ensure_gui_app()
        # What the workers open: the files read here, by absolute path (a worker's folder is its own).
        source = SessionSource(str(Path(args.release).resolve()),
                               tuple(str(Path(x).resolve()) for x in _prediction_paths(args)),
                               args.benchmark, uuid.uuid4().hex)
        with ProgressBar("gallery", 13, plain=True) as bar:
            result = build_gallery(session, Path(args.out), models, THEMES[args.theme], progress=bar,
                                   executor=executor, source=source, questions=questions, among=among)
    finally:
        if executor is not None:
            executor.close()
    missing = [k for k, uid in result.picks.items() if uid is None]
    if missing and questions is None:
        where = "among the questions --filter keeps" if among is not None else "in this release"
        print(f"gst-viewer: no question for {', '.join(missing)} {where}", file=sys.stderr)
    n = len(result.slides)
    print(f"{n} slide{'s' if n != 1 else ''} and {result.grid} in {Path(args.out)}")
    return EXIT_OK


def _gallery_questions(session, args):
    """(the questions named by --uid, or None; the mask --filter keeps, or None). An unknown uid is an error
    naming it (and the closest ones); a filter that keeps nothing is one too."""
    if args.uid:
        from .core.talk.showcase import find_question
        return [find_question(session.release, u) for u in args.uid], None
    if args.filter is None:
        return None, None
    from .core.browse import BrowseFilter
    mask = session.browse_index.mask(BrowseFilter(text=args.filter), session.results)
    if not mask.any():
        raise UserError(f"--filter {args.filter!r}: no question's uid, task or answer contains every word")
    return None, mask
