"""How fast a talk clip exports: a 10-second 1280x720 clip of a demo question, wall time vs real time.

Run by hand: `.venv/bin/python benchmarks/bench_export.py [--repeats 3] [--gif]`. Prints medians of:
  - prepare: open the release and predictions, load the question's media;
  - clip: paint and encode every frame (MP4 with OpenCV; with --gif, also our GIF writer at 800x450);
and the ratio of clip wall time to the clip's own length (below 1 = faster than real time).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from viewer.core.session import open_session  # noqa: E402
from viewer.figures.canvas import ensure_gui_app  # noqa: E402
from viewer.figures.clip_export import export_clip  # noqa: E402
from viewer.figures.layouts import prepare  # noqa: E402

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"
UID = "scene1_Object_Localization_Egocentric_Direction_visual_potted_plant_yzwbdf_2_pos_15_orient_0_video_0"
SECONDS, FPS, SIZE = 10.0, 15.0, (1280, 720)


def run_once(out: Path, size, suffix: str) -> tuple[float, float, int]:
    t0 = time.perf_counter()
    session = open_session(DEMO, sorted((DEMO / "predictions").glob("*.jsonl")))
    subject = prepare(session, session.release.index[UID])
    t1 = time.perf_counter()
    result = export_clip(subject, out.with_suffix(suffix), SECONDS, FPS, size)
    t2 = time.perf_counter()
    subject.close()
    return t1 - t0, t2 - t1, result.frames


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--gif", action="store_true", help="also time an 800x450 GIF")
    args = ap.parse_args()
    ensure_gui_app()
    cases = [(".mp4", SIZE)] + ([(".gif", (800, 450))] if args.gif else [])
    with tempfile.TemporaryDirectory() as tmp:
        for suffix, size in cases:
            prep, clip = [], []
            for _ in range(args.repeats):
                a, b, frames = run_once(Path(tmp) / "clip", size, suffix)
                prep.append(a)
                clip.append(b)
            p, c = statistics.median(prep), statistics.median(clip)
            print(f"{suffix[1:]} {size[0]}x{size[1]}, {SECONDS:g} s at {FPS:g} fps ({frames} frames), "
                  f"median of {args.repeats}: prepare {p:.2f} s, clip {c:.2f} s "
                  f"({1000 * c / frames:.1f} ms/frame), {c / SECONDS:.2f}x real time "
                  f"({'faster' if c < SECONDS else 'slower'} than real time)")


if __name__ == "__main__":
    main()
