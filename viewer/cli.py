"""`gst-viewer`: the one entry point.

    gst-viewer [RELEASE] [--predictions P ...]   open the window (default: bundled demo)
    gst-viewer score RELEASE PRED [PRED ...]     Table-1 leaderboard
    gst-viewer make-demo OUT                     generate a demo release
    gst-viewer --selftest [--no-window]          check, headless, that the app works
    gst-viewer audit RELEASE [--json] ...        ground-truth audit (viewer/audit_cli.py)
    gst-viewer flags export RELEASE --format F   reviewer verdicts and notes
    gst-viewer render|clip|gallery RELEASE ...   figures, clips, task gallery (viewer/export_cli.py)

User errors end in a one-line message on stderr and exit code 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

from . import __version__
from .core.diagnostics import UserError

EXIT_USER_ERROR = 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"score": cmd_score, "make-demo": cmd_make_demo, "--selftest": cmd_selftest,
                "audit": cmd_audit, "flags": cmd_flags,
                "render": _export("cmd_render"), "clip": _export("cmd_clip"), "gallery": _export("cmd_gallery")}
    try:
        if argv and argv[0] in commands:
            return commands[argv[0]](argv[1:])
        return cmd_open(argv)
    except UserError as e:
        print(f"gst-viewer: {e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("gst-viewer: interrupted", file=sys.stderr)
        return 130


# ------------------------------------------------------------------ score
def cmd_score(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gst-viewer score",
                                description="Score prediction files against a release, as Table 1 of the paper.")
    p.add_argument("release", help="release folder (or its questions file)")
    p.add_argument("predictions", nargs="+", help="prediction files: JSONL, lmms-eval logs, VLMEvalKit TSV/XLSX")
    p.add_argument("--json", action="store_true", help="print the leaderboard as JSON")
    p.add_argument("--per-sample", metavar="FILE.jsonl", help="write one line per (model, question)")
    p.add_argument("--quiet", "-q", action="store_true", help="do not print warnings")
    args = p.parse_args(argv)

    from .core.session import open_session
    from .textprogress import ProgressBar

    with ProgressBar("scoring", len(args.predictions), min_total=4) as bar:
        session = open_session(args.release, args.predictions, progress=bar)
    if not session.results:
        _print_diagnostics(session.diagnostics, quiet=False)
        raise UserError("no prediction file could be read")
    if not args.quiet:
        _print_diagnostics(session.diagnostics, quiet=False)

    if args.per_sample:
        _write_per_sample(session, Path(args.per_sample))
    board = session.leaderboard()
    if args.json:
        print(json.dumps(board, indent=2, allow_nan=False))
    else:
        print(format_table(board, session.random_row()))
    return 0


def format_table(board: dict, random_row: dict | None = None) -> str:
    from .core.tasks import COLUMN_KEYS
    models = board["models"]
    name_w = max([len("Model"), len("Random (uniform)")] + [len(m) for m in models])
    cols = list(COLUMN_KEYS) + ["Avg"]
    widths = [max(len(c), 5) for c in cols]

    def fmt(v):
        return "-" if v is None else f"{v:.1f}"

    def row(name, values):
        return "  ".join([name.ljust(name_w)] + [fmt(v).rjust(w) for v, w in zip(values, widths)])

    lines = ["  ".join(["Model".ljust(name_w)] + [c.rjust(w) for c, w in zip(cols, widths)])]
    lines.append("-" * len(lines[0]))
    for name, m in models.items():
        lines.append(row(name, [m["columns"][k] for k in COLUMN_KEYS] + [m["avg"]]))
    if random_row is not None:
        from .core.evaluate import average
        lines.append("-" * len(lines[0]))
        lines.append(row("Random (uniform)", [random_row[k] for k in COLUMN_KEYS] + [average(random_row)]))
    unparsed = {n: m["unparsed"] for n, m in models.items() if m["unparsed"]}
    if unparsed:
        lines.append("")
        lines.append("unparsed answers (scored 0): " + ", ".join(f"{n}: {k}" for n, k in unparsed.items()))
    return "\n".join(lines)


def _write_per_sample(session, path: Path) -> None:
    from .core.atomic import atomic_write_text
    release = session.release
    out = []
    for r in session.results:
        for i, q in enumerate(release.questions):
            kind = q.kind
            parsed = None
            if kind is not None and r.status[i] == "ok":
                parsed = list(r.answer[i]) if kind.width == 2 else float(r.answer[i, 0])
            out.append(json.dumps({
                "model": r.model, "uid": q.uid,
                "column": q.column.key if q.column else None,
                "ground_truth": q.answer_raw,
                "ground_truth_parsed": kind.format(q.truth.value) if kind and q.truth.ok else None,
                "prediction": r.raw[i], "parsed": parsed, "status": r.status[i],
                "error": _num(r.error[i]), "score": _num(r.score[i]),
            }, ensure_ascii=False))
    try:
        atomic_write_text(path, "\n".join(out) + "\n")
    except OSError as e:
        raise UserError(f"{path}: cannot write ({e.strerror or e})") from None


def _num(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _print_diagnostics(diags, quiet: bool, limit: int = 30) -> None:
    items = list(diags)
    for d in items[:limit]:
        print(str(d), file=sys.stderr)
    if len(items) > limit:
        print(f"... and {len(items) - limit} more", file=sys.stderr)


# ------------------------------------------------------------------ demo
def cmd_make_demo(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gst-viewer make-demo",
                                description="Generate a demo release with 3D scenes, videos and predictions.")
    p.add_argument("out", help="output folder")
    p.add_argument("--scenes", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-scenes", action="store_true",
                   help="write no 3D metadata (scene.json, meshes, meta), as the real release ships")
    args = p.parse_args(argv)
    try:
        from .demo.generate import generate_demo
    except ImportError as e:
        raise UserError(f"the demo generator is not available ({e})") from None
    generate_demo(Path(args.out), scenes=args.scenes, seed=args.seed, with_scenes=not args.no_scenes)
    return 0


# ------------------------------------------------------------------ audit, flags
def cmd_audit(argv: list[str]) -> int:
    from .audit_cli import cmd_audit as run
    return run(argv)


def cmd_flags(argv: list[str]) -> int:
    from .audit_cli import cmd_flags as run
    return run(argv)


def _export(name: str):
    """Figures, clips and the task gallery (viewer/export_cli.py), imported when used."""
    def run(argv: list[str]) -> int:
        from . import export_cli
        return getattr(export_cli, name)(argv)
    return run


# ------------------------------------------------------------------ selftest
def cmd_selftest(argv: list[str]) -> int:
    from .selftest import main as selftest_main
    return selftest_main(argv)


# ------------------------------------------------------------------ window
def cmd_open(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gst-viewer",
                                description="Inspect GST-Bench releases and model predictions.")
    p.add_argument("release", nargs="?", help="release folder; default: the bundled demo")
    p.add_argument("--predictions", "-p", nargs="*", default=None,
                   help="prediction files (default: the release's predictions/*.jsonl; -p alone: none)")
    p.add_argument("--uid", help="select this question")
    p.add_argument("--screenshot", metavar="OUT.png", help="save the window and exit")
    p.add_argument("--size", default="1600x1000", help="window size for --screenshot")
    p.add_argument("--version", action="version", version=f"gst-viewer {__version__}")
    args = p.parse_args(argv)

    from .assets import default_predictions, default_release
    release = args.release or default_release()
    if not Path(release).expanduser().exists():
        raise UserError(f"{release}: no such file or folder")
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
        return cmd_score([str(release), *map(str, predictions)]) if predictions else 0
    return run_app(release, predictions, uid=args.uid, screenshot=args.screenshot, size=args.size)


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


if __name__ == "__main__":
    sys.exit(main())
