"""`gst-viewer audit` and `gst-viewer flags`: the ground-truth audit and reviewer flags from the shell.

    gst-viewer audit RELEASE [--predictions P ...] [--json] [--checks id,id] [--fail-on error|warning]
                     [--executor local|dask [--address ADDR]]
    gst-viewer flags export RELEASE --format csv|json [--output FILE] [--history]
    gst-viewer flags import RELEASE FILE
    gst-viewer flags set RELEASE UID [--verdict V] [--note TEXT]
"""
from __future__ import annotations

import argparse
import sys

from .cli_args import (
    EXIT_FAILED,
    EXIT_OK,
    add_benchmark_option,
    add_executor_options,
    add_workers_option,
    check_prediction_args,
    check_release_arg,
    path_role,
    positive_int,
    print_problems,
)
from .core.diagnostics import UserError

FINDINGS_SHOWN = 40
PROBLEMS_SHOWN = 20       # lines of loading problems on stderr


def cmd_audit(argv: list[str]) -> int:
    from .core.audit import CHECKS
    from .core.audit.run import FRAME_CHUNK
    p = argparse.ArgumentParser(prog="gst-viewer audit",
                                description="Find questions whose ground truth or promises do not hold "
                                            "(spec section 4).")
    p.add_argument("release", help="release folder (or its questions file)")
    p.add_argument("--predictions", "-p", nargs="*", default=[],
                   help="prediction files (for the model checks); NAME=PATH names a model")
    p.add_argument("--json", action="store_true",
                   help='print {"findings": [...], "summary": {...}} instead of the table')
    p.add_argument("--checks", help="comma-separated check ids; default all: " + ", ".join(CHECKS.ids()))
    add_workers_option(p, "processes for the per-scene checks (default: the CPU count for large releases)")
    p.add_argument("--frame-chunk", type=positive_int, default=FRAME_CHUNK, metavar="N",
                   help="split a video's visibility casts over more than N sampled frames into jobs of N "
                        "frames (default %(default)s; the output is the same, long videos spread over more workers)")
    add_executor_options(p, "the per-scene work")
    p.add_argument("--all", action="store_true", help="list every finding, not the first 40")
    p.add_argument("--fail-on", choices=("error", "warning", "never"), default="never",
                   help="exit 1 when there are findings of this severity (warning: or worse), for CI; "
                        "default never")
    add_benchmark_option(p)
    args = p.parse_args(argv)
    check_release_arg(args.release)
    check_prediction_args(args.predictions)

    from .cluster import executor_for
    from .core.audit import parse_checks, run_audit
    from .core.session import open_session
    from .render.audit_images import SceneImages
    from .render.video import probe_video
    from .render.visibility import SceneVisibility
    from .textprogress import ProgressBar
    checks = parse_checks(args.checks)
    executor = executor_for(args.executor, args.address, args.workers) if args.executor != "local" else None
    try:
        session = open_session(args.release, args.predictions, benchmark=args.benchmark)
        print_problems(session.diagnostics, PROBLEMS_SHOWN)
        with ProgressBar("auditing", len(session.release)) as bar:
            report = run_audit(session.release, session.results, checks, progress=bar, workers=args.workers,
                               visibility=SceneVisibility, images=SceneImages, executor=executor,
                               frame_chunk=args.frame_chunk, videos=probe_video)
    finally:
        if executor is not None:
            executor.close()
    print_problems(sorted(set(report.problems)), PROBLEMS_SHOWN)
    if args.json:
        _write_blocks(sys.stdout, report.json_blocks())
        print()
    else:
        print(format_report(report, limit=None if args.all else FINDINGS_SHOWN))
    failing = fails_on(report, args.fail_on)
    if failing:
        print(f"gst-viewer: {failing} findings at or above --fail-on {args.fail_on}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _write_blocks(stream, blocks) -> None:
    """Text written a piece at a time (a 200,000-question audit's JSON is never one string). A lone
    surrogate (a JSON "\\ud800" in a question file) is written as that escape, which the JSON reads back
    as the same text (core/atomic.TextSink), and said on stderr."""
    escaped = 0
    for text in blocks:
        try:
            stream.write(text)
        except UnicodeEncodeError:
            escaped += sum(1 for c in text if "\ud800" <= c <= "\udfff")
            stream.write(text.encode("utf-8", "backslashreplace").decode("utf-8"))
    if escaped:
        from .core.atomic import surrogate_note
        stream.flush()
        print(surrogate_note("standard output", escaped), file=sys.stderr)


FAIL_LEVELS = {"error": ("error",), "warning": ("error", "warning"), "never": ()}


def fails_on(report, level: str) -> int:
    """How many findings are at or above `level` (error, warning, never)."""
    return sum(1 for f in report.findings if f.severity in FAIL_LEVELS[level])


def format_report(report, limit: int | None = FINDINGS_SHOWN) -> str:
    from .core.audit import CHECKS
    summary = report.summary()
    width = max(len(c) for c in summary)
    lines = [f"{'check'.ljust(width)}  severity  flagged  checked  skipped  why skipped (most often)"]
    lines.append("-" * len(lines[0]))
    for check, n in summary.items():
        reasons = report.tally.skip_reasons[check].most_common(1)
        why = f"{reasons[0][0]} ({reasons[0][1]})" if reasons else ""
        lines.append(f"{check.ljust(width)}  {CHECKS[check].severity:<8}  {n['flagged']:>7}  "
                     f"{n['checked']:>7}  {n['skipped']:>7}  {why}")
    findings = report.listed()
    if findings:
        lines.append("")
        shown = findings if limit is None else findings[:limit]
        for f in shown:
            # A dependent finding is listed once, indented under the finding whose question explains it.
            indent = "    " if f.depends_on is not None else ""
            lines.append(f"{indent}{f.severity:<7} {f.check}  {f.uid or '(release)'}: {f.message}")
        if len(findings) > len(shown):
            lines.append(f"... and {len(findings) - len(shown)} more (--all, or --json for every detail)")
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    lines.append("")
    dependent = sum(1 for f in findings if f.depends_on is not None)
    lines.append(f"{len(findings)} findings: {counts['error']} errors, {counts['warning']} warnings, "
                 f"{counts['info']} info"
                 + (f" ({dependent} of them depend on another finding's question)" if dependent else "")
                 + f"; {report.rays_cast:,} rays cast (for {report.rays_covered:,} samples) "
                 f"in {report.seconds:.1f} s")
    return "\n".join(lines)


# ------------------------------------------------------------------ flags
def cmd_flags(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gst-viewer flags", description="Reviewer verdicts and notes.")
    sub = p.add_subparsers(dest="action", required=True)
    e = sub.add_parser("export", help="write the current flags as CSV or JSON")
    e.add_argument("release")
    e.add_argument("--format", choices=("csv", "json"), default="csv")
    e.add_argument("--output", "-o", help="file to write (default: standard output)")
    e.add_argument("--history", action="store_true", help="also every change (JSON only)")
    i = sub.add_parser("import", help="apply an exported CSV or JSON file")
    i.add_argument("release")
    i.add_argument("file")
    s = sub.add_parser("set", help="set the verdict and/or note of one sample")
    s.add_argument("release")
    s.add_argument("uid")
    s.add_argument("--verdict", help="ok, bad_gt, ambiguous, bad_media, or none to clear")
    s.add_argument("--note", help="free text; an empty string clears it")
    args = p.parse_args(argv)

    from .core.review.flags import FlagStore
    from .core.review.flags_io import export_flags, import_flags
    check_release_arg(args.release)
    if path_role(args.release) != "release":
        # Checked before the store opens: opening it would create annotations.sqlite there.
        raise UserError(f"{args.release}: not a release (no questions.jsonl, questions.json or question.json); "
                        "nothing written")
    store = FlagStore.for_release(args.release)
    try:
        if args.action == "export":
            if store.problem and not store.readable:
                # Nothing can be read: an export now would be an empty file, over a good one with -o.
                raise UserError(f"{store.problem}; nothing exported")
            if store.problem:
                print(f"gst-viewer: {store.problem}", file=sys.stderr)
            text = export_flags(store, args.format, args.history)
            if args.output:
                from .core.atomic import atomic_write_text
                try:
                    atomic_write_text(args.output, text)
                except OSError as err:
                    raise UserError(f"{args.output}: cannot write ({err.strerror or err})") from None
            else:
                sys.stdout.write(text)
            return EXIT_OK
        if store.problem:
            raise UserError(store.problem)
        known = _release_uids(args.release)
        if args.action == "import":
            changed, diags = import_flags(store, args.file)
            print_problems(diags, PROBLEMS_SHOWN)
            flagged = store.all()
            strangers = [u for u in flagged if u not in known]
            if strangers:
                print(f"warning: {len(strangers)} flagged uids are not questions of this release "
                      f"(e.g. {strangers[0]!r})", file=sys.stderr)
            print(f"{changed} changes imported into {store.path}", file=sys.stderr)
            return EXIT_OK
        if args.uid not in known:
            raise UserError(f"{args.uid}: no such question in {args.release}")
        if args.verdict is None and args.note is None:
            raise UserError("give --verdict and/or --note")
        if args.verdict is not None:
            store.set_verdict(args.uid, None if args.verdict.lower() in ("none", "") else args.verdict)
        if args.note is not None:
            store.set_note(args.uid, args.note)
        return EXIT_OK
    finally:
        store.close()


def _release_uids(release: str) -> set[str]:
    from .core.release import load_release
    return set(load_release(release).uids)
