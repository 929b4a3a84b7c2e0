"""Absolute poses against the merged model: the query views (a question's image) and the frames left out.

A query image's SIFT features are matched (ratio test, mutual nearest) with
the registered frames its bag of words ranks most alike; every match whose
frame keypoint observes a 3D point gives a 2D-3D correspondence, and
pycolmap's LO-RANSAC + refinement (`estimate_and_refine_absolute_pose`) turns
them into a pose. A frame the mapper left out is posed the same way from
the verified matches the database already holds with registered frames.
"""
from __future__ import annotations

import numpy as np

from ...core.scene.sfm_result import QueryPose
from .bridge import _lookup, unit, verified_pairs

CANDIDATES = 10          # registered frames a query view is matched with, the most alike by the bag of words
MIN_INLIERS = 12         # fewer 2D-3D inliers than this: not localised
RATIO = 0.8              # Lowe's ratio test
FULL_INLIERS = 60        # confidence saturates at this many inliers...
FULL_RATIO = 0.5         # ...and at this share of the matches agreeing


def confidence(inliers: int, matches: int) -> float:
    """0..1: the inlier count (saturating at FULL_INLIERS) times their share of the matches (at FULL_RATIO)."""
    if inliers < MIN_INLIERS or matches <= 0:
        return 0.0
    return round(min(1.0, inliers / FULL_INLIERS) * min(1.0, inliers / matches / FULL_RATIO), 3)


def absolute_pose(pc, xy: np.ndarray, xyz: np.ndarray, camera):
    """(camera-to-world (4, 4) or None, inliers, why) from 2D-3D correspondences."""
    if len(xy) < MIN_INLIERS:
        return None, 0, f"{len(xy)} 2D-3D matches, at least {MIN_INLIERS} needed"
    est = pc.AbsolutePoseEstimationOptions()
    est.ransac.max_error = 8.0
    est.ransac.random_seed = 0
    out = pc.estimate_and_refine_absolute_pose(np.ascontiguousarray(xy, float), np.ascontiguousarray(xyz, float),
                                               camera, est)
    if out is None:
        return None, 0, f"no pose agrees with the {len(xy)} 2D-3D matches"
    inliers = int(out["num_inliers"])
    if inliers < MIN_INLIERS:
        return None, inliers, f"only {inliers} of {len(xy)} 2D-3D matches agree with a pose (at least {MIN_INLIERS})"
    c2w = np.eye(4)
    c2w[:3] = out["cam_from_world"].inverse().matrix()
    return c2w, inliers, ""


def register_leftovers(run) -> int:
    """Pose the frames the mapper left out from their verified matches with registered frames; how many."""
    pc, model = run.pc, run.model
    name_of = {v: k for k, v in run.image_ids.items()}
    todo = [n for n in run.order if n not in model.poses]
    if not todo:
        return 0
    db = pc.Database.open(run.db_path)
    try:
        pairs = verified_pairs(pc, db)
        keypoints = {n: np.asarray(db.read_keypoints(run.image_ids[n]), float)[:, :2] for n in todo}
    finally:
        db.close()
    links: dict[str, list] = {n: [] for n in todo}
    for (a, b), m in pairs.items():
        for (u, iu), (r, ir) in (((name_of[a], 0), (name_of[b], 1)), ((name_of[b], 1), (name_of[a], 0))):
            if u in links and r in model.poses:
                links[u].append((r, m[:, iu], m[:, ir]))
    done = 0
    for name in todo:
        run.watch.check()
        xy, xyz = _gather(model, keypoints[name], links[name])
        c2w, _, _ = absolute_pose(pc, xy, xyz, model.camera)
        if c2w is not None:
            model.poses[name] = c2w
            done += 1
    return done


def _gather(model, kp_xy: np.ndarray, links) -> tuple[np.ndarray, np.ndarray]:
    """2D-3D correspondences from (registered frame, my keypoints, its keypoints) links, one per keypoint."""
    seen: set[int] = set()
    xy, xyz = [], []
    for frame, mine, theirs in links:
        hit, pts = _lookup(model, frame, np.asarray(theirs, np.int64))
        for k, p in zip(np.asarray(mine)[hit], pts[hit]):
            if int(k) not in seen:
                seen.add(int(k))
                xy.append(kp_xy[int(k)])
                xyz.append(p)
    return np.array(xy, float).reshape(-1, 2), np.array(xyz, float).reshape(-1, 3)


def _match(dq: np.ndarray, dr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices (query, frame) of the mutual nearest neighbours that pass the ratio test (unit descriptors)."""
    if len(dq) < 2 or len(dr) < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    s = dq @ dr.T
    top2 = np.argpartition(-s, 1, axis=1)[:, :2]
    s2 = np.take_along_axis(s, top2, 1)
    order = np.argsort(-s2, axis=1)
    best = np.take_along_axis(top2, order[:, :1], 1)[:, 0]
    s_sorted = np.take_along_axis(s2, order, 1)
    d1 = np.sqrt(np.maximum(2 - 2 * s_sorted[:, 0], 0))
    d2 = np.sqrt(np.maximum(2 - 2 * s_sorted[:, 1], 0))
    ok = d1 < RATIO * np.maximum(d2, 1e-9)
    mutual = s.argmax(0)[best] == np.arange(len(dq))
    q = np.flatnonzero(ok & mutual)
    return q, best[q]


def localise_queries(run, queries: dict[str, str], progress, watch) -> dict[str, QueryPose]:
    """Each query (name → image file) localised against the run's model; a QueryPose with `why` when not."""
    out = {}
    for k, (name, path) in enumerate(queries.items()):
        watch.check()
        out[name] = localise_image(run, name, path)
        progress("queries", k + 1, len(queries))
    return out


def localise_image(run, name: str, path: str) -> QueryPose:
    from ..image_io import read_rgb
    pc, model = run.pc, run.model
    nan = np.full((4, 4), np.nan)
    try:
        rgb = read_rgb(path)
    except (OSError, ValueError) as e:
        return QueryPose(name, nan, why=f"the image cannot be read ({e})")
    from PIL import Image
    h, w = rgb.shape[:2]
    scale = min(1.0, run.settings.max_side / max(w, h))
    im = Image.fromarray(rgb).convert("L")
    if scale < 1.0:
        im = im.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.BILINEAR)
    gray = np.ascontiguousarray(np.asarray(im, np.uint8))
    extractor = pc.FeatureExtractor.create(run._extraction(), pc.Device.cpu)
    keypoints, descriptors = extractor.extract(pc.Bitmap.from_array(gray))
    kp = np.asarray(pc.keypoints_to_matrix(keypoints), float).reshape(-1, 4)[:, :2]
    desc = np.asarray(descriptors.data, np.uint8)         # as the database holds the frames'
    if len(kp) < MIN_INLIERS:
        return QueryPose(name, nan, why=f"too few features in the image ({len(kp)} SIFT keypoints)")
    dq = unit(desc)
    registered = [n for n in run.order if n in model.observed]
    if not registered:
        return QueryPose(name, nan, why="the model has no frame with 3D points")
    index = {n: i for i, n in enumerate(run.order)}
    h_q = run.bow.histogram(desc)
    sims = run.bow.histograms[[index[n] for n in registered]] @ h_q
    links, best = [], 0
    for i in np.argsort(-sims)[:CANDIDATES]:
        frame = registered[int(i)]
        qi, fi = _match(dq, unit(run.descriptors[frame]))
        best = max(best, len(qi))
        links.append((frame, qi, fi))
    xy, xyz = _gather(model, kp, links)
    if not len(xy):
        return QueryPose(name, nan, why=f"it matches no 3D point of the model (best frame: {best} matches)")
    camera = _query_camera(pc, model.camera, gray.shape[1], gray.shape[0])
    c2w, inliers, why = absolute_pose(pc, xy, xyz, camera)
    if c2w is None:
        return QueryPose(name, nan, inliers, len(xy), 0.0, why)
    return QueryPose(name, c2w, inliers, len(xy), confidence(inliers, len(xy)))


def _query_camera(pc, camera, width: int, height: int):
    """The video's camera for an image of another size: the same field of view, centred."""
    if (width, height) == (camera.width, camera.height):
        return camera
    f = float(camera.params[0]) * width / camera.width
    params = [f, width / 2, height / 2] + [float(v) for v in camera.params[3:]]
    return pc.Camera(model=camera.model, width=width, height=height, params=params)
