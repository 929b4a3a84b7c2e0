"""The centre of the window: one question with its answer views, video, current view and prompt.

It draws the state's question, models, frame and map source, and asks the
core for everything it shows. It is also the state's loader of `geometry`:
media, scene metadata and rendered maps load through `Jobs`, so switching
samples never waits on disk; a load for a question no longer shown is
dropped there (scope "question").
"""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from ..core.benchmarks.vsi.objects import MetaInfoLibrary, objects_topdown
from ..core.inferred import inferred_for
from ..core.map_choice import MapKind, MapSource
from ..core.overlays import model_answers, published_map_overlay, scene_map_overlay, scene_overlay_3d
from ..core.scene.alone import scene_geometry
from ..core.scene.model import QuestionGeometry, link_question
from ..core.session import Session
from ..core.state import InspectorState
from .answer_charts import DirectionDial, DistanceBars
from .choice_gallery import ChoiceGallery
from .image_pane import ImagePane
from .images import ImageCache, qimage_to_array
from .jobs import Jobs
from .map_panel import MapPanel
from .option_texts import OptionTexts
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

    def __init__(self, state: InspectorState, jobs: Jobs, assets, cache: ImageCache | None = None, parent=None):
        super().__init__(parent)
        self.state = state
        self.jobs = jobs
        self.cache = cache or ImageCache()
        self.assets = assets                      # render.scene_assets.SceneAssets, shared with the exports
        # Per release, reset when another opens: scenes whose metadata was read, and
        # decoded maps (shared by every question of a scene: keep a few).
        self._session: Session | None = None
        self._meta_info: MetaInfoLibrary | None = None
        self._scenes_read: set[str] = set()
        self._map_arrays: OrderedDict[str, np.ndarray] = OrderedDict()
        self.has_scenes = False
        self.scene_alone: str | None = None

        self.header = SampleHeader(state)
        self.map_panel = MapPanel(state)
        self.gallery = ChoiceGallery()
        self.dial = DirectionDial()
        self.bars = DistanceBars()
        self.option_texts = OptionTexts()
        self.answer_stack = QStackedWidget()
        self.answer_stack.addWidget(self.map_panel)
        self.answer_stack.addWidget(self.gallery)
        self.chart_stack = QStackedWidget()
        self.chart_stack.addWidget(self.dial)
        self.chart_stack.addWidget(self.bars)
        self.chart_stack.addWidget(self.option_texts)
        # The chart beside the map, by the name an answer kind gives (`AnswerKind.chart`).
        self.charts = {"dial": self.dial, "bars": self.bars, "option-texts": self.option_texts}
        self.answer_split = QSplitter(Qt.Orientation.Horizontal, objectName="answer_split")
        self.answer_split.addWidget(self.answer_stack)
        self.answer_split.addWidget(self.chart_stack)
        self.answer_split.setStretchFactor(0, 3)
        self.answer_split.setStretchFactor(1, 2)
        self.chart_stack.setMinimumWidth(240)
        self.view3d = View3DPanel(jobs, assets)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.answer_split, "Answer")
        self.tabs.addTab(self.view3d, "3D")
        self.player = VideoPlayer(state, jobs)
        self.view_pane = ImagePane("no current view")
        self.prompt = PromptView(state)
        self.answers = AnswersTable(state)

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

        self.prompt.mediaActivated.connect(self._media_activated)
        self.tabs.currentChanged.connect(lambda _: self._update_3d())
        for signal in (state.events.session, state.events.question, state.events.models):
            signal.connect(self.refresh)
        state.events.visible_models.connect(self._models_shown)
        state.events.geometry.connect(self._geometry_ready)
        state.events.map_source.connect(self._source_chosen)
        state.events.frame.connect(self._frame_changed)

    @property
    def splitters(self) -> list[QSplitter]:
        return [self.main_split, self.top_split, self.media_split, self.text_split, self.answer_split]

    # ------------------------------------------------------------- session
    def _new_session(self, session: Session | None) -> None:
        self._session = session
        # VSI-Bench's per-scene object boxes (meta_info), read on first use.
        self._meta_info = MetaInfoLibrary(session.release.root) if session is not None else None
        self._scenes_read = set()
        self._map_arrays.clear()
        scenes = self.state.scenes
        self.has_scenes = bool(scenes and scenes.available())
        # A release without questions whose library has one scene (`--scene DIR`) shows that scene.
        alone = session is not None and len(session.release) == 0 and self.has_scenes
        self.scene_alone = scenes.available()[0] if alone else None

    @property
    def names(self) -> list[str]:
        return list(self.state.models)

    # ------------------------------------------------------------ question
    def refresh(self) -> None:
        """Show the state's question: its media, answers, charts, map and scene."""
        state = self.state
        if state.session is not self._session:
            self._new_session(state.session)
        qi, q = state.question, state.current
        state.geometry = None
        for part in (self.text_split, self.header, self.media_split):
            part.setVisible(self.scene_alone is None)
        if q is None:
            self.player.set_video(None, "no question selected")
            self.view_pane.set_message("")
            self.map_panel.set_sources((), None)
            self.map_panel.show_message("No question selected.")
            self.answer_stack.setCurrentWidget(self.map_panel)
            self.chart_stack.hide()
            self.view3d.set_scene(None, None, "no question selected")
            if self.scene_alone is not None:
                self._load_scene_alone()
            return
        # A scene already read links in microseconds: do it now, so the views
        # are drawn once rather than once before and once after the scene.
        scenes = state.scenes
        g = link_question(q, scenes.get(q.scene)) if self.has_scenes and q.scene in self._scenes_read else None
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
        if g is not None:
            state.geometry = g
        elif self.has_scenes:
            self.jobs.submit(lambda: link_question(q, scenes.get(q.scene)), lane="geometry", scope="question",
                             label="reading scene", done=self._scene_read, failed=self._geometry_failed)

    def _models_shown(self) -> None:
        """Models were shown or hidden: only the answer views change (the video keeps its frame)."""
        q, qi = self.state.current, self.state.question
        if q is None:
            return
        self._show_charts(q, qi)
        if q.kind is not None and q.kind.picks_an_option:
            self._show_gallery(q, qi)
        elif not (self.has_scenes and self.state.geometry is None):
            self._refresh_map_sources()
        self._update_3d()

    def _scene_read(self, g: QuestionGeometry) -> None:
        self._scenes_read.add(self.state.current.scene)
        self.state.geometry = g

    def _geometry_failed(self, message: str) -> None:
        self.statusMessage.emit(f"scene metadata: {message}")
        self.view3d.set_scene(None, None, f"The scene cannot be read: {message}")

    # ------------------------------------------------------- scene alone
    def _load_scene_alone(self) -> None:
        scenes, sid = self.state.scenes, self.scene_alone
        self.view3d.set_scene(None, None, "loading the scene…")
        self.map_panel.show_message("Loading the scene…")
        self.jobs.submit(lambda: scene_geometry(scenes.get(sid)), lane="geometry", scope="session",
                         label="reading scene", done=self._scene_alone_read, failed=self._geometry_failed)

    def _scene_alone_read(self, g: QuestionGeometry) -> None:
        if self.state.current is None:
            self.state.geometry = g

    def _show_scene_alone(self, g: QuestionGeometry) -> None:
        """The scene without a question: its maps with the trajectory, the 3D view, its video if any."""
        if g.problems:
            self.statusMessage.emit(f"scene {self.scene_alone}: " + "; ".join(g.problems))
        if g.scene is None:
            self.map_panel.show_message("; ".join(g.problems))
            return
        self.tabs.setTabEnabled(1, True)
        self.text_split.setVisible(False)          # no prompt, no answers
        self.header.setVisible(False)
        self.media_split.setVisible(g.video is not None and bool(g.video.file))
        self.answer_stack.setCurrentWidget(self.map_panel)
        self.answer_stack.setVisible(True)
        self.view_pane.setVisible(False)
        if g.video is not None and g.video.file:
            self.player.set_video(g.video.file, fps=g.video.fps)
        else:
            self.player.set_video(None, "This scene has no video; its camera path is drawn on the map and in 3D."
                                  if g.video is not None else "This scene has no video or camera trajectory.")
        self._refresh_map_sources()
        self._update_3d()

    def _geometry_ready(self, g: QuestionGeometry | None) -> None:
        if g is None:
            return
        q = self.state.current
        if q is None:
            self._show_scene_alone(g)
            return
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
        if isinstance(k, int) and isinstance(box, list) and len(box) == 4 \
                and all(isinstance(v, (int, float)) and math.isfinite(v) for v in box):
            return {k: tuple(float(v) for v in box)}
        return {}

    # -------------------------------------------------------------- charts
    def _show_charts(self, q, qi: int) -> None:
        chart = self.charts.get(q.kind.chart) if q.kind is not None else None
        if chart is None:
            self.chart_stack.hide()
            return
        truth = q.truth.value if q.truth.ok else None
        chart.set_answer(truth, model_answers(qi, self.state.shown_results()), self.names, q.column.frame,
                         scale=q.benchmark.scale(q), options=q.options)
        self.chart_stack.setCurrentWidget(chart)
        self.chart_stack.show()

    def _show_gallery(self, q, qi: int) -> None:
        self.answer_stack.setCurrentWidget(self.gallery)
        self.answer_stack.setVisible(True)
        self.map_panel.set_sources((), None)
        truth = int(q.truth.value) if q.truth.ok else None
        picks = [(m, int(v)) for m, v in model_answers(qi, self.state.shown_results())]
        self.gallery.set_options(len(q.images), truth, picks, self.names)
        for k, im in enumerate(q.images):
            if im.exists:
                self.gallery.set_image(k, None, "loading…")
                self._load_image(im.path, OPTION_MAX_SIDE, f"option{k}",
                                 lambda img, k=k: self.gallery.set_image(k, img))
            else:
                self.gallery.set_image(k, None, _media_problem(im, "image"))

    # ---------------------------------------------------------------- maps
    def _refresh_map_sources(self) -> None:
        """The map source box and the map, by `choose_map` (viewer.core.map_choice)."""
        q = self.state.current
        choice = self.state.map_choice
        current = choice.current
        self.map_panel.set_sources(choice.options, current)
        g = self.state.geometry
        scene_pending = g is None and self.has_scenes
        needs_map = (q is None or q.kind is not None and q.kind.needs_map(q.column) or scene_pending
                     or (g is not None and g.scene is not None))
        objects = self._objects_overlay(q) if current is None else None
        # Without any map, an angle or distance is shown by its chart alone.
        self.answer_stack.setVisible(bool(choice.options) or needs_map or objects is not None
                                     or not self.chart_stack.isVisible())
        if objects is not None:
            # No map, but the question's objects are known from meta_info: draw them from above on a blank canvas.
            blank = np.full((objects.height, objects.width, 3), 250, np.uint8)
            self.map_panel.show_map(blank, objects, self.names)
            return
        if current is None:
            reason = ("no scene metadata" if not self.has_scenes else
                      "; ".join(g.problems) if g is not None and g.problems
                      else "loading the scene…" if g is None else "no map in the scene")
            self.map_panel.show_message(f"No top-down map for this question ({reason}).")
            return
        self._show_source(current)

    def _objects_overlay(self, q):
        """The question's objects seen from above, when the release has meta_info for its scene."""
        objects = self._meta_info.scene(q.scene) if q is not None and self._meta_info is not None else None
        return objects_topdown(objects, " ".join(q.texts)) if objects is not None else None

    def _source_chosen(self, _source: MapSource | None) -> None:
        q = self.state.current
        if q is not None and not (q.kind is not None and q.kind.picks_an_option) or \
                q is None and self.state.geometry is not None:
            self._refresh_map_sources()

    def _show_source(self, source: MapSource) -> None:
        q = self.state.current
        g = self.state.geometry
        if source.kind is MapKind.RELEASE:
            im = q.role_image("map")
            if not im.exists:
                self.map_panel.show_message(_media_problem(im, "map image"))
                return
            self._load_array(im.path, lambda arr: self._draw_map(arr, None, own=True))
        elif source.kind is MapKind.LINKED:
            im = self.state.session.release.get(source.name).role_image("map")
            if not im.exists:
                self.map_panel.show_message(_media_problem(im, "linked map image"))
                return
            # The scene's map: normalised points mean the same on it as on the question's own.
            self._load_array(im.path, lambda arr: self._draw_map(arr, None, own=True))
        elif source.kind is MapKind.SCENE:
            tmap = g.scene.topdown[source.name]
            own = g.topdown is not None and g.topdown.name == source.name
            W = None if own else tmap.world_to_pixel
            size = (tmap.width, tmap.height)
            self._load_array(tmap.image, lambda arr: self._draw_map(arr, W, own=own, declared=size))
        else:
            level = source.name
            own = g.topdown if g.topdown is not None and g.topdown.world_to_pixel is not None else None
            W = own.world_to_pixel if own is not None else None
            size = (own.width, own.height) if own is not None and own.width else None
            def draw(rm) -> None:
                self._draw_map(rm.image, None if own else rm.world_to_pixel, own=own is not None)
            cached = self.assets.cached_topdown(g.scene, level, W, size)
            if cached is not None:
                draw(cached)
                return
            self.map_panel.set_note(f"rendering the {level} map…")
            self.jobs.submit(self.assets.topdown, g.scene, level, W, size, lane="map", scope="question",
                             label="rendering map", done=draw, failed=self._map_failed)

    def _load_array(self, path: str, done) -> None:
        hit = self._map_arrays.get(path)
        if hit is not None:
            self._map_arrays.move_to_end(path)
            done(hit)
            return

        def loaded(arr) -> None:
            self._map_arrays[path] = arr
            while len(self._map_arrays) > 12:
                self._map_arrays.popitem(last=False)
            done(arr)
        self.jobs.submit(lambda p: qimage_to_array(self.cache.load(p)), path, lane="map", scope="question",
                         label="loading map", done=loaded, failed=self._map_failed)

    def _map_failed(self, message: str) -> None:
        self.map_panel.show_message(f"The map cannot be shown: {message}")

    def _draw_map(self, image, W, own: bool, declared=None) -> None:
        q, qi = self.state.current, self.state.question
        h, w = image.shape[:2]
        g = self.state.geometry
        results = self.state.shown_results()
        if g is not None and g.scene is not None:
            if W is not None and declared and declared[0] and (w, h) != tuple(declared):
                W = np.diag([w / declared[0], h / declared[1]]) @ W
            overlay = scene_map_overlay(q, qi, results, g, w, h, None if own else W)
        elif own:
            overlay = published_map_overlay(q, qi, results, w, h, inferred_for(self.state.session.release, qi))
        else:
            overlay = None
        self.map_panel.show_map(image, overlay, self.names)
        self.map_panel.view.set_frame(self.state.frame)

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
        pane_message = self.view_pane.set_message if lane == "view" else (lambda m: None)

        def failed(msg: str) -> None:
            if lane.startswith("option"):
                self.gallery.set_image(int(lane[6:]), None, f"Cannot show this image:\n{msg}")
            else:
                pane_message(f"Cannot show this image:\n{msg}")
        self.jobs.submit(self.cache.load, path, max_side, lane=lane, scope="question", label="loading image",
                         done=done, failed=failed)

    # ------------------------------------------------------------ 3D, sync
    def _update_3d(self) -> None:
        g = self.state.geometry
        if g is None or g.scene is None or self.tabs.currentWidget() is not self.view3d:
            return
        q, qi = self.state.current, self.state.question
        overlay = scene_overlay_3d(q, qi, self.state.shown_results(), g)
        self.view3d.set_scene(g.scene, overlay, "", target=q.target if q is not None else None, names=self.names)
        self.view3d.set_frame(self.state.frame)

    def _frame_changed(self, k: int) -> None:
        self.map_panel.view.set_frame(k)
        self.view3d.set_frame(k)

    def _media_activated(self, kind: str, k: int) -> None:
        if kind == "video":
            self.player.setFocus()
            self.player.play()
        elif self.state.current is not None:
            q = self.state.current
            role = q.image_role(k)
            if role == "option" or role == "map":
                self.tabs.setCurrentIndex(0)
