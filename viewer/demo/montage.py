"""A one-image overview of a generated release, for the README.

    python -m viewer.demo.montage RELEASE OUT.png

Top row: frames of a visual question's video with the red target box;
middle: that question's current view, a trajectory option, a top-down option;
bottom: the scene's map at the three abstraction levels.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from viewer.demo.opencv import import_cv2

TILE = (400, 320)


def _label(img: np.ndarray, text: str) -> np.ndarray:
    cv2 = import_cv2()
    out = img.copy()
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
    cv2.rectangle(out, (0, 0), (w + 10, h + 10), (255, 255, 255), -1)
    cv2.putText(out, text, (5, h + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (20, 20, 20), 1, cv2.LINE_AA)
    return out


def _fit(img: np.ndarray) -> np.ndarray:
    """Letterboxed into a tile, aspect kept."""
    cv2 = import_cv2()
    tw, th = TILE
    h, w = img.shape[:2]
    s = min(tw / w, th / h)
    small = cv2.resize(img, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA)
    tile = np.full((th, tw, 3), 255, np.uint8)
    y, x = (th - small.shape[0]) // 2, (tw - small.shape[1]) // 2
    tile[y:y + small.shape[0], x:x + small.shape[1]] = small
    return tile


def _frame(path: Path, index: int) -> np.ndarray:
    cv2 = import_cv2()
    cap = cv2.VideoCapture(str(path))
    cap.set(cv2.CAP_PROP_POS_FRAMES, index)
    ok, frame = cap.read()
    cap.release()
    if not ok:
        raise OSError(f"{path}: frame {index} cannot be read")
    return frame


def make_montage(release: Path, out: Path) -> None:
    cv2 = import_cv2()
    release = Path(release)
    records = [json.loads(line) for line in (release / "questions.jsonl").read_text().splitlines()]
    q = next(r for r in records if r["task"] == "Object_Localization_Egocentric_Direction_visual")
    sid = q["scene"]
    scene = json.loads((release / "scenes" / sid / "scene.json").read_text())
    info = scene["videos"]["video_0"]["instances"][q["meta"]["target"]]
    frames = info["appear_frames"]
    picks = sorted({frames[len(frames) // 4], info["best_frame_idx"], frames[(3 * len(frames)) // 4]})
    picks += picks[-1:] * (3 - len(picks))
    video = release / q["copied_video_path"]
    top = [_label(_fit(_frame(video, k)), f"video frame {k}: target {q['meta']['target']}") for k in picks]
    view = cv2.imread(str(release / q["images"][0]["copied_path"]))
    traj = next(r for r in records if r["scene"] == sid and r["task"].endswith("Trajection_Selection"))
    tds = next(r for r in records if r["scene"] == sid and r["task"].endswith("Selection_Hard"))
    middle = [_label(_fit(view), f"current view, answer {q['answer']} deg"),
              _label(_fit(cv2.imread(str(release / traj["images"][0]["copied_path"]))), "Traj option A"),
              _label(_fit(cv2.imread(str(release / tds["images"][0]["copied_path"]))), "TDS Hard option A")]
    bottom = [_label(_fit(cv2.imread(str(release / "scenes" / sid / "topdown" / f"{lv}.png"))), f"map: {lv}")
              for lv in ("photo", "occupancy", "floorplan")]
    grid = np.vstack([np.hstack(row) for row in (top, middle, bottom)])
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), grid, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
        raise OSError(f"{out}: cannot write")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m viewer.demo.montage RELEASE OUT.png")
    make_montage(Path(sys.argv[1]), Path(sys.argv[2]))
