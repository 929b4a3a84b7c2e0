"""What the commands share about their arguments: exit codes, what a path on the command line is, the
checks on the release and prediction arguments, `--benchmark`, and the stderr lists of problems.

Every command module (`score_cli`, `window_cli`, `audit_cli`, `export_cli`, `import_cli`) imports
this one and never `viewer.cli`, which only dispatches to them (tests/test_cli_modules.py).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .core.diagnostics import UserError

EXIT_OK = 0
EXIT_FAILED = 1          # ran, but an input failed or findings crossed --fail-on
EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130


# ------------------------------------------------------------------ what a path is
def path_role(path: str | Path) -> str:
    """What a path on the command line holds: "release", "predictions", "missing" or "other".

    Looks only at names and the first record, so a swapped argument is named before anything loads.
    """
    from .core.benchmarks import BENCHMARKS
    p = Path(path).expanduser()
    if not p.exists():
        return "missing"
    if any(b.names_a_release(p) for b in BENCHMARKS.values()):
        return "release"
    if p.is_dir():
        return "other"
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


_UNDECODABLE = (ValueError, RecursionError, MemoryError)


def _first_record(p: Path):
    """The first JSON record of a JSON Lines or JSON file (read from its first 256 kB), or None.

    Only a regular file is opened (a named pipe would block the open for ever), and whatever the decoder
    raises on any bytes (ValueError, RecursionError on deep nesting, MemoryError) means "no record"."""
    if not p.is_file():
        return None
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
            except _UNDECODABLE:
                break
            return rec[0] if isinstance(rec, list) and rec else rec
        start = end + 1
    try:
        doc = json.loads(head.decode("utf-8", "replace"))
    except _UNDECODABLE:
        return None
    return doc[0] if isinstance(doc, list) and doc else doc


# ------------------------------------------------------------------ the release and its predictions
def check_release_arg(release: str | Path) -> None:
    """UserError when the release argument is missing or is a prediction file."""
    role = path_role(release)
    if role == "missing":
        raise UserError(f"{release}: no such file or folder")
    if role == "predictions":
        raise UserError(f"{release} is a prediction file, not a release: give the release folder first, "
                        f"then the predictions (-p {release})")


def check_prediction_args(predictions: list[str]) -> None:
    """UserError when a prediction argument is a release (arguments swapped or mistyped). An argument
    may name its model: `NAME=PATH` (core.predictions.named_path)."""
    from .core.predictions import named_path
    for p in predictions:
        name, path = named_path(p)
        if name is not None and not path.exists():
            raise UserError(f"{p}: no such prediction file {str(path)!r} (NAME=PATH names a model)")
        if path_role(path) == "release":
            raise UserError(f"{p} is a release, not a prediction file: the release comes first, "
                            "then the prediction files")


def add_benchmark_option(p: argparse.ArgumentParser) -> None:
    """`--benchmark NAME`: force the release's benchmark (every command that opens a release takes it)."""
    from .core.benchmarks import BENCHMARKS
    p.add_argument("--benchmark", choices=tuple(BENCHMARKS),
                   help="the release's benchmark (default: detected from its files and fields)")


def add_scoring_variant_option(p: argparse.ArgumentParser) -> None:
    """`--scoring-variant NAME`: score with one of the benchmarks' known deviations, each listed."""
    from .core.benchmarks import BENCHMARKS
    known = "; ".join(f"{b.title}: {', '.join(v.name for v in b.variants)}" for b in BENCHMARKS.values() if b.variants)
    p.add_argument("--scoring-variant", metavar="NAME",
                   help=f"score with a known deviation from the benchmark's rule ({known})")


# ------------------------------------------------------------------ batch work
def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (argparse names the option in its message)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return n


def add_workers_option(p: argparse.ArgumentParser, help: str) -> None:
    """`--workers N`: how many processes (or a LocalCluster's workers); None leaves it to the command."""
    p.add_argument("--workers", type=positive_int, default=None, help=help)


def add_executor_options(p: argparse.ArgumentParser, work: str) -> None:
    """`--executor local|dask` and `--address ADDR` (viewer/cluster.py); `work` says what runs there."""
    from .cluster import EXECUTORS
    p.add_argument("--executor", choices=EXECUTORS, default="local",
                   help=f"where {work} runs: here (local, default) or on a Dask cluster (dask)")
    p.add_argument("--address", help="with --executor dask: the scheduler (e.g. tcp://10.0.0.5:8786); "
                                     "without it a LocalCluster is started on this machine")


def batch_executor(args):
    """The executor of `--executor/--address/--workers` for a command whose work runs here one item after
    another unless asked otherwise; None for that default."""
    if args.executor == "local" and not args.address and (args.workers or 1) <= 1:
        return None
    from .cluster import executor_for
    return executor_for(args.executor, args.address, args.workers)


# ------------------------------------------------------------------ problems on stderr
def print_problems(lines, limit: int) -> set[str]:
    """The first `limit` problems, one a line on stderr, then how many more there were; the messages printed
    (a diagnostic's message, or the line itself)."""
    items = list(lines)
    for x in items[:limit]:
        print(str(x), file=sys.stderr)
    if len(items) > limit:
        print(f"... and {len(items) - limit} more", file=sys.stderr)
    return {getattr(x, "message", str(x)) for x in items[:limit]}
