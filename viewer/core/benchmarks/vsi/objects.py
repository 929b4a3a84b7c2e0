"""VSI-Bench's per-scene object metadata, and a top-down drawing of a question's objects.

thinking-in-space builds its questions from a `meta_info` JSON per dataset
(`data/meta_info/{scannet,scannetpp,arkitscenes}_meta_info_val.json`: 88, 50
and 150 scenes, VSI-Bench's 288), each

    {"<scene_name>": {"dataset": "scannet", "video_path": ..., "room_size": 17.5,   # square metres
                      "room_center": [x, y, z],
                      "object_counts": {"lamp": 1, ...},
                      "object_bbox": {"lamp": [{"centroid": [x, y, z],
                                                "axesLengths": [a, b, c],
                                                "normalizedAxes": [9 numbers: the 3 box axes as rows],
                                                "min": [x, y, z], "max": [x, y, z]}, ...], ...}}, ...}

in the scan's z-up world, in metres, in all three datasets (the axes are rows:
the corners they give span exactly `min`..`max`). Only the categories the
questions use are listed. `object_counts` is what the counting questions were
asked from; in 12 categories of 11 ScanNet scenes it differs from the number of boxes (a
printer counted once has two identical boxes; scene0500_00 has 7 windows
counted and 5 boxes). `object_bboxes` (the project's first fixture) is read as
`object_bbox`, and a box with only `min`/`max` as an axis-aligned one. A
release gives the files as `meta_info/*.json` or `*meta_info*.json` at its root.

`objects_topdown` draws the boxes of the categories a question names (all of them when it names none, as a room-size
question) as footprints with labels on a blank canvas of its own: existing
primitives, drawn by the map renderers like any overlay.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ... import primitives as pr
from ...diagnostics import Diagnostics, UserError
from ...textio import parse_json_document, read_text

META_FOLDER = "meta_info"
CANVAS_SIDE = 640          # pixels along the longer side of the drawing
MARGIN_M = 0.4             # metres around the objects


@dataclass(frozen=True)
class ObjectBox:
    category: str
    centroid: np.ndarray       # (3,) metres
    axes: np.ndarray           # (3, 3) unit axes as rows
    lengths: np.ndarray        # (3,) full extents along the axes

    def corners(self) -> np.ndarray:
        """The 8 corners (8, 3)."""
        signs = np.array([[sx, sy, sz] for sx in (-.5, .5) for sy in (-.5, .5) for sz in (-.5, .5)])
        return self.centroid + (signs * self.lengths) @ self.axes

    def footprint(self) -> np.ndarray:
        """The box seen from above: the convex hull of its corners on the floor plane (N, 2), counter-clockwise."""
        return convex_hull(self.corners()[:, :2])


@dataclass
class SceneObjects:
    scene: str
    room_size: float | None                       # square metres
    boxes: dict[str, list[ObjectBox]] = field(default_factory=dict)   # category -> its instances
    counts: dict[str, int] = field(default_factory=dict)              # object_counts: category -> count
    dataset: str = ""
    source: str = ""                              # the meta_info file it was read from

    def count(self, category: str) -> int | None:
        """How many of a category the scene has: object_counts', else its boxes' (None: not listed)."""
        if category in self.counts:
            return self.counts[category]
        return len(self.boxes[category]) if category in self.boxes else None


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain over (N, 2) points."""
    pts = sorted(set(map(tuple, np.round(np.asarray(points, float), 9))))
    if len(pts) < 3:
        return np.array(pts, float)

    def half(seq):
        out: list = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out
    lower, upper = half(pts), half(reversed(pts))
    return np.array(lower[:-1] + upper[:-1], float)


def read_meta_info(path: str | Path, diags: Diagnostics) -> dict[str, SceneObjects]:
    """Every scene of one meta_info file; a malformed entry is reported with its JSON path and skipped."""
    path = Path(path)
    try:
        doc = parse_json_document(read_text(path, diags), path, diags)
    except UserError as e:
        diags.error(str(e), path, code="meta_info.unreadable")
        return {}
    if not isinstance(doc, dict):
        if doc is not None:
            diags.error("expected {scene_name: {object_bboxes, room_size, ...}}", path, code="meta_info.not_object")
        return {}
    out: dict[str, SceneObjects] = {}
    for scene, info in doc.items():
        if not isinstance(info, dict):
            diags.warning(f"{scene}: expected an object; skipped", path, code="meta_info.bad_entry")
            continue
        room = info.get("room_size")
        ok_room = isinstance(room, (int, float)) and not isinstance(room, bool) and np.isfinite(room) and room > 0
        dataset = info.get("dataset") if isinstance(info.get("dataset"), str) else ""
        objects = SceneObjects(scene, float(room) if ok_room else None, dataset=dataset, source=str(path))
        counts = info.get("object_counts")
        for category, n in (counts.items() if isinstance(counts, dict) else ()):
            if isinstance(n, int) and not isinstance(n, bool) and n >= 0:
                objects.counts[category] = n
            else:
                diags.warning(f"{scene}.object_counts.{category}: {n!r} is not a count; ignored", path,
                              code="meta_info.bad_count")
        key = "object_bbox" if "object_bbox" in info else "object_bboxes"
        bboxes = info.get(key)
        for category, items in (bboxes.items() if isinstance(bboxes, dict) else ()):
            for k, item in enumerate(items if isinstance(items, list) else []):
                box = _box(category, item)
                if box is None:
                    diags.warning(f"{scene}.{key}.{category}[{k}]: needs centroid (3 numbers), axesLengths "
                                  "(3) and normalizedAxes (9), or min and max (3 each); skipped", path,
                                  code="meta_info.bad_box")
                    continue
                objects.boxes.setdefault(category, []).append(box)
        out[scene] = objects
    return out


def _box(category: str, item) -> ObjectBox | None:
    if not isinstance(item, dict):
        return None
    try:
        if "centroid" not in item and "min" in item and "max" in item:    # an axis-aligned box by its corners
            lo, hi = np.asarray(item["min"], float).reshape(3), np.asarray(item["max"], float).reshape(3)
            c, lengths, axes = (lo + hi) / 2, hi - lo, np.eye(3)
        else:
            c = np.asarray(item.get("centroid"), float).reshape(3)
            lengths = np.asarray(item.get("axesLengths"), float).reshape(3)
            axes = np.asarray(item.get("normalizedAxes", np.eye(3).ravel()), float).reshape(3, 3)
    except (TypeError, ValueError):
        return None
    if not (np.isfinite(c).all() and np.isfinite(lengths).all() and np.isfinite(axes).all()) or (lengths < 0).any():
        return None
    return ObjectBox(category, c, axes, lengths)


class MetaInfoLibrary:
    """A release's meta_info files, read on first use; scenes looked up by id."""

    def __init__(self, release_root: str | Path):
        self.root = Path(release_root)
        self.diagnostics = Diagnostics()
        self._scenes: dict[str, SceneObjects] | None = None

    def files(self) -> list[Path]:
        folder = self.root / META_FOLDER
        found = sorted(folder.glob("*.json")) if folder.is_dir() else []
        return found + sorted(p for p in self.root.glob("*meta_info*.json") if p.is_file())

    def scenes(self) -> dict[str, SceneObjects]:
        """Every scene of every file (a scene in two files: the later file's)."""
        if self._scenes is None:
            self._scenes = {}
            for f in self.files():
                self._scenes.update(read_meta_info(f, self.diagnostics))
        return self._scenes

    def scene(self, scene_id: str) -> SceneObjects | None:
        return self.scenes().get(scene_id)

    def uncovered(self, scene_ids) -> list[str]:
        """The scenes of `scene_ids` that no meta_info file describes, in natural order."""
        from ...release import natural_key
        have = self.scenes()
        return sorted({s for s in scene_ids if s not in have}, key=natural_key)

    def coverage(self, scene_ids) -> str:
        """One sentence on what the files cover of these scenes, for saying once (empty when all)."""
        wanted = set(scene_ids)
        missing = self.uncovered(wanted)
        if not self.files():
            return (f"no meta_info file beside the release ({self.root}/{META_FOLDER}/*.json or "
                    f"*meta_info*.json): no object boxes for its {len(wanted)} scenes")
        if not missing:
            return ""
        shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        return (f"the meta_info files ({', '.join(f.name for f in self.files())}) do not cover "
                f"{len(missing)} of the release's {len(wanted)} scenes: {shown}")


def question_categories(text: str, categories) -> list[str]:
    """The categories a question's text names, in order of first mention ("bed(s)" names bed)."""
    found = []
    for cat in categories:
        m = re.search(r"\b" + re.escape(cat) + r"(?:\(s\)|s|es)?\b", text, re.IGNORECASE)
        if m:
            found.append((m.start(), cat))
    # A longer name found at the same place wins ("trash bin" over "bin").
    found.sort(key=lambda t: (t[0], -len(t[1])))
    out, taken = [], set()
    for at, cat in found:
        if at not in taken:
            out.append(cat)
            taken.add(at)
    return out


def objects_topdown(objects: SceneObjects, question_text: str) -> pr.Overlay:
    """A top-down (x right, world y up) of the question's objects on a canvas of its own, in pixels.

    The canvas spans every object of the scene, so the question's objects sit where they are
    in the room; `overlay.width` / `height` give its size (the renderer paints it blank).
    """
    named = question_categories(question_text, objects.boxes)
    shown = named or list(objects.boxes)
    ov = pr.Overlay()
    every = [b for boxes in objects.boxes.values() for b in boxes]
    if not every:
        ov.width, ov.height = CANVAS_SIDE, CANVAS_SIDE * 3 // 4
        ov.notes.append(f"no object boxes for {objects.scene} in meta_info")
        return ov
    xy = np.concatenate([b.footprint() for b in every])
    lo, hi = xy.min(axis=0) - MARGIN_M, xy.max(axis=0) + MARGIN_M
    span = np.maximum(hi - lo, 1e-6)
    px_per_m = CANVAS_SIDE / float(span.max())
    ov.width, ov.height = (int(round(v)) for v in np.maximum(span * px_per_m, 1))

    def to_px(p):
        p = np.atleast_2d(p)
        return np.stack([(p[:, 0] - lo[0]) * px_per_m, (hi[1] - p[:, 1]) * px_per_m], axis=1)
    for cat in shown:
        boxes = objects.boxes[cat]
        for k, box in enumerate(boxes):
            ov.add(pr.Polygon(pr.TARGET, None, (pr.L_TARGET,), pr.Z_TARGET, points=to_px(box.footprint()),
                              filled=True))
            name = cat if len(boxes) == 1 else f"{cat} {k + 1}"
            top = to_px(box.footprint())
            ov.add(pr.Label(pr.TARGET, None, (pr.L_TARGET,), pr.Z_TARGET + 1,
                            at=np.array([top[:, 0].mean(), top[:, 1].min() - 2]), text=name))
    what = "objects the question names" if named else "every object of the scene"
    ov.legend.append(pr.LegendItem("target", f"{what} (meta_info boxes, seen from above)", layers=(pr.L_TARGET,)))
    room = f"; room {objects.room_size:g} m²" if objects.room_size else ""
    ov.notes.append(f"{objects.scene}: {what}, from the meta_info object boxes, x right, y up{room}")
    return ov


__all__ = ["ObjectBox", "SceneObjects", "MetaInfoLibrary", "read_meta_info", "question_categories",
           "objects_topdown", "convex_hull", "META_FOLDER"]
