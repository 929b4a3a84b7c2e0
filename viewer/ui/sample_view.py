"""The centre of the window: one question with its answer views, video, current view and prompt.

It draws the state's question, models, frame, geometry and map source. What
it shows is the question's `core/view/plan.plan`, which the figures run too:
this view loads what the plan names through `Jobs` (media and rendered maps),
so switching samples never waits on disk; a load for a question no longer
shown is dropped there (scope "question"). The geometry is linked beside it,
by `GeometryLoader`.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import QLabel, QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from ..core.map_choice import MapSource
from ..core.overlays import model_answers
from ..core.scene.alone import scene_info
from ..core.scene.model import QuestionGeometry
from ..core.state import InspectorState
from ..core.view.plan import MapCanvas, MapFile, MapPlan, ViewPlan, plan
from .answer_charts import DirectionDial, DistanceBars
from .choice_gallery import ChoiceGallery
from .geometry_loader import AFTER_THE_VIEWS, GeometryLoader
from .image_pane import ImagePane
from .images import OPTION_MAX_SIDE, VIEW_MAX_SIDE, ImageCache, image_text, qimage_to_array
from .jobs import Jobs
from .map_panel import MapPanel
from .option_texts import OptionTexts
from .plot_items import PlotWithLegend
from .question_texts import AnswersTable, PromptView, SampleHeader
from .video_player import VideoPlayer
from .view3d import View3DPanel

AFTER_THE_LINK = AFTER_THE_VIEWS - 1      # psygnal priority: after the geometry loader links the question

# The charts beside the map, by the name an answer kind gives (`AnswerKind.chart`): a widget class with
# `set_answer(truth, answers, names, frame, *, scale=, options=)`. A new chart is one entry.
CHARTS = {"dial": DirectionDial, "bars": DistanceBars, "option-texts": OptionTexts}


class _Charts(dict):
    """The charts by name, each made when a question first needs it (a pyqtgraph plot costs ~25 ms to make,
    and most releases use one chart or none), and put in the chart stack."""

    def __init__(self, stack: QStackedWidget):
        super().__init__()
        self.stack = stack

    def __missing__(self, name: str):
        chart = self[name] = CHARTS[name]()
        self.stack.addWidget(chart)
        return chart

    def get(self, name, default=None):
        return self[name] if name in CHARTS else default


def _array_and_problem(image) -> tuple[np.ndarray, str]:
    """A decoded map's pixels, and what is wrong with its file if it decoded although not whole ('')."""
    return qimage_to_array(image), image_text(image)


def _sentence(problem: str) -> str:
    return problem[:1].upper() + problem[1:]


class SampleView(QWidget):
    statusMessage = pyqtSignal(str)
    problem = pyqtSignal(str, str)      # level, text: an image of the release that cannot be shown

    def __init__(self, state: InspectorState, jobs: Jobs, assets, geometry: GeometryLoader,
                 cache: ImageCache | None = None, parent=None):
        super().__init__(parent)
        self.state = state
        self.jobs = jobs
        self.cache = cache or ImageCache()
        self.assets = assets                      # render.scene_assets.SceneAssets, shared with the exports
        self.geometry_loader = geometry
        # Decoded maps, shared by every question of a scene (keep a few); reset when another release opens.
        self._session = None
        self._map_arrays: OrderedDict[str, tuple[np.ndarray, str]] = OrderedDict()   # path: (pixels, damage)
        self._plan_key: tuple | None = None
        self._plan: ViewPlan | None = None
        self._view_path: str | None = None        # the current-view file shown or loading
        self._said: set[str] = set()              # images already listed in Problems this session

        self.header = SampleHeader(state)
        # A scene opened alone: what it holds and which way is up, in the header's place.
        self.scene_info = QLabel(objectName="scene_info", wordWrap=True)
        self.scene_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.scene_info.setContentsMargins(6, 3, 6, 3)
        self.scene_info.hide()
        self.map_panel = MapPanel(state)
        self.gallery = ChoiceGallery()
        self.answer_stack = QStackedWidget()
        self.answer_stack.addWidget(self.map_panel)
        self.answer_stack.addWidget(self.gallery)
        self.chart_stack = QStackedWidget()
        self.charts = _Charts(self.chart_stack)
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
        lay.addWidget(self.scene_info)
        lay.addWidget(self.main_split, 1)

        self.prompt.mediaActivated.connect(self._media_activated)
        self.tabs.currentChanged.connect(lambda _: self._update_3d())
        for signal in (state.events.session, state.events.question, state.events.models):
            signal.connect(self.refresh)
        state.events.visible_models.connect(self._models_shown)
        state.events.geometry.connect(self._geometry_ready)
        state.events.map_source.connect(self._source_chosen)
        state.events.frame.connect(self._frame_changed)
        geometry.failed.connect(self._geometry_failed)
        # Last of all, once the geometry is linked too: the plots laid out before the window paints.
        state.events.question.connect(self.ready_to_paint, priority=AFTER_THE_LINK)

    def ready_to_paint(self, *_) -> None:
        """The shown plots (the map, the chart) laid out and their view transforms set now. pyqtgraph does both
        on its own at the start of the plot's paint, which changes its scene once more and so repaints the
        window a second time (two to six window paints a question; one or two now)."""
        for plot in (self.map_panel.view, self.chart_stack.currentWidget()):
            if isinstance(plot, PlotWithLegend) and plot.isVisible():
                plot.ci.layout.activate()
                plot.vb.prepareForPaint()

    @property
    def splitters(self) -> list[QSplitter]:
        return [self.main_split, self.top_split, self.media_split, self.text_split, self.answer_split]

    @property
    def names(self) -> list[str]:
        return list(self.state.models)

    def view_plan(self) -> ViewPlan:
        """The plan of what the state's question shows now (kept while nothing it depends on changes)."""
        s = self.state
        key = (s.session, s.question, s.geometry, s.map_source)
        old = self._plan_key
        if old is None or old[0] is not s.session or old[1] != s.question or old[2] is not s.geometry \
                or old[3] != s.map_source:
            release = s.session.release if s.session is not None else None
            self._plan = plan(release, s.question if s.current is not None else None, s.geometry, s.map_source,
                              has_scenes=self.geometry_loader.has_scenes)
            self._plan_key = key
        return self._plan

    @staticmethod
    def _picks(q) -> bool:
        return q is not None and q.kind is not None and q.kind.picks_an_option

    # ------------------------------------------------------------ question
    def refresh(self) -> None:
        """Show the state's question: its media, answers, charts and map; the scene's parts when it is read."""
        state = self.state
        if state.session is not self._session:
            self._session = state.session
            self._map_arrays.clear()
            self._said.clear()                    # a new session's Problems list is new
        qi, q = state.question, state.current
        alone = self.geometry_loader.scene_alone
        for part in (self.text_split, self.header, self.media_split):
            part.setVisible(alone is None)
        self.scene_info.setVisible(alone is not None)
        if alone is not None:
            self.scene_info.setText(f"scene {alone}, opened alone (no questions) · reading it…")
        g = state.geometry            # None for a new question; kept when only the models changed
        if q is None:
            self.player.set_video(None, "no question selected")
            self.view_pane.set_message("")
            self.map_panel.set_sources((), None)
            self.map_panel.show_message("No question selected.")
            self.answer_stack.setCurrentWidget(self.map_panel)
            self.chart_stack.hide()
            self.view3d.set_scene(None, None, "no question selected")
            if alone is not None:
                self.view3d.set_scene(None, None, "loading the scene…")
                self.map_panel.show_message("Loading the scene…")
                if g is not None:
                    self._show_scene_alone(g)
            return
        p = self.view_plan()
        self._show_charts(q, qi)
        if self._picks(q):
            self._show_gallery(q, qi, p)
        else:
            self.answer_stack.setCurrentWidget(self.map_panel)
            # A scene already read is linked as soon as this returns: draw the map once, with it.
            if g is None and not self.geometry_loader.links_at_once(q):
                self._show_map(p)
        self._show_view_image(q, p)
        if q.video is not None and q.video.exists:
            self.player.set_video(q.video.path)
        else:
            ref = q.video
            self.player.set_video(None, "This question has no video." if ref is None else
                                  f"Video {ref.name!r}: {ref.problem or 'missing'}")
        if g is None and not self.geometry_loader.links_at_once(q):
            self._enable_3d(False)                # until the scene is read (else enabled right after this)
        self.view3d.set_scene(None, None, "loading the scene…" if self.geometry_loader.has_scenes else
                              "This release has no scene metadata (scenes/<scene>/scene.json).")
        if g is not None:
            self._geometry_ready(g)

    def _enable_3d(self, on: bool) -> None:
        """The 3D tab on or off; set only when it changes (the tab bar is laid out and repainted at each set)."""
        if self.tabs.isTabEnabled(1) != on:
            self.tabs.setTabEnabled(1, on)

    def _models_shown(self) -> None:
        """Models were shown or hidden: only the answer views change (the video keeps its frame)."""
        q, qi = self.state.current, self.state.question
        if q is None:
            return
        self._show_charts(q, qi)
        if self._picks(q):
            self._show_gallery(q, qi, self.view_plan())
        elif not (self.geometry_loader.has_scenes and self.state.geometry is None):
            self._show_map(self.view_plan())
        self._update_3d()

    def _geometry_failed(self, message: str) -> None:
        self.statusMessage.emit(f"scene metadata: {message}")
        self.view3d.set_scene(None, None, f"The scene cannot be read: {message}")

    def _geometry_ready(self, g: QuestionGeometry | None) -> None:
        if g is None:
            return
        q = self.state.current
        if q is None:
            self._show_scene_alone(g)
            return
        if g.problems:
            self.statusMessage.emit(f"{q.uid}: " + "; ".join(g.problems))
        p = self.view_plan()
        if not self._picks(q):
            self._show_map(p)
        if g.scene is None:
            self._enable_3d(False)
            self.view3d.set_scene(None, None, "; ".join(g.problems))
            return
        self._enable_3d(True)
        if not (q.video is not None and q.video.exists) and g.video is not None and g.video.file:
            self.player.set_video(g.video.file, fps=g.video.fps, boxes=p.boxes)
        elif q.video is not None and q.video.exists:
            self.player.set_boxes(p.boxes)
        if p.view is not None and p.view.paths and p.view.paths[0] != self._view_path:
            # The scene's image of the viewpoint, for a question without its own.
            self.view_pane.setVisible(True)
            self._view_path = p.view.paths[0]
            self._load_image(self._view_path, VIEW_MAX_SIDE, "view", self._view_loaded)
        self._update_3d()

    # ------------------------------------------------------- scene alone
    def _show_scene_alone(self, g: QuestionGeometry) -> None:
        """The scene without a question: its maps with the trajectory, the 3D view, its video if any."""
        alone = self.geometry_loader.scene_alone
        if g.problems:
            self.statusMessage.emit(f"scene {alone}: " + "; ".join(g.problems))
        if g.scene is None:
            self.map_panel.show_message("; ".join(g.problems))
            self.scene_info.setText(f"scene {alone}, opened alone: it cannot be read")
            return
        self.scene_info.setText(scene_info(g.scene))
        self._enable_3d(True)
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
        self._show_map(self.view_plan())
        self._update_3d()

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

    def _show_gallery(self, q, qi: int, p: ViewPlan) -> None:
        self.answer_stack.setCurrentWidget(self.gallery)
        self.answer_stack.setVisible(True)
        self.map_panel.set_sources((), None)
        truth = int(q.truth.value) if q.truth.ok else None
        picks = [(m, int(v)) for m, v in model_answers(qi, self.state.shown_results())]
        self.gallery.set_options(len(p.options), truth, picks, self.names)
        for k, option in enumerate(p.options):
            if option.paths:
                self.gallery.set_image(k, None, "loading…")
                self._load_image(option.paths[0], OPTION_MAX_SIDE, f"option{k}",
                                 lambda img, k=k: self.gallery.set_image(k, img))
            else:
                self.gallery.set_image(k, None, _sentence(option.problem))

    # ---------------------------------------------------------------- maps
    def _show_map(self, p: ViewPlan) -> None:
        """The map source box and the plan's first map, loaded through the jobs."""
        choice = p.choice
        self.map_panel.set_sources(choice.options if choice is not None else (),
                                   choice.current if choice is not None else None)
        # Without any map, an angle or distance is shown by its chart alone.
        self.answer_stack.setVisible(p.map_wanted or not self.chart_stack.isVisible())
        m = p.map
        if m is None or m.load is None:
            self.map_panel.show_message(_sentence(m.problem) if m is not None else p.map_problem)
            return
        request = m.load
        if isinstance(request, MapCanvas):
            self._draw_map(p, m, request.image())
        elif isinstance(request, MapFile):
            self._load_array(request.path, lambda arr: self._draw_map(p, m, arr))
        else:
            def drawn(rm) -> None:
                self._draw_map(p, m, rm.image, rm.world_to_pixel)
            args = (request.scene, request.level, request.world_to_pixel, request.size)
            cached = self.assets.cached_topdown(*args)
            if cached is not None:
                drawn(cached)
                return
            self.map_panel.set_note(f"rendering the {request.level} map…")
            self.jobs.submit(self.assets.topdown, *args, lane="map", scope="question", label="rendering map",
                             done=drawn, failed=self._map_failed)

    def _source_chosen(self, _source: MapSource | None) -> None:
        q = self.state.current
        if q is not None and not self._picks(q) or q is None and self.state.geometry is not None:
            self._show_map(self.view_plan())

    def _load_array(self, path: str, done) -> None:
        def draw(kept: tuple[np.ndarray, str]) -> None:
            arr, broken = kept
            done(arr)
            if broken:                            # decoded, but not whole: drawn, and said on the map too
                note = self.map_panel.note.text()
                self.map_panel.set_note(f"{note}; map file {broken}" if note else f"map file {broken}")
        hit = self._map_arrays.get(path)
        if hit is not None:
            self._map_arrays.move_to_end(path)
            draw(hit)
            return

        def loaded(kept: tuple[np.ndarray, str]) -> None:
            if kept[1]:
                self._say(path, kept[1])          # in Problems, once per release
            self._map_arrays[path] = kept
            while len(self._map_arrays) > 12:
                self._map_arrays.popitem(last=False)
            draw(kept)
        decoded = self.cache.get(path)
        if decoded is not None:
            # Decoded already (ahead, for the first question; or its array was dropped here): its array is
            # copied in a millisecond and drawn now, not after a job's round trip.
            loaded(_array_and_problem(decoded))
            return
        self.jobs.submit(lambda p: _array_and_problem(self.cache.load(p)), path, lane="map", scope="question",
                         label="loading map", done=loaded, failed=self._map_failed)

    def _map_failed(self, message: str) -> None:
        self.map_panel.show_message(f"The map cannot be shown: {message}")

    def _draw_map(self, p: ViewPlan, m: MapPlan, image, rendered=None) -> None:
        self.jobs.cancel_lane("map")        # a map still loading for this question must not be drawn over this one
        h, w = image.shape[:2]
        overlay = p.map_overlay(m, self.state.shown_results(), w, h, rendered)
        self.map_panel.show_map(image, overlay, self.names)
        self.map_panel.view.set_frame(self.state.frame)

    # --------------------------------------------------------- view image
    def _show_view_image(self, q, p: ViewPlan) -> None:
        self.view_pane.set_caption("current view")
        # Choice questions have no current view: give the video the room.
        self.view_pane.setVisible(q.role_image("view") is not None or q.viewpoint is not None)
        self._view_path = p.view.paths[0] if p.view is not None and p.view.paths else None
        if self._view_path is not None:
            self.view_pane.set_message("loading…")
            self._load_image(self._view_path, VIEW_MAX_SIDE, "view", self._view_loaded)
        else:
            self.view_pane.set_message(_sentence(p.view.problem) if p.view is not None
                                       else "Multiple-choice question: the options are in the Answer tab.")

    def _view_loaded(self, image) -> None:
        self.view_pane.set_image(image)

    def _say(self, path: str, msg: str) -> None:
        """An image's problem in the Problems list, once per release however often its sample is shown."""
        text = msg if path in msg else f"{path}: {msg}"
        if text not in self._said:
            self._said.add(text)
            self.problem.emit("error", text)

    def _load_image(self, path: str, max_side: int, lane: str, done) -> None:
        pane_message = self.view_pane.set_message if lane == "view" else (lambda m: None)

        def loaded(image) -> None:
            broken = image_text(image)
            if broken:                            # decoded, but not whole: shown, and said (decoded ahead too)
                self._say(path, broken)
            done(image)
        hit = self.cache.get(path, max_side)
        if hit is not None:
            loaded(hit)
            return

        def failed(msg: str) -> None:
            self._say(path, msg)
            if lane.startswith("option"):
                self.gallery.set_image(int(lane[6:]), None, f"Cannot show this image:\n{msg}")
            else:
                pane_message(f"Cannot show this image:\n{msg}")
        self.jobs.submit(self.cache.load, path, max_side, lane=lane, scope="question", label="loading image",
                         done=loaded, failed=failed)

    # ------------------------------------------------------------ 3D, sync
    def _update_3d(self) -> None:
        g = self.state.geometry
        if g is None or g.scene is None or self.tabs.currentWidget() is not self.view3d:
            return
        q = self.state.current
        overlay = self.view_plan().scene_overlay(self.state.shown_results())
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
