"""Error bars on the command line: `score --ci` and `compare RELEASE A B`.

The numbers are core/intervals.py's and core/paired.py's; this module reads
the options, prints the tables and writes the JSON. docs/intervals.md says
how they are computed and how to read a "not significant".
"""
from __future__ import annotations

import argparse
import json

from .core.diagnostics import UserError
from .core.intervals import (
    FEW,
    FEW_MARK,
    REPLICATES,
    SEED,
    Bootstrap,
    add_to_board,
    count_text,
    interval_note,
    model_intervals,
)
from .core.paired import ALPHA, PERMUTATIONS, compare_models


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def add_bootstrap_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--replicates", type=_positive, default=REPLICATES, metavar="B",
                   help=f"bootstrap replicates (default {REPLICATES:,})")
    p.add_argument("--seed", type=int, default=SEED, help=f"the resampling's seed (default {SEED})")


def add_interval_options(p: argparse.ArgumentParser) -> None:
    """`score --ci [--replicates B] [--seed S] [--reference paper|page|FILE.csv]`."""
    p.add_argument("--ci", action="store_true",
                   help="95 %% confidence intervals (percentile bootstrap over questions; Wilson for choice "
                        "columns) and each column's n, in the table, --json and --format (docs/intervals.md)")
    add_bootstrap_options(p)
    p.add_argument("--reference", metavar="paper|page|FILE.csv",
                   help="show published results beside the models: the paper's Table 1 (paper), also the "
                        "entries only the project page lists (page), or a CSV with Model and the columns; "
                        "they have no interval")


def extend_board(session, board: dict, args) -> dict:
    """The leaderboard document with every model's intervals (`score --ci`) and the reference rows
    (`score --reference`)."""
    if args.ci:
        method = Bootstrap(args.replicates, seed=args.seed)
        add_to_board(board, model_intervals(session.release, session.results, method), method)
    if args.reference:
        from .core import reference_rows
        reference_rows.add_to_board(board, reference_rows.reference_rows(args.reference, session.release.benchmark))
    return board


# ------------------------------------------------------------------ score --ci, as text
def interval_cells(model: dict, keys) -> list[str]:
    """A model's leaderboard row as "41.9 ± 2.3" cells (its board entry, with "intervals")."""
    iv = model["intervals"]
    cells = [_pm(model["columns"][k], iv["columns"][k]) for k in keys]
    return cells + [_pm(model["avg"], iv["avg"])]


def _pm(value, interval: dict) -> str:
    if value is None:
        return "-"
    if interval["ci_low"] is None:
        return f"{value:.1f}"
    return f"{value:.1f} ± {(interval['ci_high'] - interval['ci_low']) / 2:.1f}"


def count_cells(model: dict, keys) -> list[str]:
    """Each column's n and Avg's (every model of a release counts the same questions)."""
    iv = model["intervals"]
    return [count_text(iv["columns"][k]["n"]) for k in keys] + [count_text(iv["avg"]["n"])]


def table_note(board: dict) -> str:
    return interval_note(board["intervals"]) + "; --json has both ends, and Wilson's for choice columns"


def reference_note(board: dict) -> list[str]:
    """Where the reference rows' numbers come from, under the table."""
    sources = list(dict.fromkeys(ref["source"] for ref in board["reference"]))
    return ["published rows: no per-question data, so no interval and no paired test; from " + "; ".join(sources)]


# ------------------------------------------------------------------ compare
def cmd_compare(argv: list[str]) -> int:
    """Two models on the same questions: per column and Avg the difference, its interval and a paired test."""
    from .cli_args import (
        add_benchmark_option,
        add_scoring_variant_option,
        check_prediction_args,
        check_release_arg,
        print_problems,
    )
    p = argparse.ArgumentParser(
        prog="gst-viewer compare",
        description="Compare two prediction files on the same release: per leaderboard column and Avg, A's "
                    "score minus B's, its 95 %% bootstrap interval and a paired permutation test, with Holm's "
                    "correction over the columns (docs/intervals.md). Questions a model did not answer score 0 "
                    "and are counted.")
    p.add_argument("release", help="release folder (or its questions file)")
    p.add_argument("a", metavar="A", help="model A's prediction file (one model)")
    p.add_argument("b", metavar="B", help="model B's prediction file (one model)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.add_argument("--parser", choices=("strict", "lenient"), default="strict",
                   help="how answers are read, as for score (default strict)")
    add_bootstrap_options(p)
    p.add_argument("--permutations", type=_positive, default=PERMUTATIONS, metavar="N",
                   help=f"sign-flip permutations of the paired test (default {PERMUTATIONS:,})")
    p.add_argument("--quiet", "-q", action="store_true", help="do not print warnings")
    add_benchmark_option(p)
    add_scoring_variant_option(p)
    args = p.parse_args(argv)
    check_release_arg(args.release)
    check_prediction_args([args.a, args.b])

    from .core.session import open_session
    session = open_session(args.release, [], profile=args.parser, benchmark=args.benchmark,
                           scoring_variant=args.scoring_variant)
    a, b = (_one_model(session, path) for path in (args.a, args.b))
    if not args.quiet:
        print_problems(session.diagnostics, 30)
    comparison = compare_models(session.release, a, b, Bootstrap(args.replicates, seed=args.seed),
                                args.permutations)
    if args.json:
        doc = comparison.json()
        doc["files"] = {"a": a.source, "b": b.source}
        print(json.dumps(doc, indent=2, allow_nan=False, ensure_ascii=False))
    else:
        print(format_comparison(comparison, session.release.benchmark, a.source, b.source))
    return 0


def _one_model(session, path: str):
    """The one model a prediction file holds, scored and added to the session; UserError otherwise."""
    sets, errors = session.read_prediction_files([path])
    if errors:
        raise UserError(errors[0])
    if len(sets) != 1:
        names = ", ".join(repr(s.model) for s in sets) or "none"
        raise UserError(f"{path}: compare takes one model per file; this one holds {len(sets)} ({names})")
    result = session.add_prediction_set(sets[0])
    if result is None:                    # none of its answers matches a question: said by the session
        raise UserError(session.diagnostics.with_code("prediction.no_match")[-1].message)
    return result


def format_comparison(c, benchmark, source_a: str = "", source_b: str = "") -> str:
    """The comparison as an aligned table: one line per leaderboard column, then Avg."""
    head = ["column", "n", "A", "B", "A-B", f"{c.method.level:.0%} interval", "p", "p Holm", ""]
    rows = [[benchmark.label(k), *_difference_cells(d, holm=True)] for k, d in c.columns.items()]
    rows.append(["Avg", *_difference_cells(c.avg, holm=False)])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(cells):
        return "  ".join([cells[0].ljust(widths[0])] + [x.rjust(w) for x, w in zip(cells[1:-1], widths[1:-1])]
                         + [cells[-1]]).rstrip()

    out = [f"A: {c.a}" + (f"  ({source_a})" if source_a else ""), f"B: {c.b}" + (f"  ({source_b})" if source_b else ""),
           "", line(head), "-" * len(line(head))]
    out += [line(r) for r in rows[:-1]] + ["-" * len(line(head)), line(rows[-1]), ""]
    m = len([d for d in c.columns.values() if d.p is not None])
    out.append(f"* significant at {ALPHA:.0%}: the columns after Holm's correction over the {m} columns, "
               "Avg by its own test")
    out.append(f"not significant: the difference is within what drawing other questions could give; "
               f"it does not show the models are equal. {FEW_MARK} fewer than {FEW} questions")
    out.append(f"missing answers (scored 0): A {_missing_text(c, 'a')}; B {_missing_text(c, 'b')}")
    out.append(f"bootstrap B = {c.method.replicates:,}, seed {c.method.seed}; {c.permutations:,} sign-flip "
               f"permutations, so p >= {1 / (c.permutations + 1):.2g}")
    return "\n".join(out)


def _difference_cells(d, holm: bool) -> list[str]:
    def num(v, signed=False):
        return "-" if v is None else (f"{v:+.1f}" if signed else f"{v:.1f}")

    interval = "-" if d.low is None else f"[{d.low:+.1f}, {d.high:+.1f}]"
    p_holm = (_p_text(d.p_holm) or "-") if holm else ""
    return [count_text(d.n), num(d.a), num(d.b), num(d.difference, signed=True), interval, _p_text(d.p) or "-",
            p_holm, "*" if d.significant() else ""]


def _p_text(p: float | None) -> str:
    if p is None:
        return ""
    return f"{p:.3f}" if p >= 0.001 else f"{p:.2g}"


def _missing_text(c, side: str) -> str:
    total = getattr(c.avg, f"missing_{side}")
    if not total:
        return "none"
    parts = [f"{k} {getattr(d, f'missing_{side}')}" for k, d in c.columns.items() if getattr(d, f"missing_{side}")]
    return f"{total} ({', '.join(parts)})"
