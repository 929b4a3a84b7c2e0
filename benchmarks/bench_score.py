"""End-to-end scoring speed: load a release, read 22 prediction files, parse, score.

Run by hand: `.venv/bin/python benchmarks/bench_score.py`. Prints medians.

Cases (issue 2):
  * paper size: 2,762 questions x 22 prediction files, end to end, against a
    plain per-row Python reference loop doing the same work in the same run;
  * training-set size: loading a 200,000-question release.
"""
from __future__ import annotations

import json
import math
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from viewer.core.release import load_release  # noqa: E402
from viewer.core.session import open_session  # noqa: E402
from viewer.core.tasks import COLUMNS  # noqa: E402

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
_NUM = re.compile(r"([-\u2212\u2013]?)(\d+(?:\.\d*)?|\.\d+)")


def reference_loop(release_dir: Path, pred_paths: list[Path]) -> dict:
    """The straightforward implementation: one record, one parse, one score at a time."""
    questions = {}
    with open(release_dir / "questions.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                q = json.loads(line)
                questions[q["uid"]] = q
    kinds = {c.task: (c.key, c.kind_name) for c in COLUMNS}
    out = {}
    for p in pred_paths:
        per_col: dict[str, list[float]] = {}
        with open(p, encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                q = questions.get(rec["uid"])
                if q is None:
                    continue
                key, at = kinds[q["task"]]
                pred, truth = rec["prediction"], q["answer"]
                per_col.setdefault(key, []).append(_reference_score(at, pred, truth))
        out[p.stem] = {k: 100 * sum(v) / len(v) for k, v in per_col.items()}
    return out


def _reference_number(text):
    m = _NUM.search(str(text))
    return None if not m else (-1 if m.group(1) else 1) * float(m.group(2))


def _reference_score(at, pred, truth) -> float:
    if at == "choice":
        m = re.search(r"\b([A-D])\b", pred)
        return float(bool(m) and m.group(1) == truth)
    if at == "point":
        nums_p = [float(x) for x in re.findall(r"\d+", pred)[:2]]
        nums_t = [float(x) for x in re.findall(r"\d+", truth)[:2]]
        if len(nums_p) < 2:
            return 0.0
        d = math.dist(nums_p, nums_t)
        return sum(d <= t for t in (100, 150, 200, 250, 300)) / 5
    p, g = _reference_number(pred), _reference_number(truth)
    if p is None:
        return 0.0
    if at == "angle":
        d = abs(p - g) % 360
        e = min(d, 360 - d)
        return sum(e <= t for t in (15, 30, 45)) / 3
    r = abs(p - g) / g
    return sum(r <= 1 - th + 1e-9 for th in [0.5 + 0.05 * k for k in range(10)]) / 10


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


def main() -> None:
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        paper = tmp / "paper"
        recs = make_release(paper, 2762, rng)
        preds = make_predictions(paper, recs, 22, rng)

        # Same numbers from both implementations, or the comparison means nothing.
        a = ours(paper, preds)["models"]["model_00"]["columns"]
        b = reference_loop(paper, preds)["model_00"]
        worst = max(abs(a[k] - b[k]) for k in b)
        print(f"check: largest column difference ours vs reference = {worst:.3f} points "
              "(choice parsing differs on free text)")

        # Interleaved, so a slow spell of this shared machine hits both alike.
        t_ours, t_ref = interleaved_medians(lambda: ours(paper, preds),
                                            lambda: reference_loop(paper, preds), 9)
        n = 2762 * 22
        print(f"paper size, 22 x 2,762 = {n:,} predictions, end to end (median of 9, interleaved):")
        print(f"  gst-viewer score  {t_ours * 1000:8.1f} ms   ({n / t_ours:,.0f} predictions/s)")
        print(f"  per-row reference {t_ref * 1000:8.1f} ms")
        print(f"  speed-up          {t_ref / t_ours:8.2f} x")

        big = tmp / "train"
        make_release(big, 200_000, rng)
        size = (big / "questions.jsonl").stat().st_size / 1024**2
        t_big = median_time(lambda: load_release(big), 3)
        print(f"training size, 200,000 questions ({size:.0f} MB): load median of 3 = {t_big:.2f} s")


if __name__ == "__main__":
    main()
