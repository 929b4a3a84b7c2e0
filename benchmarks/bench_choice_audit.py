"""Speed of judging choice questions by their pictures (choice_answer_mismatch / choice_options_ambiguous).

Run by hand: `.venv/bin/python benchmarks/bench_choice_audit.py [--release PATH] [--repeat N] [--before DIR]`.

Timed, per choice question, in the order an audit meets them and with the
audit's own sharing (a scene's mesh and rendered maps, an option image seen
by several questions): the judgement (reading the options, the reference
map or the clip's poses, every score). Printed: the median per question,
the mean (which carries each scene's one-off mesh loading and the first
question's imports), the slowest,
and the cost per scene (all of a scene's judgements, as its audit job pays
them). Each run is a fresh process with nothing measured yet, as an audit
worker starts.

Baseline, measured in the same run on the same questions: reading the
question's option images with Pillow and nothing else, the work no
judgement can avoid. The ratio says what the measures add to it.

With --before DIR (another checkout, e.g. `git worktree add /tmp/choice-before <commit>`), each
repeat runs that checkout's judging and then this one's, interleaved so that both see the same load
on a shared machine; it prints both medians per scene and their ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":        # which checkout's code is timed (--code, for --before), else this one's
    _code = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--code=")), str(ROOT))
    sys.path.insert(0, _code)

TARGET_MS = 50.0


def timed_judgements(release) -> tuple[list[tuple[str, float]], list[float]]:
    """(uid, seconds) per choice question, and seconds per scene (its questions' judgements together)."""
    from viewer.core.audit import choice
    from viewer.core.audit.auditors import SceneAuditor
    from viewer.core.audit.types import Tally
    from viewer.core.scene.model import load_scene
    from viewer.render.audit_images import SceneImages

    by_scene: dict[str, list] = {}
    for q in release.questions:
        by_scene.setdefault(q.scene, []).append(q)
    out, per_scene = [], []
    for sid, questions in by_scene.items():      # judged scene by scene, as the audit's scene jobs do
        judge = choice._Judge(SceneAuditor(load_scene(release.root, sid), questions, Tally([]), None,
                                           SceneImages, sid))
        scene_seconds = 0.0
        for q in questions:
            key = q.column.key if q.column else None
            if key not in choice.CHOICE_KEYS:
                continue
            t = time.perf_counter()
            try:
                judge.judge(q, key)
            except choice.Skip:
                pass
            out.append((q.uid, time.perf_counter() - t))
            scene_seconds += out[-1][1]
        if scene_seconds:
            per_scene.append(scene_seconds)
    return out, per_scene


def baseline_reads(release) -> list[float]:
    from viewer.core.audit.choice import CHOICE_KEYS
    from viewer.render.audit_images import SceneImages
    reader = SceneImages()
    out = []
    for q in release.questions:
        if q.column is None or q.column.key not in CHOICE_KEYS:
            continue
        t = time.perf_counter()
        for im in q.images:
            if im.path:
                reader.read(im.path)
        out.append(time.perf_counter() - t)
    return out


def one_run(release_path: str) -> dict:
    """One fresh process's timings: per question, per scene, and the baseline reads."""
    from viewer.core.release import load_release
    from viewer.render.raycast import import_open3d
    import_open3d()                             # an audit worker has it imported for the ray casting
    release = load_release(release_path)
    baseline_reads(release)                     # warm the file cache and the imports for both
    per_question, per_scene = timed_judgements(load_release(release_path))
    return {"question": [s for _, s in per_question], "scene": per_scene, "base": baseline_reads(release)}


def run_checkout(code: str, release: str) -> dict:
    env = dict(os.environ, PYTHONPATH=code, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, __file__, f"--code={code}", "--one-run", "--release", release],
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def report(label: str, runs: list[dict]) -> float:
    """Print the median run's figures; returns its median per scene (ms)."""
    per = sorted(runs, key=lambda r: statistics.median(r["scene"]))[len(runs) // 2]
    q, scene = per["question"], per["scene"]
    med, b = statistics.median(q) * 1000, statistics.median(per["base"]) * 1000
    scene_ms = statistics.median(scene) * 1000
    print(f"{label}choice questions: {len(q)} in {len(scene)} scenes")
    print(f"  judgement per question: median {med:7.1f} ms   mean {statistics.mean(q) * 1000:7.1f} ms   "
          f"slowest {max(q) * 1000:7.1f} ms   (total {sum(q):.2f} s)")
    print(f"  per scene (all its choice judgements): median {scene_ms:7.1f} ms   "
          f"mean {statistics.mean(scene) * 1000:7.1f} ms   (runs: "
          + ", ".join(f"{statistics.median(r['scene']) * 1000:.0f}" for r in runs) + ")")
    print(f"  baseline: read the options: median {b:7.1f} ms")
    print(f"  ratio judgement / baseline: {med / b:7.2f}")
    print(f"  target: under {TARGET_MS:.0f} ms per question (median): {'met' if med < TARGET_MS else 'NOT met'}")
    return scene_ms


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--release", default=str(ROOT / "assets" / "demo"))
    p.add_argument("--repeat", type=int, default=3, help="fresh processes timed (the median run is kept)")
    p.add_argument("--before", help="a checkout of the code to compare with, run interleaved (A/B)")
    p.add_argument("--code", help=argparse.SUPPRESS)
    p.add_argument("--one-run", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one_run:
        print(json.dumps(one_run(args.release)))
        return 0
    before, after = [], []
    for _ in range(args.repeat):
        if args.before:
            before.append(run_checkout(str(Path(args.before).resolve()), args.release))
        after.append(run_checkout(str(ROOT), args.release))
    if args.before:
        b = report("before: ", before)
        a = report("after: ", after)
        ratios = [statistics.median(x["scene"]) / statistics.median(y["scene"]) for x, y in zip(before, after)]
        print(f"before / after per scene, per interleaved pair: median {statistics.median(ratios):.2f} x "
              f"({', '.join(f'{r:.2f}' for r in ratios)}); medians {b:.1f} -> {a:.1f} ms")
    else:
        report("", after)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
