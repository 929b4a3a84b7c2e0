"""The per-row reference scorer of bench_score.py, as a script of its own.

It imports only the standard library, as a plain Python scorer would, so that
`python benchmarks/score_reference.py TASKS_JSON RELEASE_DIR PRED...` can be
timed whole-process against `gst-viewer score` (bench_score.py does this).
TASKS_JSON maps each task to [column key, answer kind].
"""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

_NUM = re.compile(r"([-\u2212\u2013]?)(\d+(?:\.\d*)?|\.\d+)")


def reference_loop(kinds: dict[str, tuple[str, str]], release_dir: Path, pred_paths: list[Path]) -> dict:
    """The straightforward implementation: one record, one parse, one score at a time."""
    questions = {}
    with open(release_dir / "questions.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                q = json.loads(line)
                questions[q["uid"]] = q
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


def main(argv: list[str]) -> None:
    kinds = {task: tuple(v) for task, v in json.loads(Path(argv[0]).read_text()).items()}
    print(json.dumps(reference_loop(kinds, Path(argv[1]), [Path(p) for p in argv[2:]])))


if __name__ == "__main__":
    main(sys.argv[1:])
