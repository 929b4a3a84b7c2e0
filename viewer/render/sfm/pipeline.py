"""The run: video frames → SIFT → sequential + bridging pairs → incremental mapping → merged model → poses.

Tuned for walkthroughs, where the camera turns to bare walls and the default
pipeline breaks the path into several models (issue 33 measured 5 models, the
largest 41 % of the frames, on the real sample video):

- one shared camera (SIMPLE_RADIAL), fixed when its intrinsics are known;
- sequential matching, plus pairs that bridge the breaks (`bridge.py`): the
  frames most alike by a bag of words built from the video's own descriptors
  (loop closure without a downloaded vocabulary) and, where few pairs cross
  a point in time, frames on both sides of it;
- relaxed mapper thresholds (a bare wall leaves few inliers);
- the models that remain merged by a similarity fitted to the 3D points that
  cross-model matches share, and the frames left out localised against the
  merged model one by one (`localise.py`).

Everything is done in a temporary folder removed on return, so a failed or
cancelled run leaves nothing behind; `cached_reconstruction` writes the
result atomically only when the run finished.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from ...core.scene.model import Intrinsics
from ...core.scene.sfm_result import (
    PIPELINE_VERSION,
    QueryPose,
    SfmResult,
    load_sfm_result,
    save_sfm_result,
    sfm_cache_file,
)

# Bumped (in the seam, core/scene/sfm_result.py) when a change of the pipeline changes its results: the
# cached ones are then made again, and the scene source (core/scene/sfm_scene.py) stops serving them.
VERSION = PIPELINE_VERSION

Progress = Callable[[str, int, int], None]       # (stage, done, total)
COLMAP_ERRORS_ONLY = 2       # glog level: 0 info, 1 warning, 2 error
MIN_PAIRS_FOR_FOCAL = 10     # fundamental matrices needed to estimate the focal length
MIN_GENERAL_PAIRS = 3        # verified pairs with parallax (not a homography) needed, and at least this share:
MIN_GENERAL_SHARE = 0.05     # fewer, and the video is refused for too little motion


class SfmError(Exception):
    """A video that cannot be reconstructed; the text names the file and says why, for the user."""


class Cancelled(Exception):
    """The run was cancelled; nothing was written."""


def import_pycolmap():
    """pycolmap, or SfmError saying how to install it. COLMAP's own log (some lines per frame and stage,
    thousands a run, which buried the command's progress and its messages) is kept to its errors, unless
    `GST_VIEWER_COLMAP_LOG=1` asks for all of it."""
    try:
        import pycolmap
    except ImportError:
        raise SfmError('structure from motion needs pycolmap: pip install "gst-viewer[sfm]"') from None
    if os.environ.get("GST_VIEWER_COLMAP_LOG", "") in ("", "0"):
        pycolmap.logging.minloglevel = COLMAP_ERRORS_ONLY
    return pycolmap


@dataclass(frozen=True)
class SfmSettings:
    step: int = 2                     # every step-th frame of the video is used
    max_side: int = 640               # frames larger than this are scaled down (features are found at this size)
    max_features: int = 2048          # SIFT keypoints a frame: enough for 640 px frames, 4x fewer than COLMAP's
    overlap: int = 8                  # each frame is matched with the next `overlap` ones
    retrieval: int = 4                # and with the `retrieval` frames most like it further away (loop closure)
    bridge_window: int = 10           # at a weak point in time, frames this far on both sides are matched
    min_features: int = 40            # a median below this a frame: the video is refused (too few features)
    intrinsics: Intrinsics | None = None    # the camera when the release knows it (video pixels); else refined
    leftovers: bool = True            # localise the frames the mapper left out against the merged model
    threads: int = -1                 # pycolmap's threads (-1: all cores)
    seed: int = 0                     # pycolmap's random seed, so a run can be repeated

    def summary(self) -> dict:
        d = asdict(self)
        d["intrinsics"] = None if self.intrinsics is None else asdict(self.intrinsics)
        return d


class _Watch:
    """Cancellation: `cancel()` polled in a thread that cancels pycolmap's token, checked between stages."""

    def __init__(self, pycolmap, cancel: Callable[[], bool] | None):
        self.cancel = cancel
        self.token = pycolmap.CancellationToken()
        self._stop = threading.Event()
        self._thread = None
        if cancel is not None:
            self._thread = threading.Thread(target=self._poll, daemon=True, name="sfm-cancel")
            self._thread.start()

    def _poll(self) -> None:
        while not self._stop.wait(0.1):
            if self.cancel():
                self.token.cancel()
                return

    def check(self) -> None:
        if self.cancel is not None and self.cancel():
            raise Cancelled("cancelled")

    def close(self) -> None:
        self._stop.set()


def reconstruct_video(video: str | os.PathLike, queries: dict[str, str] | None = None,
                      settings: SfmSettings = SfmSettings(), progress: Progress | None = None,
                      cancel: Callable[[], bool] | None = None) -> SfmResult:
    """The camera path of `video`, its sparse points and the `queries` (name → image file) localised.

    Raises SfmError (naming the file, saying why) for a video that cannot be decoded, has too few
    features or too little motion; Cancelled when `cancel()` turned true.
    """
    pycolmap = import_pycolmap()
    video = os.path.abspath(os.fspath(video))
    progress = progress or (lambda stage, done, total: None)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    watch = _Watch(pycolmap, cancel)
    work = Path(tempfile.mkdtemp(prefix="gst-sfm-"))
    try:
        timings: dict[str, float] = {}
        t = time.perf_counter()
        frames, n_frames, scale, problems = _decode(video, work / "images", settings, progress, watch)
        timings["decode"] = time.perf_counter() - t
        run = _Run(pycolmap, video, work, settings, progress, watch, scale)
        result = run.reconstruct(frames, n_frames, timings)
        result.stats["problems"] = problems + result.stats.get("problems", [])
        if queries:
            from .localise import localise_queries
            t = time.perf_counter()
            result.queries = localise_queries(run, queries, progress, watch)
            timings["queries"] = time.perf_counter() - t
        result.stats["queries"] = len(result.queries)
        result.stats["queries_localised"] = sum(q.localised for q in result.queries.values())
        result.stats["wall_seconds"] = round(time.perf_counter() - wall0, 2)
        result.stats["cpu_seconds"] = round(time.process_time() - cpu0, 2)
        result.stats["seconds"] = {k: round(v, 2) for k, v in timings.items()}
        watch.check()
        return result
    except InterruptedError:             # pycolmap's answer to its cancelled token
        raise Cancelled("cancelled") from None
    finally:
        watch.close()
        shutil.rmtree(work, ignore_errors=True)


def _decode(video: str, folder: Path, settings: SfmSettings, progress: Progress, watch: _Watch):
    """Every `step`-th frame written as a JPEG named by its frame index: (indices, frame count, scale, problems)."""
    from PIL import Image

    from ..video import AvVideoReader, VideoError
    try:
        reader = AvVideoReader(video)
    except VideoError as e:
        raise SfmError(f"cannot reconstruct: {e}") from None
    folder.mkdir(parents=True)
    problems: list[str] = []
    try:
        n = reader.n_frames
        wanted = list(range(0, n, max(1, settings.step)))
        scale = min(1.0, settings.max_side / max(reader.width, reader.height))
        size = (max(1, round(reader.width * scale)), max(1, round(reader.height * scale)))
        done = []
        for k, i in enumerate(wanted):
            watch.check()
            try:
                rgb = reader.frame(i)
            except VideoError as e:
                problems.append(f"frame {i} could not be decoded ({e})")
                continue
            im = Image.fromarray(rgb)
            if im.size != size:
                im = im.resize(size, Image.BILINEAR)
            im.save(folder / f"{i:06d}.jpg", quality=95)
            done.append(i)
            progress("decoding", k + 1, len(wanted))
    finally:
        reader.close()
    if len(done) < 3:
        raise SfmError(f"{video}: cannot reconstruct: only {len(done)} frame(s) could be decoded "
                       f"(every {settings.step}th of {n})")
    return done, n, scale, problems


class _Run:
    """One run's database, images and settings, shared by the stages."""

    def __init__(self, pycolmap, video: str, work: Path, settings: SfmSettings, progress: Progress,
                 watch: _Watch, scale: float):
        self.pc, self.video, self.work, self.settings = pycolmap, video, work, settings
        self.progress, self.watch, self.scale = progress, watch, scale
        self.images = work / "images"
        self.db_path = work / "database.db"
        self.model = None              # the merged model (bridge.Model)
        self.name_to_frame: dict[str, int] = {}
        self.matched: set[tuple[int, int]] = set()    # pairs (positions in time order) matched beyond sequence
        self.bridge_pairs = 0

    # -------------------------------------------------------------- options
    def _extraction(self):
        o = self.pc.FeatureExtractionOptions()
        o.num_threads = self.settings.threads
        o.sift.max_num_features = self.settings.max_features
        return o

    def _matching(self):
        o = self.pc.FeatureMatchingOptions()
        o.num_threads = self.settings.threads
        return o

    def _verification(self):
        o = self.pc.TwoViewGeometryOptions()
        o.min_num_inliers = 12
        o.ransac.random_seed = self.settings.seed
        return o

    def _mapping(self):
        o = self.pc.IncrementalPipelineOptions()
        o.num_threads = self.settings.threads
        o.random_seed = self.settings.seed
        o.min_num_matches = 12
        o.min_model_size = 5
        # A new model is started from frames no model holds yet (a few shared ones tie it to the others);
        # fewer attempts at a starting pair: a walkthrough offers many, the first good ones do.
        o.max_model_overlap = 10
        o.init_num_trials = 50
        # Fewer global bundle adjustments: a walkthrough's frames arrive in order, the local ones keep it tight.
        o.ba_global_frames_ratio = 1.3
        o.ba_global_points_ratio = 1.3
        o.ba_global_max_num_iterations = 30
        m = o.mapper
        m.init_min_num_inliers = 50
        m.init_min_tri_angle = 8.0
        m.abs_pose_min_num_inliers = 15
        m.abs_pose_min_inlier_ratio = 0.15
        m.random_seed = self.settings.seed
        o.triangulation.random_seed = self.settings.seed
        if self.settings.intrinsics is not None:          # the camera is known: keep it
            o.ba_refine_focal_length = False
            o.ba_refine_extra_params = False
            m.abs_pose_refine_focal_length = False
            m.abs_pose_refine_extra_params = False
        return o

    def _reader(self):
        o = self.pc.ImageReaderOptions()
        o.camera_model = "SIMPLE_RADIAL"
        k = self.settings.intrinsics
        if k is not None:
            s = self.scale
            o.camera_params = f"{(k.fx + k.fy) / 2 * s},{k.cx * s},{k.cy * s},0"
        return o

    # -------------------------------------------------------------- stages
    def reconstruct(self, frames: list[int], n_frames: int, timings: dict) -> SfmResult:
        pc, s, watch = self.pc, self.settings, self.watch
        t = time.perf_counter()
        self.progress("features", 0, 1)
        pc.extract_features(self.db_path, self.images, camera_mode=pc.CameraMode.SINGLE,
                            reader_options=self._reader(), extraction_options=self._extraction(),
                            device=pc.Device.cpu, cancellation_token=watch.token)
        watch.check()
        timings["features"] = time.perf_counter() - t
        db = pc.Database.open(self.db_path)
        try:
            self.image_ids = {im.name: im.image_id for im in db.read_all_images()}
            counts = np.array([db.num_keypoints_for_image(i) for i in self.image_ids.values()])
        finally:
            db.close()
        self.name_to_frame = {name: int(Path(name).stem) for name in self.image_ids}
        median = int(np.median(counts)) if len(counts) else 0
        if median < s.min_features:
            raise SfmError(f"{self.video}: cannot reconstruct: too few features, a median of {median} SIFT "
                           f"keypoints a frame (at least {s.min_features} needed; a flat, dark or blurred video "
                           "has none to match)")

        t = time.perf_counter()
        self.progress("matching", 0, 1)
        pairing = pc.SequentialPairingOptions()
        pairing.overlap = s.overlap
        pairing.quadratic_overlap = False
        pairing.num_threads = s.threads
        pc.match_sequential(self.db_path, matching_options=self._matching(), pairing_options=pairing,
                            verification_options=self._verification(), device=pc.Device.cpu,
                            cancellation_token=watch.token)
        watch.check()
        from . import bridge
        self.bridge_pairs = bridge.add_bridging_pairs(self)
        watch.check()
        timings["matching"] = time.perf_counter() - t
        self._check_motion()
        self.focal_prior = self._calibrate()

        t = time.perf_counter()
        models = self._map(len(frames))
        timings["mapping"] = time.perf_counter() - t
        if not models:
            raise SfmError(self._why_no_model())
        sizes_before = [r.num_reg_images() for r in models]

        t = time.perf_counter()
        self.progress("merging", 0, 1)
        self.model, merged, apart = bridge.merge_models(self, models)
        watch.check()
        leftovers = 0
        if s.leftovers:
            from .localise import register_leftovers
            leftovers = register_leftovers(self)
            watch.check()
        apart = sum(1 for m in apart if set(m.poses) - set(self.model.poses))
        timings["merging"] = time.perf_counter() - t
        return self._result(frames, n_frames, sizes_before, merged, apart, leftovers)

    def _map(self, n: int) -> list:
        """Incremental mapping: the models, largest first."""
        self.progress("mapping", 0, n)
        registered = [0]

        def next_image():
            registered[0] += 1
            self.progress("mapping", min(registered[0], n), n)
        out = self.work / "sparse"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        models = self.pc.incremental_mapping(self.db_path, self.images, out, options=self._mapping(),
                                             next_image_callback=next_image, cancellation_token=self.watch.token)
        self.watch.check()
        return sorted(models.values(), key=lambda r: r.num_reg_images(), reverse=True)

    def _calibrate(self) -> float | None:
        """Without known intrinsics, the shared focal length from the pairs' fundamental matrices, written to
        the database as the camera's prior before mapping. COLMAP's own guess (a 45 degree field of view) is
        far from a walkthrough camera's, and mapping from it broke a 20-frame walk of a textured room into 6
        models. (GLOMAP's `calibrate_view_graph` left the guess unchanged on that walk, and a first mapping
        of a subset diverged from it.)"""
        if self.settings.intrinsics is not None:
            return None
        db = self.pc.Database.open(self.db_path)
        try:
            _, geometries = db.read_two_view_geometries()
            cam = db.read_all_cameras()[0]
            fs = [np.asarray(g.F, float) for g in geometries
                  if g.config == self.pc.TwoViewGeometryConfiguration.UNCALIBRATED and len(g.inlier_matches) >= 30]
            focal = focal_from_fundamentals(fs, cam.width, cam.height)
            if focal is None:
                return None
            params = list(cam.params)
            params[0] = focal
            cam.params = params
            cam.has_prior_focal_length = True
            db.update_camera(cam)
        finally:
            db.close()
        return focal

    def _check_motion(self) -> None:
        """SfmError when (almost) every verified pair is explained by a homography alone: a camera turning in
        place or standing still (or one flat surface). Relaxed thresholds would still make a model of it, a
        path that is a point with guessed depths; found here, before mapping."""
        db = self.pc.Database.open(self.db_path)
        try:
            _, geometries = db.read_two_view_geometries()
        finally:
            db.close()
        c = self.pc.TwoViewGeometryConfiguration
        general = sum(g.config in (c.CALIBRATED, c.UNCALIBRATED) for g in geometries)
        self.pairs = {"verified": len(geometries), "with_parallax": int(general)}
        if geometries and general < max(MIN_GENERAL_PAIRS, MIN_GENERAL_SHARE * len(geometries)):
            raise SfmError(f"{self.video}: cannot reconstruct: too little motion, {len(geometries) - general} of "
                           f"{len(geometries)} matched pairs of frames are related by a rotation or one plane "
                           "alone (a camera that only turns in place or stands still, or faces one flat wall)")

    def _why_no_model(self) -> str:
        db = self.pc.Database.open(self.db_path)
        try:
            verified = db.num_verified_image_pairs()
        finally:
            db.close()
        if verified < len(self.image_ids) // 2:
            return (f"{self.video}: cannot reconstruct: too few matches between frames ({verified} pairs of "
                    f"{len(self.image_ids)} frames agree); the frames share too little texture")
        return (f"{self.video}: cannot reconstruct: too little motion, no two frames see the scene from "
                "far enough apart to start a model (a camera that only turns in place or stands still)")

    def _result(self, frames, n_frames, sizes_before, merged, apart, leftovers) -> SfmResult:
        model = self.model
        poses = np.full((n_frames, 4, 4), np.nan)
        for name, c2w in model.poses.items():
            poses[self.name_to_frame[name]] = c2w
        cam = model.camera
        f, cx, cy = (float(v) for v in cam.params[:3])
        s = self.scale
        intr = Intrinsics(round(cam.width / s), round(cam.height / s), f / s, f / s, cx / s, cy / s)
        n_reg = int(np.isfinite(poses).all(axis=(1, 2)).sum())
        stats = {
            "sampled_frames": len(frames), "registered_frames": n_reg,
            # models after merging: the one kept, and those with frames of their own that could not be tied
            "models": 1 + apart, "models_before_merge": len(sizes_before),
            "model_sizes_before_merge": sizes_before, "merged_models": merged,
            "largest_model_share_before_merge": round(sizes_before[0] / len(frames), 4),
            "largest_model_share": round(n_reg / len(frames), 4),
            "leftovers_localised": leftovers, "bridge_pairs": self.bridge_pairs,
            "weak_points": getattr(self, "weak_points", 0), "pairs": getattr(self, "pairs", {}),
            "focal_from_calibration": None if self.focal_prior is None else round(self.focal_prior / self.scale, 2),
            "points": len(model.points), "settings": self.settings.summary(), "version": VERSION,
            "problems": [],
        }
        if apart:
            stats["problems"].append(f"{apart} part(s) of the path could not be tied to the largest model: "
                                     "their frames have no pose")
        lost = len(frames) - n_reg
        if lost:
            stats["problems"].append(f"{lost} of {len(frames)} sampled frames have no pose")
        return SfmResult(self.video, n_frames, poses, intr, model.points, model.colors, {}, stats)


def focal_from_fundamentals(fs: list[np.ndarray], width: int, height: int) -> float | None:
    """The focal length (pixels, principal point at the centre) that makes the fundamental matrices' essential
    matrices most nearly essential (two equal singular values: Mendonca and Cipolla's criterion), searched over
    fields of view from 30 to 130 degrees; None with fewer than MIN_PAIRS_FOR_FOCAL pairs."""
    if len(fs) < MIN_PAIRS_FOR_FOCAL:
        return None
    fs = np.array(fs[:2000])
    hfov = np.radians(np.linspace(30, 130, 201))
    best, best_cost = None, np.inf
    for f in width / 2 / np.tan(hfov / 2):
        k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1.0]])
        s = np.linalg.svd(k.T @ fs @ k, compute_uv=False)
        cost = float(np.median((s[:, 0] - s[:, 1]) / np.maximum(s[:, 0] + s[:, 1], 1e-12)))
        if cost < best_cost:
            best, best_cost = float(f), cost
    return best


def cached_reconstruction(video: str | os.PathLike, queries: dict[str, str] | None = None,
                          settings: SfmSettings = SfmSettings(), progress: Progress | None = None,
                          cancel: Callable[[], bool] | None = None, refresh: bool = False
                          ) -> tuple[SfmResult, bool]:
    """(result, whether it came from the cache): the cached result of `video` when its size, mtime and the
    pipeline's version match (the key the scene source looks for), it was made with the same settings and it
    holds every query; else a new run, cached atomically (one file per video: the newest run's)."""
    file, key = sfm_cache_file(video, VERSION)
    if not refresh and file.exists():
        try:
            old = load_sfm_result(file, key)
        except ValueError:
            old = None
        if (old is not None and _same_settings(old.stats.get("settings"), settings)
                and set(queries or {}) <= set(old.queries)):
            return old, True
    result = reconstruct_video(video, queries, settings, progress, cancel)
    save_sfm_result(result, file, key)
    return result, False


def _same_settings(stored, settings: SfmSettings) -> bool:
    """Whether a cached run's settings (as stored in its stats) are these, but for the threads used."""
    import json
    if not isinstance(stored, dict):
        return False
    want = replace(settings, threads=-1).summary()
    return json.dumps({**stored, "threads": -1}, sort_keys=True) == json.dumps(want, sort_keys=True)


__all__ = ["VERSION", "Cancelled", "SfmError", "SfmSettings", "QueryPose", "cached_reconstruction",
           "import_pycolmap", "reconstruct_video"]
