"""The centre of the window: one question with its answer views, video, current view and prompt.

It asks the core for everything it shows and loads media, scene metadata
and rendered maps through `Jobs`, so switching samples never waits on disk.
Each load is tagged with the question it was for; late results for a
question no longer shown are dropped.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from ..core.overlays import model_answers, published_map_overlay, scene_map_overlay, scene_overlay_3d
from ..core.scene import QuestionGeometry, SceneLibrary, link_question
from ..core.session import Session
from .answer_charts import DirectionDial, DistanceBars
from .choice_gallery import ChoiceGallery
from .image_pane import ImagePane
from .images import ImageCache, qimage_to_array
from .jobs import Jobs
from .map_panel import RENDER_LABELS, MapPanel
from .sample_panel import AnswersTable, PromptView, SampleHeader
from .video_player import VideoPlayer
from .view3d import View3DPanel

VIEW_MAX_SIDE = 1280
OPTION_MAX_SIDE = 960


def _media_problem(ref, what: str) -> str:
    if ref is None:
        return f"This question has no {what}."
    return f"{what.capitalize()} {ref.name!r}: {ref.problem or 'missing'}"


class SampleView(QWidget):
    statusMessage = pyqtSignal(str)

    def __init__(self, jobs: Jobs, cache: ImageCache | None = None, parent=None):
        super().__init__(parent)
        from ..render.scene_assets import SceneAssets
        self.jobs = jobs
        self.cache = cache or ImageCache()
        self.assets = SceneAssets()
        self.session: Session | None = None
        self.scenes: SceneLibrary | None = None
        self.qi: int | None = None
        self.geometry: QuestionGeometry | None = None
        self.preferred_source: str | None = None
        self._gen = 0
        self._scenes_read: set[str] = set()
        # Maps are shared by every question of a scene: keep a few decoded.
        self._map_arrays: OrderedDict[str, np.ndarray] = OrderedDict()

        self.header = SampleHeader()
        self.map_panel = MapPanel()
        self.gallery = ChoiceGallery()
        self.dial = DirectionDial()
        self.bars = DistanceBars()
        self.answer_stack = QStackedWidget()
        self.answer_stack.addWidget(self.map_panel)
        self.answer_stack.addWidget(self.gallery)
        self.chart_stack = QStackedWidget()
        self.chart_stack.addWidget(self.dial)
        self.chart_stack.addWidget(self.bars)
        # The chart beside the map, by the name an answer kind gives (`AnswerKind.chart`).
        self.charts = {"dial": self.dial, "bars": self.bars}
        self.answer_split = QSplitter(Qt.Orientation.Horizontal, objectName="answer_split")
        self.answer_split.addWidget(self.answer_stack)
        self.answer_split.addWidget(self.chart_stack)
        self.answer_split.setStretchFactor(0, 3)
        self.answer_split.setStretchFactor(1, 2)
        self.chart_stack.setMinimumWidth(240)
        self.view3d = View3DPanel(jobs, self.assets)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.answer_split, "Answer")
        self.tabs.addTab(self.view3d, "3D")
        self.player = VideoPlayer(jobs)
        self.view_pane = ImagePane("no current view")
        self.prompt = PromptView()
        self.answers = AnswersTable()

        self.media_split = QSplitter(Qt.Orientation.Vertical, objectName="media_split")
        self.media_split.addWidget(self.player)
        self.media_split.addWidget(self.view_pane)
        self.top_split = QSplitter(Qt.Orientation.Horizontal, objectName="top_split")
        self.top_split.addWidget(self.tabs)
        self.top_split.addWidget(self.media_split)
        self.top_split.setStretchFactor(0, 3)
        self.top_split.setStretchFactor(1, 2)
        self.text_split = QSplitter(Qt.Orientation.Horizontal, objectName="text_split")
        self.text_split.addWidget(self.prompt)
        self.text_split.addWidget(self.answers)
        self.text_split.setSizes([520, 540])
        self.main_split = QSplitter(Qt.Orientation.Vertical, objectName="main_split")
        self.main_split.addWidget(self.top_split)
        self.main_split.addWidget(self.text_split)
        self.main_split.setStretchFactor(0, 1)
        self.main_split.setStretchFactor(1, 0)
        self.main_split.setSizes([560, 190])
        self.top_split.setSizes([720, 400])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.header)
        lay.addWidget(self.main_split, 1)

        self.map_panel.sourceChosen.connect(self._source_chosen)
        self.player.frameChanged.connect(self._frame_changed)
        self.prompt.mediaActivated.connect(self._media_activated)
        self.tabs.currentChanged.connect(lambda _: self._update_3d())

    @property
    def splitters(self) -> list[QSplitter]:
        return [self.main_split, self.top_split, self.media_split, self.text_split, self.answer_split]

    # ------------------------------------------------------------- session
    def set_session(self, session: Session | None) -> None:
        self.session = session
        self.scenes = SceneLibrary(session.release.root) if session is not None else None
        self._scenes_read: set[str] = set()
        self._map_arrays.clear()
        self.has_scenes = bool(self.scenes and self.scenes.available())
        self.show_question(None)

    @property
    def names(self) -> list[str]:
        return [r.model for r in self.session.results] if self.session else []

    # ------------------------------------------------------------ question
    def show_question(self, qi: int | None) -> None:
        self._gen += 1
        self.qi, self.geometry = qi, None
        s = self.session
        self.header.show_question(s, qi)
        q = s.release.questions[qi] if s is not None and qi is not None else None
        self.prompt.show_question(q)
        self.answers.show_question(s, qi)
        if q is None:
            self.player.set_video(None, "no question selected")
            self.view_pane.set_message("")
            self.map_panel.set_sources([], None)
            self.map_panel.show_message("No question selected.")
            self.answer_stack.setCurrentWidget(self.map_panel)
            self.chart_stack.hide()
            self.view3d.set_scene(None, None, "no question selected")
            return
        # A scene already read links in microseconds: do it now, so the views
        # are drawn once rather than once before and once after the scene.
        g = self._link(q) if self.has_scenes and q.scene in self._scenes_read else None
        self._show_charts(q, qi)
        if q.kind is not None and q.kind.picks_an_option:
            self._show_gallery(q, qi)
        else:
            self.answer_stack.setCurrentWidget(self.map_panel)
            if g is None:
                self._refresh_map_sources()
        self._show_view_image(q)
        if q.video is not None and q.video.exists:
            self.player.set_video(q.video.path)
        else:
            self.player.set_video(None, _media_problem(q.video, "video"))
        self.tabs.setTabEnabled(1, False)
        self.view3d.set_scene(None, None, "loading the scene…" if self.has_scenes else
                              "This release has no scene metadata (scenes/<scene>/scene.json).")
        gen = self._gen
        if g is not None:
            self._geometry_ready(gen, g)
        elif self.has_scenes:
            self.jobs.submit(self._link, q, lane="geometry", label="reading scene",
                             done=lambda g: self._geometry_ready(gen, g),
                             failed=lambda msg: self._geometry_failed(gen, msg))

    def _link(self, q) -> QuestionGeometry:
        g = link_question(q, self.scenes.get(q.scene))
        self._scenes_read.add(q.scene)
        return g

    def _geometry_failed(self, gen: int, message: str) -> None:
        if gen == self._gen:
            self.statusMessage.emit(f"scene metadata: {message}")
            self.view3d.set_scene(None, None, f"The scene cannot be read: {message}")

    def _geometry_ready(self, gen: int, g: QuestionGeometry) -> None:
        if gen != self._gen:
            return
        self.geometry = g
        q = self.session.release.questions[self.qi]
        if g.problems:
            self.statusMessage.emit(f"{q.uid}: " + "; ".join(g.problems))
        if g.scene is None:
            self.view3d.set_scene(None, None, "; ".join(g.problems))
            return
        self.tabs.setTabEnabled(1, True)
        if not (q.kind is not None and q.kind.picks_an_option):
            self._refresh_map_sources()
        if not (q.video is not None and q.video.exists) and g.video is not None and g.video.file:
            self.player.set_video(g.video.file, fps=g.video.fps, boxes=self._video_boxes(q, g))
        elif q.video is not None and q.video.exists:
            self.player.set_boxes(self._video_boxes(q, g))
        if q.role_image("view") is None or not q.role_image("view").exists:
            if g.viewpoint is not None and g.viewpoint.image:
                self.view_pane.setVisible(True)
                self._load_image(g.viewpoint.image, VIEW_MAX_SIDE, "view", self._view_loaded)
        self._update_3d()

    @staticmethod
    def _video_boxes(q, g: QuestionGeometry) -> dict:
        if g.video is None or not q.target:
            return {}
        rec = g.video.instances.get(q.target) or {}
        k, box = rec.get("best_frame_idx"), rec.get("best_bbox")
        if isinstance(k, int) and isinstance(box, list) and len(box) == 4:
            return {k: tuple(float(v) for v in box)}
        return {}

    # -------------------------------------------------------------- charts
    def _show_charts(self, q, qi: int) -> None:
        chart = self.charts.get(q.kind.chart) if q.kind is not None else None
        if chart is None:
            self.chart_stack.hide()
            return
        truth = q.truth.value if q.truth.ok else None
        chart.set_answer(truth, model_answers(qi, self.session.results), self.names, q.column.frame)
        self.chart_stack.setCurrentWidget(chart)
        self.chart_stack.show()

    def _show_gallery(self, q, qi: int) -> None:
        self.answer_stack.setCurrentWidget(self.gallery)
        self.answer_stack.setVisible(True)
        self.map_panel.set_sources([], None)
        truth = int(q.truth.value) if q.truth.ok else None
        picks = [(m, int(v)) for m, v in model_answers(qi, self.session.results)]
        self.gallery.set_options(len(q.images), truth, picks, self.names)
        for k, im in enumerate(q.images):
            if im.exists:
                self.gallery.set_image(k, None, "loading…")
                self._load_image(im.path, OPTION_MAX_SIDE, f"option{k}",
                                 lambda img, k=k: self.gallery.set_image(k, img))
            else:
                self.gallery.set_image(k, None, _media_problem(im, "image"))

    # ---------------------------------------------------------------- maps
    def map_sources(self) -> list[tuple[str, str]]:
        q = self.session.release.questions[self.qi]
        out = []
        own = q.role_image("map")
        if own is not None:
            out.append(("release", "release map image" + ("" if own.exists else " (missing)")))
        g = self.geometry
        if g is not None and g.scene is not None:
            kinds = set()
            for name, tmap in g.scene.topdown.items():
                if tmap.image:
                    out.append((f"scene:{name}", f"scene map: {name}"))
                    kinds.add(tmap.kind)
            # Render only the abstraction levels the scene does not ship as images.
            if g.scene.mesh or any(i.bbox is not None for i in g.scene.instances.values()):
                out += [(f"render:{lvl}", label) for lvl, label in RENDER_LABELS.items() if lvl not in kinds]
        return out

    def _refresh_map_sources(self) -> None:
        q = self.session.release.questions[self.qi]
        sources = self.map_sources()
        keys = [k for k, _ in sources]
        current = self.preferred_source if self.preferred_source in keys else None
        if current is None:
            g = self.geometry
            own = f"scene:{g.topdown.name}" if g is not None and g.topdown is not None else None
            for k in ("release", own, "render:photo"):
                if k in keys and (k != "release" or q.role_image("map").exists):
                    current = k
                    break
            else:
                current = keys[0] if keys else None
        self.map_panel.set_sources(sources, current)
        g = self.geometry
        scene_pending = g is None and self.has_scenes
        needs_map = (q.kind is not None and q.kind.needs_map(q.column) or scene_pending
                     or (g is not None and g.scene is not None))
        # Without any map, an angle or distance is shown by its chart alone.
        self.answer_stack.setVisible(bool(sources) or needs_map or not self.chart_stack.isVisible())
        if current is None:
            reason = ("no scene metadata" if not self.has_scenes else
                      "; ".join(self.geometry.problems) if self.geometry is not None and self.geometry.problems
                      else "loading the scene…" if self.geometry is None else "no map in the scene")
            self.map_panel.show_message(f"No top-down map for this question ({reason}).")
            return
        self._show_source(current)

    def _source_chosen(self, key: str) -> None:
        self.preferred_source = key
        self._show_source(key)

    def _show_source(self, key: str) -> None:
        q = self.session.release.questions[self.qi]
        g = self.geometry
        gen = self._gen
        if key == "release":
            im = q.role_image("map")
            if not im.exists:
                self.map_panel.show_message(_media_problem(im, "map image"))
                return
            self._load_array(im.path, lambda arr: self._draw_map(gen, arr, None, own=True))
        elif key.startswith("scene:"):
            name = key[6:]
            tmap = g.scene.topdown[name]
            own = g.topdown is not None and g.topdown.name == name
            W = None if own else tmap.world_to_pixel
            size = (tmap.width, tmap.height)
            self._load_array(tmap.image, lambda arr: self._draw_map(gen, arr, W, own=own, declared=size))
        elif key.startswith("render:"):
            level = key[7:]
            own = g.topdown if g.topdown is not None and g.topdown.world_to_pixel is not None else None
            W = own.world_to_pixel if own is not None else None
            size = (own.width, own.height) if own is not None and own.width else None
            def draw(rm) -> None:
                self._draw_map(gen, rm.image, None if own else rm.world_to_pixel, own=own is not None)
            cached = self.assets.cached_topdown(g.scene, level, W, size)
            if cached is not None:
                draw(cached)
                return
            self.map_panel.set_note(f"rendering the {level} map…")
            self.jobs.submit(self.assets.topdown, g.scene, level, W, size, lane="map",
                             label="rendering map", done=draw, failed=lambda msg: self._map_failed(gen, msg))

    def _load_array(self, path: str, done) -> None:
        hit = self._map_arrays.get(path)
        if hit is not None:
            self._map_arrays.move_to_end(path)
            done(hit)
            return
        gen = self._gen

        def loaded(arr) -> None:
            self._map_arrays[path] = arr
            while len(self._map_arrays) > 12:
                self._map_arrays.popitem(last=False)
            done(arr)
        self.jobs.submit(lambda p: qimage_to_array(self.cache.load(p)), path, lane="map", label="loading map",
                         done=loaded, failed=lambda msg: self._map_failed(gen, msg))

    def _map_failed(self, gen: int, message: str) -> None:
        if gen == self._gen:
            self.map_panel.show_message(f"The map cannot be shown: {message}")

    def _draw_map(self, gen: int, image, W, own: bool, declared=None) -> None:
        if gen != self._gen:
            return
        q = self.session.release.questions[self.qi]
        h, w = image.shape[:2]
        g = self.geometry
        results = self.session.results
        if g is not None and g.scene is not None:
            if W is not None and declared and declared[0] and (w, h) != tuple(declared):
                W = np.diag([w / declared[0], h / declared[1]]) @ W
            overlay = scene_map_overlay(q, self.qi, results, g, w, h, None if own else W)
        elif own:
            overlay = published_map_overlay(q, self.qi, results, w, h)
        else:
            overlay = None
        self.map_panel.show_map(image, overlay, self.names)
        self.map_panel.view.set_frame(max(self.player.current, 0))

    # --------------------------------------------------------- view image
    def _show_view_image(self, q) -> None:
        ref = q.role_image("view")
        self.view_pane.set_caption("current view")
        # Choice questions have no current view: give the video the room.
        self.view_pane.setVisible(ref is not None or q.viewpoint is not None)
        if ref is not None and ref.exists:
            self.view_pane.set_message("loading…")
            self._load_image(ref.path, VIEW_MAX_SIDE, "view", self._view_loaded)
        else:
            self.view_pane.set_message(_media_problem(ref, "current-view image")
                                       if ref is not None or not (q.kind is not None and q.kind.picks_an_option)
                                       else "Multiple-choice question: the options are in the Answer tab.")

    def _view_loaded(self, image) -> None:
        self.view_pane.set_image(image)

    def _load_image(self, path: str, max_side: int, lane: str, done) -> None:
        hit = self.cache.get(path, max_side)
        if hit is not None:
            done(hit)
            return
        gen = self._gen
        pane_message = self.view_pane.set_message if lane == "view" else (lambda m: None)

        def failed(msg: str) -> None:
            if gen == self._gen:
                if lane.startswith("option"):
                    self.gallery.set_image(int(lane[6:]), None, f"Cannot show this image:\n{msg}")
                else:
                    pane_message(f"Cannot show this image:\n{msg}")
        self.jobs.submit(self.cache.load, path, max_side, lane=lane, label="loading image",
                         done=lambda img: done(img) if gen == self._gen else None, failed=failed)

    # ------------------------------------------------------------ 3D, sync
    def _update_3d(self) -> None:
        g = self.geometry
        if g is None or g.scene is None or self.tabs.currentWidget() is not self.view3d:
            return
        q = self.session.release.questions[self.qi]
        overlay = scene_overlay_3d(q, self.qi, self.session.results, g)
        self.view3d.set_scene(g.scene, overlay, "", target=q.target, names=self.names)
        self.view3d.set_frame(max(self.player.current, 0))

    def _frame_changed(self, k: int) -> None:
        self.map_panel.view.set_frame(k)
        self.view3d.set_frame(k)

    def _media_activated(self, kind: str, k: int) -> None:
        if kind == "video":
            self.player.setFocus()
            self.player.play()
        elif self.session is not None and self.qi is not None:
            q = self.session.release.questions[self.qi]
            role = q.image_role(k)
            if role == "option" or role == "map":
                self.tabs.setCurrentIndex(0)
