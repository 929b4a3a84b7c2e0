"""Ground-truth audit speed at the paper's size (50 scenes, 2,762 questions).

Run by hand: `.venv/bin/python benchmarks/bench_audit.py [--release PATH]`. Prints medians.

Without --release, a demo release of --scenes scenes is generated once (in
chunks of 10 scenes, retrying a chunk the generator gives up on with another
seed) and cached in the temp folder (generation is not timed: it renders
every video frame). To keep generation affordable its images are small (160 x 128); the
audit never reads pixels, so the scene.json intrinsics are then rescaled to
the published 640 x 512 (same field of view), which makes the audit cast as
many rays as it would on the real release. Questions beyond --questions are
dropped (deterministically) to match the paper's count.

Timed: `gst-viewer audit RELEASE --json` end to end in a fresh process
(imports, loading, worker processes, every check), median of --repeat runs;
rays per second = rays cast / that wall time, and samples answered per second
= the rays an exhaustive cast of every sampled pixel would take (what the
audit cast before it restricted rays to the target's projected box and stopped
at the first frame showing it) / that wall time. The JSON is the same either way.

With --before DIR (another checkout, e.g. `git worktree add /tmp/audit-before <commit>`), each
repeat runs that checkout's audit and then this one's, interleaved so that both see the same load
on a shared machine; it prints both medians, their ratio, and whether the JSON outputs are identical.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PUBLISHED = (640, 512)


CHUNK = 10


def generate(out: Path, scenes: int) -> float:
    """A demo release of `scenes` scenes, generated CHUNK scenes at a time and merged.

    Chunks because the generator gives up on some layouts ("no walkable path
    between two rooms"); a failed chunk is retried with another seed.
    """
    import shutil

    from viewer.demo.generate import generate_demo
    from viewer.demo.scenebuild import DemoConfig
    t = time.perf_counter()
    work = out.parent / f"{out.name}.chunks"
    out.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    done, seed = 0, 0
    while done < scenes:
        n = min(CHUNK, scenes - done)
        chunk = work / f"seed{seed}"
        try:
            if not (chunk / "demo.json").exists():
                generate_demo(chunk, scenes=n, seed=seed, config=DemoConfig(width=160, height=128, per_column=5),
                              log=lambda msg: None)
        except ValueError as e:
            print(f"  seed {seed}: {e}; trying another seed", flush=True)
            seed += 1
            continue
        lines += merge_chunk(chunk, out, n, offset=done, tag=f"seed{seed}")
        done, seed = done + n, seed + 1
    (out / "questions.jsonl").write_text("\n".join(lines) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return time.perf_counter() - t


def merge_chunk(chunk: Path, out: Path, n: int, offset: int, tag: str) -> list[str]:
    """Copy a chunk's scenes in as scene_<offset + k>; its questions, renamed to match."""
    import re
    import shutil
    shutil.copytree(chunk / "distractors", out / f"distractors_{tag}")
    for k in range(1, n + 1):
        dst = out / "scenes" / f"scene_{offset + k}"
        shutil.copytree(chunk / "scenes" / f"scene_{k}", dst)
        doc = json.loads((dst / "scene.json").read_text())
        doc["scene"] = dst.name
        (dst / "scene.json").write_text(json.dumps(doc))
    lines = []
    for line in (chunk / "questions.jsonl").read_text().splitlines():
        r = json.loads(line)
        k = int(r["scene"].split("_")[1])
        r["scene"] = f"scene_{offset + k}"
        r["uid"] = re.sub(r"^scene\d+_", f"scene{offset + k}_", r["uid"])

        def fix(p: str, k: int = k) -> str:
            return p.replace(f"scenes/scene_{k}/", f"scenes/scene_{offset + k}/").replace(
                "distractors/", f"distractors_{tag}/")
        r["copied_video_path"] = fix(r["copied_video_path"])
        for im in r["images"]:
            im["copied_path"] = fix(im["copied_path"])
        lines.append(json.dumps(r))
    return lines


def to_published_intrinsics(root: Path) -> None:
    for path in sorted((root / "scenes").glob("*/scene.json")):
        doc = json.loads(path.read_text())
        entries = list(doc.get("videos", {}).values()) + list(doc.get("viewpoints", {}).values())
        for e in entries:
            k = e.get("intrinsics")
            if k and k["width"] != PUBLISHED[0]:
                s = PUBLISHED[0] / k["width"]
                e["intrinsics"] = {"width": PUBLISHED[0], "height": PUBLISHED[1], "fx": k["fx"] * s,
                                   "fy": k["fy"] * s, "cx": k["cx"] * s, "cy": k["cy"] * s}
        path.write_text(json.dumps(doc))


def keep_questions(root: Path, n: int) -> int:
    every = root / "questions.all.jsonl"
    if not every.exists():
        (root / "questions.jsonl").rename(every)
    lines = [x for x in every.read_text().splitlines() if x.strip()]
    if len(lines) > n:
        keep = sorted(random.Random(0).sample(range(len(lines)), n))
        lines = [lines[i] for i in keep]
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n")
    return len(lines)


def prepare(args) -> Path:
    if args.release:
        root = Path(args.release)
        if args.published_intrinsics:
            to_published_intrinsics(root)
            keep_questions(root, args.questions)
        return root
    root = Path(tempfile.gettempdir()) / f"gst-viewer-bench-audit-{args.scenes}"
    if not (root / "bench.json").exists():
        print(f"generating {args.scenes} scenes into {root} (once; not timed) ...", flush=True)
        seconds = generate(root, args.scenes)
        to_published_intrinsics(root)
        (root / "bench.json").write_text(json.dumps({"generated_seconds": seconds, "scenes": args.scenes}))
        print(f"  generated in {seconds:.0f} s", flush=True)
    n = keep_questions(root, args.questions)
    if n < args.questions:
        print(f"note: the generated release has only {n} questions (< {args.questions})")
    return root


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--release", help="audit this release instead of a generated one")
    p.add_argument("--scenes", type=int, default=50)
    p.add_argument("--questions", type=int, default=2762)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--before", help="a checkout of the code to compare with, run interleaved (A/B)")
    p.add_argument("--published-intrinsics", action="store_true",
                   help="with --release (a generated demo, changed in place): rescale its intrinsics to "
                        "640 x 512 and keep --questions questions, as for the generated release")
    args = p.parse_args()
    root = prepare(args)

    from viewer.core.audit import run_audit
    from viewer.core.release import load_release
    from viewer.render.audit_images import SceneImages
    from viewer.render.visibility import SceneVisibility
    release = load_release(root)
    report = run_audit(release, workers=args.workers, visibility=SceneVisibility,       # also warms the file cache
                       images=SceneImages)
    rays = report.rays_cast
    cmd = [sys.executable, "-m", "viewer", "audit", str(root), "--json"]
    if args.workers:
        cmd += ["--workers", str(args.workers)]
    sides = {"after": ROOT} if not args.before else {"before": Path(args.before).resolve(), "after": ROOT}
    walls: dict[str, list[float]] = {side: [] for side in sides}
    outputs: dict[str, set[bytes]] = {side: set() for side in sides}
    for _ in range(args.repeat):
        for side, tree in sides.items():
            env = dict(os.environ, PYTHONPATH=str(tree))
            t = time.perf_counter()
            out = subprocess.run(cmd, check=True, env=env, cwd=tree, capture_output=True).stdout
            walls[side].append(time.perf_counter() - t)
            outputs[side].add(out)
    errors = sum(1 for f in report.findings if f.severity == "error")
    print(f"release: {root} - {len(release)} questions in {len(release.scenes)} scenes, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end")
    covered = report.rays_covered
    for side in sides:
        w = statistics.median(walls[side])
        print(f"{side}: audit end to end (gst-viewer audit --json, fresh process): median {w:.1f} s "
              f"of {args.repeat} ({', '.join(f'{x:.1f}' for x in walls[side])}); "
              f"{covered / w / 1e6:.2f} M samples/s answered, {rays / w / 1e6:.2f} M rays/s cast")
    if args.before:
        ratios = [b / a for b, a in zip(walls["before"], walls["after"])]
        print(f"before / after, per interleaved pair: median {statistics.median(ratios):.2f} x "
              f"({', '.join(f'{r:.2f}' for r in ratios)}); JSON identical: "
              f"{len(outputs['before'] | outputs['after']) == 1}")
    print(f"rays cast: {rays:,}; samples answered: {covered:,} (rays an exhaustive cast would take); "
          f"in-process run_audit here {report.seconds:.1f} s")
    print(f"findings: {len(report.findings)} ({errors} errors)")


if __name__ == "__main__":
    main()
