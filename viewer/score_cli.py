"""`gst-viewer score`: prediction files scored against a release, as the leaderboard (the paper's Table 1),
its settings table when the release has variants, JSON, csv/md/tex, or one line per sample.

    gst-viewer score RELEASE [-p] PRED [PRED ...] [--parser strict|lenient] [--format csv|md|tex] [--json]
                     [--per-sample FILE.jsonl]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .cli_args import (
    EXIT_FAILED,
    EXIT_OK,
    add_benchmark_option,
    add_scoring_variant_option,
    check_prediction_args,
    check_release_arg,
    print_problems,
)
from .core.diagnostics import UserError

DIAGNOSTICS_SHOWN = 30

def cmd_score(argv: list[str]) -> int:
    """Score prediction files against a release: the paper's Table 1, or JSON."""
    p = argparse.ArgumentParser(prog="gst-viewer score",
                                description="Score prediction files against a release, as Table 1 of the paper. "
                                            "Exit code 1 when a prediction file could not be read or matched "
                                            "no question (the table is printed for the others).")
    p.add_argument("release", help="release folder (or its questions file)")
    p.add_argument("predictions", nargs="*", default=[],
                   help="prediction files: JSONL, lmms-eval logs, VLMEvalKit TSV/XLSX; NAME=PATH names the model")
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
    add_scoring_variant_option(p)
    from .frames_cli import add_frames_options
    p.add_argument("--by", choices=("target-sampled",),
                   help="target-sampled: split every column into the questions whose target is in a frame the "
                        "model was given and those whose target never is (needs --frames; docs/frames.md)")
    add_frames_options(p, required=False)
    from .intervals_cli import add_interval_options, extend_board
    add_interval_options(p)          # --ci, --replicates, --seed, --reference (viewer/intervals_cli.py)
    args = p.parse_args(argv)
    predictions = args.predictions + args.more
    if not predictions:
        p.error("give at least one prediction file")
    if args.by and not args.frames:
        p.error("--by target-sampled needs --frames POLICY (the model's sampling, e.g. uniform:8)")
    check_release_arg(args.release)
    check_prediction_args(predictions)

    from .core.session import open_session
    from .textprogress import ProgressBar

    with ProgressBar("scoring", len(predictions), min_total=4) as bar:
        session = open_session(args.release, predictions, progress=bar, profile=args.parser,
                               benchmark=args.benchmark, scoring_variant=args.scoring_variant)
    failed = _failed_inputs(session)
    if not session.results:
        print_problems(session.diagnostics, DIAGNOSTICS_SHOWN)
        if session.diagnostics.with_code("prediction.no_match"):
            return EXIT_FAILED           # read, but none is this release's: said above, with what each looks like
        raise UserError("no prediction file could be read")
    printed: set[str] = set()
    if not args.quiet:
        printed = print_problems(session.diagnostics, DIAGNOSTICS_SHOWN)

    if args.per_sample:
        _write_per_sample(session, Path(args.per_sample))
    board = extend_board(session, session.leaderboard(), args)
    if args.by:
        _split_by_target_sampled(session, board, args.frames)
    if args.json:
        print(json.dumps(board, indent=2, allow_nan=False))
    elif args.format != "table":
        from .core.exports.board import export_board
        sys.stdout.write(export_board(args.format, board, session.random_row(), session.release.benchmark))
    else:
        print(format_table(board, session.random_row(), session.release.benchmark))
        if args.by:
            print("\n" + format_split(board, session.release.benchmark))
    for why in failed:
        if why not in printed:             # each error once: an unreadable file was said with the warnings
            print(f"gst-viewer: {why}", file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK


def _split_by_target_sampled(session, board: dict, frames_args: list[str]) -> None:
    """Each model's "by_target_sampled": its columns over the questions whose target it was shown in a sampled
    frame, over those it never was, and over those whose target frames are unknown."""
    from .core.frames import split_scores
    from .frames_cli import analyse
    release = session.release
    analysis = analyse(release, frames_args, {r.model: r.source for r in session.results})
    print_problems(analysis.problems, DIAGNOSTICS_SHOWN)
    for r in session.results:
        groups = [row.group for row in analysis.models[r.model]]
        board["models"][r.model]["by_target_sampled"] = split_scores(release, r, groups)


def format_split(board: dict, benchmark) -> str:
    """The split rows under the leaderboard: per model and group its columns, then each group's counts."""
    keys = benchmark.table_keys
    rows = []
    for name, m in board["models"].items():
        for group, g in m.get("by_target_sampled", {}).items():
            cells = ["-" if g["columns"][k] is None else f"{g['columns'][k]:.1f} ({g['counts'][k]})" for k in keys]
            rows.append((f"{name} · {group}", cells))
    if not rows:
        return "no question has a target"
    name_w = max(len(n) for n, _ in rows)
    cols = [benchmark.label(k) for k in keys]
    widths = [max(len(c), *(len(cells[i]) for _, cells in rows)) for i, c in enumerate(cols)]
    head = "  ".join(["By whether the target was sampled".ljust(name_w)] + [c.rjust(w) for c, w in zip(cols, widths)])
    out = [head, "-" * len(head)]
    out += ["  ".join([n.ljust(name_w)] + [c.rjust(w) for c, w in zip(cells, widths)]) for n, cells in rows]
    out.append("(score (questions scored); a column without a target is '-')")
    return "\n".join(out)


def _failed_inputs(session) -> list[str]:
    """Why the run must exit 1: prediction files that could not be read, or matched no question."""
    return [d.message for d in session.diagnostics.with_code("prediction.unreadable")
            + session.diagnostics.with_code("prediction.no_match")]


def format_table(board: dict, random_row: dict | None, benchmark) -> str:
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
    from .core.settings_table import GLOBAL, LOCAL_IMAGE, LOCAL_VIDEO, SETTINGS, SHORT
    rows = [(name, m) for name, m in models.items() if "settings" in m]
    name_w = max([len("Model")] + [len(n) for n, _ in rows])
    keys = list(rows[0][1]["settings"][GLOBAL]["columns"])       # the benchmark's object columns, in order
    cols = [*keys, "Avg"]
    widths = [max(len(c), 6) for c in cols]

    def line(name, setting, values, signed=False):
        cells = ["-" if v is None else (f"{v:+.1f}" if signed else f"{v:.1f}") for v in values]
        return "  ".join([name.ljust(name_w), setting.ljust(7)] + [c.rjust(w) for c, w in zip(cells, widths)])

    head = "  ".join(["Model".ljust(name_w), "Setting"] + [c.rjust(w) for c, w in zip(cols, widths)])
    out = ["Table 2: Global (G) vs Local-Video (LV) vs Local-Image (LI), object columns", head, "-" * len(head)]
    for name, m in rows:
        for s in SETTINGS:
            t = m["settings"][s]
            out.append(line(name, SHORT[s], [t["columns"][k] for k in keys] + [t["avg"]]))
        for s in (LOCAL_IMAGE, LOCAL_VIDEO):
            d = m["settings_verdict"]["deltas"][s]
            out.append(line("", f"{SHORT[s]}-G", [d["columns"][k] for k in keys] + [d["avg"]], signed=True))
    out += ["", "verdicts (thresholds: docs/data-format.md, Settings):"]
    out += [f"  {name}: {m['settings_verdict']['reason']}" for name, m in rows]
    return "\n".join(out)


def _write_per_sample(session, path: Path) -> None:
    """One JSON line per (model, question) (core/exports/per_sample.py), written a block at a time, atomically."""
    from .core.atomic import atomic_text, surrogate_note
    from .core.exports.per_sample import per_sample_blocks
    try:
        with atomic_text(path) as out:
            wrote = False
            for text in per_sample_blocks(session.release, session.results):
                out.write(text)
                wrote = True
            if not wrote:
                out.write("\n")           # as the file always read with no line: one newline
    except OSError as e:
        raise UserError(f"{path}: cannot write ({e.strerror or e})") from None
    if out.escaped:
        print(surrogate_note(path, out.escaped), file=sys.stderr)
