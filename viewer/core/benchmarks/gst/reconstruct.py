"""A scene's map geometry rebuilt from its questions alone: for releases that ship no 3D metadata.

The questions of one scene answer each other (docs/data-format.md, "Rebuilding
the map from the answers"):

- a `Pos` question gives a viewpoint's place on the scene's map, an `Ori`
  question its heading (0 = map up, counter-clockwise);
- a `GP_v`/`GP_s` question gives a target's place;
- `ED` / `EDist` give the direction and distance from a viewpoint to a target.

Links come from the uids: a viewpoint is (scene, pos, orient), a target is
(scene, instance); the video index is ignored (a scene has one map). The
map's scale (metres per pixel) is fitted per scene over every (viewpoint,
target) pair with an `EDist` answer. EDist is the straight-line distance from
the camera to the target's centre, so the fit is `d² = (s·p)² + h²` with `h`
the camera's height over the targets' centres, one per scene: the slope is
the median of pairwise slopes (Theil-Sen on p², d²), robust to a few wrong
answers.

Everything is vectorised over the release's columnar arrays; 200,000
questions take well under a second (benchmarks/bench_reconstruct.py).
"""
from __future__ import annotations

import struct
import weakref
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...diagnostics import Diagnostics
from ...inferred import Inferred, ScaleFit
from ...overlays import breakable
from .columns import COLUMN_KEYS, COLUMNS
from .uid import split_uids, target_from_head

ANGLE_TOLERANCE = 5.0            # degrees (spec)
DISTANCE_TOLERANCE_M = 0.15      # metres, or ...
DISTANCE_TOLERANCE_REL = 0.05    # ... this share of the distance, whichever is larger (spec)
DUPLICATE_UNITS = 2.0            # two Pos (or GP) answers for one place further apart than this disagree
DUPLICATE_DEG = 1.0              # two Ori answers for one viewpoint further apart than this disagree
MIN_PAIRS = 3                    # fewer EDist pairs agreeing on a scale: the scale is weak
SPREAD_LIMIT = 0.25              # a consensus band wider than this (half its width over its middle) is weak;
#                                  a pair whose own range is wider does not vouch for a scale
HEIGHT_MAX = 1.5                 # metres: a target's centre lies at most this far above or below the camera
ROUNDING_UNITS = 1.5             # normalised units a point may be off by its floor() rounding, both ends together
SIZE_SAMPLES = 4                 # map images per scene whose size is read
REPORT_LIMIT = 50

_COL = {k: i for i, k in enumerate(COLUMN_KEYS)}
POS, ORI = _COL["Pos"], _COL["Ori"]
GP = (_COL["GP_v"], _COL["GP_s"])
ED = (_COL["ED_v"], _COL["ED_s"])
EDIST = (_COL["EDist_v"], _COL["EDist_s"])
_VIEW_COLS = (POS, ORI) + ED + EDIST
_TARGET_COLS = GP + ED + EDIST
_MAP_COLS = (POS, ORI) + GP


def wrap(deg):
    """Angles into [-180, 180)."""
    return (np.asarray(deg, float) + 180.0) % 360.0 - 180.0


def map_bearing(dx, dy):
    """Map heading (0 = up, counter-clockwise as displayed) of image vectors (x right, y down)."""
    return np.degrees(np.arctan2(-np.asarray(dx, float), -np.asarray(dy, float)))


@dataclass
class SceneMap:
    scene: str
    size: tuple[int, int] | None = None      # the reference map size (width, height), None when no map was read
    map_question: int | None = None          # a question whose map image shows the scene's map
    scale: ScaleFit | None = None

    def to_px(self, point) -> np.ndarray:
        """Normalised points (0..999, cell centres already added) to reference pixels."""
        return np.asarray(point, float) / 1000.0 * np.asarray(self.size, float)


@dataclass
class Reconstruction:
    scenes: dict[str, SceneMap]
    diagnostics: Diagnostics
    scene_names: list[str]                   # by scene index
    # Per question: index of its viewpoint / target, -1 for none.
    q_view: np.ndarray
    q_target: np.ndarray
    # Per viewpoint (index): scene index, pos, orient, normalised point (NaN: unknown or contradictory), heading.
    view_scene: np.ndarray
    view_pos: np.ndarray
    view_orient: np.ndarray
    view_point: np.ndarray
    view_heading: np.ndarray
    target_scene: np.ndarray
    target_name: list[str]
    target_point: np.ndarray
    uids: list[str]
    column: np.ndarray
    truth: np.ndarray
    # what -> (owner ids sorted, question rows in that order): who placed each viewpoint and target.
    _sources: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def rows(self, what: str, index: int) -> list[int]:
        """Questions giving `what` ("position", "heading" of a viewpoint; "target" of a target)."""
        owners, rows = self._sources.get(what, (np.zeros(0, np.int64), np.zeros(0, np.int64)))
        lo, hi = np.searchsorted(owners, [index, index + 1])
        return rows[lo:hi].tolist()

    def for_question(self, i: int) -> Inferred | None:
        v, t = int(self.q_view[i]), int(self.q_target[i])
        if v < 0 and t < 0:
            return None
        s = int(self.view_scene[v] if v >= 0 else self.target_scene[t])
        name = self.scene_names[s]
        sm = self.scenes[name]
        sources: list[tuple[str, str]] = []
        missing: list[str] = []
        point = heading = target = None
        number = name.split("_")[-1]
        if v >= 0:
            pos, orient = int(self.view_pos[v]), int(self.view_orient[v])
            vp = f"pos_{pos}_orient_{orient}"
            if not np.isnan(self.view_point[v, 0]):
                point = self.view_point[v]
                sources += [("position", self.uids[r]) for r in self.rows("position", v)]
            else:
                rows = self.rows("position", v)
                why = "its Pos questions disagree" if rows else "no Pos question"
                missing.append(f"the viewpoint's position: {why}"
                               f" (scene{number}_Egocentric_Localization_Global_Position_{vp}_video_<k>)")
            if not np.isnan(self.view_heading[v]):
                heading = float(self.view_heading[v])
                sources += [("heading", self.uids[r]) for r in self.rows("heading", v)]
            else:
                rows = self.rows("heading", v)
                missing.append(f"the viewpoint's heading: {'its Ori questions disagree' if rows else 'no Ori question'}"
                               f" (scene{number}_Egocentric_Localization_Global_Orientation_{vp}_video_<k>)")
        if t >= 0:
            if not np.isnan(self.target_point[t, 0]):
                target = self.target_point[t]
                sources += [("target", self.uids[r]) for r in self.rows("target", t)]
            else:
                rows = self.rows("target", t)
                missing.append(f"the target's position: {'its GP questions disagree' if rows else 'no GP question'}"
                               f" (scene{number}_Object_Localization_Global_Position_<visual|semantic>_"
                               f"{self.target_name[t]}_video_<k>)")
        if sm.scale is not None:
            sources += [("scale", u) for u in sm.scale.uids]
        elif COLUMNS[self.column[i]].kind_name == "distance":
            missing.append(f"the map's scale: no EDist question of {name} links a viewpoint with Pos "
                           "to a target with GP")
        if sm.size is None:
            missing.append(f"the map's size: no map image of {name} could be read")
        return Inferred(name, point, heading, target, sm.scale, sm.size, sm.map_question, tuple(sources),
                        tuple(missing), sources_note(sources))


_SHORT = {"position": ("Pos", r"pos_\d+_orient_\d+"), "heading": ("Ori", r"pos_\d+_orient_\d+"),
          "target": ("GP", r"(?<=Global_Position_)\w+?(?=_video_\d+$)")}


def _short(what: str, uid: str) -> str:
    """A source question as its column and linking key (the full uids are in Inferred.sources and the audit)."""
    import re
    column, pattern = _SHORT.get(what, ("", ""))
    m = re.search(pattern, uid) if pattern else None
    return f"{column} {m.group(0)}" if m else breakable(uid)


def sources_note(sources: list[tuple[str, str]]) -> str:
    """The map's note on where the inferred geometry came from, grouped by what each question gave."""
    if not sources:
        return ""
    by_what: dict[str, list[str]] = {}
    for what, uid in sources:
        by_what.setdefault(what, []).append(uid)
    return "inferred from answers: " + "; ".join(
        f"{what} ← {', '.join(_short(what, u) for u in uids) if what != 'scale' else f'{len(uids)} EDist'}"
        for what, uids in by_what.items())


# ------------------------------------------------------------------ building
def image_size(path: str) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header, None when it is neither or cannot be read."""
    try:
        with open(path, "rb") as f:
            head = f.read(26)
            if head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
                w, h = struct.unpack(">II", head[16:24])
                return int(w), int(h)
            if head[:2] != b"\xff\xd8":
                return None
            f.seek(2)
            while True:
                marker = f.read(4)
                if len(marker) < 4 or marker[0] != 0xFF:
                    return None
                kind, length = marker[1], struct.unpack(">H", marker[2:])[0]
                if 0xC0 <= kind <= 0xCF and kind not in (0xC4, 0xC8, 0xCC):
                    h, w = struct.unpack(">HH", f.read(5)[1:])
                    return int(w), int(h)
                f.seek(length - 2, 1)
    except (OSError, struct.error):
        return None


def release_map_size(release) -> Callable[[int], tuple[int, int] | None]:
    """The size of question i's own map image, read from its header."""
    def size(i: int):
        im = release.questions[i].role_image("map")
        return image_size(im.path) if im is not None and im.exists else None
    return size


def _factorise(keys) -> tuple[np.ndarray, list]:
    ids: dict = {}
    inverse = np.fromiter((ids.setdefault(k, len(ids)) for k in keys), np.int64, len(keys))
    return inverse, list(ids)


def reconstruct(release, map_size: Callable[[int], tuple[int, int] | None] | None = None) -> Reconstruction:
    """The map geometry the answers of `release` give (Release: uids, column, truth)."""
    diags = Diagnostics()
    n = len(release.uids)
    column = np.asarray(release.column)
    truth = np.asarray(release.truth, float)
    # Local variants (core/settings_table.py) ask from other views under suffixed uids: global questions only.
    in_leaderboard = getattr(release, "in_leaderboard", None)
    linking = np.flatnonzero(np.isin(column, _VIEW_COLS + GP) & (True if in_leaderboard is None else in_leaderboard))
    parts = split_uids([release.uids[i] for i in linking])
    scene_num = parts.scene
    col = column[linking]
    has_view = np.isin(col, _VIEW_COLS)
    has_target = np.isin(col, _TARGET_COLS)
    view_ok = has_view & (scene_num >= 0) & (parts.pos >= 0)
    targets = [target_from_head(h, COLUMNS[c].task) if t and s >= 0 else None
               for h, c, t, s in zip(parts.head, col.tolist(), has_target.tolist(), scene_num.tolist())]
    target_ok = np.array([t is not None for t in targets], bool) if len(targets) else np.zeros(0, bool)
    unlinked = np.flatnonzero((has_view & ~view_ok) | (has_target & ~target_ok))
    for k in unlinked[:REPORT_LIMIT]:
        i = int(linking[k])
        diags.warning(f"question {release.uids[i]!r}: its uid does not follow "
                      "scene<N>_<task>[_<target>]_pos_<P>_orient_<O>_video_<K>; it is not linked to other questions",
                      code="reconstruct.uid_unlinked")
    if len(unlinked) > REPORT_LIMIT:
        diags.warning(f"... and {len(unlinked) - REPORT_LIMIT} more uids that link to nothing",
                      code="reconstruct.uid_unlinked_summary")

    # Scenes, viewpoints and targets as integer ids.
    scene_ids, scene_nums = _factorise(scene_num.tolist())
    scene_names = [f"scene_{s}" for s in scene_nums]
    q_view = np.full(n, -1, np.int64)
    q_target = np.full(n, -1, np.int64)
    vrows = np.flatnonzero(view_ok)
    code = (scene_ids[vrows] << 42) | (parts.pos[vrows] << 21) | parts.orient[vrows]
    view_codes, view_inv = np.unique(code, return_inverse=True)
    q_view[linking[vrows]] = view_inv
    view_scene = view_codes >> 42
    view_pos = (view_codes >> 21) & ((1 << 21) - 1)
    view_orient = view_codes & ((1 << 21) - 1)
    trows = np.flatnonzero(target_ok)
    target_inv, target_keys = _factorise([(int(scene_ids[k]), targets[k]) for k in trows])
    q_target[linking[trows]] = target_inv
    target_scene = np.array([s for s, _ in target_keys], np.int64)
    target_name = [t for _, t in target_keys]

    rec = Reconstruction({name: SceneMap(name) for name in scene_names}, diags, scene_names, q_view, q_target,
                         view_scene, view_pos, view_orient, np.full((len(view_codes), 2), np.nan),
                         np.full(len(view_codes), np.nan), target_scene, target_name,
                         np.full((len(target_keys), 2), np.nan), release.uids, column, truth)
    _places(rec, "position", np.flatnonzero(column == POS), q_view, rec.view_point)
    _places(rec, "target", np.flatnonzero(np.isin(column, GP)), q_target, rec.target_point)
    _headings(rec, np.flatnonzero(column == ORI))
    _orphan_headings(rec)
    _map_sizes(rec, map_size or release_map_size(release), linking)
    _scales(rec)
    return rec


def _group(rec: Reconstruction, what: str, rows: np.ndarray, owner: np.ndarray):
    """Rows that link to an owner (viewpoint or target), their owner ids, and the sources recorded."""
    rows = rows[owner[rows] >= 0]
    g = owner[rows]
    order = np.argsort(g, kind="stable")
    rec._sources[what] = (g[order], rows[order])
    return rows, g


def _places(rec: Reconstruction, what: str, rows, owner, out: np.ndarray) -> None:
    """Normalised points per owner (cell centres); owners whose answers disagree stay NaN, reported."""
    rows, g = _group(rec, what, rows, owner)
    pts = rec.truth[rows] + 0.5
    ok = ~np.isnan(pts[:, 0])
    rows, g, pts = rows[ok], g[ok], pts[ok]
    if not len(rows):
        return
    lo = np.full(out.shape, np.inf)
    hi = np.full(out.shape, -np.inf)
    np.minimum.at(lo, g, pts)
    np.maximum.at(hi, g, pts)
    first = np.full(out.shape, np.nan)
    first[g[::-1]] = pts[::-1]
    out[:] = first
    bad = np.flatnonzero(np.any(hi - lo > DUPLICATE_UNITS, axis=1))
    for k in bad[:REPORT_LIMIT]:
        out[k] = np.nan
        uids = [rec.uids[r] for r in rec.rows(what, int(k))]
        rec.diagnostics.warning(f"{len(uids)} questions place the same {_owner_text(rec, what, int(k))} more than "
                                f"{DUPLICATE_UNITS:g} units apart; it is not drawn: {', '.join(uids)}",
                                code="reconstruct.duplicates_disagree")
    out[bad] = np.nan


def _headings(rec: Reconstruction, rows) -> None:
    rows, g = _group(rec, "heading", rows, rec.q_view)
    h = rec.truth[rows, 0]
    ok = ~np.isnan(h)
    rows, g, h = rows[ok], g[ok], h[ok]
    first = np.full(len(rec.view_heading), np.nan)
    first[g[::-1]] = h[::-1]
    spread = np.zeros(len(first))
    np.maximum.at(spread, g, np.abs(wrap(h - first[g])))
    rec.view_heading[:] = first
    bad = np.flatnonzero(spread > DUPLICATE_DEG)
    for k in bad[:REPORT_LIMIT]:
        uids = [rec.uids[r] for r in rec.rows("heading", int(k))]
        rec.diagnostics.warning(f"{len(uids)} Ori questions give {_owner_text(rec, 'heading', int(k))} headings "
                                f"more than {DUPLICATE_DEG:g}° apart; it is not drawn: {', '.join(uids)}",
                                code="reconstruct.duplicates_disagree")
    rec.view_heading[bad] = np.nan


def _orphan_headings(rec: Reconstruction) -> None:
    """A heading with no position cannot be drawn anywhere: say which question is missing."""
    orphans = np.flatnonzero(~np.isnan(rec.view_heading) & np.isnan(rec.view_point[:, 0]))
    for k in orphans[:REPORT_LIMIT]:
        k = int(k)
        if rec.rows("position", k):
            continue                     # it has Pos questions, which disagree: reported already
        uid = rec.uids[rec.rows("heading", k)[0]]
        rec.diagnostics.warning(f"{_owner_text(rec, 'heading', k)} has an Ori question ({uid}) but no Pos "
                                "question: its heading cannot be placed on the map", code="reconstruct.no_position")


def _owner_text(rec: Reconstruction, what: str, k: int) -> str:
    if what == "target":
        return f"target {rec.target_name[k]} of {rec.scene_names[rec.target_scene[k]]}"
    return (f"viewpoint pos_{rec.view_pos[k]}_orient_{rec.view_orient[k]} of "
            f"{rec.scene_names[rec.view_scene[k]]}")


def _map_sizes(rec: Reconstruction, map_size, linking: np.ndarray) -> None:
    """Each scene's map size, from the first few map images of its questions; different sizes are reported."""
    seen: dict[int, list[tuple[int, tuple[int, int]]]] = {}
    rows = linking[np.isin(rec.column[linking], _MAP_COLS)]
    v, t = rec.q_view[rows], rec.q_target[rows]
    keep = (v >= 0) | (t >= 0)
    rows, v, t = rows[keep], v[keep], t[keep]
    # -1 indexes the appended pad: a question with no viewpoint (or no target) looks up nothing real.
    scene = np.where(v >= 0, np.append(rec.view_scene, -1)[v], np.append(rec.target_scene, -1)[t])
    # The first SIZE_SAMPLES map questions of each scene, in release order.
    order = np.argsort(scene, kind="stable")
    starts = np.searchsorted(scene[order], scene[order], side="left")
    first = order[np.arange(len(order)) - starts < SIZE_SAMPLES]
    for i, s in zip(rows[np.sort(first)].tolist(), scene[np.sort(first)].tolist()):
        size = map_size(i)
        if size:
            seen.setdefault(s, []).append((i, tuple(size)))
    for s, found in seen.items():
        sm = rec.scenes[rec.scene_names[s]]
        sm.map_question, sm.size = found[0]
        other = next(((i, size) for i, size in found if size != sm.size), None)
        if other is not None:
            rec.diagnostics.warning(
                f"{sm.scene}: its map images differ in size ({rec.uids[found[0][0]]} is {sm.size[0]}x{sm.size[1]}, "
                f"{rec.uids[other[0]]} is {other[1][0]}x{other[1][1]}); positions are drawn on each question's "
                "own map, the scale and the audit's comparisons use the first", code="reconstruct.map_sizes_differ")


def pair_rows(rec: Reconstruction, columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Questions of `columns` whose viewpoint and target are both placed, their viewpoints and targets."""
    rows = np.flatnonzero(np.isin(rec.column, columns) & (rec.q_view >= 0) & (rec.q_target >= 0))
    v, t = rec.q_view[rows], rec.q_target[rows]
    ok = ~np.isnan(rec.view_point[v, 0]) & ~np.isnan(rec.target_point[t, 0]) & ~np.isnan(rec.truth[rows, 0])
    return rows[ok], v[ok], t[ok]


def scene_sizes(rec: Reconstruction) -> np.ndarray:
    """(scenes, 2) reference map sizes, NaN where none was read."""
    out = np.full((len(rec.scene_names), 2), np.nan)
    for s, name in enumerate(rec.scene_names):
        if rec.scenes[name].size:
            out[s] = rec.scenes[name].size
    return out


def pixel_offsets(rec: Reconstruction, v: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Target minus viewpoint, in reference map pixels (NaN for scenes without a size)."""
    size = scene_sizes(rec)[rec.view_scene[v]]
    return (rec.target_point[t] - rec.view_point[v]) / 1000.0 * size


@dataclass(frozen=True)
class DistancePairs:
    """The EDist questions whose viewpoint and target are placed: one (pixel distance, metres) pair each."""
    rows: np.ndarray
    view: np.ndarray
    target: np.ndarray
    scene: np.ndarray
    px: np.ndarray
    metres: np.ndarray
    slack_px: np.ndarray         # what the points' rounding allows in pixels

    def fit(self, rec: Reconstruction, keep: np.ndarray) -> ScaleFit:
        return fit_scale(self.px[keep], self.metres[keep], tuple(rec.uids[r] for r in self.rows[keep]),
                         self.slack_px[keep])


def distance_pairs(rec: Reconstruction) -> DistancePairs:
    rows, v, t = pair_rows(rec, EDIST)
    p = np.linalg.norm(pixel_offsets(rec, v, t), axis=1) if len(rows) else np.zeros(0)
    d = rec.truth[rows, 0]
    ok = np.isfinite(p) & (p > 0) & (d > 0)
    rows, v, t, p, d = rows[ok], v[ok], t[ok], p[ok], d[ok]
    slack = ROUNDING_UNITS * np.max(scene_sizes(rec)[rec.view_scene[v]], axis=1) / 1000.0 if len(v) else p
    return DistancePairs(rows, v, t, rec.view_scene[v], p, d, slack)


def _scales(rec: Reconstruction) -> None:
    pairs = distance_pairs(rec)
    order = np.argsort(pairs.scene, kind="stable")
    bounds = np.flatnonzero(np.diff(pairs.scene[order])) + 1
    for chunk in np.split(order, bounds):
        if not len(chunk):
            continue
        sm = rec.scenes[rec.scene_names[pairs.scene[chunk[0]]]]
        fit = pairs.fit(rec, chunk)
        sm.scale = fit
        if fit.weak:
            rec.diagnostics.info(f"{sm.scene}: the map's scale is weak ({fit.weakness}; {fit.pairs} distance answer"
                                 f"{'s' if fit.pairs != 1 else ''}: {', '.join(fit.uids)}): "
                                 "distances drawn on the map are approximate", code="reconstruct.scale_weak")


def scale_without(rec: Reconstruction, pairs: DistancePairs, scene: int, view: int, target: int,
                  suspects: tuple = ((), ())) -> ScaleFit | None:
    """The scene's scale fitted without the pairs of this viewpoint or this target: the fit that judges an
    EDist answer rests on no answer it depends on (its own, its Pos, its GP), so a wrong one cannot set the
    scale that judges it, and pairs sharing a moved point cannot vouch for each other. `suspects`, the
    (viewpoints, targets) other comparisons found wrong, are left out too."""
    keep = ((pairs.scene == scene) & (pairs.view != view) & (pairs.target != target)
            & ~np.isin(pairs.view, list(suspects[0])) & ~np.isin(pairs.target, list(suspects[1])))
    if not keep.any():
        return None
    return pairs.fit(rec, keep)


def fit_scale(p: np.ndarray, d: np.ndarray, uids: tuple[str, ...] = (), slack_px=0.0) -> ScaleFit:
    """The scales (metres per pixel) most pairs of pixel distance p and EDist answer d allow.

    An EDist answer is the straight-line distance to the target's centre, which
    sits up to HEIGHT_MAX above or below the camera: with the distance tolerance,
    a pair allows scales in [sqrt((d - tol)² - HEIGHT_MAX²) / (p + slack), (d + tol) / (p - slack)].
    The scale is the band where most pairs' ranges overlap (the consensus), so a
    wrong answer or a moved point outside it cannot move it; its midpoint is
    what the map draws with. It is weak with fewer than MIN_PAIRS pairs agreeing,
    two separate bands as well supported, or a band wider than SPREAD_LIMIT.
    """
    n = len(p)
    lo, hi = pair_scales(p, d, slack_px)
    # A pair vouches for a scale only when its range is narrow (a near target allows almost any scale).
    telling = (hi - lo) <= SPREAD_LIMIT * (hi + lo)
    weight = np.where(telling, 1, 0) if telling.any() else np.ones(n, int)
    # The best band starts at some pair's lower bound: count the telling ranges covering each (a sweep).
    by_lo, by_hi = np.argsort(lo, kind="stable"), np.argsort(hi, kind="stable")
    started = np.concatenate([[0], np.cumsum(weight[by_lo])])[np.searchsorted(lo[by_lo], lo, side="right")]
    ended = np.concatenate([[0], np.cumsum(weight[by_hi])])[np.searchsorted(hi[by_hi], lo, side="left")]
    count = started - ended
    best = np.flatnonzero(count == count.max())
    agree = (lo <= lo[best[0]]) & (lo[best[0]] <= hi)
    band_lo, band_hi = float(lo[agree].max()), float(hi[agree].min())
    separate = any(lo[b] > band_hi for b in best)
    mid = 0.5 * (band_lo + band_hi)
    spread = (band_hi - band_lo) / max(band_hi + band_lo, 1e-12)
    inl = int((agree & telling).sum())
    outliers = tuple(u for u, ok in zip(uids, agree.tolist()) if not ok)
    why = ("too few pairs" if n < MIN_PAIRS else
           f"only {inl} of {n} pairs agree on a scale and are far enough to fix it" if inl < MIN_PAIRS
           else "the pairs agree on two different scales" if separate
           else f"spread above {100 * SPREAD_LIMIT:.0f} %" if spread > SPREAD_LIMIT else "")
    return ScaleFit(mid, band_lo, band_hi, n, spread, bool(why), uids, inl, outliers, why)


def pair_scales(p: np.ndarray, d: np.ndarray, slack_px=0.0) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, the lowest and highest scale (metres per pixel) its EDist answer allows."""
    tol = np.maximum(DISTANCE_TOLERANCE_M, DISTANCE_TOLERANCE_REL * d)
    lo = np.sqrt(np.maximum((d - tol) ** 2 - HEIGHT_MAX ** 2, 0.0)) / (p + slack_px)
    hi = (d + tol) / np.maximum(p - slack_px, 1e-9)
    return lo, hi


def expected_distance(scale: ScaleFit, p: float, slack_px: float = 0.0) -> tuple[float, float]:
    """The straight-line distances (metres) a pixel distance allows under the scale's band and HEIGHT_MAX."""
    return (scale.low * max(p - slack_px, 0.0), float(np.hypot(scale.high * (p + slack_px), HEIGHT_MAX)))


# ------------------------------------------------------------------ per release, cached
_cached: tuple = (None, None)


def reconstruction_of(release) -> Reconstruction:
    """The release's reconstruction, built once per Release object (the window asks per question)."""
    global _cached
    ref, rec = _cached
    if ref is None or ref() is not release:
        rec = reconstruct(release)
        _cached = (weakref.ref(release), rec)
    return rec


def inferred_for(release, i: int) -> Inferred | None:
    """What the other answers give for question i; None when its uid links it to nothing."""
    return reconstruction_of(release).for_question(i)
