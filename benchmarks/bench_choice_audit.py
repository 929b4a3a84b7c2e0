"""Speed of judging choice questions by their pictures (choice_answer_mismatch / choice_options_ambiguous).

Run by hand: `.venv/bin/python benchmarks/bench_choice_audit.py [--release PATH] [--repeat N]`.

Timed, per choice question, in the order an audit meets them and with the
audit's own sharing (a scene's mesh and rendered maps, an option image seen
by several questions): the judgement (reading the options, the reference
map or the clip's poses, every score). Printed: the median per question,
the mean (which carries each scene's one-off mesh loading), the slowest.

Baseline, measured in the same run on the same questions: reading the
question's option images with OpenCV and nothing else, the work no
judgement can avoid. The ratio says what the measures add to it.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_MS = 50.0


def timed_judgements(release) -> list[tuple[str, float]]:
    from viewer.core.audit import choice
    from viewer.core.audit.auditors import SceneAuditor
    from viewer.core.audit.types import Tally
    from viewer.core.scene import load_scene
    from viewer.render.audit_images import SceneImages

    by_scene: dict[str, list] = {}
    for q in release.questions:
        by_scene.setdefault(q.scene, []).append(q)
    out = []
    for sid, questions in by_scene.items():      # judged scene by scene, as the audit's scene jobs do
        judge = choice._Judge(SceneAuditor(load_scene(release.root, sid), questions, Tally([]), None,
                                           SceneImages, sid))
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
    return out


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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--release", default=str(ROOT / "assets" / "demo"))
    p.add_argument("--repeat", type=int, default=3, help="fresh audits timed (the median run is kept)")
    args = p.parse_args()
    from viewer.core.release import load_release
    release = load_release(args.release)
    baseline_reads(release)                     # warm the file cache and the imports for both
    runs, bases = [], []
    for _ in range(args.repeat):
        runs.append([s for _, s in timed_judgements(load_release(args.release))])
        bases.append(baseline_reads(release))
    per = sorted(runs, key=statistics.median)[len(runs) // 2]
    base = sorted(bases, key=statistics.median)[len(bases) // 2]
    med, b = statistics.median(per) * 1000, statistics.median(base) * 1000
    print(f"choice questions: {len(per)} in {args.release}")
    print(f"  judgement per question: median {med:7.1f} ms   mean {statistics.mean(per) * 1000:7.1f} ms   "
          f"slowest {max(per) * 1000:7.1f} ms   (total {sum(per):.2f} s)")
    print(f"  baseline: read the options: median {b:7.1f} ms")
    print(f"  ratio judgement / baseline: {med / b:7.2f}")
    print(f"  target: under {TARGET_MS:.0f} ms per question (median): {'met' if med < TARGET_MS else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
