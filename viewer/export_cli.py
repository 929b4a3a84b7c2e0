"""`gst-viewer render | clip | gallery`: figures, clips and slides of questions, for talks.

    gst-viewer render RELEASE --uid UID --out FIG.png|.svg|.pdf [--layout map|panel|3d] [--scale 2]
    gst-viewer clip RELEASE --uid UID --out CLIP.mp4|.gif [--seconds 10] [--size 1280x720]
    gst-viewer gallery RELEASE --out DIR

Predictions: `--predictions P ...`, else the release's `predictions/` folder
when it has one. `--models a,b` keeps some of them (colours stay those of
the full list, as in the window).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .core.diagnostics import UserError


def _common(p: argparse.ArgumentParser, uid: bool = True) -> None:
    p.add_argument("release", help="release folder (or its questions file)")
    if uid:
        p.add_argument("--uid", required=True, help="the question to show")
    p.add_argument("--predictions", "-p", nargs="*", default=None,
                   help="prediction files (default: the release's predictions/ folder)")
    p.add_argument("--models", help="comma-separated model names to show (default: all)")


def _session(args):
    from .assets import default_predictions
    from .core.session import open_session
    from .core.showcase import choose_models
    preds = args.predictions if args.predictions is not None else default_predictions(Path(args.release))
    session = open_session(args.release, preds)
    for d in session.diagnostics.of_level("error"):
        if "prediction" in d.message or (d.file and str(d.file).endswith((".jsonl", ".json", ".tsv"))):
            print(f"gst-viewer: {d}", file=sys.stderr)
    return session, choose_models(session, args.models)


def _subject(args, frames: bool = True):
    from .core.showcase import find_question
    from .figures.canvas import ensure_gui_app
    from .figures.layouts import prepare
    session, models = _session(args)
    qi = find_question(session.release, args.uid)
    ensure_gui_app()
    return prepare(session, qi, models, frames=frames)


# ------------------------------------------------------------------ render
def cmd_render(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gst-viewer render",
                                description="A figure of one question: map, panel (video strip, view, map or "
                                            "options, answers) or a 3D still. PNG, SVG or PDF.")
    _common(p)
    p.add_argument("--out", required=True, help="FILE.png, FILE.svg or FILE.pdf")
    p.add_argument("--layout", default="panel", choices=("map", "panel", "3d"))
    p.add_argument("--scale", type=float, default=2.0, help="PNG pixels per logical pixel (default 2)")
    p.add_argument("--camera", default="overview",
                   help="3d layout: overview (default), query (the current view) or frame:K (video frame K)")
    p.add_argument("--theme", default="paper", choices=("paper", "light", "dark"))
    args = p.parse_args(argv)
    from .figures.canvas import FORMATS
    from .render.clip_writer import check_writable
    out = check_writable(Path(args.out))
    if out.suffix.lower() not in FORMATS:
        raise UserError(f"{out}: unknown figure format {out.suffix or '(none)'}; use .png, .svg or .pdf")
    if not args.scale > 0 or args.scale > 8:
        raise UserError(f"--scale {args.scale}: expected a number in (0, 8]")
    from .figures.layouts import export_figure
    from .figures.theme import THEMES
    subject = _subject(args, frames=args.layout == "panel")
    try:
        written = export_figure(subject, args.layout, out, args.scale, args.camera, THEMES[args.theme])
    finally:
        subject.close()
    print(written)
    return 0
