"""Pictures that show why an audit finding was raised, rendered from the scene.

- target visible from the query view: the view, the target's pixels in red;
- query view near the trajectory: the view beside the nearest video frame;
- target unseen in the video: the frame where it came closest to being
  seen, with the target's box (projected through whatever hides it) outlined;
- a choice question's options (choice_answer_mismatch, choice_options_ambiguous):
  the reference (the scene's map at the level, or the clip's projected path on
  the map) beside every option, each with its score, the stored answer framed
  in blue and the best match in orange.

Findings of other checks carry their evidence as numbers (details).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.diagnostics import UserError
from ..core.geometry import project
from ..core.scene.model import link_question, load_scene
from .audit_images import SceneImages
from .visibility import SceneVisibility

TINT = np.array([235, 30, 30], np.float32)
OUTLINE = np.array([255, 210, 0], np.uint8)
CHOICE_CHECKS = ("choice_answer_mismatch", "choice_options_ambiguous")
CHECKS_WITH_PICTURES = ("target_visible_in_query_view", "query_near_trajectory", "target_unseen_in_video",
                        *CHOICE_CHECKS)
STORED_FRAME = np.array([50, 110, 220], np.uint8)     # the stored answer
BEST_FRAME = np.array([240, 150, 0], np.uint8)        # the best match
WALKED = (20, 170, 60)                                 # the clip's path, projected
REFERENCE_WIDTH = 640


@dataclass
class EvidenceImage:
    caption: str
    rgb: np.ndarray            # (H, W, 3) uint8


def finding_evidence(release_root, question, finding) -> list[EvidenceImage]:
    """Images for one finding about `question`; [] for checks whose evidence is numbers.

    Raises UserError when the scene cannot be rendered.
    """
    if finding.code not in CHECKS_WITH_PICTURES:
        return []
    if finding.code in CHOICE_CHECKS:
        return choice_evidence(release_root, question, finding)
    scene = load_scene(release_root, question.scene)
    if scene is None:
        raise UserError(f"no scene metadata for {question.scene}")
    g = link_question(question, scene)
    vis = SceneVisibility(scene, [question.target] if question.target else [])
    d = finding.details
    if finding.code == "target_visible_in_query_view":
        intr = g.viewpoint.intrinsics or g.video.intrinsics
        view = vis.caster.render_view(g.viewpoint.pose, intr)
        mask = view.instance == vis.index(g.target.id)
        rgb = view.color.astype(np.float32)
        rgb[mask] = 0.35 * rgb[mask] + 0.65 * TINT
        return [EvidenceImage(f"current view {g.viewpoint.id}: {int(mask.sum())} pixels of {g.target.id} (red)",
                              rgb.astype(np.uint8))]
    if finding.code == "query_near_trajectory":
        intr = g.viewpoint.intrinsics or g.video.intrinsics
        k = int(d["nearest_frame"])
        return [EvidenceImage(f"current view {g.viewpoint.id}", vis.caster.render_view(g.viewpoint.pose, intr).color),
                EvidenceImage(f"frame {k} of {g.video.id}: {d['distance_m']:.2f} m, {d['angle_deg']:.0f}° away",
                              vis.caster.render_view(g.video.poses[k], g.video.intrinsics).color)]
    k = int(d["best_frame"])
    frame = vis.caster.render_view(g.video.poses[k], g.video.intrinsics).color.copy()
    outline_box(frame, g.video.poses[k], g.video.intrinsics, g.target.bbox.corners())
    return [EvidenceImage(f"frame {k} of {g.video.id}: where {g.target.id} is (yellow), hidden or out of frame",
                          frame)]


def outline_box(rgb: np.ndarray, pose, intrinsics, corners: np.ndarray, width: int = 2) -> bool:
    """Draw the image rectangle around the projected box corners in front of the camera; False if none."""
    uv, z = project(pose, intrinsics, corners)
    uv = uv[z > 1e-3]
    if not len(uv):
        return False
    h, w = rgb.shape[:2]
    x0, y0 = np.clip(np.floor(uv.min(axis=0)).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(uv.max(axis=0)).astype(int), 0, [w - 1, h - 1])
    if x1 <= x0 or y1 <= y0:
        return False
    rgb[y0:y0 + width, x0:x1 + 1] = OUTLINE
    rgb[max(y1 - width + 1, 0):y1 + 1, x0:x1 + 1] = OUTLINE
    rgb[y0:y1 + 1, x0:x0 + width] = OUTLINE
    rgb[y0:y1 + 1, max(x1 - width + 1, 0):x1 + 1] = OUTLINE
    return True


def choice_evidence(release_root, question, finding, images: SceneImages | None = None) -> list[EvidenceImage]:
    """The reference and the options side by side, each option captioned with its score and marked."""
    images = images or SceneImages()
    d = finding.details
    out = [_choice_reference(release_root, question, d, images)]
    scores = d["scores"]
    shown = "{:.2f}" if d["higher_is_better"] else "{:.1f} px"
    for k, im in enumerate(question.images):
        letter = "ABCDEFGH"[k]
        roles = [text for text, on in (("stored answer", letter == d["truth"]), ("best match", letter == d["best"]))
                 if on]
        try:
            rgb = images.read(im.path) if im.path else None
        except (OSError, ValueError):
            rgb = None
        if rgb is None:
            rgb = np.full((64, 80, 3), 200, np.uint8)
            roles.append("unreadable")
        framed = frame(rgb, [c for c, on in ((BEST_FRAME, letter == d["best"]),
                                              (STORED_FRAME, letter == d["truth"])) if on])
        score = scores.get(letter)
        text = f"{letter}: {shown.format(score)}" if score is not None else f"{letter}: not scored"
        out.append(EvidenceImage(text + (f" ({', '.join(roles)})" if roles else ""), framed))
    return out


def _choice_reference(release_root, question, d: dict, images: SceneImages) -> EvidenceImage:
    ref = d["reference"]
    if d["task"] == "trajectory":
        scene = load_scene(release_root, question.scene)
        if scene is None:
            raise UserError(f"no scene metadata for {question.scene}")
        tmap = scene.topdown.get(d["map"]["name"])
        base = None
        if tmap is not None and tmap.image:
            try:
                base = images.read(tmap.image)
            except (OSError, ValueError):
                base = None
        w, h = d["map"]["width"] or 640, d["map"]["height"] or 512
        if base is None:
            base = np.full((h, w, 3), 235, np.uint8)
        walked = np.asarray(d["walked_px"], float) * [base.shape[1] / w, base.shape[0] / h]
        return EvidenceImage("the clip's camera path (green, from the ring)", draw_walk(base, walked))
    if ref["source"] == "render":
        scene = load_scene(release_root, question.scene)
        if scene is None:
            raise UserError(f"no scene metadata for {question.scene}")
        rgb = images.topdown(scene, d["level"], REFERENCE_WIDTH)
        caption = f"reference: {ref['scene']} rendered ({d['level']})"
    else:
        rgb = images.read(ref["path"])
        caption = (f"reference: {ref['scene']}'s {d['level']} map "
                   f"({'scene.json' if ref['source'] == 'scene map' else 'its Pos/GP questions'})")
    return EvidenceImage(caption, rgb)


def frame(rgb: np.ndarray, colors: list[np.ndarray], width: int | None = None) -> np.ndarray:
    """A copy of the image inside nested frames of the given colours (outermost first)."""
    out = np.array(rgb, np.uint8, copy=True)
    w = width or max(3, round(min(out.shape[:2]) / 60))
    for i, c in enumerate(colors):
        a, b = i * w, (i + 1) * w
        out[a:b, a:out.shape[1] - a] = c
        out[out.shape[0] - b:out.shape[0] - a, a:out.shape[1] - a] = c
        out[a:out.shape[0] - a, a:b] = c
        out[a:out.shape[0] - a, out.shape[1] - b:out.shape[1] - a] = c
    return out


def draw_walk(rgb: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """The map with the walked path drawn over it (3 pixels wide, anti-aliased) and a ring at its start."""
    out = np.array(rgb, np.uint8, copy=True)
    pts = np.asarray(pixels, float).reshape(-1, 2)
    if len(pts) == 0:
        return out
    coverage = np.zeros(out.shape[:2], np.float32)
    for a, b in zip(pts, pts[1:] if len(pts) > 1 else pts):
        _cover(coverage, np.stack([a, b]), 1.5 + 1, lambda ys, xs, a=a, b=b: _segment_distance(xs, ys, a, b) - 1.5)
    _cover(coverage, pts[:1], 9 + 1.5 + 1,
           lambda ys, xs: np.abs(np.hypot(xs - pts[0, 0], ys - pts[0, 1]) - 9) - 1.5)
    alpha = coverage[:, :, None]
    out[:] = np.round(out * (1 - alpha) + np.asarray(WALKED, np.float32) * alpha).astype(np.uint8)
    return out


def _cover(coverage: np.ndarray, points: np.ndarray, reach: float, outside) -> None:
    """Raise `coverage` to the area of each pixel a shape covers. `outside(ys, xs)` is the signed
    distance of pixel centres from the shape's edge; only pixels within `reach` of `points` are looked at."""
    h, w = coverage.shape
    x0, y0 = np.maximum(np.floor(points.min(axis=0) - reach), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(points.max(axis=0) + reach) + 1, [w, h]).astype(int)
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    area = np.clip(0.5 - outside(ys, xs), 0, 1)       # a one-pixel ramp across the edge
    np.maximum(coverage[y0:y1, x0:x1], area, out=coverage[y0:y1, x0:x1])


def _segment_distance(xs: np.ndarray, ys: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = b - a
    t = ((xs - a[0]) * d[0] + (ys - a[1]) * d[1]) / max(float(d @ d), 1e-12)
    t = np.clip(t, 0, 1)
    return np.hypot(xs - (a[0] + t * d[0]), ys - (a[1] + t * d[1]))
