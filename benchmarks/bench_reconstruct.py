"""Rebuilding the map geometry of a 200,000-question release from its answers (core/benchmarks/gst/reconstruct.py).

Run by hand: `.venv/bin/python benchmarks/bench_reconstruct.py`. Prints medians.

The release has 500 scenes of linked questions (Pos, Ori, GP, ED, EDist) and
some choice questions, one map image per scene. The baseline, measured in
the same run, is the obvious per-question loop: `parse_uid` on every uid.
Goal: reconstruct() under 1 s.
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_geometry import median_time  # noqa: E402  (the benchmarks folder is on sys.path)

from viewer.assets import default_release  # noqa: E402
from viewer.core.benchmarks.gst.columns import COLUMN_BY_KEY  # noqa: E402
from viewer.core.benchmarks.gst.reconstruct import reconstruct  # noqa: E402
from viewer.core.benchmarks.gst.uid import parse_uid  # noqa: E402
from viewer.core.release import load_release  # noqa: E402

N = 200_000
SCENES = 500


def write_release(root: Path) -> None:
    shutil.copy(default_release() / "scenes/scene_1/topdown/occupancy.png", root / "map.png")
    lines = []
    k = 0
    while len(lines) < N:
        s, v, t = k % SCENES, k // SCENES, (k * 7) % 40
        view = f"pos_{v}_orient_{v % 12}"
        target = f"chair_abcdef_{t}"
        task = COLUMN_BY_KEY
        for key, uid, answer, images in (
            ("Pos", f"scene{s}_Egocentric_Localization_Global_Position_{view}_video_0", "<point>100 200</point>",
             ["map.png"]),
            ("Ori", f"scene{s}_Egocentric_Localization_Global_Orientation_{view}_video_0", "30", ["map.png"]),
            ("GP_v", f"scene{s}_{task['GP_v'].task}_{target}_video_{v}", "<point>300 400</point>", ["map.png"]),
            ("ED_v", f"scene{s}_{task['ED_v'].task}_{target}_{view}_video_0", "45", []),
            ("EDist_v", f"scene{s}_{task['EDist_v'].task}_{target}_{view}_video_0", 3.2, []),
            ("TDS_E", f"scene{s}_Topdown_Selection_Easy_{k}_video_0", "A", []),
        ):
            lines.append(json.dumps({"uid": uid, "task": task[key].task, "scene": f"scene_{s}", "answer": answer,
                                     "texts": ["a", "The top-down image of the scene is:"],
                                     "images": [{"index": 1, "copied_path": p} for p in images]}))
        k += 1
    (root / "questions.jsonl").write_text("\n".join(lines[:N]) + "\n")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_release(root)
        release = load_release(root)
        tasks = [release.questions._records[i]["task"] for i in range(len(release))]
        baseline = median_time(lambda: [parse_uid(u, t, True) for u, t in zip(release.uids, tasks)], 3)
        rec = reconstruct(release)
        took = median_time(lambda: reconstruct(release))
        print(f"{len(release)} questions, {len(rec.scenes)} scenes, {len(rec.view_point)} viewpoints, "
              f"{len(rec.target_point)} targets")
        print(f"baseline (parse_uid per question): {baseline:.3f} s")
        print(f"reconstruct():                     {took:.3f} s  ({'OK' if took < 1.0 else 'SLOW'}: goal < 1 s)")


if __name__ == "__main__":
    main()
