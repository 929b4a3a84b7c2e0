"""The task gallery: one clean example per Table-1 column, as slides and as one grid figure.

Examples are chosen by `viewer.core.gallery_pick` (media complete, scene
linked, target large in its best frame, a hit and a miss among the models).
Each slide is the question's reveal (truth and every answer with its score)
as the presentation mode shows it; the grid puts the twelve side by side.

Slides are jobs: here, one after another, or on an executor
(core/executors.py: worker processes, a Dask cluster), where each job opens
the release by path (`SessionSource`), makes its own offscreen Qt application
and returns its slide as PNG bytes and its grid tile as pixels. The files are
written here, in column order, so they are the same bytes wherever the slides
were painted.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PyQt6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PyQt6.QtGui import QImage, QPainter

from ..core.atomic import atomic_write_bytes
from ..core.diagnostics import UserError
from ..core.executors import Executor
from ..core.scene.model import link_question
from ..core.scene.sources import SceneLibrary
from ..core.session import Session
from ..core.talk.gallery_pick import pick_examples, rate_chosen
from ..core.talk.storyboard import TRUTH
from ..render.scene_assets import SceneAssets
from .canvas import draw_text, ensure_gui_app
from .layouts import prepare
from .story_frame import StoryPainter
from .theme import TALK_LIGHT, Theme

SLIDE_SIZE = (1920, 1080)
TILE_SIZE = (800, 450)
GRID_COLUMNS = 4
TILE_FORMAT = QImage.Format.Format_RGB888


@dataclass
class GalleryResult:
    slides: list[Path]
    grid: Path
    picks: dict[str, str | None]       # column -> uid (None: the release has no such question)


@dataclass(frozen=True)
class SessionSource:
    """How a worker opens the session the gallery was asked of: the same files, read the same way.

    Paths are absolute (a worker's folder is not the command's); on a cluster they
    must name the same files on every machine. `run` names one gallery: a worker
    opens the session once per run, however many of its slides it paints.
    """
    release: str
    predictions: tuple[str, ...]
    benchmark: str | None
    run: str


@dataclass
class SlideImages:
    """One job's result: the slide as PNG file bytes and its grid tile as TILE_FORMAT pixels."""
    png: bytes
    tile: bytes
    tile_bytes_per_line: int

    def tile_image(self) -> QImage:
        w, h = TILE_SIZE
        return QImage(self.tile, w, h, self.tile_bytes_per_line, TILE_FORMAT).copy()


def build_gallery(session: Session, out_dir: Path, models: list[int] | None = None, theme: Theme = TALK_LIGHT,
                  progress: Callable[[int, int], None] | None = None,
                  cancelled: Callable[[], bool] | None = None,
                  executor: Executor | None = None, source: SessionSource | None = None,
                  questions: list[int] | None = None, among=None) -> GalleryResult:
    """Slides, grid.png and gallery.json in `out_dir`; the slides painted here, or by `executor`'s
    workers, which open `source` (required with an executor) instead of `session`.

    Which questions: one picked per task (`core/talk/gallery_pick`), among the questions the mask
    `among` keeps when given (`--filter`); or exactly `questions` (indices, `--uid`), in their order.
    """
    if executor is not None and source is None:
        raise ValueError("an executor's workers need the session's source")
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
    scores = [session.results[m].score for m in shown]
    if questions is not None:
        chosen = rate_chosen(release, link, list(questions), scores)
        picks = {k: c for k, c in chosen}
    else:
        picks = pick_examples(release, link, scores, among)
        chosen = [(k, c) for k, c in picks.items() if c is not None]
    if not chosen:
        bench = release.benchmark
        which = "" if among is None else " that the filter keeps"
        raise UserError(f"{release.root}: no question of the {len(bench.columns)} {bench.title} tasks{which} to show")
    keys = [k for k, _ in chosen]

    def check_cancelled() -> None:
        if cancelled is not None and cancelled():
            from .clip_export import ExportCancelled
            raise ExportCancelled()

    def here():
        for key, cand in chosen:
            check_cancelled()
            yield key, slide_images(session, cand.qi, models, theme, scenes, assets)

    done = here() if executor is None else executor.map_unordered(
        render_slide, [(source, c.qi, models, theme) for _, c in chosen], keys)
    images: dict[str, SlideImages] = {}
    for key, result in done:                 # as they come; written below in column order
        check_cancelled()
        images[key] = result
        if progress is not None:
            progress(len(images), len(chosen) + 1)
    slides: list[Path] = []
    for n, key in enumerate(keys):
        path = out_dir / f"slide_{n + 1:02d}_{key}.png"
        _write(path, images[key].png)
        slides.append(path)
    grid = out_dir / "grid.png"
    _write(grid, png_bytes(grid_image([(k, images[k].tile_image()) for k in keys], theme, session,
                                      chosen=questions is not None)))
    index = {key: {"uid": release.uids[c.qi], "score": round(c.score, 3), "caveats": c.reasons}
             for key, c in chosen}
    _write(out_dir / "gallery.json", (json.dumps(index, indent=2) + "\n").encode("utf-8"))
    if progress is not None:
        progress(len(chosen) + 1, len(chosen) + 1)
    return GalleryResult(slides, grid, {k: (release.uids[c.qi] if c else None) for k, c in picks.items()})


def slide_images(session: Session, qi: int, models: list[int] | None, theme: Theme,
                 scenes: SceneLibrary | None = None, assets: SceneAssets | None = None) -> SlideImages:
    """Question qi's slide (PNG bytes) and grid tile (pixels): the truth stage, as the presentation shows it."""
    subject = prepare(session, qi, models, scenes, assets)
    try:
        painter = StoryPainter(subject)
        tile = painter.image(TILE_SIZE, TRUTH, None, theme)
        return SlideImages(png_bytes(painter.image(SLIDE_SIZE, TRUTH, None, theme)),
                           tile.constBits().asstring(tile.sizeInBytes()), tile.bytesPerLine())
    finally:
        subject.close()


def render_slide(source: SessionSource, qi: int, models: list[int] | None, theme: Theme) -> SlideImages:
    """A worker's job (a spawned process, a Dask worker's thread): slide_images of question qi of `source`.

    The worker paints off screen, whatever display its machine has. Its Qt
    application is made once, in the process's main thread (a Dask task runs in
    a pool thread: cluster.in_main_thread); painting into a QImage, text
    included, may then happen in any thread.
    """
    from ..cluster import in_main_thread
    with _APP_LOCK:
        in_main_thread(lambda: ensure_gui_app(offscreen=True))
    # Opened once per run and per thread (a worker with several threads shares no scene caches
    # between them); only the latest run is kept, so a long-lived worker does not hoard releases.
    if getattr(_OPENED, "source", None) != source:
        from ..core.session import open_session
        _OPENED.source = None
        session = open_session(source.release, list(source.predictions), benchmark=source.benchmark)
        _OPENED.state = (session, SceneLibrary(session.release.root), SceneAssets())
        _OPENED.source = source
    session, scenes, assets = _OPENED.state
    return slide_images(session, qi, models, theme, scenes, assets)


_APP_LOCK = threading.Lock()
_OPENED = threading.local()


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise UserError("cannot encode the image as PNG")
    buf.close()
    return bytes(data)


def _write(path: Path, data: bytes) -> None:
    """Atomically: a failed or interrupted gallery leaves no half-written file."""
    try:
        atomic_write_bytes(path, data)
    except OSError as e:
        raise UserError(f"{path}: cannot write ({e.strerror or e})") from None


def grid_image(tiles: list[tuple[str, QImage]], theme: Theme, session: Session, chosen: bool = False) -> QImage:
    """Tiles in the order given (the picks' Table-1 column order, or the user's), GRID_COLUMNS across, under a
    one-line header; `chosen`: the questions were named by the user, not one picked per task."""
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
    n_all = len(session.release.benchmark.keys)
    which = f"each of the {n_all} tasks" if len(tiles) == n_all else f"{len(tiles)} of the {n_all} tasks"
    what = (f"{len(tiles)} chosen question{'s' if len(tiles) != 1 else ''}" if chosen
            else f"one question of {which}")
    draw_text(p, QRectF(gap, 0, w - 2 * gap, head), f"{session.release.benchmark.title}: {what}, "
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
