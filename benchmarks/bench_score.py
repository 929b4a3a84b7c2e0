"""End-to-end scoring speed: load a release, read 22 prediction files, parse, score.

Run by hand: `.venv/bin/python benchmarks/bench_score.py [--quick]`. Prints medians.

Cases (issues 2 and 18):
  * paper size: 2,762 questions x 22 prediction files, against the plain
    per-row Python reference (benchmarks/score_reference.py, standard library
    only), in this process and whole-process (`gst-viewer score --json` against
    `python score_reference.py`, each a fresh interpreter, interleaved);
  * training-set size, 200,000 questions: loading (time and peak memory, each
    in a fresh process), `score` with 2 models whole-process and the share of
    the analytic random row, and a prediction log whose lines carry the whole
    question (as lmms-eval's do) read streamed: its peak memory against its size.
Subprocesses run with bytecode caching on (as an installed package has it),
whatever PYTHONDONTWRITEBYTECODE says here. Each child's wall time and CPU time
(user + system) are reported: on a shared machine the CPU time is the steadier.

The whole-process floor at paper size is what any numpy scorer reading these
files with msgspec pays before it scores anything: interpreter start,
`import numpy, msgspec` and decoding the question and prediction files; the
reference's time over it is the largest whole-process speed-up possible.

`--before DIR` (another checkout, e.g. `git worktree add /tmp/before REV`) runs
every fresh-process case with that checkout too, interleaved with this one.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import score_reference  # noqa: E402

from viewer.core.benchmarks.gst.columns import COLUMNS  # noqa: E402
from viewer.core.evaluate import random_baseline  # noqa: E402
from viewer.core.release import load_release  # noqa: E402
from viewer.core.session import open_session  # noqa: E402

PROMPTS = {
    "angle": ["This is the exploration video of you in the entire scene earlier.",
                       "Your current view is :",
                       "In which direction relative to you is the object marked with a red box in the video? "
                       "Taking your current viewing direction as 0\u00b0, with left turns being positive, please "
                       "only give the angle as an integer between \u2013180\u00b0 and 180\u00b0, without the "
                       "\"\u00b0\" symbol."],
    "distance": ["This is the exploration video of you in the entire scene earlier.",
                          "Your current view is :",
                          "How far in meters is the object marked with a red box in the video from you? Answer "
                          "only with a number rounded to one decimal place, without the \"m\" suffix."],
    "point": ["This is the exploration video of you in the entire scene earlier:", "Your current view is :",
                       "The top-down image of the scene is:",
                       "Where on the top-down image does your current location correspond to?\nPlease provide "
                       "coordinates normalized to the range [0, 999], with the x-axis pointing to the right of the "
                       "top-down image and the y-axis pointing to the bottom of the top-down image.\nPlease provide "
                       "the answer directly in the format <point>x y</point>."],
    "choice": ["This is the exploration video of you in the entire scene earlier:",
                        "Among the four images below, which one is closest to a top-down view of the entire scene? "
                        "Please directly answer with the letter of the correct option.\nA.", "\nB.", "\nC.", "\nD."],
}


def make_release(folder: Path, n: int, rng: np.random.Generator) -> list[dict]:
    folder.mkdir(parents=True, exist_ok=True)
    recs = []
    for i in range(n):
        col = COLUMNS[i % len(COLUMNS)]
        at = col.kind_name
        if at == "angle":
            answer = str(int(rng.integers(-180, 181)))
        elif at == "distance":
            answer = round(float(rng.uniform(0.5, 15)), 1)
        elif at == "point":
            answer = f"<point>{rng.integers(0, 1000)} {rng.integers(0, 1000)}</point>"
        else:
            answer = "ABCD"[rng.integers(4)]
        scene = f"scene_{i % 50}"
        uid = f"scene{i % 50}_{col.task}_obj_{i}_pos_{i % 40}_orient_{i % 12}_video_{i % 7}"
        n_img = 4 if at == "choice" else (2 if at == "point" else 1)
        recs.append({"task": col.task, "uid": uid, "scene": scene, "answer": answer,
                     "texts": PROMPTS[at], "copied_video_path": f"videos/{scene}/video{i % 7}.mp4",
                     "images": [{"index": k + 1, "copied_path": f"images/{scene}/{i}_{k}.png"}
                                for k in range(n_img)]})
    with open(folder / "questions.jsonl", "w", encoding="utf-8") as f:
        for r in recs:
            # Written like the published question.json files: UTF-8, no \u escapes.
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return recs


def make_predictions(folder: Path, recs: list[dict], models: int, rng: np.random.Generator) -> list[Path]:
    paths = []
    for m in range(models):
        p = folder / f"model_{m:02d}.jsonl"
        with open(p, "w") as f:
            for r in recs:
                col = next(c for c in COLUMNS if c.task == r["task"])
                at = col.kind_name
                if at == "angle":
                    pred = rng.choice([f"{rng.integers(-180, 181)}", f"\u2212{rng.integers(0, 180)}\u00b0",
                                       f"The object is about {rng.integers(-180, 181)} degrees."])
                elif at == "distance":
                    pred = rng.choice([f"{rng.uniform(0, 15):.1f}", f"About {rng.uniform(0, 15):.1f} m"])
                elif at == "point":
                    pred = f"<point>{rng.integers(0, 1000)} {rng.integers(0, 1000)}</point>"
                else:
                    pred = rng.choice(["A", "B", "C", "D", "The answer is C", "(B)", "unsure"])
                f.write(json.dumps({"uid": r["uid"], "prediction": str(pred)}) + "\n")
        paths.append(p)
    return paths


# ------------------------------------------------------------- the reference
def reference_loop(release_dir: Path, pred_paths: list[Path]) -> dict:
    """The per-row reference (benchmarks/score_reference.py), in this process."""
    return score_reference.reference_loop(TASK_KINDS, release_dir, pred_paths)


TASK_KINDS = {c.task: (c.key, c.kind_name) for c in COLUMNS}


def ours(release_dir: Path, pred_paths: list[Path]) -> dict:
    """What `gst-viewer score` does."""
    return open_session(release_dir, pred_paths).leaderboard()


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def interleaved_medians(a, b, repeats: int) -> tuple[float, float]:
    ta, tb = [], []
    for _ in range(repeats):
        for fn, out in ((a, ta), (b, tb)):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return statistics.median(ta), statistics.median(tb)


# Peak memory of a child process, on its last stderr line: VmHWM (this process image's own high-water mark;
# ru_maxrss would carry over the parent's across fork and exec).
_PEAK = ("import resource, sys\n"
         "try:\n    kb = int(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])\n"
         "except (OSError, IndexError, ValueError):\n    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
         "print(kb, file=sys.stderr)")


def child_env(root: Path = ROOT) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_child(code: str, root: Path = ROOT) -> tuple[float, float, float]:
    """(wall seconds, peak MB, CPU seconds) of `python -c code` in a fresh process importing viewer from `root`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code + "\n" + _PEAK], env=child_env(root), check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, int(done.stderr.strip().splitlines()[-1]) / 1024, cpu


def cli_code(*args) -> str:
    """`gst-viewer ARGS` as child code, exit status ignored (missing media makes score warn)."""
    return (f"import sys; sys.argv = ['gst-viewer', *{[str(a) for a in args]!r}]\n"
            "from viewer.cli import main\nmain()")


def reference_code(tasks: Path, release: Path, preds: list[Path]) -> str:
    script = ROOT / "benchmarks" / "score_reference.py"
    argv = [str(tasks), str(release), *map(str, preds)]
    return (f"import runpy, sys; sys.argv = [{str(script)!r}, *{argv!r}]; "
            f"runpy.run_path({str(script)!r}, run_name='__main__')")


def interleaved_children(codes: dict[str, str | tuple[str, Path]], repeats: int
                         ) -> dict[str, list[tuple[float, float, float]]]:
    """Each code (or (code, checkout)) run `repeats` times in fresh processes, the codes taking turns."""
    out: dict[str, list[tuple[float, float, float]]] = {k: [] for k in codes}
    for _ in range(repeats):
        for k, code in codes.items():
            out[k].append(run_child(*((code,) if isinstance(code, str) else code)))
    return out


def med(runs: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """Median wall seconds, peak MB and CPU seconds."""
    return tuple(statistics.median(r[k] for r in runs) for k in range(3))


def floor_code(release: Path, preds: list[Path]) -> str:
    """What every numpy scorer reading these files with msgspec pays: the imports and the typed decoding."""
    files = [str(release / "questions.jsonl"), *map(str, preds)]
    return ("import numpy, msgspec\nfrom typing import Any\n"
            "class Q(msgspec.Struct, gc=False):\n    uid: str\n    task: str\n    answer: Any = None\n"
            "class P(msgspec.Struct, gc=False):\n    uid: str\n    prediction: Any = None\n"
            f"files = {files!r}\n"
            "for i, f in enumerate(files):\n"
            "    msgspec.json.Decoder(P if i else Q).decode_lines(open(f, 'rb').read())")


def with_before(codes: dict[str, str], before: Path | None) -> dict[str, str | tuple[str, Path]]:
    """The codes, and each again as "NAME (before)" run with the `before` checkout, interleaved."""
    if before is None:
        return dict(codes)
    out: dict[str, str | tuple[str, Path]] = {}
    for k, code in codes.items():
        out[k] = code
        out[f"{k} (before)"] = (code, before)
    return out


def show(name: str, runs: list[tuple[float, float, float]], ms: bool = True) -> str:
    """One line: median wall and CPU time (ms or s) and peak memory."""
    wall, peak, cpu = med(runs)
    if ms:
        return f"  {name:26s} {wall * 1000:7.0f} ms (cpu {cpu * 1000:5.0f} ms)   peak {peak:5.0f} MB"
    return f"  {name:26s} {wall:7.2f} s  (cpu {cpu:5.2f} s)    peak {peak:5.0f} MB"


def write_log_predictions(path: Path, recs: list[dict], rng: np.random.Generator) -> None:
    """An lmms-eval style log: every line carries the question (its doc) beside the answer."""
    with open(path, "w", encoding="utf-8") as f:
        for i, r in enumerate(recs):
            f.write(json.dumps({"doc_id": i, "doc": r, "resps": [["A"]], "filtered_resps": ["A"],
                                "target": r["answer"], "arguments": [r["texts"], r["texts"]]},
                               ensure_ascii=False) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats, no training-size prediction log")
    ap.add_argument("--before", type=Path, metavar="DIR",
                    help="another checkout to time in the same fresh-process runs, interleaved with this one")
    ap.add_argument("--big-repeats", type=int, default=3, metavar="N",
                    help="fresh-process runs of each training-size case (default 3)")
    args = ap.parse_args()
    repeats = 5 if args.quick else 9
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        paper = tmp / "paper"
        recs = make_release(paper, 2762, rng)
        preds = make_predictions(paper, recs, 22, rng)
        tasks = tmp / "tasks.json"
        tasks.write_text(json.dumps(TASK_KINDS))

        # Same numbers from both implementations, or the comparison means nothing.
        a = ours(paper, preds)["models"]["model_00"]["columns"]
        b = reference_loop(paper, preds)["model_00"]
        worst = max(abs(a[k] - b[k]) for k in b)
        print(f"check: largest column difference ours vs reference = {worst:.3f} points "
              "(choice parsing differs on free text)")

        # Interleaved, so a slow spell of this shared machine hits both alike.
        t_ours, t_ref = interleaved_medians(lambda: ours(paper, preds),
                                            lambda: reference_loop(paper, preds), repeats)
        n = 2762 * 22
        print(f"paper size, 22 x 2,762 = {n:,} predictions (median of {repeats}, interleaved):")
        print(f"  in process:    gst-viewer score {t_ours * 1000:7.1f} ms   per-row reference {t_ref * 1000:7.1f} ms"
              f"   speed-up {t_ref / t_ours:5.2f} x")
        base = {"gst-viewer score": cli_code("score", paper, *preds, "--json"),
                "per-row reference": reference_code(tasks, paper, preds),
                "python -c pass": "pass", "import numpy": "import numpy",
                "floor (see the docstring)": floor_code(paper, preds)}
        codes = with_before({k: base[k] for k in ("gst-viewer score",)}, args.before) | base
        for code in codes.values():          # warm the file cache and the bytecode cache
            run_child(*((code,) if isinstance(code, str) else code))
        runs = interleaved_children(codes, repeats)
        print(f"  whole process, fresh interpreters (median of {repeats}, interleaved):")
        for k in codes:
            print(show(k, runs[k]))
        w_ours, w_ref, w_floor = (med(runs[k])[0] for k in ("gst-viewer score", "per-row reference",
                                                             "floor (see the docstring)"))
        print(f"  speed-up whole process {w_ref / w_ours:.2f} x; the most any numpy scorer can reach here: "
              f"{w_ref / w_floor:.2f} x (reference / floor)")

        big = tmp / "train"
        big_recs = make_release(big, 200_000, rng)
        big_preds = make_predictions(big, big_recs, 2, rng)
        size = (big / "questions.jsonl").stat().st_size / 1024**2
        print(f"training size, 200,000 questions ({size:.0f} MB), each in a fresh process "
              f"(median of {args.big_repeats}, interleaved):")
        big_codes = with_before({"load_release": f"from viewer.core.release import load_release; "
                                                 f"load_release({str(big)!r})",
                                 "score, 2 models": cli_code("score", big, *big_preds, "--json")}, args.before)
        big_runs = interleaved_children(big_codes, args.big_repeats)
        for k in big_codes:
            print(show(k, big_runs[k], ms=False))
        t_score = med(big_runs["score, 2 models"])[0]
        release = load_release(big)
        t = time.perf_counter()
        random_baseline(release)
        t_random = time.perf_counter() - t
        print(f"  random row          {t_random:6.2f} s = {100 * t_random / t_score:.1f} % of the score run")
        if not args.quick:
            log = big / "model_log.jsonl"
            write_log_predictions(log, big_recs, rng)
            log_mb = log.stat().st_size / 1024**2
            code = f"from viewer.core.predictions import load_predictions; load_predictions({str(log)!r})"
            _, base_peak, _ = run_child(f"from viewer.core.predictions import load_predictions; "
                                        f"load_predictions({str(big_preds[0])!r})")
            t_log, peak_log, _ = run_child(code)
            plain_mb = big_preds[0].stat().st_size / 1024**2
            print(f"  prediction log      {log_mb:6.0f} MB read streamed in {t_log:.2f} s: peak {peak_log:.0f} MB "
                  f"(a {plain_mb:.0f} MB plain file of the same answers: {base_peak:.0f} MB)")


if __name__ == "__main__":
    main()
