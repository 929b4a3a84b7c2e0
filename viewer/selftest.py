"""`gst-viewer --selftest`: prove that an installed or packaged app works, headless.

Steps, each timed and reported on one line:

1. release  - the bundled demo (or `--release DIR`); when there is none, a tiny
              release written to a temporary folder, with hand-checkable scores;
2. scoring  - its prediction files scored as Table 1 (the tiny release's two
              models must score exactly what the scoring rules give);
3. render   - one egocentric view ray-cast with open3d, encoded as PNG, and a
              top-down photo map of the same scene;
4. video    - the first frame of the first video a question plays (PyAV/FFmpeg);
5. processes - the prediction files scored again in spawned worker processes
              (the window's scoring pool, as for a large release), the same scores:
              a packaged build needs `multiprocessing.freeze_support()` in its
              entry point, or each worker starts the app instead;
6. window   - the main window opened on the release offscreen (Qt), unless
              `--no-window`.

Exit status 0 when every step passed, 1 otherwise (the failing step and why
on stderr). No Qt here: the window step lives in `viewer.ui.selftest_window`.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import __version__

EXIT_FAILED = 1
MAX_RENDER_WIDTH = 640          # a larger view is rendered at this width (same field of view)
MIN_HIT_SHARE = 0.05            # a view or map showing less of the scene is called empty

# The tiny release: one boxed room, one viewpoint, five geometric questions.
TINY_SCENE = "scene_1"
TINY_VIEW = "pos_1_orient_0"
TINY_VIDEO = "video_1"
TINY_INTRINSICS = {"width": 160, "height": 120, "fx": 80.0, "fy": 80.0, "cx": 80.0, "cy": 60.0}
# Map: 80 px per metre, world +y drawn up; the 6 x 5 m room spans pixels 80..560 x 56..456.
TINY_W2P = [[80.0, 0.0, 80.0], [0.0, -80.0, 456.0]]
# Camera at (1, 1, 1.4) looking along world +x (OpenCV: x right, y down, z forward).
TINY_POSE = [[0, 0, 1, 1.0], [-1, 0, 0, 1.0], [0, -1, 0, 1.4], [0, 0, 0, 1]]
TINY_QUESTIONS = [   # (column key, task, target)
    ("ED_v", "Object_Localization_Egocentric_Direction_visual", "armchair_abcdef_0"),
    ("EDist_v", "Object_Localization_Egocentric_Distance_visual", "table_qwerty_0"),
    ("GP_v", "Object_Localization_Global_Position_visual", "armchair_abcdef_0"),
    ("Pos", "Self_Localization_Global_Position", None),
    ("Ori", "Self_Localization_Global_Orientation", None),
]
# The "rough" model's answers are the truth moved by these amounts; the scores
# follow from the rules in docs/data-format.md ("Scores"), all thresholds inclusive.
ROUGH_EXPECTED = {
    "ED_v": 200 / 3,     # 20 degrees off: within 30 and 45, not 15
    "EDist_v": 90.0,     # 8 % off: passes theta = 0.50 .. 0.90, not 0.95
    "GP_v": 80.0,        # 150 units off: within 150, 200, 250, 300, not 100
    "Pos": 40.0,         # 250 units off: within 250 and 300
    "Ori": 100 / 3,      # 40 degrees off: within 45 only
}


class SelftestFailure(Exception):
    """A step found something wrong; its text says what."""


@dataclass
class Step:
    name: str
    status: str          # "PASS" | "FAIL" | "SKIP"
    seconds: float
    detail: str


class Selftest:
    def __init__(self, out=None, verbose: bool = False):
        self.out = out or sys.stdout
        self.verbose = verbose
        self.steps: list[Step] = []

    def run(self, name: str, fn: Callable[[], tuple[Any, str]], needs: tuple = ()) -> Any:
        """Run one step; its result, or None when it failed or was skipped."""
        missing = [n for n, v in needs if v is None]
        if missing:
            return self._record(Step(name, "SKIP", 0.0, f"needs {', '.join(missing)}"))
        t0 = time.perf_counter()
        try:
            value, detail = fn()
        except Exception as e:                         # every failure is reported, never raised
            from .core.diagnostics import UserError
            expected = isinstance(e, (SelftestFailure, UserError))
            msg = str(e) if expected else f"{type(e).__name__}: {e}"
            if self.verbose and not expected:
                traceback.print_exc(file=sys.stderr)
            self._record(Step(name, "FAIL", time.perf_counter() - t0, msg))
            return None
        self._record(Step(name, "PASS" if value is not _SKIPPED else "SKIP", time.perf_counter() - t0, detail))
        return None if value is _SKIPPED else value

    def _record(self, step: Step) -> None:
        self.steps.append(step)
        print(f"{step.status:4}  {step.name:8} {step.seconds:6.2f} s  {step.detail}", file=self.out, flush=True)

    @property
    def failed(self) -> list[Step]:
        return [s for s in self.steps if s.status == "FAIL"]


_SKIPPED = object()


# ------------------------------------------------------------------ entry point
def main(argv: list[str] | None = None, out=None) -> int:
    p = argparse.ArgumentParser(prog="gst-viewer --selftest",
                                description="Check, headless, that the app can load, score, render and "
                                            "open its window on the bundled demo.")
    p.add_argument("--release", metavar="DIR", help="check this release instead of the bundled demo")
    p.add_argument("--tiny", action="store_true", help="use the tiny generated release even if a demo is bundled")
    p.add_argument("--no-window", action="store_true", help="skip the window step (no Qt)")
    p.add_argument("--save", metavar="DIR", help="also write the rendered view and map as PNG files here")
    p.add_argument("--verbose", "-v", action="store_true", help="print tracebacks of failures")
    args = p.parse_args(argv)
    out = out or sys.stdout

    if not args.no_window and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")   # headless by default
    t_start = time.perf_counter()
    frozen = bool(getattr(sys, "frozen", False))
    print(f"gst-viewer {__version__} self-test", file=out)
    print(f"  python {platform.python_version()} on {platform.system()} {platform.machine()}"
          f"{' (packaged build)' if frozen else ''}; executable {sys.executable}", file=out)

    test = Selftest(out, verbose=args.verbose)
    with tempfile.TemporaryDirectory(prefix="gst-viewer-selftest-") as scratch:
        release_dir, origin = _choose_release(args, Path(scratch))
        print(f"  release: {origin}", file=out, flush=True)
        session = test.run("release", lambda: _load(release_dir))
        test.run("scoring", lambda: _score(session, tiny=origin.startswith("tiny")),
                 needs=(("release", session),))
        rendered = test.run("render", lambda: _render(session, args.save), needs=(("release", session),))
        test.run("video", lambda: _video(session), needs=(("release", session),))
        test.run("processes", lambda: _processes(session, release_dir), needs=(("release", session),))
        if args.no_window:
            test._record(Step("window", "SKIP", 0.0, "--no-window"))
        else:
            test.run("window", lambda: _window(release_dir, session), needs=(("release", session),))
        del rendered
    print("  versions: " + _versions(), file=out)
    total = time.perf_counter() - t_start
    if test.failed:
        names = ", ".join(s.name for s in test.failed)
        print(f"self-test FAILED ({names}) in {total:.1f} s", file=out, flush=True)
        for s in test.failed:
            print(f"gst-viewer: self-test: {s.name} failed: {s.detail}", file=sys.stderr)
        return EXIT_FAILED
    print(f"self-test passed in {total:.1f} s", file=out, flush=True)
    return 0


def _choose_release(args, scratch: Path) -> tuple[Path, str]:
    from .assets import assets_dir
    if args.release:
        return Path(args.release), f"{args.release} (given)"
    demo = assets_dir() / "demo"
    if not args.tiny and demo.is_dir():
        return demo, f"bundled demo at {demo}"
    root = write_tiny_release(scratch / "tiny-release")
    why = "--tiny" if args.tiny else f"no bundled demo at {demo}"
    return root, f"tiny release generated in {root} ({why})"


# ------------------------------------------------------------------ steps
def _load(release_dir: Path):
    from .assets import default_predictions
    from .core.session import open_session
    predictions = default_predictions(release_dir)
    session = open_session(release_dir, predictions)
    release = session.release
    if len(release) == 0:
        raise SelftestFailure(f"{release_dir}: no questions could be read")
    errors = session.diagnostics.of_level("error")
    if errors:
        raise SelftestFailure(f"{len(errors)} errors reading {release_dir}, first: {errors[0]}")
    n_cols = len({int(c) for c in release.column if c >= 0})
    missing = len(release.missing)
    return session, (f"{len(release)} questions, {len(release.scenes)} scenes, {n_cols} columns, "
                     f"{len(predictions)} prediction files"
                     + (f", {missing} missing media" if missing else ""))


def _score(session, tiny: bool):
    if not session.results:
        raise SelftestFailure("no prediction file was scored")
    board = session.leaderboard()
    for name, m in board["models"].items():
        values = [v for v in m["columns"].values() if v is not None]
        if not values or not all(math.isfinite(v) and 0 <= v <= 100 for v in values):
            raise SelftestFailure(f"{name}: column scores out of 0..100: {m['columns']}")
    if tiny:
        _check_tiny_scores(board)
    best = max(board["models"].items(), key=lambda kv: kv[1]["avg"] if kv[1]["avg"] is not None else -1)
    return board, (f"{len(board['models'])} models; best Avg {best[1]['avg']:.1f} ({best[0]})"
                   + ("; tiny release scores as expected" if tiny else ""))


def _check_tiny_scores(board: dict) -> None:
    models = board["models"]
    if set(models) != {"exact", "rough"}:
        raise SelftestFailure(f"tiny release: expected models exact and rough, got {sorted(models)}")
    for key in ROUGH_EXPECTED:
        got_exact, got_rough = models["exact"]["columns"][key], models["rough"]["columns"][key]
        if got_exact is None or abs(got_exact - 100.0) > 1e-6:
            raise SelftestFailure(f"tiny release: exact answers score {got_exact} on {key}, expected 100")
        if got_rough is None or abs(got_rough - ROUGH_EXPECTED[key]) > 1e-6:
            raise SelftestFailure(f"tiny release: rough answers score {got_rough} on {key}, "
                                  f"expected {ROUGH_EXPECTED[key]:.1f}")


def _render(session, save: str | None):
    from .core.scene.sources import SceneLibrary
    from .render.image_io import encode_png, write_png
    from .render.raycast import Raycaster
    from .render.scene_assets import SceneAssets

    library = SceneLibrary(session.release.root)
    with_meta = [s for s in session.release.scenes if s in set(library.available())]
    if not with_meta:
        return _SKIPPED, "no scene of the release has a scene.json"
    scene = library.get(with_meta[0])
    assets = SceneAssets()
    mesh = assets.mesh(scene)
    name, pose, intr = _camera(scene, mesh)
    w, h, fx, fy, cx, cy = intr
    if w > MAX_RENDER_WIDTH:
        s = MAX_RENDER_WIDTH / w
        intr = (MAX_RENDER_WIDTH, max(1, round(h * s)), fx * s, fy * s, cx * s, cy * s)
    view = Raycaster(mesh).render_view(pose, intr)
    hit = float(np.isfinite(view.depth).mean())
    if hit < MIN_HIT_SHARE or view.color.std() < 1.0:
        raise SelftestFailure(f"{scene.id} {name}: the view shows almost nothing ({hit:.0%} of pixels hit)")

    tmap = next((m for m in scene.topdown.values() if m.world_to_pixel is not None and m.width and m.height),
                None)
    size = (tmap.width, tmap.height) if tmap else None
    top = assets.topdown(scene, "photo", None if tmap is None else tmap.world_to_pixel, size)
    drawn = float((top.image != 255).any(axis=2).mean())
    if drawn < MIN_HIT_SHARE:
        raise SelftestFailure(f"{scene.id}: the top-down map is blank ({drawn:.0%} drawn)")

    try:
        png = encode_png(view.color)
    except OSError as e:
        raise SelftestFailure(f"Pillow cannot encode a PNG ({e})") from None
    if save:
        folder = Path(save)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "selftest-view.png").write_bytes(png)
        write_png(folder / "selftest-map.png", top.image)
    return view, (f"{scene.id} {name} {intr[0]}x{intr[1]}: {hit:.0%} of pixels hit, "
                  f"{len(mesh.triangles):,} triangles, PNG {len(png) / 1024:.0f} kB; "
                  f"map {top.image.shape[1]}x{top.image.shape[0]}"
                  + (f"; saved in {save}" if save else ""))


def _camera(scene, mesh):
    """A named pose and intrinsics to render: a viewpoint, a video frame, else one chosen here."""
    from .render.raycast import as_intrinsics
    for vid, vp in sorted(scene.viewpoints.items()):
        if vp.intrinsics is not None and np.isfinite(vp.pose).all():
            return f"view {vid}", vp.pose, as_intrinsics(vp.intrinsics)
    for tid, track in sorted(scene.videos.items()):
        ok = np.flatnonzero(track.valid)
        if track.intrinsics is not None and len(ok):
            return f"{tid} frame {ok[0]}", track.poses[ok[0]], as_intrinsics(track.intrinsics)
    lo, hi = mesh.bounds()
    centre = (np.asarray(lo) + np.asarray(hi)) / 2
    pose = np.array(TINY_POSE, float)
    pose[:3, 3] = [lo[0] + 0.1 * (hi[0] - lo[0]), centre[1], min(hi[2], lo[2] + 1.5)]
    return "a camera at the scene's west side", pose, (320, 240, 160.0, 160.0, 160.0, 120.0)


def _video(session):
    from .render.video import VideoReader
    video = next((q.video for q in session.release.questions if q.video is not None and q.video.exists), None)
    if video is None:
        return _SKIPPED, "no question plays a video"
    reader = VideoReader(video.path)
    try:
        frame = reader.frame(0)
    finally:
        reader.close()
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise SelftestFailure(f"{video.declared}: decoded frame has shape {frame.shape}")
    return frame.shape, (f"{video.declared}: {reader.n_frames} frames, "
                         f"first decoded at {frame.shape[1]}x{frame.shape[0]}")


def _processes(session, release_dir: Path):
    """The release's prediction files scored by the window's worker processes (core/scoring_pool), as a
    large release's are, giving every score the in-process scoring gave."""
    from .assets import default_predictions
    from .core.scoring_pool import ScoringPool
    from .core.session import Session
    paths = [str(p) for p in default_predictions(release_dir)]
    pool = ScoringPool(paths, workers=2)
    try:
        if not pool.start(session.release, session.profile):
            raise SelftestFailure("the scoring workers declined this release" if pool.declined
                                  else "no scoring worker could be started")
        results, errors = Session(session.release).score_files(paths, pool=pool)
        pids = sorted({p.pid for p in pool.processes})
    finally:
        pool.close()
    if errors:
        raise SelftestFailure(f"the scoring workers failed: {errors[0]}")
    here = {r.model: r.score for r in session.results}
    differ = [r.model for r in results if r.model not in here
              or not np.array_equal(r.score, here[r.model], equal_nan=True)]
    if differ or len(results) != len(here):
        raise SelftestFailure(f"scored in worker processes, {', '.join(differ) or 'the models'} differ from "
                              f"the scores made here")
    if not pids or os.getpid() in pids:
        raise SelftestFailure(f"the files were not scored in worker processes: {pids}")
    return results, (f"{len(paths)} prediction files scored in spawned worker processes (pid "
                     f"{', '.join(map(str, pids))}), the same scores")


def _window(release_dir: Path, session):
    try:
        from .ui.selftest_window import check_window
    except ImportError as e:
        raise SelftestFailure(f"the window toolkit cannot be imported ({e})") from None
    from .assets import default_predictions
    return True, check_window(release_dir, default_predictions(release_dir), len(session.results))


def _versions() -> str:
    """Versions of what was imported (nothing is imported just to print a version)."""
    names = [("numpy", "numpy"), ("open3d", "open3d"), ("trimesh", "trimesh"), ("PyAV", "av"), ("Pillow", "PIL"),
             ("PyQt6", "PyQt6.QtCore"), ("pyqtgraph", "pyqtgraph")]
    parts = []
    for label, mod in names:
        m = sys.modules.get(mod)
        if m is None:
            continue
        if mod == "PyQt6.QtCore":
            parts.append(f"PyQt6 {m.PYQT_VERSION_STR} (Qt {m.qVersion()})")
        else:
            parts.append(f"{label} {getattr(m, '__version__', '?')}")
    return ", ".join(parts)


# ------------------------------------------------------------------ tiny release
def write_tiny_release(root: Path) -> Path:
    """One boxed room with a viewpoint, a 10-frame video, five geometric questions
    (answers recomputed from the geometry by the core) and two models' predictions."""
    from .core.geometry import recompute_ground_truth
    from .core.release import load_release
    from .core.scene.model import Intrinsics, Scene, TopdownMap, VideoTrack, Viewpoint, link_question
    from .core.scene.sources import SceneLibrary
    from .core.scene.writer import write_scene

    root = Path(root)
    folder = root / "scenes" / TINY_SCENE
    (folder / "videos").mkdir(parents=True, exist_ok=True)
    poses = np.repeat(np.array(TINY_POSE, float)[None], 10, axis=0)
    poses[:, 0, 3] -= 0.1 * np.arange(9, -1, -1)   # walking 10 cm a frame along +x, up to the view
    video = _write_tiny_video(folder / "videos" / f"{TINY_VIDEO}.mp4")
    intrinsics = Intrinsics.from_dict(TINY_INTRINSICS)
    write_scene(Scene(
        TINY_SCENE, str(folder), "opencv", instances=_tiny_instances(),
        topdown={"occupancy": TopdownMap("occupancy", None, "occupancy", 640, 512, TINY_W2P)},
        videos={TINY_VIDEO: VideoTrack(TINY_VIDEO, f"videos/{TINY_VIDEO}.mp4" if video else None, 10,
                                       intrinsics, poses)},
        viewpoints={TINY_VIEW: Viewpoint(TINY_VIEW, TINY_POSE, None, intrinsics)}))

    records = []
    for key, task, target in TINY_QUESTIONS:
        meta = {"video": TINY_VIDEO, "viewpoint": TINY_VIEW, "topdown": "occupancy"}
        if target:
            meta["target"] = target
        rec = {"uid": f"tiny_{key}", "task": task, "scene": TINY_SCENE, "answer": "0",
               "texts": [f"Self-test question ({key}).", ""], "images": [], "meta": meta}
        if video:
            rec["copied_video_path"] = f"scenes/{TINY_SCENE}/videos/{TINY_VIDEO}.mp4"
        records.append(rec)
    _write_jsonl(root / "questions.jsonl", records)

    # The answers: what the core computes from the scene just written.
    release = load_release(root)
    library = SceneLibrary(root)
    truth = {}
    for q, rec in zip(release.questions, records):
        got = recompute_ground_truth(q, link_question(q, library.get(q.scene)))
        if got.value is None:
            raise SelftestFailure(f"tiny release: {q.uid}: no ground truth ({got.reason})")
        rec["answer"] = q.kind.format(got.value)
        truth[q.uid] = (q.column.key, got.value)
    _write_jsonl(root / "questions.jsonl", records)

    exact, rough = [], []
    for uid, (key, value) in truth.items():
        exact.append({"uid": uid, "prediction": records_answer(records, uid)})
        rough.append({"uid": uid, "prediction": _rough_answer(key, value)})
    (root / "predictions").mkdir(exist_ok=True)
    _write_jsonl(root / "predictions" / "exact.jsonl", exact)
    _write_jsonl(root / "predictions" / "rough.jsonl", rough)
    return root


def records_answer(records: list[dict], uid: str) -> str:
    return next(r["answer"] for r in records if r["uid"] == uid)


def _rough_answer(key: str, value) -> str:
    def angle(a: float) -> str:
        return f"{((a + 180) % 360) - 180:g}"

    def point(p, dy: int) -> str:
        x, y = int(p[0]), int(p[1])
        y = y + dy if y + dy <= 999 else y - dy
        return f"<point>{x} {y}</point>"
    if key == "ED_v":
        return angle(value + 20)
    if key == "Ori":
        return angle(value + 40)
    if key == "EDist_v":
        return f"{value * 1.08:.3f}"
    if key == "GP_v":
        return point(value, 150)
    if key == "Pos":
        return point(value, 250)
    raise ValueError(key)


def _tiny_instances() -> dict:
    from .core.scene.model import Box3, Instance
    boxes = {   # id: (semantic, centre, size), all in living_room_0
        "floor_aaaaaa_0": ("floor", [3.0, 2.5, -0.05], [6.0, 5.0, 0.1]),
        "wall_bbbbbb_0": ("wall", [3.0, -0.05, 1.3], [6.2, 0.1, 2.6]),
        "wall_bbbbbb_1": ("wall", [3.0, 5.05, 1.3], [6.2, 0.1, 2.6]),
        "wall_bbbbbb_2": ("wall", [-0.05, 2.5, 1.3], [0.1, 5.0, 2.6]),
        "wall_bbbbbb_3": ("wall", [6.05, 2.5, 1.3], [0.1, 5.0, 2.6]),
        "armchair_abcdef_0": ("armchair", [4.5, 3.5, 0.45], [0.9, 0.9, 0.9]),
        "table_qwerty_0": ("table", [3.5, 1.2, 0.4], [1.2, 0.8, 0.8]),
    }
    return {iid: Instance(iid, semantic, "living_room_0", Box3(centre, size))
            for iid, (semantic, centre, size) in boxes.items()}


def _write_tiny_video(path: Path) -> bool:
    """Ten 64x48 frames of a moving gradient, H.264 through PyAV; False when PyAV cannot write it here."""
    from .render.clip_writer import open_av_writer
    try:
        writer = open_av_writer(path, 10, (64, 48))
        try:
            ramp = np.linspace(0, 255, 64, dtype=np.float32)[None, :]
            for k in range(10):
                g = ((ramp + 20 * k) % 256).astype(np.uint8).repeat(48, axis=0)
                writer.write(np.dstack([np.full_like(g, 40 + 20 * k), 255 - g, g]))
        finally:
            writer.close()
    except Exception:
        return False
    return path.is_file() and path.stat().st_size > 0


def _write_jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
