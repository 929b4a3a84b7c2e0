"""Peak memory and wall time at training-set size: the audit of a 200,000-question release, `score` and
`score --per-sample` with 22 models, each under `/usr/bin/time -v` in a fresh process.

Run by hand: `.venv/bin/python benchmarks/bench_memory.py [--before DIR] [--only audit|score|per-sample]`.

The release and the 22 prediction files are bench_score.py's generator (make_release, make_predictions:
200,000 questions in 50 scenes, no scene metadata and no media files, so the audit's scene stage skips
its geometry checks and the media check reports every file), made once and kept in the temp folder.
The audit is run with the 22 models (`gst-viewer audit REL -p P... --json`), as a full audit is.

Each case prints the peak resident set size GNU time reports (`Maximum resident set size`: the largest
single process waited for, the command or one of its workers), the CPU time (user + system, workers
included: the steadier figure on a shared machine) and the elapsed time, and beside them the
peak of the resident sets of the whole process tree added up (sampled every 0.2 s from /proc), which
counts the audit's worker processes together. With --before DIR (another checkout, e.g.
`git worktree add /tmp/base 2e30e9b`), each case runs on that checkout first, and the outputs (the
audit's JSON, the per-sample file, the leaderboard) are compared byte for byte.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

N_QUESTIONS = 200_000
N_MODELS = 22


def prepare(folder: Path) -> tuple[Path, list[Path]]:
    """The release (folder/release) and its prediction files (folder/predictions), generated once (a few
    minutes)."""
    from bench_score import make_predictions, make_release
    done = folder / "bench.done"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        print(f"generating {N_QUESTIONS:,} questions and {N_MODELS} models into {folder} (once) ...", flush=True)
        rng = np.random.default_rng(0)
        recs = make_release(folder / "release", N_QUESTIONS, rng)
        (folder / "predictions").mkdir()
        make_predictions(folder / "predictions", recs, N_MODELS, rng)
        done.write_text("ok\n")
    return folder / "release", sorted((folder / "predictions").glob("model_*.jsonl"))


def tree_rss_kb(pid: int) -> int:
    """The resident sets of `pid` and its descendants, added up (kB)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        try:
            with open(f"/proc/{p}/status") as f:
                total += int(f.read().split("VmRSS:")[1].split()[0])
        except (OSError, IndexError, ValueError):
            pass
    return total


def timed(cmd: list[str], tree: Path, stdout: Path) -> dict:
    """`/usr/bin/time -v cmd` with `tree` on PYTHONPATH: GNU time's peak RSS and wall, the tree's peak."""
    env = dict(os.environ, PYTHONPATH=str(tree), QT_QPA_PLATFORM="offscreen")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    err = stdout.with_suffix(".time")
    with open(stdout, "wb") as out, open(err, "wb") as e:
        proc = subprocess.Popen(["/usr/bin/time", "-v", *cmd], env=env, cwd=tree, stdout=out, stderr=e)
        peak = [0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(0.2):
                peak[0] = max(peak[0], tree_rss_kb(proc.pid))
        t = threading.Thread(target=sample, daemon=True)
        t.start()
        code = proc.wait()
        stop.set()
        t.join()
    text = err.read_text(errors="replace")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text).group(1)
    wall = sum(float(x) * 60 ** k for k, x in enumerate(reversed(clock.split(":"))))
    cpu = sum(float(re.search(rf"{what} time \(seconds\): ([\d.]+)", text).group(1)) for what in ("User", "System"))
    return {"rss_mb": rss / 1024, "wall": wall, "cpu": cpu, "tree_mb": peak[0] / 1024, "exit": code,
            "load": os.getloadavg()[0]}


def digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, metavar="DIR", help="a checkout to measure first (the baseline)")
    ap.add_argument("--only", nargs="+", choices=("audit", "score", "per-sample"),
                    default=["audit", "per-sample", "score"])
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "gst-viewer-bench-memory",
                    help="where the generated release is kept (default: in the temp folder)")
    ap.add_argument("--keep", action="store_true", help="keep the outputs in DATA/out-* (default: removed)")
    args = ap.parse_args()
    release, preds = prepare(args.data)
    py = sys.executable
    cases = {
        "audit": lambda out: [py, "-m", "viewer", "audit", str(release), "-p", *map(str, preds), "--json"],
        "per-sample": lambda out: [py, "-m", "viewer", "score", str(release), *map(str, preds), "-q",
                                   "--per-sample", str(out.with_suffix(".jsonl"))],
        "score": lambda out: [py, "-m", "viewer", "score", str(release), *map(str, preds), "-q", "--json"],
    }
    sides = {"before": args.before.resolve()} if args.before else {}
    sides["after"] = ROOT
    print(f"{N_QUESTIONS:,} questions x {N_MODELS} models; {os.cpu_count()} CPUs; "
          f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    for case in args.only:
        got = {}
        for side, tree in sides.items():
            work = args.data / f"out-{side}"
            work.mkdir(exist_ok=True)
            out = work / f"{case}.out"
            r = got[side] = timed(cases[case](out), tree, out)
            produced = out.with_suffix(".jsonl") if case == "per-sample" else out
            r["digest"] = digest(produced)
            print(f"  {case:10s} {side:6s}: peak RSS {r['rss_mb']:6.0f} MB (process tree {r['tree_mb']:6.0f} MB), "
                  f"CPU {r['cpu']:6.1f} s, wall {r['wall']:6.1f} s, exit {r['exit']}, output {r['digest']} "
                  f"(load average {r['load']:.1f})", flush=True)
        if "before" in got:
            b, a = got["before"], got["after"]
            print(f"  {case:10s} before / after: peak RSS {b['rss_mb'] / a['rss_mb']:.2f} x, CPU "
                  f"{b['cpu'] / a['cpu']:.2f} x, wall {b['wall'] / a['wall']:.2f} x; output identical: "
                  f"{b['digest'] == a['digest']}", flush=True)
    if not args.keep:
        for side in sides:
            shutil.rmtree(args.data / f"out-{side}", ignore_errors=True)


if __name__ == "__main__":
    main()
