"""The state's one writer of `geometry`: the question shown, linked to its scene beside its view plan.

The state clears `geometry` when the question changes (core/state.py); this
loader then links the new question to its scene, after every view has drawn
the question (it listens at a lower priority): at once when that scene was
read before, else through `Jobs` (scope "question"), so a link for a question
no longer shown is dropped. A release without questions whose library has
one scene (`--scene DIR`) gets that scene's geometry. No widget writes
`geometry`, so none writes a field it listens to.
"""
from __future__ import annotations

from PyQt6.QtCore import QObject, pyqtSignal

from ..core.scene.alone import scene_geometry
from ..core.scene.model import QuestionGeometry, link_question
from ..core.session import Session
from ..core.state import InspectorState
from .jobs import Jobs

AFTER_THE_VIEWS = -1         # psygnal priority: listeners of the default priority run first


class GeometryLoader(QObject):
    failed = pyqtSignal(str)          # the scene cannot be read: why

    def __init__(self, state: InspectorState, jobs: Jobs, parent: QObject | None = None):
        super().__init__(parent)
        self.state, self.jobs = state, jobs
        self._session: Session | None = None
        self._scenes_read: set[str] = set()
        self._has_scenes = False
        self._scene_alone: str | None = None
        self._linked: tuple | None = None      # (session, question) whose geometry this loader set or asked for
        self._linking = -1                     # the job reading its scene, while it runs
        for signal in (state.events.session, state.events.question):
            signal.connect(self._shown, priority=AFTER_THE_VIEWS)

    # ------------------------------------------------------------ release
    def _follow_session(self) -> None:
        session = self.state.session
        if session is self._session:
            return
        self._session = session
        self._scenes_read = set()
        scenes = self.state.scenes
        self._has_scenes = bool(scenes and scenes.available())
        # A release without questions whose library has one scene (`--scene DIR`) shows that scene.
        alone = session is not None and len(session.release) == 0 and self._has_scenes
        self._scene_alone = scenes.available()[0] if alone else None

    @property
    def has_scenes(self) -> bool:
        """Whether the release has scene metadata: without it, no geometry ever comes."""
        self._follow_session()
        return self._has_scenes

    @property
    def scene_alone(self) -> str | None:
        """The scene shown without a question, if the release is one scene alone."""
        self._follow_session()
        return self._scene_alone

    def links_at_once(self, question) -> bool:
        """Whether `question`'s geometry will be set as soon as the views have drawn it (its scene was read)."""
        return question is not None and self.has_scenes and question.scene in self._scenes_read

    # ------------------------------------------------------------ loading
    def _shown(self) -> None:
        """A question or release is shown. Opening a release sets both, the question first: its link, made
        then, is not made again (a second link is a second geometry, and every view drew the question again)."""
        state = self.state
        if state.current is not None and self._linked == (state.session, state.question) \
                and (state.geometry is not None or self.jobs.running(self._linking)):
            return
        self._load()

    def _load(self) -> None:
        state, scenes = self.state, self.state.scenes
        q = state.current
        self._linked, self._linking = (state.session, state.question), -1
        if q is None:
            sid = self.scene_alone
            if sid is not None:
                self.jobs.submit(lambda: scene_geometry(scenes.get(sid)), lane="geometry", scope="session",
                                 label="reading scene", done=self._scene_alone_read, failed=self.failed.emit)
            return
        if not self.has_scenes:
            # no scene metadata: the question still has its video (the timeline finds a visual question's
            # target by the red box drawn in it)
            state.geometry = link_question(q, None)
            return
        if q.scene in self._scenes_read:
            # A scene already read links in microseconds.
            state.geometry = link_question(q, scenes.get(q.scene))
            return
        self._linking = self.jobs.submit(lambda: link_question(q, scenes.get(q.scene)), lane="geometry",
                                         scope="question", label="reading scene",
                                         done=lambda g: self._scene_read(q.scene, g), failed=self.failed.emit)

    def scene_changed(self, scene_id: str) -> None:
        """`scene_id` changed on disk (its video was reconstructed): read it again, and link the question
        shown again when it is of that scene, so the views draw what it holds now."""
        scenes = self.state.scenes
        if scenes is None:
            return
        scenes.forget(scene_id)
        self._scenes_read.discard(scene_id)
        self._session = None                # whether the release has scenes is asked again
        q = self.state.current
        if q is not None and q.scene == scene_id or q is None and self.scene_alone == scene_id:
            self._load()

    def _scene_read(self, scene_id: str, g: QuestionGeometry) -> None:
        self._scenes_read.add(scene_id)
        self.state.geometry = g

    def _scene_alone_read(self, g: QuestionGeometry) -> None:
        if self.state.current is None:
            self.state.geometry = g
