"""Training-set-size audit: >= 100 scenes and >= 20,000 questions, local and Dask executors, 1 and 2 workers.

Run by hand: `.venv/bin/python benchmarks/bench_train_scale.py [--copies 7] [--workers 1 2]`.

The release is the audit benchmark's generated 50 scenes (benchmarks/bench_audit.py
makes them once, at the published 640 x 512) with all their questions, reused
--copies times under new scene ids (scene_<k * 50 + i>; files hard-linked, each
scene.json renamed, questions' uids and media paths rewritten), so every copy
is audited as a scene of its own. Timed: `gst-viewer audit RELEASE --json` in
a fresh process per executor and worker count; the JSON of every run must be
identical. Rays are counted once in this process (the same for every run).
With --before DIR (another checkout), each run of this code is preceded by the
same run of that checkout (interleaved A/B); their JSON must be identical too.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def replicate(src: Path, out: Path, copies: int) -> tuple[int, int]:
    """`copies` copies of src's scenes under new ids, with all of src's questions; (scenes, questions)."""
    lines = [x for x in (src / "questions.all.jsonl").read_text().splitlines() if x.strip()]
    scene_dirs = sorted((src / "scenes").iterdir(), key=lambda p: int(p.name.split("_")[1]))
    n = len(scene_dirs)
    for d in src.iterdir():
        if d.name.startswith("distractors"):
            shutil.copytree(d, out / d.name, copy_function=os.link, dirs_exist_ok=True)
    questions = []
    for c in range(copies):
        for d in scene_dirs:
            k = int(d.name.split("_")[1])
            new = f"scene_{c * n + k}"
            dst = out / "scenes" / new
            shutil.copytree(d, dst, copy_function=os.link)
            doc = json.loads((dst / "scene.json").read_text())
            doc["scene"] = new
            (dst / "scene.json").unlink()
            (dst / "scene.json").write_text(json.dumps(doc))
        for line in lines:
            r = json.loads(line)
            k = int(r["scene"].split("_")[1])
            new_k = c * n + k
            r["scene"] = f"scene_{new_k}"
            r["uid"] = re.sub(r"^scene\d+_", f"scene{new_k}_", r["uid"])
            r["copied_video_path"] = r["copied_video_path"].replace(f"scenes/scene_{k}/", f"scenes/scene_{new_k}/")
            for im in r["images"]:
                im["copied_path"] = im["copied_path"].replace(f"scenes/scene_{k}/", f"scenes/scene_{new_k}/")
            questions.append(json.dumps(r))
    (out / "questions.jsonl").write_text("\n".join(questions) + "\n")
    return copies * n, len(questions)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--copies", type=int, default=7)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--executors", nargs="+", default=["local", "dask"])
    p.add_argument("--before", help="a checkout of the code to compare with, each run interleaved (A/B)")
    args = p.parse_args()

    import bench_audit
    src = Path(tempfile.gettempdir()) / "gst-viewer-bench-audit-50"
    if not (src / "bench.json").exists():
        bench_audit.prepare(argparse.Namespace(release=None, scenes=50, questions=2762, published_intrinsics=False))
    root = Path(tempfile.gettempdir()) / f"gst-viewer-bench-train-{args.copies}"
    if not (root / "questions.jsonl").exists():
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        replicate(src, root, args.copies)

    from viewer.core.audit import run_audit
    from viewer.core.release import load_release
    from viewer.render.audit_images import SceneImages
    from viewer.render.visibility import SceneVisibility
    release = load_release(root)
    n_scenes = len(release.scenes)
    report = run_audit(release, workers=1, visibility=SceneVisibility, images=SceneImages)
    print(f"release: {root} - {len(release):,} questions in {n_scenes} scenes, {os.cpu_count()} CPUs")
    print(f"in-process audit, 1 worker: {report.seconds:.1f} s = {report.seconds / n_scenes * 1000:.0f} ms per scene; "
          f"{report.rays_cast:,} rays cast for {report.rays_covered:,} samples")
    sides = {"after": ROOT} if not args.before else {"before": Path(args.before).resolve(), "after": ROOT}
    digests = set()
    base: dict[str, float] = {}
    for executor in args.executors:
        for workers in args.workers:
            cmd = [sys.executable, "-m", "viewer", "audit", str(root), "--json", "--executor", executor,
                   "--workers", str(workers)]
            walls = {}
            for side, tree in sides.items():
                env = dict(os.environ, PYTHONPATH=str(tree))
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                t = time.perf_counter()
                out = subprocess.run(cmd, env=env, cwd=tree, check=True, capture_output=True).stdout
                wall = walls[side] = time.perf_counter() - t
                digests.add(hashlib.sha256(out).hexdigest())
                base.setdefault(side, wall)
                print(f"  {side:6} {executor:5} x {workers} worker(s): {wall:6.1f} s end to end, "
                      f"{report.rays_covered / wall / 1e6:6.2f} M samples/s answered, "
                      f"{report.rays_cast / wall / 1e6:5.2f} M rays/s cast, speed-up {base[side] / wall:4.2f} x "
                      f"(load average {os.getloadavg()[0]:.1f})", flush=True)
            if args.before:
                print(f"         before / after: {walls['before'] / walls['after']:.2f} x", flush=True)
    print(f"JSON identical across runs: {len(digests) == 1}")


if __name__ == "__main__":
    main()
