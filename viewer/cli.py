"""`gst-viewer`: the one entry point.

    gst-viewer [RELEASE] [--predictions P ...]   open the window (default: bundled demo)
    gst-viewer score RELEASE [-p] PRED [PRED ...] [--parser strict|lenient] [--format csv|md|tex] [--ci]   Table 1
    gst-viewer compare RELEASE A B [--json]      two models: differences, intervals, paired tests
    gst-viewer make-demo OUT                     generate a demo release
    gst-viewer --selftest [--no-window]          check, headless, that the app works
    gst-viewer audit RELEASE [--json] ...        ground-truth audit (viewer/audit_cli.py)
    gst-viewer flags export RELEASE --format F   reviewer verdicts and notes
    gst-viewer render|clip|gallery RELEASE ...   figures, clips, task gallery (viewer/export_cli.py)
    gst-viewer import-scene OUT_DIR SOURCE...     a real scene as gst-scene/1 (viewer/import_cli.py)
    gst-viewer --scene DIR                       open one scene on its own

Exit codes (README "Exit codes"): 0 success; 1 the command ran but found what it was asked to
fail on (`score`: an input could not be read or matched no question; `audit --fail-on`: findings of
that severity); 2 a user error (bad arguments, nothing usable), as a one-line message on stderr,
never a traceback; 130 interrupted.
"""
from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import sys
from pathlib import Path

from . import __version__
from .core.diagnostics import UserError

EXIT_OK = 0
EXIT_FAILED = 1          # ran, but an input failed or findings crossed --fail-on
EXIT_USER_ERROR = 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"score": cmd_score, "compare": cmd_compare, "make-demo": cmd_make_demo, "--selftest": cmd_selftest,
                "audit": cmd_audit, "flags": cmd_flags,
                "render": _export("cmd_render"), "clip": _export("cmd_clip"), "gallery": _export("cmd_gallery"),
                "import-scene": cmd_import_scene}
    try:
        if argv and argv[0] in commands:
            return commands[argv[0]](argv[1:])
        if argv and argv[0] in ("-h", "--help"):
            print(top_help(commands))
            return EXIT_OK
        if argv and not argv[0].startswith("-"):
            _unknown_command(argv[0], commands)
        return cmd_open(argv)
    except UserError as e:
        print(f"gst-viewer: {e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("gst-viewer: interrupted", file=sys.stderr)
        return 130


# ------------------------------------------------------------------ help
def top_help(commands: dict) -> str:
    """`gst-viewer --help`: the window's usage, then every subcommand with its one line."""
    width = max(len(name) for name in commands)
    lines = ["usage: gst-viewer [RELEASE] [-p PRED ...] [--uid UID] [--benchmark gst|vsi] [--screenshot OUT.png]",
             "       gst-viewer COMMAND ... (COMMAND --help for its options)",
             "",
             "Inspect GST-Bench releases and model predictions: without a command, open the window",
             "(on the bundled demo when no release is given).",
             "",
             "commands:"]
    for name, fn in commands.items():
        lines.append(f"  {name.ljust(width)}  {summary_of(fn)}")
    lines += ["",
              "exit codes: 0 done; 1 done, but an input failed (score) or findings reached --fail-on (audit);",
              "            2 user error (message on stderr); 130 interrupted"]
    return "\n".join(lines)


def summary_of(fn) -> str:
    """A command's one line: the first line of its docstring."""
    doc = (fn.__doc__ or "").strip()
    return doc.splitlines()[0].rstrip(".") if doc else ""


def _unknown_command(word: str, commands: dict) -> None:
    """A first argument that is neither a command nor an existing path: say what was probably meant."""
    if Path(word).expanduser().exists() or os.sep in word or "." in word:
        return
    close = difflib.get_close_matches(word, [c for c in commands if not c.startswith("-")], n=1, cutoff=0.6)
    if close:
        raise UserError(f"unknown command {word!r}; did you mean {close[0]!r}? (gst-viewer --help lists them)")
    raise UserError(f"{word!r} is neither a command nor a file or folder (gst-viewer --help lists the commands)")


# ------------------------------------------------------------------ what a path is
def path_role(path: str | Path) -> str:
    """What a path on the command line holds: "release", "predictions", "missing" or "other".

    Looks only at names and the first record, so a swapped argument is named before anything loads.
    """
    from .core.release import QUESTION_FILE, ROOT_FILES
    p = Path(path).expanduser()
    if not p.exists():
        return "missing"
    if p.is_dir():
        if any((p / f).is_file() for f in ROOT_FILES):
            return "release"
        for _, dirnames, filenames in os.walk(p):          # stops at the first question.json
            if QUESTION_FILE in filenames:
                return "release"
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        return "other"
    if p.name.lower() in (*ROOT_FILES, QUESTION_FILE):
        return "release"
    if p.suffix.lower() in (".xlsx", ".tsv", ".csv"):
        return "predictions"
    rec = _first_record(p)
    if not isinstance(rec, dict):
        return "other"
    if "task" in rec and ("texts" in rec or "images" in rec or "copied_video_path" in rec):
        return "release"
    from .core.predictions import PREDICTION_KEYS
    if any(k in rec for k in (*PREDICTION_KEYS, "resps", "filtered_resps", "logs")):
        return "predictions"
    return "other"


def _first_record(p: Path):
    """The first JSON record of a JSON Lines or JSON file (read from its first 256 kB), or None."""
    try:
        with open(p, "rb") as f:
            head = f.read(256 * 1024)
    except OSError:
        return None
    # Only the first non-blank line is decoded and parsed (`score` asks this of every prediction file): the
    # head is cut at "\n" first, then each piece as splitlines() cuts it, so the lines are the same.
    start = 0
    while start < len(head):
        end = head.find(b"\n", start)
        end = len(head) if end < 0 else end
        line = next((ln for ln in head[start:end].decode("utf-8", "replace").splitlines() if ln.strip()), None)
        if line is not None:
            try:
                rec = json.loads(line)
            except ValueError:
                break
            return rec[0] if isinstance(rec, list) and rec else rec
        start = end + 1
    try:
        doc = json.loads(head.decode("utf-8", "replace"))
    except ValueError:
        return None
    return doc[0] if isinstance(doc, list) and doc else doc


def check_release_arg(release: str | Path) -> None:
    """UserError when the release argument is missing or is a prediction file."""
    role = path_role(release)
    if role == "missing":
        raise UserError(f"{release}: no such file or folder")
    if role == "predictions":
        raise UserError(f"{release} is a prediction file, not a release: give the release folder first, "
                        f"then the predictions (-p {release})")


def check_prediction_args(predictions: list[str]) -> None:
    """UserError when a prediction argument is a release (arguments swapped or mistyped)."""
    for p in predictions:
        if path_role(p) == "release":
            raise UserError(f"{p} is a release, not a prediction file: the release comes first, "
                            "then the prediction files")


def add_benchmark_option(p: argparse.ArgumentParser) -> None:
    """`--benchmark NAME`: force the release's benchmark (every command that opens a release takes it)."""
    from .core.benchmarks import BENCHMARKS
    p.add_argument("--benchmark", choices=tuple(BENCHMARKS),
                   help="the release's benchmark (default: detected from its files and fields)")


# ------------------------------------------------------------------ score
def cmd_score(argv: list[str]) -> int:
    """Score prediction files against a release: the paper's Table 1, or JSON."""
    p = argparse.ArgumentParser(prog="gst-viewer score",
                                description="Score prediction files against a release, as Table 1 of the paper. "
                                            "Exit code 1 when a prediction file could not be read or matched "
                                            "no question (the table is printed for the others).")
    p.add_argument("release", help="release folder (or its questions file)")
    p.add_argument("predictions", nargs="*", default=[],
                   help="prediction files: JSONL, lmms-eval logs, VLMEvalKit TSV/XLSX")
    p.add_argument("--predictions", "-p", dest="more", nargs="+", action="extend", default=[], metavar="PRED",
                   help="prediction files, as the other commands take them")
    p.add_argument("--parser", choices=("strict", "lenient"), default="strict",
                   help="strict (default): the contract's rules on the final answer; lenient: also what a "
                        "grader would accept, each rescue with its own status (docs/data-format.md)")
    p.add_argument("--json", action="store_true", help="print the leaderboard as JSON (docs/score.schema.json)")
    p.add_argument("--format", choices=("table", "csv", "md", "tex"), default="table",
                   help="table (default): aligned text; csv, md (Markdown) or tex (a LaTeX booktabs tabular)")
    p.add_argument("--per-sample", metavar="FILE.jsonl",
                   help="write one line per (model, question) (docs/per-sample.schema.json)")
    p.add_argument("--quiet", "-q", action="store_true", help="do not print warnings")
    add_benchmark_option(p)
    p.add_argument("--scoring-variant", metavar="NAME",
                   help="score with a known deviation from the benchmark's rule (VSI-Bench: eleven-thresholds)")
    from .intervals_cli import add_interval_options, extend_board
    add_interval_options(p)          # --ci, --replicates, --seed, --reference (viewer/intervals_cli.py)
    args = p.parse_args(argv)
    predictions = args.predictions + args.more
    if not predictions:
        p.error("give at least one prediction file")
    check_release_arg(args.release)
    check_prediction_args(predictions)

    from .core.session import open_session
    from .textprogress import ProgressBar

    with ProgressBar("scoring", len(predictions), min_total=4) as bar:
        session = open_session(args.release, predictions, progress=bar, profile=args.parser,
                               benchmark=args.benchmark, scoring_variant=args.scoring_variant)
    failed = _failed_inputs(session)
    if not session.results:
        _print_diagnostics(session.diagnostics, quiet=False)
        raise UserError("no prediction file could be read")
    if not args.quiet:
        _print_diagnostics(session.diagnostics, quiet=False)

    if args.per_sample:
        _write_per_sample(session, Path(args.per_sample))
    board = extend_board(session, session.leaderboard(), args)
    if args.json:
        print(json.dumps(board, indent=2, allow_nan=False))
    elif args.format != "table":
        from .core.board_export import export_board
        sys.stdout.write(export_board(args.format, board, session.random_row(), session.release.benchmark))
    else:
        print(format_table(board, session.random_row(), session.release.benchmark))
    for why in failed:
        print(f"gst-viewer: {why}", file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK


def _failed_inputs(session) -> list[str]:
    """Why the run must exit 1: prediction files that could not be read, or matched no question."""
    out = [d.message for d in session.diagnostics.with_code("prediction.unreadable")]
    for r in session.results:
        if r.unknown_uids and not (r.status != "missing").any():
            out.append(f"{r.source}: none of the {len(r.unknown_uids)} predictions of {r.model!r} "
                       "matches a question of this release")
    return out


def format_table(board: dict, random_row: dict | None = None, benchmark=None) -> str:
    from .core.benchmarks import GST
    benchmark = benchmark or GST
    COLUMN_KEYS = benchmark.table_keys
    models = board["models"]
    name_w = max([len("Model"), len("Random (uniform)")] + [len(m) for m in models])
    cols = [benchmark.label(k) for k in COLUMN_KEYS] + ["Avg"]

    def fmt(v):
        return "-" if v is None else f"{v:.1f}"

    body = [(name, [fmt(v) for v in [m["columns"][k] for k in COLUMN_KEYS] + [m["avg"]]]) for name, m in models.items()]
    counts = []
    if "intervals" in board and models:       # score --ci: "41.9 ± 2.3" and each column's n
        from .intervals_cli import count_cells, interval_cells
        body = [(name, interval_cells(m, COLUMN_KEYS)) for name, m in models.items()]
        counts = [("n", count_cells(next(iter(models.values())), COLUMN_KEYS))]
    chance = []
    if random_row is not None:
        from .core.evaluate import average
        chance = [("Random (uniform)", [fmt(v) for v in [random_row[k] for k in COLUMN_KEYS] + [average(random_row)]])]
    if board.get("reference"):               # score --reference: published rows, with their origin
        from .core.reference_rows import label_of
        refs = [(label_of(r), [fmt(v) for v in [r["columns"][k] for k in COLUMN_KEYS] + [r["avg"]]])
                for r in board["reference"]]
        chance += refs
        name_w = max([name_w] + [len(name) for name, _ in refs])
    widths = [max([len(c), 5] + [len(cells[i]) for _, cells in body + counts + chance]) for i, c in enumerate(cols)]

    def row(name, cells):
        return "  ".join([name.ljust(name_w)] + [c.rjust(w) for c, w in zip(cells, widths)])

    lines = [row("Model", cols)] + [row(*r) for r in counts]
    lines.append("-" * len(lines[0]))
    lines += [row(*r) for r in body]
    if chance:
        lines.append("-" * len(lines[0]))
        lines += [row(*r) for r in chance]
    if counts:
        from .intervals_cli import table_note
        lines += ["", table_note(board)]
    if board.get("reference"):
        from .intervals_cli import reference_note
        lines += [""] + reference_note(board)
    unparsed = {n: m["unparsed"] for n, m in models.items() if m["unparsed"]}
    if unparsed:
        lines.append("")
        lines.append("unparsed answers (scored 0): " + ", ".join(f"{n}: {k}" for n, k in unparsed.items()))
    if any("settings" in m for m in models.values()):
        lines += ["", format_settings_table(models)]
    return "\n".join(lines)


def format_settings_table(models: dict) -> str:
    """Table 2: per model and setting the object columns and Avg, the deltas to Global, and the verdict."""
    from .core.settings_table import LOCAL_IMAGE, LOCAL_VIDEO, OBJECT_KEYS, SETTINGS, SHORT
    rows = [(name, m) for name, m in models.items() if "settings" in m]
    name_w = max([len("Model")] + [len(n) for n, _ in rows])
    cols = [*OBJECT_KEYS, "Avg"]
    widths = [max(len(c), 6) for c in cols]

    def line(name, setting, values, signed=False):
        cells = ["-" if v is None else (f"{v:+.1f}" if signed else f"{v:.1f}") for v in values]
        return "  ".join([name.ljust(name_w), setting.ljust(7)] + [c.rjust(w) for c, w in zip(cells, widths)])

    head = "  ".join(["Model".ljust(name_w), "Setting"] + [c.rjust(w) for c, w in zip(cols, widths)])
    out = ["Table 2: Global (G) vs Local-Video (LV) vs Local-Image (LI), object columns", head, "-" * len(head)]
    for name, m in rows:
        for s in SETTINGS:
            t = m["settings"][s]
            out.append(line(name, SHORT[s], [t["columns"][k] for k in OBJECT_KEYS] + [t["avg"]]))
        for s in (LOCAL_IMAGE, LOCAL_VIDEO):
            d = m["settings_verdict"]["deltas"][s]
            out.append(line("", f"{SHORT[s]}-G", [d["columns"][k] for k in OBJECT_KEYS] + [d["avg"]], signed=True))
    out += ["", "verdicts (thresholds: docs/data-format.md, Settings):"]
    out += [f"  {name}: {m['settings_verdict']['reason']}" for name, m in rows]
    return "\n".join(out)


def _write_per_sample(session, path: Path) -> None:
    """One JSON line per (model, question), typed as docs/per-sample.schema.json says: truth and
    prediction as their kind writes them in JSON (numbers, [x, y], letters), raw texts beside them."""
    from .core.answers import is_scored
    from .core.atomic import atomic_write_text
    release = session.release
    out = []
    for r in session.results:
        for i, q in enumerate(release.questions):
            kind = q.kind
            status = r.status[i]
            out.append(json.dumps({
                "model": r.model, "uid": q.uid,
                "column": q.column.key if q.column else None,
                "kind": kind.name if kind else None,
                "ground_truth": kind.json_value(q.truth.value) if kind and q.truth.ok else None,
                "ground_truth_raw": q.answer_raw,
                "prediction": kind.json_value(r.parsed(release, i)) if kind and is_scored(status) else None,
                "prediction_raw": r.raw[i], "status": status, "profile": r.profile,
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


# ------------------------------------------------------------------ compare
def cmd_compare(argv: list[str]) -> int:
    """Compare two models on the same questions: differences, their intervals, paired tests."""
    from .intervals_cli import cmd_compare as run
    return run(argv)


# ------------------------------------------------------------------ demo
def cmd_make_demo(argv: list[str]) -> int:
    """Generate a demo release with 3D scenes, videos and simulated models' predictions."""
    p = argparse.ArgumentParser(prog="gst-viewer make-demo",
                                description="Generate a demo release with 3D scenes, videos and predictions.")
    p.add_argument("out", help="output folder")
    p.add_argument("--scenes", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-scenes", action="store_true",
                   help="write no 3D metadata (scene.json, meshes, meta), as the real release ships")
    p.add_argument("--settings", action="store_true",
                   help="also write the Local-Video and Local-Image variants of the object questions and "
                        "models built for Table 2 (docs/data-format.md, Settings)")
    from .cluster import add_executor_arguments, executor_for
    add_executor_arguments(p)
    p.add_argument("--workers", type=int, default=None,
                   help="processes building scenes (--executor local) or a LocalCluster's workers (dask); "
                        "default: one scene after another here")
    args = p.parse_args(argv)
    try:
        from .demo.generate import generate_demo
    except ImportError as e:
        raise UserError(f"the demo generator is not available ({e})") from None
    executor = (executor_for(args.executor, args.address, args.workers)
                if args.executor != "local" or args.address or (args.workers or 1) > 1 else None)
    try:
        generate_demo(Path(args.out), scenes=args.scenes, seed=args.seed, with_scenes=not args.no_scenes,
                      with_settings=args.settings, executor=executor)
    finally:
        if executor is not None:
            executor.close()
    return 0


# ------------------------------------------------------------------ audit, flags
def cmd_audit(argv: list[str]) -> int:
    """Audit the ground truth against the scenes' geometry (--fail-on for CI)."""
    from .audit_cli import cmd_audit as run
    return run(argv)


def cmd_flags(argv: list[str]) -> int:
    """Reviewer verdicts and notes: export, import, set."""
    from .audit_cli import cmd_flags as run
    return run(argv)


_EXPORT_SUMMARIES = {"cmd_render": "A figure of one question: map, panel or 3D still (PNG, SVG, PDF).",
                     "cmd_clip": "A short clip of one question (MP4 or GIF).",
                     "cmd_gallery": "One slide per Table-1 task and a grid of all, for talks."}


def cmd_import_scene(argv: list[str]) -> int:
    """Import a scene (OmniGibson scene file, or a mesh and a camera trajectory) as a gst-scene/1 folder."""
    from .import_cli import cmd_import_scene as run
    return run(argv)


def _export(name: str):
    """Figures, clips and the task gallery (viewer/export_cli.py), imported when used."""
    def run(argv: list[str]) -> int:
        from . import export_cli
        return getattr(export_cli, name)(argv)
    run.__doc__ = _EXPORT_SUMMARIES.get(name, "")
    return run


# ------------------------------------------------------------------ selftest
def cmd_selftest(argv: list[str]) -> int:
    """Check, headless, that the app works on this machine."""
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
    p.add_argument("--scene", metavar="DIR", help="open one scene folder (scene.json) on its own: 3D view, maps, "
                                                  "trajectory, no questions")
    add_benchmark_option(p)
    p.add_argument("--screenshot", metavar="OUT.png", help="save the window and exit")
    p.add_argument("--size", default="1600x1000", help="window size for --screenshot")
    p.add_argument("--version", action="version", version=f"gst-viewer {__version__}")
    args = p.parse_args(argv)

    if args.scene:
        if args.release or args.predictions or args.uid or args.benchmark:
            raise UserError("--scene opens a scene on its own; it takes no release, predictions, --uid or "
                            "--benchmark")
        if not (Path(args.scene).expanduser() / "scene.json").is_file():
            raise UserError(f"{args.scene}: no scene.json in this folder")
        _choose_display(args.screenshot)
        from .ui.app import run_app
        return run_app(None, [], screenshot=args.screenshot, size=args.size, scene=args.scene)

    from .assets import default_predictions, default_release
    release = args.release or default_release()
    check_release_arg(release)
    check_prediction_args(args.predictions or [])
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
    return run_app(release, predictions, uid=args.uid, screenshot=args.screenshot, size=args.size,
                   benchmark=args.benchmark)


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
