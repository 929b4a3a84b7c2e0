"""Bridging the breaks of a walkthrough: pairs that cross them, and merging the models that remain.

Where the camera faces a bare wall, sequential matching finds too few matches
to carry the model across, and incremental mapping starts a new one. Two
remedies, both without a downloaded vocabulary tree:

- `add_bridging_pairs`: a bag of visual words built from the video's own SIFT
  descriptors (k-means on a sample) finds, for every frame, the frames most
  like it further away in time (the place seen again: loop closure, or the
  same room either side of the wall); and where few matched pairs cross a
  point in time, the frames on both sides of it are matched with each other.
- `merge_models`: the models the mapper still made are joined by a
  similarity fitted robustly (pycolmap's LO-RANSAC) to the 3D points that
  cross-model matches tie together, and to the centres of frames registered
  in both.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

WORDS = 256                 # visual words of the video's own vocabulary
SAMPLE_PER_IMAGE = 150      # descriptors a frame given to k-means
KMEANS_ITERATIONS = 8
WEAK_CUT = 3                # fewer verified pairs than this cross a point in time: it is bridged
MIN_CROSS_POINTS = 8        # 3D-3D correspondences needed to try a merge


class BagOfWords:
    """TF-IDF histograms of visual words (of unit descriptors); `similar(h)` ranks the frames by cosine similarity."""

    def __init__(self, descriptors: list[np.ndarray], seed: int = 0):
        rng = np.random.default_rng(seed)
        sample = np.concatenate([unit(d[rng.permutation(len(d))[:SAMPLE_PER_IMAGE]])
                                 for d in descriptors if len(d)])
        k = min(WORDS, max(2, len(sample) // 20))
        self.centers = _kmeans(sample, k, rng)
        counts = np.stack([self._counts(d) for d in descriptors])
        df = (counts > 0).sum(0)
        self.idf = np.log((len(descriptors) + 1) / (df + 1)).astype(np.float32)
        self.histograms = np.stack([self._tfidf(c) for c in counts])

    def _counts(self, d: np.ndarray) -> np.ndarray:
        if not len(d):
            return np.zeros(len(self.centers), np.float32)
        words = _nearest(unit(d), self.centers)
        return np.bincount(words, minlength=len(self.centers)).astype(np.float32)

    def _tfidf(self, counts: np.ndarray) -> np.ndarray:
        h = counts * getattr(self, "idf", 1.0)
        n = np.linalg.norm(h)
        return h / n if n > 0 else h

    def histogram(self, d: np.ndarray) -> np.ndarray:
        return self._tfidf(self._counts(d))


def unit(d: np.ndarray) -> np.ndarray:
    """Descriptors scaled to unit length (the database's are uint8, a fresh extraction's float)."""
    d = np.asarray(d, np.float32)
    return d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)


def _nearest(x: np.ndarray, centers: np.ndarray) -> np.ndarray:
    d = (centers ** 2).sum(1)[None, :] - 2 * x @ centers.T
    return d.argmin(1)


def _kmeans(x: np.ndarray, k: int, rng) -> np.ndarray:
    centers = x[rng.choice(len(x), k, replace=False)].copy()
    for _ in range(KMEANS_ITERATIONS):
        labels = _nearest(x, centers)
        sums = np.zeros_like(centers)
        np.add.at(sums, labels, x)
        n = np.bincount(labels, minlength=k)
        alive = n > 0
        centers[alive] = sums[alive] / n[alive, None]
    return centers


def read_descriptors(db, image_ids: list[int]) -> list[np.ndarray]:
    return [np.asarray(db.read_descriptors(i).data, np.uint8) for i in image_ids]


def verified_pairs(pycolmap, db) -> dict[tuple[int, int], np.ndarray]:
    """(image id 1, image id 2) → inlier matches (k, 2) of every verified pair in the database."""
    ids, geometries = db.read_two_view_geometries()
    out = {}
    for pid, g in zip(ids, geometries):
        m = np.asarray(g.inlier_matches, np.int64).reshape(-1, 2)
        if len(m):
            a, b = pycolmap.pair_id_to_image_pair(pid)
            out[(int(a), int(b))] = m
    return out


def add_bridging_pairs(run) -> int:
    """Match the retrieval and weak-point pairs not matched yet; the number of pairs added. Keeps the
    vocabulary on `run.bow` and the frames' order on `run.order` (image names in time order)."""
    pc, s = run.pc, run.settings
    run.order = sorted(run.image_ids)                 # names are frame indices: time order
    ids = [run.image_ids[n] for n in run.order]
    db = pc.Database.open(run.db_path)
    try:
        run.descriptors = dict(zip(run.order, read_descriptors(db, ids)))
        pairs = verified_pairs(pc, db)
    finally:
        db.close()
    run.bow = BagOfWords([run.descriptors[n] for n in run.order], s.seed)
    n = len(run.order)
    pos = {image_id: k for k, image_id in enumerate(ids)}
    wanted: set[tuple[int, int]] = set()
    # The frames most like each one, beyond those matched in sequence.
    sim = run.bow.histograms @ run.bow.histograms.T
    for i in range(n):
        far = np.abs(np.arange(n) - i) > s.overlap
        cand = np.flatnonzero(far)
        for j in cand[np.argsort(-sim[i, cand])][:s.retrieval]:
            wanted.add((min(i, int(j)), max(i, int(j))))
    # Points in time that few verified pairs cross: match the frames on both sides of them.
    crossing = np.zeros(n, int)
    for a, b in pairs:
        i, j = sorted((pos[a], pos[b]))
        crossing[i:j] += 1
    weak = np.flatnonzero(crossing[:-1] < WEAK_CUT)
    for c in weak:
        before = range(max(0, c - s.bridge_window), c + 1)
        after = range(c + 1, min(n, c + 1 + s.bridge_window))
        for i in before:
            for j in after:
                if j - i > s.overlap:
                    wanted.add((i, j))
    run.weak_points = len(weak)
    return _match_pairs(run, wanted)


def _match_pairs(run, wanted: set[tuple[int, int]]) -> int:
    """Match the pairs (positions in run.order) whose frames were not matched in sequence already."""
    new = sorted(p for p in wanted if p[1] - p[0] > run.settings.overlap and p not in run.matched)
    if not new:
        return 0
    run.matched.update(new)
    pc = run.pc
    file = run.work / f"pairs-{len(run.matched)}.txt"
    file.write_text("".join(f"{run.order[i]} {run.order[j]}\n" for i, j in new))
    pairing = pc.ImportedPairingOptions()
    pairing.match_list_path = str(file)
    pc.match_image_pairs(run.db_path, matching_options=run._matching(), pairing_options=pairing,
                         verification_options=run._verification(), device=pc.Device.cpu,
                         cancellation_token=run.watch.token)
    return len(new)


# ------------------------------------------------------------------ models as numpy, merged
@dataclass
class Model:
    """A reconstruction in plain arrays: poses camera-to-world (OpenCV) by image name, and per image the
    keypoints that observe a 3D point with that point's position, all in one frame."""
    camera: object                                   # pycolmap.Camera, shared
    poses: dict[str, np.ndarray] = field(default_factory=dict)
    observed: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)   # name → (idx, xyz)
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.uint8))

    def transform(self, m: np.ndarray) -> None:
        """Apply the similarity m (3, 4) (scale in its left 3x3) to everything."""
        scale = np.cbrt(np.linalg.det(m[:, :3]))
        rot = m[:, :3] / scale
        for name, c2w in self.poses.items():
            out = np.eye(4)
            out[:3, :3] = rot @ c2w[:3, :3]
            out[:3, 3] = m[:, :3] @ c2w[:3, 3] + m[:, 3]
            self.poses[name] = out
        self.observed = {n: (idx, xyz @ m[:, :3].T + m[:, 3]) for n, (idx, xyz) in self.observed.items()}
        self.points = self.points @ m[:, :3].T + m[:, 3]


def model_from_reconstruction(rec) -> Model:
    model = Model(next(iter(rec.cameras.values())))
    ids = list(rec.point3D_ids())
    xyz_of = {i: rec.point3D(i).xyz for i in ids}
    model.points = np.array([xyz_of[i] for i in ids], float).reshape(-1, 3)
    model.colors = np.array([rec.point3D(i).color for i in ids], np.uint8).reshape(-1, 3)
    for image_id in rec.reg_image_ids():
        im = rec.image(image_id)
        c2w = np.eye(4)
        c2w[:3] = im.cam_from_world().inverse().matrix()
        model.poses[im.name] = c2w
        idx = np.asarray(im.get_observation_point2D_idxs(), np.int64)
        pts = im.points2D
        xyz = np.array([xyz_of[pts[int(k)].point3D_id] for k in idx], float).reshape(-1, 3)
        model.observed[im.name] = (idx, xyz)
    return model


def _lookup(model: Model, name: str, keypoints: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of `keypoints` (indices into image `name`), which observe a 3D point, and where it is."""
    idx, xyz = model.observed.get(name, (np.zeros(0, np.int64), np.zeros((0, 3))))
    order = np.argsort(idx)
    pos = np.searchsorted(idx[order], keypoints)
    pos = np.clip(pos, 0, max(len(idx) - 1, 0))
    hit = (len(idx) > 0) & (idx[order][pos] == keypoints) if len(idx) else np.zeros(len(keypoints), bool)
    return hit, xyz[order][pos] if len(idx) else np.zeros((len(keypoints), 3))


def _correspondences(run, base: Model, other: Model, pairs) -> tuple[np.ndarray, np.ndarray]:
    """3D points of `other` and of `base` tied by verified matches between their frames, and the centres of
    frames registered in both."""
    name_of = {v: k for k, v in run.image_ids.items()}
    src, tgt = [], []
    for (a, b), m in pairs.items():
        na, nb = name_of[a], name_of[b]
        for (x, ix), (y, iy) in (((na, 0), (nb, 1)), ((nb, 1), (na, 0))):
            if x in base.poses and y in other.poses:
                hit_b, xyz_b = _lookup(base, x, m[:, ix])
                hit_o, xyz_o = _lookup(other, y, m[:, iy])
                both = hit_b & hit_o
                tgt.append(xyz_b[both])
                src.append(xyz_o[both])
    for name in set(base.poses) & set(other.poses):
        tgt.append(base.poses[name][None, :3, 3])
        src.append(other.poses[name][None, :3, 3])
    if not src:
        return np.zeros((0, 3)), np.zeros((0, 3))
    return np.concatenate(src), np.concatenate(tgt)


def merge_models(run, reconstructions: list) -> tuple[Model, int, list[Model]]:
    """The largest model with every other one that can be tied to it merged in; how many were merged, and
    those with frames the merged one lacks that could not be tied to it.

    Before merging, each smaller model's frames are matched with the frames of the others most like
    them (the bag of words), so that models split by a wall but seeing the same room get tied.
    """
    pc = run.pc
    models = [model_from_reconstruction(r) for r in reconstructions]
    if len(models) == 1:
        return models[0], 0, []
    where = {name: k for k, m in enumerate(models) for name in m.poses}
    index = {name: k for k, name in enumerate(run.order)}
    wanted = set()
    sim = run.bow.histograms @ run.bow.histograms.T
    for name, k in where.items():
        i = index[name]
        others = np.array([index[n] for n, kk in where.items() if kk != k])
        if len(others):
            for j in others[np.argsort(-sim[i, others])][:2]:
                wanted.add((min(i, int(j)), max(i, int(j))))
    run.bridge_pairs += _match_pairs(run, wanted)
    db = pc.Database.open(run.db_path)
    try:
        pairs = verified_pairs(pc, db)
    finally:
        db.close()
    base = models[0]
    # A model whose frames the base holds already adds nothing (the mapper may rebuild a part of it).
    rest = [m for m in models[1:] if set(m.poses) - set(base.poses)]
    merged = 0
    changed = True
    while changed and rest:
        changed = False
        for other in list(rest):
            m = _similarity(pc, base, other, _correspondences(run, base, other, pairs))
            if m is None:
                continue
            other.transform(m)
            for name, pose in other.poses.items():
                if name not in base.poses:
                    base.poses[name] = pose
                    base.observed[name] = other.observed[name]
            base.points = np.concatenate([base.points, other.points])
            base.colors = np.concatenate([base.colors, other.colors])
            rest.remove(other)
            merged += 1
            changed = True
    return base, merged, rest


def _similarity(pc, base: Model, other: Model, corr) -> np.ndarray | None:
    """base_from_other (3, 4) fitted robustly to the correspondences, or None when they do not agree."""
    src, tgt = corr
    if len(src) < MIN_CROSS_POINTS:
        return None
    # The inlier threshold in the base's units: a few percent of its points' spread.
    spread = np.median(np.linalg.norm(base.points - np.median(base.points, 0), axis=1)) if len(base.points) else 1.0
    opts = pc.RANSACOptions()
    opts.max_error = 0.03 * float(spread)
    opts.random_seed = 0
    sim = pc.estimate_sim3d_robust(src, tgt, opts)
    if sim is None:
        return None
    m = np.asarray(sim["tgt_from_src"].matrix() if isinstance(sim, dict) else sim.matrix(), float)
    resid = np.linalg.norm(src @ m[:, :3].T + m[:, 3] - tgt, axis=1)
    inliers = int((resid < opts.max_error).sum())
    if inliers < MIN_CROSS_POINTS or inliers < 0.3 * len(src):
        return None
    return m
