"""Scanning videos for the red target box (render/redbox.py) against PyAV decoding alone (issue 31).

Run: `.venv/bin/python benchmarks/bench_frames.py [VIDEO ...] [--repeats 3] [--workers 1,2] [--no-dask]`.

In the same run, on the same videos (default: the bundled demo's six boxed videos and three plain ones):
- the floor: PyAV decoding every frame, and decoding plus the conversion to RGB the detector reads;
- the scan: `scan_video` uncached (decode, RGB, detect), on one core;
- scaling: the whole set scanned uncached, one video a job, on the local executor with 1..N worker
  processes (each run starts its processes: that cost is in the figure) and on a Dask LocalCluster
  (started once, before the runs);
and the cost of a 6,790-minute release (the paper's size) on N workers, from the measured frames per
second per worker, scaled by pixels to the resolution given (--release-size, default 640x480 at 30 fps).
Medians of `--repeats` runs. The machine's load is printed: measure on a quiet machine.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from viewer.core.executors import LocalExecutor  # noqa: E402
from viewer.render.redbox import scan_video  # noqa: E402

RELEASE_MINUTES = 6790


def default_videos() -> list[str]:
    demo = ROOT / "assets" / "demo" / "scenes"
    return sorted(str(p) for p in demo.glob("*/videos/video0_obj_*.mp4")) + \
        sorted(str(p) for p in demo.glob("*/videos/video_0.mp4"))


def decode_only(path: str, rgb: bool) -> tuple[int, int]:
    """Frames decoded and pixels per frame: PyAV's decoder alone (threads as the scan's), optionally to RGB."""
    import av
    n = 0
    with av.open(path) as c:
        s = c.streams.video[0]
        s.thread_type = "AUTO"
        px = s.codec_context.width * s.codec_context.height
        for f in c.decode(s):
            if rgb:
                f.to_ndarray(format="rgb24")
            n += 1
    return n, px


def timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def scan_set(videos: list[str], executor) -> None:
    """Every video scanned uncached (a worker process or Dask worker keeps the environment it started with,
    so a fresh cache folder would not reach it: the cache is bypassed instead)."""
    scan = partial(scan_video, use_cache=False)
    if executor is None:
        for v in videos:
            scan(v)
        return
    list(executor.map_unordered(scan, [(v,) for v in videos], videos))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("videos", nargs="*")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--workers", default="1,2")
    p.add_argument("--no-dask", action="store_true")
    p.add_argument("--release-size", default="640x480@30")
    args = p.parse_args()
    videos = args.videos or default_videos()
    print(f"load average at start: {os.getloadavg()}  cores: {os.cpu_count()}")
    frames = sum(decode_only(v, False)[0] for v in videos)
    pixels = statistics.mean(decode_only(v, False)[1] for v in videos[:1])
    print(f"{len(videos)} videos, {frames} frames, {int(pixels)} pixels a frame")

    # one core: the floor and the scan, interleaved so that load changes hit all alike
    runs = {"decode": [], "decode+rgb": [], "scan": []}
    cache = tempfile.mkdtemp(prefix="bench-frames-")
    os.environ["GST_VIEWER_CACHE"] = cache
    for _ in range(args.repeats):
        runs["decode"].append(sum(timed(decode_only, v, False) for v in videos))
        runs["decode+rgb"].append(sum(timed(decode_only, v, True) for v in videos))
        runs["scan"].append(sum(timed(scan_video, v, None, None, False) for v in videos))
    med = {k: statistics.median(v) for k, v in runs.items()}
    print("\none core (median of %d):" % args.repeats)
    for k, t in med.items():
        print(f"  {k:11s} {t:7.2f} s  {frames / t:8.0f} frames/s  {1000 * t / frames:6.2f} ms/frame")
    print(f"  scan throughput / decode-only: {med['decode'] / med['scan']:.0%}   "
          f"/ decode+rgb: {med['decode+rgb'] / med['scan']:.0%}")

    # scaling: the set scanned by the release's job function, a fresh cache each run
    print("\nscaling (whole set, median of %d):" % args.repeats)
    rates = {}
    configs = [(f"local x{w}", lambda w=w: (LocalExecutor(w) if w > 1 else None)) for w in
               (int(x) for x in args.workers.split(","))]
    if not args.no_dask:
        def dask(w=max(int(x) for x in args.workers.split(","))):
            from viewer.cluster import DaskExecutor
            return DaskExecutor(None, w)
        configs.append(("dask LocalCluster x" + args.workers.split(",")[-1], dask))
    for name, make in configs:
        ex = make()
        ts = []
        try:
            for _ in range(args.repeats):
                ts.append(timed(scan_set, videos, ex))
        finally:
            if ex is not None:
                ex.close()
        t = statistics.median(ts)
        rates[name] = frames / t
        print(f"  {name:24s} {t:7.2f} s  {frames / t:8.0f} frames/s  x{med['scan'] / t:.2f} of one core")

    size, _, fps = args.release_size.partition("@")
    w, h = (int(v) for v in size.split("x"))
    fps = float(fps or 30)
    total = RELEASE_MINUTES * 60 * fps
    per_worker = frames / med["scan"] * pixels / (w * h)       # frames/s of the release's size, one worker
    print(f"\n{RELEASE_MINUTES} minutes at {w}x{h}, {fps:g} fps = {total / 1e6:.1f} M frames; one worker "
          f"scans ~{per_worker:.0f} frames/s (this machine's rate, scaled by pixels):")
    for n in (1, 8, 32, 128):
        hours = total / (per_worker * n) / 3600
        print(f"  {n:4d} workers: {hours:7.2f} h")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
