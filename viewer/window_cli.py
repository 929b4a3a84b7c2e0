"""`gst-viewer [RELEASE] [-p PRED ...]`: the window, on a release (by default the bundled demo) or, with
`--scene DIR`, on one scene alone; `--screenshot OUT.png` saves it and exits.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import __version__
from .cli_args import add_benchmark_option, check_prediction_args, check_release_arg
from .core.diagnostics import UserError
from .frames_cli import add_frames_options, frame_policies


def cmd_open(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gst-viewer",
                                description="Inspect GST-Bench releases and model predictions.")
    p.add_argument("release", nargs="?", help="release folder; default: the bundled demo")
    p.add_argument("--predictions", "-p", nargs="*", default=None,
                   help="prediction files, NAME=PATH to name a model (default: the release's "
                        "predictions/*.jsonl; -p alone: none)")
    p.add_argument("--uid", help="select this question")
    add_frames_options(p, required=False)
    p.add_argument("--scene", metavar="DIR", help="open one scene folder (scene.json) on its own: 3D view, maps, "
                                                  "trajectory, no questions")
    add_benchmark_option(p)
    p.add_argument("--screenshot", metavar="OUT.png", help="save the window and exit")
    p.add_argument("--size", default="1600x1000", help="window size for --screenshot")
    p.add_argument("--version", action="version", version=f"gst-viewer {__version__}")
    args = p.parse_args(argv)

    if args.scene:
        if args.release or args.predictions or args.uid or args.benchmark or args.frames:
            raise UserError("--scene opens a scene on its own; it takes no release, predictions, --uid, "
                            "--frames or --benchmark")
        if not (Path(args.scene).expanduser() / "scene.json").is_file():
            raise UserError(f"{args.scene}: no scene.json in this folder")
        _choose_display(args.screenshot)
        from .ui.app import run_app
        return run_app(None, [], screenshot=args.screenshot, size=args.size, scene=args.scene)

    from .assets import default_predictions, default_release
    release = args.release or default_release()
    check_release_arg(release)
    check_prediction_args(args.predictions or [])
    policies = frame_policies(args.frames)
    predictions = args.predictions
    if predictions is None:
        # As `render` does: a release that carries its models' answers opens with them.
        predictions = default_predictions(release)
    _choose_display(args.screenshot)
    try:
        from .ui.app import run_app
    except ImportError as e:
        # Headless fallback: no window toolkit, still show what is there.
        print(f"gst-viewer: the window cannot start ({e}); printing the leaderboard instead",
              file=sys.stderr)
        from .score_cli import cmd_score
        return cmd_score([str(release), *map(str, predictions)]) if predictions else 0
    return run_app(release, predictions, uid=args.uid, screenshot=args.screenshot, size=args.size,
                   benchmark=args.benchmark, frames=policies)


def _choose_display(screenshot: str | None) -> None:
    """Without a screen, Qt aborts the process; say what to do instead, or draw offscreen."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM") \
            or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    if screenshot:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"      # a screenshot needs no screen
        return
    raise UserError("no display to open the window on (DISPLAY is not set): run it from a desktop, "
                    "under a virtual screen (`make run` or `xvfb-run gst-viewer`), or save a picture "
                    "with --screenshot OUT.png")
