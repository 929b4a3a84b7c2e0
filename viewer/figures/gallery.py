"""The task gallery: one clean example per Table-1 column, as slides and as one grid figure.

Examples are chosen by `viewer.core.gallery_pick` (media complete, scene
linked, target large in its best frame, a hit and a miss among the models).
Each slide is the question's reveal (truth and every answer with its score)
as the presentation mode shows it; the grid puts the twelve side by side.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PyQt6.QtCore import QRectF, Qt
from PyQt6.QtGui import QImage, QPainter

from ..core.diagnostics import UserError
from ..core.gallery_pick import pick_examples
from ..core.scene import SceneLibrary, link_question
from ..core.session import Session
from ..core.storyboard import TRUTH
from ..render.scene_assets import SceneAssets
from .canvas import draw_text
from .layouts import prepare
from .story_frame import StoryPainter
from .theme import TALK_LIGHT, Theme

SLIDE_SIZE = (1920, 1080)
TILE_SIZE = (800, 450)
GRID_COLUMNS = 4


@dataclass
class GalleryResult:
    slides: list[Path]
    grid: Path
    picks: dict[str, str | None]       # column -> uid (None: the release has no such question)


def build_gallery(session: Session, out_dir: Path, models: list[int] | None = None, theme: Theme = TALK_LIGHT,
                  progress: Callable[[int, int], None] | None = None,
                  cancelled: Callable[[], bool] | None = None) -> GalleryResult:
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"{out_dir}: cannot create the folder ({e.strerror or e})") from None
    if not out_dir.is_dir():
        raise UserError(f"{out_dir}: is not a folder")
    release = session.release
    scenes = SceneLibrary(release.root)
    assets = SceneAssets()
    links = {}

    def link(qi: int):
        if qi not in links:
            q = release.questions[qi]
            g = link_question(q, scenes.get(q.scene))
            links[qi] = g if g.scene is not None else None
        return links[qi]

    shown = list(range(len(session.results))) if models is None else models
    picks = pick_examples(release, link, [session.results[m].score for m in shown])
    chosen = [(k, c) for k, c in picks.items() if c is not None]
    if not chosen:
        raise UserError(f"{release.root}: no question of the 12 GST-Bench tasks to show")
    slides: list[Path] = []
    tiles: list[tuple[str, QImage]] = []
    for n, (key, cand) in enumerate(chosen):
        if cancelled is not None and cancelled():
            from .clip_export import ExportCancelled
            raise ExportCancelled()
        subject = prepare(session, cand.qi, models, scenes, assets)
        try:
            painter = StoryPainter(subject)
            slide = painter.image(SLIDE_SIZE, TRUTH, None, theme)
            path = out_dir / f"slide_{n + 1:02d}_{key}.png"
            if not slide.save(str(path), "PNG"):
                raise UserError(f"{path}: cannot write")
            slides.append(path)
            tiles.append((key, painter.image(TILE_SIZE, TRUTH, None, theme)))
        finally:
            subject.close()
        if progress is not None:
            progress(n + 1, len(chosen) + 1)
    grid = out_dir / "grid.png"
    if not grid_image(tiles, theme, session).save(str(grid), "PNG"):
        raise UserError(f"{grid}: cannot write")
    index = {key: {"uid": release.uids[c.qi], "score": round(c.score, 3), "caveats": c.reasons}
             for key, c in chosen}
    (out_dir / "gallery.json").write_text(json.dumps(index, indent=2) + "\n")
    if progress is not None:
        progress(len(chosen) + 1, len(chosen) + 1)
    return GalleryResult(slides, grid, {k: (release.uids[c.qi] if c else None) for k, c in picks.items()})


def grid_image(tiles: list[tuple[str, QImage]], theme: Theme, session: Session) -> QImage:
    """Tiles in Table-1 column order, GRID_COLUMNS across, under a one-line header."""
    order = {k: i for i, k in enumerate(session.release.benchmark.column_keys)}
    tiles = sorted(tiles, key=lambda t: order.get(t[0], 99))
    tw, th_ = TILE_SIZE
    gap = 16
    head = 64
    cols = min(GRID_COLUMNS, len(tiles))
    rows = (len(tiles) + cols - 1) // cols
    w = cols * tw + (cols + 1) * gap
    h = head + rows * th_ + (rows + 1) * gap
    img = QImage(w, h, QImage.Format.Format_RGB888)
    img.fill(theme.panel)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    models = ", ".join(r.model for r in session.results) or "no predictions"
    n_all = len(session.release.benchmark.column_keys)
    which = f"each of the {n_all} tasks" if len(tiles) == n_all else f"{len(tiles)} of the {n_all} tasks"
    draw_text(p, QRectF(gap, 0, w - 2 * gap, head), f"GST-Bench: one question of {which}, "
              f"with the ground truth and each model's answer and score ({models})",
              _header_font(theme),
              theme.text, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, wrap=False)
    for i, (_, tile) in enumerate(tiles):
        x = gap + (i % cols) * (tw + gap)
        y = head + gap + (i // cols) * (th_ + gap)
        p.drawImage(QRectF(x, y, tw, th_), tile)
    p.end()
    return img


def _header_font(theme: Theme):
    f = theme.font(1.0, bold=True)
    f.setPixelSize(28)
    return f
