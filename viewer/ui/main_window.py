"""The inspector window: docks around the sample view, menus, settings, drops.

Every panel binds to one `InspectorState` (viewer.core.state) and none calls
another: the window creates the state and the panels, lays them out, fills
the menus, and turns files (opened, dropped, scored) into the state's session.
"""
from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PyQt6.QtCore import QByteArray, QSettings, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QAction, QColor, QKeySequence, QPainter
from PyQt6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QTabBar,
    QToolButton,
    QWidget,
)

# Only what the window's frame needs is imported with this module (and the image cache, which the job reading
# a release fills ahead): it paints before the panels' modules, the state's and the release's are imported
# (`MainWindow._build`; the release is read on a job thread).
from .images import ImageCache, plan_images
from .jobs import CANCELLED, Jobs
from .lazy_dock import LazyDock

if TYPE_CHECKING:
    from ..core.session import Session

MAX_RECENT = 8
BUSY_DELAY_MS = 300           # work shorter than this shows no busy bar (ui/jobs.py: most jobs take a few ms)
# From this many questions, each model's default sort is made in a job once the models are in (below it a
# sort of every question takes a few ms, and a switch may do it).
PRESORT_QUESTIONS = 20_000
# Prediction files of this many bytes in all (scoring ~18 ms a MB: about 0.3 s) or more are scored after the
# release is shown, their models joining as they come (ui/model_arrivals.py); smaller ones with the release.
ARRIVE_BYTES = 16 * 2**20

# The bottom docks share one tabbed area; raising one gives the area that dock's height: the height the user
# last left it at (remembered per user, "docks/heights"), else this share of the window's height.
BROWSER_SHARE = 0.35
TEXT_HEIGHT, TEXT_SHARE = 190, 0.19    # the prompt and answers under the map: pixels, at most this share
BOARD_HEIGHT = 150                     # Table 1's dock at first, at most its DOCK_SHARES of the height
CENTRE_ROOM = 1000            # pixels the sample view keeps beside the browser when the window has them
DOCK_SHARES = {"dock_leaderboard": 0.17, "dock_plots": 0.3, "dock_audit": 0.36, "dock_problems": 0.2}
PREDICTION_SUFFIXES = {".jsonl", ".json", ".tsv", ".csv", ".xlsx"}
RELEASE_FILES = {"questions.jsonl", "questions.json", "question.json"}


def _total_bytes(paths: list[str]) -> int:
    """The files' sizes added up; a file that cannot be read counts as large (its error is said either way)."""
    total = 0
    for p in paths:
        try:
            total += os.stat(p).st_size
        except OSError:
            return ARRIVE_BYTES
    return total


def open_session(path: str, predictions: list[str] = (), progress=None, ahead=None, **options) -> Session:
    """`core.session.open_session`, imported on the job thread that reads the release: the window paints
    meanwhile, and its panels are built. On the same thread then, what showing the release would make on the
    GUI thread: the browser's index and Table 1's rows; and `ahead(session)` starts decoding the images of the
    question shown first."""
    from ..core.session import open_session as read
    session = read(path, predictions, progress, **options)
    _ = session.browse_index                     # made once, here
    session.make_board_rows(session.results)
    if ahead is not None:
        ahead(session)
    return session


def first_images(session: Session, uid: str | None, f=None, verdicts=None) -> list[tuple[str, int]]:
    """The images the window decodes to show `session`'s first question (`--uid`'s when the browser's filter
    `f`, reset for a new release, lists it), as `ImageCache` keys; f None: the filter of a new window."""
    from ..core.browse import BrowseFilter, first_question, opening_filter
    from ..core.view.plan import plan
    asked = session.release.index.get(uid) if uid is not None else None
    f = opening_filter(f if f is not None else BrowseFilter(), len(session.results))
    qi = first_question(session.browse_index, f, session.results, asked, verdicts)
    return plan_images(plan(session.release, qi, None)) if qi is not None else []


class ProblemsList(QListWidget):
    """The input's problems; says "No problems" when there are none, rather than a blank box."""

    EMPTY = "No problems in the input."

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self.count() == 0:
            p = QPainter(self.viewport())
            p.setPen(QColor(120, 120, 120))
            p.drawText(self.viewport().rect().adjusted(8, 8, -8, -8),
                       int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop), self.EMPTY)
            p.end()



class MainWindow(QMainWindow):
    sessionLoaded = pyqtSignal()
    loadFailed = pyqtSignal(str)
    predictionsAdded = pyqtSignal()
    meshProblem = pyqtSignal(str, str)        # (level, text) from SceneAssets, emitted on a pool thread
    panelsBuilt = pyqtSignal()                # `_build` is done: the panels, menus and layout are there

    def __init__(self, settings: QSettings | None = None, parent=None):
        """The window's frame: title, menu bar, the docks where they go (empty), the status bar. It paints
        first; its panels are built right after its first paint (`_build`), or as soon as one is used."""
        super().__init__(parent)
        self._built = False
        self._build_posted = False
        self._frame_policies = None               # `--frames`, given before the state is made
        self.settings = settings if settings is not None else QSettings("gst-viewer", "gst-viewer")
        # Jobs work before the panels exist: `open_release` reads the release on a job thread while they are
        # built. The state is given to the jobs with the panels (no job before them is about a question).
        self.jobs = Jobs(None, self)
        # Made with the frame: the job reading a release starts decoding its first question's images into it.
        self.cache = ImageCache()
        self._pending_uid: str | None = None
        self._arrivals = None              # the models of the release being opened, scored as they come
        self._opening_pool = None          # their worker processes, started while the release is read
        self._hidden_for_scene: list[QDockWidget] = []     # docks `open_scene` hid, shown again with a release
        self.setWindowTitle("gst-viewer")
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.setCentralWidget(QWidget())    # the sample view's place until it is built

        self.problems = ProblemsList()
        self.problems.setWordWrap(True)
        # The browser takes the full height on the left; Table 1 is wide, so it
        # sits under the sample view, tabbed with the problems list.
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.browser_dock = self._dock("Samples", None, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.board_dock = self._dock("Leaderboard", None, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.problems_dock = self._dock("Problems", self.problems, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.audit_dock = self._dock("Audit", None, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.review_dock = self._dock("Review", None, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.settings_dock = self._dock("Settings", None, Qt.DockWidgetArea.BottomDockWidgetArea)
        # The plots are made when their tab is first raised (~100 ms of pyqtgraph plots at start otherwise).
        self.plots_dock = self._dock("Plots", None, Qt.DockWidgetArea.BottomDockWidgetArea, make=self._make_plots)
        self.layers_dock = self._dock("Models", None, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.models_eye_dock = self._dock("Model's eye", None, Qt.DockWidgetArea.BottomDockWidgetArea)
        for d in (self.plots_dock, self.layers_dock, self.problems_dock, self.audit_dock, self.review_dock,
                  self.settings_dock, self.models_eye_dock):
            self.tabifyDockWidget(self.board_dock, d)
        self.board_dock.raise_()
        self.resizeDocks([self.browser_dock], [560], Qt.Orientation.Horizontal)
        self.resizeDocks([self.board_dock], [BOARD_HEIGHT], Qt.Orientation.Vertical)
        self._dock_heights: dict[str, int] = {}
        self._docks_settled = False
        self._browser_sized = False           # to the first release's columns (`_size_browser`)
        self._raised_bottom: QDockWidget | None = None
        self._bottom_docks = (self.board_dock, self.plots_dock, self.layers_dock, self.problems_dock,
                              self.audit_dock, self.review_dock, self.settings_dock)
        for d in self._bottom_docks:
            d.visibilityChanged.connect(self._bottom_dock_visibility)

        self.status_label = QLabel()
        self.progress = QProgressBar(maximumWidth=180, textVisible=False)
        self.progress.hide()
        # Opening, scoring and auditing can be stopped.
        self.cancel_button = QToolButton(autoRaise=True, text="Cancel",
                                         toolTip="Stop opening, scoring, auditing or reconstructing")
        self.cancel_button.clicked.connect(self.jobs.cancel_all)
        self.cancel_button.hide()
        self.problems_button = QToolButton(autoRaise=True)
        self.problems_button.clicked.connect(self._show_problems)
        self.problems_button.hide()
        sb = self.statusBar()
        sb.addWidget(self.status_label, 1)
        sb.addPermanentWidget(self.problems_button)
        self.flags_where = QLabel()                # where flags and views are saved; the full path as tooltip
        sb.addPermanentWidget(self.flags_where)
        sb.addPermanentWidget(self.progress)
        sb.addPermanentWidget(self.cancel_button)
        mb = self.menuBar()                        # the menus' titles now; their entries with the panels
        self._menus = {key: mb.addMenu(title) for key, title in
                       (("file", "&File"), ("go", "&Go"), ("view", "&View"), ("views", "V&iews"), ("help", "&Help"))}
        self._busy_timer = QTimer(self, singleShot=True, interval=BUSY_DELAY_MS)
        self._busy_timer.timeout.connect(self._show_busy)
        self.jobs.pendingChanged.connect(self._pending_changed)
        self.jobs.progress.connect(self._job_progress)
        self._restore_frame()

    def __getattr__(self, name: str):
        """A panel (or anything else `_build` makes) asked for before the window's first paint: the panels
        are built now. One way to build them, whether the first paint or a first use comes first."""
        if name.startswith("__") or self.__dict__.get("_built", True):
            raise AttributeError(name)
        self._build()
        return getattr(self, name)

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not self._built and not self._build_posted:
            self._build_posted = True
            QTimer.singleShot(0, self._build)         # once this paint is on the screen

    def _build(self) -> None:
        """The panels, menus and their connections, and the rest of the remembered layout (the window's
        first paint shows the frame `__init__` makes; a release being opened is read meanwhile)."""
        if self._built:
            return
        self._built = True
        from ..core.state import InspectorState
        from ..render.scene_assets import SceneAssets
        from .audit_dock import AuditPanel
        from .browser import BrowserPanel
        from .command_palette import CommandPalette
        from .compare_bar import CompareBar
        from .flags_panel import FlagsPanel
        from .geometry_loader import GeometryLoader
        from .leaderboard import LeaderboardPanel
        from .model_layers import ModelLayersPanel
        from .models_eye import ModelsEyePanel
        from .sample_view import SampleView
        from .settings_strip import SettingsStrip
        from .target_k import ScoreVsK, TargetKBar
        from .timeline import TimelineMarks
        self.state = InspectorState()
        self.jobs.state = self.state
        if self._frame_policies is not None:
            self.set_frame_policies(self._frame_policies)
        self.assets = SceneAssets()           # meshes and rendered maps, shared by the views and the exports

        # The sample view binds first: it has drawn the new release when the browser picks a question in it.
        # The geometry loader links each question to its scene after every view has drawn the question.
        self.geometry_loader = GeometryLoader(self.state, self.jobs, self)
        self.sample_view = SampleView(self.state, self.jobs, self.assets, self.geometry_loader, self.cache)
        self.setCentralWidget(self.sample_view)
        self.browser = BrowserPanel(self.state)
        self.compare_bar = CompareBar(self.state)
        self.browser.add_filter_row(self.compare_bar)
        self.layers = ModelLayersPanel(self.state)
        self.timeline = TimelineMarks(self.state, self.jobs, self.sample_view.player.slider)
        # However wide the docks are dragged, the map keeps at least half of the centre.
        self.sample_view.setMinimumWidth(640)
        self.sample_view.tabs.setMinimumWidth(320)
        self.leaderboard = LeaderboardPanel(self.state)
        self.audit_panel = AuditPanel()
        self.flags_panel = FlagsPanel(self.state)
        self.browser_dock.setWidget(self.browser)
        self.board_dock.setWidget(self.leaderboard)
        self.audit_dock.setWidget(self.audit_panel)
        self.review_dock.setWidget(self.flags_panel)
        self.settings_strip = SettingsStrip(self.state, self.jobs, self.assets)
        self.settings_dock.setWidget(self.settings_strip)
        self.layers_dock.setWidget(self.layers)
        self.models_eye = ModelsEyePanel(self.state, self.jobs, self.sample_view.player.slider)
        self.models_eye_dock.setWidget(self.models_eye)
        self.models_eye.set_on_screen(self.models_eye_dock.isVisible()
                                      and not self.models_eye_dock.visibleRegion().isEmpty())
        self.models_eye_dock.visibilityChanged.connect(self.models_eye.set_on_screen)
        # k: the target in k of the frames each model's policy samples (browser column, filter, plot)
        self.score_vs_k = ScoreVsK(self.state)           # drawn in the plots dock once it is made
        self.browser.add_filter_row(TargetKBar(self.state, self.jobs, self.browser, self.score_vs_k))
        self.flags_panel.whereChanged.connect(lambda short, full: (self.flags_where.setText(short),
                                                                   self.flags_where.setToolTip(full)))

        from .audit_window import AuditController
        from .talk_actions import TalkActions
        self.audit = AuditController(self.state, self.jobs, self.audit_panel, self.flags_panel, self)
        self.talk = TalkActions(self.state, self.assets, self)
        from .reconstruct_job import ReconstructJob
        self.reconstruct = ReconstructJob(self.state, self.jobs, self.geometry_loader,
                                          self.sample_view.map_panel.path_button, self)
        self.palette_popup = CommandPalette(self)
        self._build_menus()
        for source in (self.sample_view.statusMessage, self.leaderboard.message, self.audit.message,
                       self.talk.message, self.compare_bar.message, self.layers.message, self.reconstruct.message):
            source.connect(self.show_status)
        self.audit.problem.connect(self._add_problem)
        self.reconstruct.problem.connect(self._add_problem)
        self.sample_view.player.problem.connect(self._add_problem)      # a cut or unplayable video
        self.sample_view.problem.connect(self._add_problem)             # an image that cannot be shown
        self.meshProblem.connect(self._add_problem)                      # a scene mesh refused (boxes drawn)
        self.assets.on_problem = lambda text: self.meshProblem.emit("error", text)     # from a pool thread
        self.restore_layout()
        if self.isVisible():
            # Qt shows a widget put into a shown window at its next event loop turn; a release opened now
            # would be drawn into views not yet visible (the sample view reads its parts' visibility).
            for w in (self.sample_view, self.browser, self.leaderboard, self.audit_panel, self.flags_panel,
                      self.settings_strip, self.layers, self.models_eye):
                w.show()
            if not self._docks_settled:
                QTimer.singleShot(0, self._settle_docks)
        self.panelsBuilt.emit()

    @property
    def session(self) -> Session | None:
        return self.state.session

    @property
    def release_path(self) -> str | None:
        return self.state.release_path

    @property
    def question_docks(self) -> list[QDockWidget]:
        """The docks about questions and models: hidden while a scene is opened alone."""
        return [self.browser_dock, self.board_dock, self.audit_dock, self.review_dock, self.settings_dock,
                self.plots_dock, self.layers_dock]

    def _dock(self, title: str, widget, area, make=None) -> QDockWidget:
        """A dock holding `widget`; with `make` instead, a LazyDock whose widget `make` builds when shown."""
        name = f"dock_{title.lower()}"
        dock = LazyDock(title, self, make, objectName=name) if make else QDockWidget(title, self, objectName=name)
        if widget is not None:
            dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    @property
    def plots(self):
        """The plots dock's panel (made on first use)."""
        return self.plots_dock.content()

    def _make_plots(self):
        from .plots_dock import PlotsPanel
        plots = PlotsPanel(self.state)
        self.score_vs_k.attach(plots.graphics.addPlot(row=0, col=3, title="score vs k"))
        plots.columnShown.connect(self.score_vs_k.set_column)
        plots.set_shown(self.plots_dock.on_screen)
        self.plots_dock.visibilityChanged.connect(plots.set_shown)
        if self.state.session is not None:          # made after the release opened: catch up with it
            plots.catch_up()
        return plots

    # --------------------------------------------------------------- menus
    def _build_menus(self) -> None:
        """The menus' entries (their titles are the frame's)."""
        file = self._menus["file"]
        self._action(file, "&Open release…", self.choose_release, QKeySequence.StandardKey.Open)
        self._action(file, "&Add predictions…", self.choose_predictions, "Ctrl+Shift+O")
        self._action(file, "Open &scene…", self.choose_scene)
        self._action(file, "&Import scene…", self.show_import_dialog, "Ctrl+I")
        for a in (self.reconstruct.start_action, self.reconstruct.cancel_action):
            file.addAction(a)
            self.addAction(a)
        self.recent_menu = file.addMenu("Recent releases")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file.addSeparator()
        self._action(file, "Save window image…", self.choose_screenshot, "Ctrl+Shift+S")
        file.addAction(self.leaderboard.export_action)
        file.addSeparator()
        for a in self.talk.file_actions:
            file.addAction(a)
            self.addAction(a)
        file.addSeparator()
        self._action(file, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        go = self._menus["go"]
        state = self.state
        self._action(go, "Next sample", lambda: state.step(+1), "J")
        self._action(go, "Previous sample", lambda: state.step(-1), "K")
        self._action(go, "Next failure of the selected model", lambda: self._step_failure(+1), "N")
        self._action(go, "Previous failure of the selected model", lambda: self._step_failure(-1), "P")
        go.addSeparator()
        player = self.sample_view.player
        self._action(go, "Play / pause video", player.toggle_play, "Space")
        self._action(go, "Next video frame", lambda: player.step(+1), ".")
        self._action(go, "Previous video frame", lambda: player.step(-1), ",")
        self._action(go, "Jump to the target's best frame", self._best_frame, "B")
        self._action(go, "Find…", lambda: self.browser.search.setFocus(), QKeySequence.StandardKey.Find)
        self._action(go, "Command palette…", self.palette_popup.open, "Ctrl+K")
        view = self._menus["view"]
        for d in (self.browser_dock, self.board_dock, self.problems_dock, self.audit_dock, self.review_dock,
                  self.settings_dock, self.plots_dock, self.layers_dock):
            view.addAction(d.toggleViewAction())
        view.addSeparator()
        view.addAction(self.talk.present_action)
        self.addAction(self.talk.present_action)
        for a in (*self.flags_panel.verdict_actions.values(), self.flags_panel.clear_action,
                  self.flags_panel.undo_action, self.flags_panel.save_action):
            self.addAction(a)          # window-wide shortcuts, wherever the focus is
        views = self._menus["views"]          # saved views: filters, sort and shown models, per release
        views.aboutToShow.connect(lambda: self._fill_views(views))
        help_ = self._menus["help"]
        self._action(help_, "Keys", self._show_keys)

    def _action(self, menu, text, slot, shortcut=None) -> QAction:
        a = QAction(text, self)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        a.triggered.connect(lambda _=False: slot())
        menu.addAction(a)
        self.addAction(a)
        return a

    def _step_failure(self, direction: int) -> None:
        why_not = self.state.step_failure(direction)
        if why_not:
            self.show_status(why_not)

    def _show_keys(self) -> None:
        from .command_palette import keys_text
        QMessageBox.information(self, "Keys", keys_text(self))

    def _best_frame(self) -> None:
        self.show_status(self.timeline.jump_to_best()[1])

    def _fill_views(self, menu) -> None:
        self.compare_bar.fill_menu()
        menu.clear()
        for a in self.compare_bar.views_menu.actions():
            menu.addAction(a)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_releases()
        for path in recent:
            a = self.recent_menu.addAction(path)
            a.triggered.connect(lambda _=False, p=path: self.open_release(p))
        if not recent:
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    # --------------------------------------------------------------- files
    def choose_release(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open a GST-Bench release", self.release_path or "")
        if path:
            self.open_release(path)

    def choose_predictions(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Add prediction files", self.release_path or "",
                                                "Predictions (*.jsonl *.json *.tsv *.csv *.xlsx);;All files (*)")
        if paths:
            self.add_predictions(paths)

    def choose_screenshot(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save window image", "gst-viewer.png", "PNG (*.png)")
        if path and not self.grab().save(path):
            self.show_status(f"{path}: cannot write the image")

    def choose_scene(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open a scene folder (scene.json)", self.release_path or "")
        if path:
            self.open_scene(path)

    def show_import_dialog(self) -> None:
        from .import_dialog import ImportSceneDialog
        if getattr(self, "import_dialog", None) is None:
            self.import_dialog = ImportSceneDialog(self.jobs, self)
            self.import_dialog.imported.connect(self.open_scene)
        self.import_dialog.show()
        self.import_dialog.raise_()

    def open_scene(self, folder) -> None:
        """Show one scene folder on its own (`--scene DIR`): its maps, trajectory and 3D view, no questions."""
        from ..core.diagnostics import UserError
        from ..core.scene.alone import scene_session
        path = str(Path(folder).expanduser().resolve())
        try:
            session = scene_session(path)
        except UserError as e:
            self._load_failed(path, str(e))
            return
        self._end_arrivals()                     # the models of the release shown before: its workers stop
        self.setWindowTitle(f"gst-viewer — scene {Path(path).name}")
        self.problems.clear()
        # No questions, no models: the question panels would be empty or speak of "this question"; they
        # are hidden, and cannot be shown, until a release opens.
        docks = self.question_docks + [self.problems_dock]
        self._hidden_for_scene += [d for d in docks if d.isVisible() and d not in self._hidden_for_scene]
        for d in docks:
            d.hide()
        for d in self.question_docks:
            d.toggleViewAction().setEnabled(False)
        self.state.open(session, path)
        self.show_status(f"scene {Path(path).name} opened alone (no questions) from {path}")
        self.sessionLoaded.emit()

    def recent_releases(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _remember_recent(self, path: str) -> None:
        recent = [path] + [p for p in self.recent_releases() if p != path]
        self.settings.setValue("recent", recent[:MAX_RECENT])

    def open_release(self, path, predictions=(), uid: str | None = None, benchmark: str | None = None) -> None:
        """Load a release and its predictions off the GUI thread; `uid` is selected when done.

        `benchmark` ("gst", "vsi") forces the release's benchmark; None detects it."""
        path = str(Path(path).expanduser().resolve())
        self._end_arrivals()                     # the models of a release still arriving: its workers stop
        self._pending_uid = uid
        self.show_status(f"opening {path}…")
        preds = [str(p) for p in predictions]
        if _total_bytes(preds) >= ARRIVE_BYTES:
            # The release alone first: it is shown, then its models are scored (by worker processes, started
            # now) and join as they come.
            from . import model_arrivals
            opened, arriving = [], preds
            self._opening_pool = pool = model_arrivals.workers_for(arriving)
        else:
            # Scored with the release, in the same job: shown once, with its models (no flash of a release
            # without them, and no second redraw of every view; ~90 ms at paper size).
            opened, arriving, pool = preds, [], None
        # The question shown first is the browser's for the filter it has now (a new window's before `_build`).
        f, verdicts = (self.state.filter, dict(self.state.verdicts)) if self._built else (None, None)
        ahead = (lambda s: self.cache.prefetch(first_images(s, uid, f, verdicts)))
        self.jobs.submit(partial(open_session, ahead=ahead, benchmark=benchmark), path, opened, lane="session",
                         label="opening release", with_progress=True,
                         done=lambda s: self._session_loaded(path, s, arriving, pool),
                         failed=lambda msg: self._load_failed(path, msg))

    def set_frame_policies(self, policies) -> None:
        """Each model's frame policy (`--frames [NAME=]POLICY`); without one for every model, the window's
        default stays for the models not named. Given before the first paint (the command line), they are
        the state's as soon as it is made (`_build`)."""
        if not self._built:
            self._frame_policies = policies
            return
        if policies.default is None:
            policies = type(policies)(self.state.frame_policies.default, policies.named)
        self.state.frame_policies = policies

    def _load_failed(self, path: str, message: str) -> None:
        self._end_opening_pool()
        if message == CANCELLED:
            self.show_status(f"opening {path} cancelled")
            return
        self.show_status(f"cannot open {path}: {message}")
        self._add_problem("error", f"cannot open {path}: {message}")
        self.loadFailed.emit(message)

    def _session_loaded(self, path: str, session: Session, predictions: list[str] = (), pool=None) -> None:
        """Show the release read; its `predictions` are then scored (`ModelArrivals`), and `sessionLoaded`
        is emitted once every model has joined."""
        for d in self.question_docks:
            d.toggleViewAction().setEnabled(True)
        for d in self._hidden_for_scene:
            d.show()
        self._hidden_for_scene = []
        self._remember_recent(path)
        self.setWindowTitle(f"gst-viewer — {Path(path).name}")
        self._show_diagnostics(session)
        self.state.models_arriving = bool(predictions)      # set before `open`: its listeners see it
        uid, self._pending_uid = self._pending_uid, None
        self.state.open(session, path, uid)                  # shows `uid` first: nothing loads the first row
        if self._docks_settled:
            self._size_browser()
        bad_uid = uid if uid is not None and not self.state.select_uid(uid) else None
        self.browser.table.setFocus()
        if predictions:
            from .model_arrivals import ModelArrivals
            self.show_status(f"{len(session.release):,} questions from {path}; scoring {len(predictions)} "
                             "prediction files…")
            self._opening_pool = None
            self._arrivals = ModelArrivals(self.jobs, self.state, session, predictions, self._add_problem,
                                           lambda cancelled: self._models_arrived(path, session, bad_uid, cancelled),
                                           keep_question=uid is not None and bad_uid is None, pool=pool)
        else:
            self._models_arrived(path, session, bad_uid)

    def _end_opening_pool(self) -> None:
        if self._opening_pool is not None:
            self._opening_pool.close()
            self._opening_pool = None

    def _end_arrivals(self) -> None:
        """Stop scoring the models of the release being opened or shown: its worker processes end."""
        self._end_opening_pool()
        if self._arrivals is not None:
            self._arrivals.close()
            self._arrivals = None

    def _models_arrived(self, path: str, session: Session, bad_uid: str | None, cancelled: bool = False) -> None:
        self._arrivals = None
        self.state.models_arriving = False
        if self._docks_settled:
            self._size_browser()
        index = self.browser.index
        if index is not None and len(session.results) > 1 and index.n >= PRESORT_QUESTIONS:
            # Each model's default sort made ahead, off the GUI thread: choosing a model then sorts nothing.
            from ..core.browse import default_sort
            self.jobs.submit(index.keep_orders, [default_sort(m) for m in range(len(session.results))],
                             list(session.results), scope="session", label="sorting by each model")
        unknown = self.state.frame_policies.unknown_models(session.models, [r.model_id for r in session.results])
        if unknown:
            self._add_problem("warning", f"--frames names {', '.join(unknown)}, which is no model here "
                                         f"(models: {', '.join(session.models) or 'none'})")
        n = len(session.release)
        self.show_status(f"{n:,} questions, {len(session.results)} models from {path}"
                         + ("; scoring cancelled" if cancelled else ""))
        if bad_uid is not None:
            self.show_status(f"--uid {bad_uid}: no such question in this release")
        self.sessionLoaded.emit()

    def add_predictions(self, paths) -> None:
        if self.session is None:
            self.show_status("open a release before adding predictions")
            return
        # Read, merged and scored by the session (its profile, its parse cache), off the GUI thread.
        self.jobs.submit(self.session.score_prediction_files, [str(p) for p in paths], scope="session",
                         label="scoring predictions", with_progress=True, done=self._predictions_loaded,
                         failed=lambda msg: self.show_status(f"predictions: {msg}"))

    def _predictions_loaded(self, payload) -> None:
        results, errors = payload
        self.state.add_results(results)
        for r in results:
            for d in r.diagnostics:
                self._add_problem(d.level, str(d))
        for e in errors:
            self._add_problem("error", e)
        added = ", ".join(r.model for r in results) or "nothing"
        self.show_status(f"added {added}" + (f"; {len(errors)} files could not be read" if errors else ""))
        self.predictionsAdded.emit()

    # -------------------------------------------------------------- status
    def show_status(self, text: str) -> None:
        self.status_label.setText(text)
        self.status_label.setToolTip(text)

    def _pending_changed(self, n: int) -> None:
        """The busy bar and Cancel come on only when work lasts BUSY_DELAY_MS: a question's image or frame
        decoded in a few milliseconds must not show and hide them (two status bar layouts and repaints)."""
        if n == 0:
            self._busy_timer.stop()
            self.progress.hide()
            self.progress.setRange(0, 0)         # the next work shows "busy" until it reports its progress
            self.cancel_button.hide()
            return
        if not self.jobs.cancellable:
            self.cancel_button.hide()
        if self.jobs.long_running:
            self._busy_timer.stop()
            self._show_busy()                    # work of minutes (a reconstruction): Cancel at once
        elif not self._busy_timer.isActive() and not (self.progress.isVisible() and self.cancel_button.isVisible()):
            self._busy_timer.start()

    def _show_busy(self) -> None:
        """After the delay: the bar (with what progress was reported meanwhile, not reset) and Cancel."""
        if self.jobs.pending:
            self.cancel_button.setVisible(bool(self.jobs.cancellable))
            self.progress.show()

    def _job_progress(self, label: str, done: int, total: int) -> None:
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
            self.progress.setToolTip(f"{label}: {done}/{total}")

    def _show_problems(self) -> None:
        self.problems_dock.show()
        self.problems_dock.raise_()

    def _show_diagnostics(self, session: Session) -> None:
        self.problems.clear()
        for d in session.diagnostics:
            self._add_problem(d.level, str(d))

    def _add_problem(self, level: str, text: str) -> None:
        item = QListWidgetItem(text)
        if level == "error":
            item.setForeground(Qt.GlobalColor.darkRed)
        self.problems.addItem(item)
        n = self.problems.count()
        self.problems_button.setText(f"⚠ {n} problem{'s' if n != 1 else ''} in the input")
        self.problems_button.show()

    # ------------------------------------------------------- drag and drop
    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        self.open_dropped(paths)
        event.acceptProposedAction()

    def open_dropped(self, paths: list[Path]) -> None:
        """Folders or question files open a release; other data files are added as predictions."""
        releases = [p for p in paths if p.is_dir() or p.name in RELEASE_FILES]
        preds = [p for p in paths if p.is_file() and p.name not in RELEASE_FILES
                 and p.suffix.lower() in PREDICTION_SUFFIXES]
        ignored = [p for p in paths if p not in releases and p not in preds]
        if releases:
            self.open_release(releases[0], preds)
        elif preds:
            self.add_predictions(preds)
        if ignored:
            self.show_status("ignored (not a release or a prediction file): "
                             + ", ".join(p.name for p in ignored))

    # -------------------------------------------------------------- layout
    def _bottom_dock_visibility(self, shown: bool) -> None:
        """A bottom tab raised takes its own height; the one it covers keeps the height the user left it at.
        Tabs shown while the window is being laid out (`_docks_settled` not yet set) change nothing."""
        dock = self.sender()
        if not shown or not self._docks_settled or dock.isFloating() or dock is self._raised_bottom:
            return
        self._remember_dock_height(self._raised_bottom)
        self._raised_bottom = dock
        name = dock.objectName()
        height = self._dock_heights.get(name) or int(DOCK_SHARES.get(name, 0) * self.height())
        if height:
            QTimer.singleShot(0, lambda: dock.isFloating() or self.resizeDocks([dock], [height],
                                                                                Qt.Orientation.Vertical))

    def _remember_dock_height(self, dock: QDockWidget | None) -> None:
        """Its area's height, tab bar included, as `resizeDocks` sets it."""
        if dock is None or dock.isFloating() or dock.height() <= 0:
            return
        bars = [b for b in self.findChildren(QTabBar) if b.isVisible()
                and any(b.tabText(k) == dock.windowTitle() for k in range(b.count()))]
        self._dock_heights[dock.objectName()] = dock.height() + (bars[0].height() if bars else 0)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._built and not self._docks_settled:          # else once they are built
            QTimer.singleShot(0, self._settle_docks)

    def _settle_docks(self) -> None:
        self._size_browser()
        if not self._layout_restored:
            # A low window (800 px) gives the map and its legend the height the prompt and Table 1 can spare.
            h = self.height()
            main = self.sample_view.main_split
            text = min(TEXT_HEIGHT, int(TEXT_SHARE * h))
            main.setSizes([max(sum(main.sizes()) - text, 1), text])
            self.resizeDocks([self.board_dock], [min(BOARD_HEIGHT, int(DOCK_SHARES["dock_leaderboard"] * h))],
                             Qt.Orientation.Vertical)
        self._docks_settled = True
        self._raised_bottom = next((d for d in self._bottom_docks if not d.isFloating() and d.isVisible()
                                    and not d.visibleRegion().isEmpty()), None)

    def _size_browser(self) -> None:
        """With no remembered layout, until the first release is shown: the browser shows the selected model's
        columns where the sample view keeps CENTRE_ROOM beside it (1600 px), else takes its share of the
        width, so that the map and the chart keep their room at 1280 x 800 (the filters wrap: browser.py)."""
        if self._layout_restored or self._browser_sized:
            return
        w = self.width()
        wanted = max(BROWSER_SHARE * w, min(self.browser.preferred_width(), w - CENTRE_ROOM))
        self.resizeDocks([self.browser_dock], [int(wanted)], Qt.Orientation.Horizontal)
        # Sized again once a release's models have arrived: their columns are what it makes room for.
        self._browser_sized = self.session is not None and not self.state.models_arriving

    def _restore_frame(self) -> None:
        """The window's remembered place and size and its docks' layout, before its first paint."""
        geom = self.settings.value("window/geometry")
        if isinstance(geom, QByteArray):
            self.restoreGeometry(geom)
        else:
            self.resize(1600, 1000)
        state = self.settings.value("window/state")
        self._layout_restored = isinstance(state, QByteArray) and self.restoreState(state)

    def restore_layout(self) -> None:
        """The rest of the remembered layout, once the panels are built: the sample view's splitters, the map
        source, the bottom docks' heights."""
        for sp in self.sample_view.splitters:
            sizes = self.settings.value(f"splitters/{sp.objectName()}")
            if isinstance(sizes, QByteArray):
                sp.restoreState(sizes)
        from ..core.map_choice import MapSource
        self.state.map_source = MapSource.from_key(self.settings.value("map/source"))
        try:
            heights = json.loads(str(self.settings.value("docks/heights", "{}")))
            self._dock_heights = {str(k): int(v) for k, v in heights.items() if int(v) > 0}
        except (ValueError, TypeError, AttributeError):
            self._dock_heights = {}               # an old or hand-edited value: the defaults then

    def save_layout(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        for sp in self.sample_view.splitters:
            self.settings.setValue(f"splitters/{sp.objectName()}", sp.saveState())
        if self.state.map_source is not None:
            self.settings.setValue("map/source", self.state.map_source.key)
        self._remember_dock_height(self._raised_bottom)
        self.settings.setValue("docks/heights", json.dumps(self._dock_heights))
        self.settings.sync()

    def closeEvent(self, event) -> None:
        if self._built:                      # closed before its first paint: nothing is open, the layout kept
            self.audit.close_store()         # the release holds annotations.sqlite alone afterwards
            self.compare_bar.close_store()
            self.save_layout()
            self.sample_view.player.pause()
        self._end_arrivals()                 # the scoring workers, started with the release's reading
        self.jobs.shutdown()
        super().closeEvent(event)
