"""Structure from motion from walkthrough videos (viewer/render/sfm): per video, the time and what it recovered.

Run by hand (one run at a time: it uses every core):

    .venv/bin/python benchmarks/bench_reconstruct_video.py [VIDEO ...] [--step N] [--held-out K] [--json OUT]
                                                           [--save DIR]

Default video: the real sample tests/data/gst-bench-page/02_*/video1.mp4 (scene16, 535 frames, 640x512).
Per video it prints the wall and CPU time (and per stage), the sampled and registered frames, the models
before and after merging, the share of the sampled frames in the one model, the points, and the query
views localised. The real samples hold no query view of scene16, so K frames the run did not sample
(between two sampled ones) stand in as queries: each is localised, and its centre compared with the
midpoint of its two neighbours' (in units of the median step between sampled frames).

Baselines, measured on the same video on this 2-core machine (issue 33): pycolmap defaults, every 4th
frame: 5 models, the largest 41 % of the frames, 4.5 min wall; tuned, every frame: 2 models, 66 %,
7.4 min wall, 11 CPU-min. The alignment to the map (branch h33align) adds its residuals through
`ALIGNMENT_HOOK` when it is merged.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from viewer.render.sfm import SfmSettings, reconstruct_video  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REAL = sorted(glob.glob(str(ROOT / "tests/data/gst-bench-page/02_*/video1.mp4")))
BASELINES = {"defaults, every 4th frame": 0.41, "tuned, every frame": 0.66}

# The alignment's residuals per video, once the alignment to the map exists: a function
# (SfmResult, video) -> dict of figures, printed with the rest. None until then.
ALIGNMENT_HOOK = None


def held_out_queries(video: str, step: int, k: int, folder: Path) -> dict[str, str]:
    """K frames between sampled ones (frame step*i + step//2), written as PNGs: name → file."""
    from viewer.render.image_io import write_png
    from viewer.render.video import AvVideoReader
    if step < 2 or k <= 0:
        return {}
    reader = AvVideoReader(video)
    try:
        n = reader.n_frames
        picks = np.linspace(step // 2, n - step, k).astype(int)
        picks = [int(p - p % step + step // 2) for p in picks]
        out = {}
        for p in dict.fromkeys(picks):
            path = folder / f"frame_{p:06d}.png"
            write_png(path, reader.frame(p))
            out[path.name] = str(path)
        return out
    finally:
        reader.close()


def held_out_errors(result, step: int) -> list[float]:
    """Per localised held-out frame: its centre's distance to the midpoint of its neighbours, in median steps."""
    c = result.poses[:, :3, 3]
    reg = np.flatnonzero(result.registered)
    steps = np.linalg.norm(np.diff(c[reg], axis=0), axis=1)
    unit = float(np.median(steps)) if len(steps) else float("nan")
    out = []
    for name, q in result.queries.items():
        f = int(name.split("_")[1].split(".")[0])
        a, b = f - step // 2, f - step // 2 + step
        if q.localised and b < len(c) and result.registered[a] and result.registered[b]:
            out.append(float(np.linalg.norm(q.pose[:3, 3] - (c[a] + c[b]) / 2) / unit))
    return out


def run(video: str, step: int, held_out: int, save: str | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        queries = held_out_queries(video, step, held_out, Path(tmp))
        last = [""]

        def progress(stage, done, total):
            if stage != last[0]:
                print(f"  {stage} ...", flush=True)
                last[0] = stage
        r = reconstruct_video(video, queries, SfmSettings(step=step), progress=progress)
    if save:
        from viewer.core.scene.sfm_result import save_sfm_result
        save_sfm_result(r, Path(save) / (Path(video).stem + ".npz"))
    s = dict(r.stats)
    errs = held_out_errors(r, step)
    s["held_out_error_steps_median"] = round(float(np.median(errs)), 3) if errs else None
    if ALIGNMENT_HOOK is not None:
        s["alignment"] = ALIGNMENT_HOOK(r, video)
    s["video"] = os.path.relpath(video, ROOT)
    return s


def report(s: dict) -> None:
    print(f"{s['video']}: {s['registered_frames']}/{s['sampled_frames']} sampled frames in one model "
          f"({100 * s['largest_model_share']:.0f} %), models {s['models_before_merge']} -> {s['models']} "
          f"(sizes before merging {s['model_sizes_before_merge']}), {s['leftovers_localised']} left-out frames "
          f"localised, {s['points']} points")
    print(f"  wall {s['wall_seconds'] / 60:.1f} min, CPU {s['cpu_seconds'] / 60:.1f} min; stages (s): {s['seconds']}")
    print(f"  held-out frames as queries: {s['queries_localised']}/{s['queries']} localised, median error "
          f"{s['held_out_error_steps_median']} steps")
    for name, share in BASELINES.items():
        print(f"  vs {name} (issue 33): {100 * share:.0f} % in the largest model -> "
              f"{100 * s['largest_model_share']:.0f} %")
    if "alignment" in s:
        print(f"  alignment: {s['alignment']}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("videos", nargs="*", default=REAL)
    p.add_argument("--step", type=int, default=SfmSettings().step)
    p.add_argument("--held-out", type=int, default=10)
    p.add_argument("--json", help="write the figures here too")
    p.add_argument("--save", metavar="DIR", help="keep each result (the SfmResult .npz) in DIR, to look at")
    a = p.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    out = []
    for v in a.videos:
        s = run(v, a.step, a.held_out, a.save)
        report(s)
        out.append(s)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
