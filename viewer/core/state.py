"""The inspector window's one state: what is shown, as plain values with change events (psygnal; no Qt).

Widgets bind to it the way napari's layers bind to its viewer model: each
one reads the fields it shows, listens to `state.events.<field>`, and writes
the fields its user changes. No widget calls another; a test sets a field
and asserts on fields. Setting a field to an equal value emits nothing.

  session, release_path   the opened release and its models' results (set by `open`)
  question                index of the question shown (None: none)
  geometry                the question's linked scene objects, once read (None: none or not yet); a new
                          question clears it, before any widget hears of the question
  models                  the loaded models' names; changes when predictions are added
  visible_models          the models the map, 3D view, charts and exports draw
  filter, order           the browser's filters, and the questions they leave in display order
  sort                    the browser's sort: (key, descending), key as `BrowseIndex.sort` takes it; on
                          opening the selected model's score, worst first (`browse.default_sort`), which follows
                          the model chosen until another sort is chosen
  verdicts                the reviewers' verdicts by uid, for the verdict filter
  frame                   the video frame shown, which the map and 3D view follow
  map_source              the map the user chose (None: `choose_map`'s default)
  stage                   presentation mode's stage (`storyboard.TALK_STAGES`)
  frame_policies          which frames each model is given (core.frames.FramePolicies: the window's
                          `--frames [NAME=]POLICY`, changed per model in the Model's-eye dock)
  models_arriving         the release is shown and its models are still being scored (ui/model_arrivals):
                          work over every model (the k column) waits for the last

`session_serial` and `question_serial` count changes of release and of
question; background jobs carry them to drop results that came too late.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field, replace

import numpy as np
from psygnal import evented

from .browse import BrowseFilter, default_sort, opening_filter, step_failure
from .evaluate import ModelResult
from .frames import FramePolicies, ModelFrames
from .frames.sampling import parse_policy
from .map_choice import MapChoice, MapSource
from .release import Question
from .scene.model import QuestionGeometry
from .scene.sources import SceneLibrary
from .session import Session
from .talk.storyboard import QUESTION, TALK_STAGES
from .view.plan import map_choice


def _no_rows() -> np.ndarray:
    return np.zeros(0, np.int64)


DEFAULT_FRAME_POLICY = "uniform:8"      # the window's, when `--frames` gives none for every model


def default_frame_policies() -> FramePolicies:
    return FramePolicies(parse_policy(DEFAULT_FRAME_POLICY))


# Sessions, geometries and row arrays are compared by identity: their fields hold arrays.
@evented(equality_operators={"session": operator.is_, "geometry": operator.is_, "order": operator.is_})
@dataclass(eq=False)
class InspectorState:
    session: Session | None = None
    release_path: str | None = None
    question: int | None = None
    geometry: QuestionGeometry | None = None
    models: tuple[str, ...] = ()
    visible_models: frozenset[int] = frozenset()
    filter: BrowseFilter = field(default_factory=BrowseFilter)
    order: np.ndarray = field(default_factory=_no_rows)
    sort: tuple = ("row", False)
    verdicts: dict[str, str] = field(default_factory=dict)
    frame: int = 0
    map_source: MapSource | None = None
    stage: str = QUESTION
    frame_policies: FramePolicies = field(default_factory=default_frame_policies)
    models_arriving: bool = False

    def __post_init__(self) -> None:
        self.session_serial = 0
        self.question_serial = 0
        self._asked: int | None = None      # the question asked for (by uid) while a release is being opened
        self._scenes: tuple[Session | None, SceneLibrary | None] = (None, None)
        self._model_frames: dict = {}
        # Connected before any widget, so every listener sees the new serials.
        self.events.session.connect(self._next_session)
        self.events.question.connect(self._next_question)
        # The default sort (the selected model's score) follows the model chosen, until a sort is chosen.
        self._sort_follows_model = False
        self._following = False
        self.events.filter.connect(self._sort_follows)
        self.events.sort.connect(self._sort_chosen)

    def _next_session(self) -> None:
        self.session_serial += 1
        self.question_serial += 1

    def _next_question(self) -> None:
        self.question_serial += 1
        self.geometry = None                # the old question's; the geometry loader links the new one

    def _sort_follows(self, f: BrowseFilter) -> None:
        if self._sort_follows_model and f.model is not None and self.sort[0] != ("score", f.model):
            self._following = True
            try:
                self.sort = default_sort(f.model)
            finally:
                self._following = False

    def _sort_chosen(self) -> None:
        if not self._following:
            self._sort_follows_model = False

    # ------------------------------------------------------------ release
    def open(self, session: Session | None, release_path: str | None = None, uid: str | None = None) -> None:
        """Show a newly opened release; the browser then picks its first listed question, or the question
        `uid` (`--uid`) when it lists it: the views never load a question only to leave it (`first_listed`).

        Fields that follow from the session change silently before it: a
        listener of `session` reads them all, and none sees a mix of releases.
        """
        self.question = None
        self.geometry = None
        self.frame = 0
        n = len(session.results) if session is not None else 0
        with self.events.models.blocked(), self.events.visible_models.blocked(), self.events.filter.blocked(), \
                self.events.order.blocked(), self.events.sort.blocked():
            self.models = tuple(session.models) if session is not None else ()
            self.visible_models = frozenset(range(n))
            self.filter = opening_filter(self.filter, n)
            self.order = _no_rows()
            self.sort = default_sort(self.filter.model)
        self._sort_follows_model = True
        self.release_path = release_path
        self._asked = session.release.index.get(uid) if session is not None and uid is not None else None
        try:
            self.session = session
        finally:
            self._asked = None

    def first_listed(self, rows: np.ndarray) -> int:
        """The question a new list of `rows` shows when the question shown is not among them: the first,
        or, while a release is being opened, the question asked for by uid when it is listed."""
        if self._asked is not None and len(np.flatnonzero(rows == self._asked)):
            return self._asked
        return int(rows[0])

    def add_results(self, results: list[ModelResult], opening: bool = False, keep_question: bool = False) -> None:
        """Predictions scored off the GUI thread join the session; they are shown at once.

        `opening`: they are the models of a release being opened, which the window shows before its models
        are scored; they are then selected as `open` would have selected them: the first model as the
        browser's (its score the sort, while the sort follows the model; the question shown, if it is still
        the first listed and not `keep_question` (a question asked for by uid), the first of that order)
        and the second as B, unless one was chosen meanwhile."""
        first = len(self.session.results)
        for r in results:
            self.session.add_result(r)
        with self.events.visible_models.blocked():           # `models` listeners redraw with it
            self.visible_models = self.visible_models | set(range(first, len(self.session.results)))
        self.models = tuple(self.session.models)
        n, f = len(self.models), self.filter
        if opening and n:
            model = 0 if f.model is None else f.model
            model_b = 1 if f.model_b is None and n > 1 else f.model_b
            if (model, model_b) != (f.model, f.model_b):
                # Still on the first question listed: the first of the new order then, as `open` shows it.
                first = not keep_question and self.question is not None and len(self.order) \
                    and self.question == int(self.order[0])
                self.filter = replace(f, model=model, model_b=model_b)     # the sort follows the model
                if first and len(self.order) and self.question != int(self.order[0]):
                    self.question = int(self.order[0])

    def rename_model(self, m: int, name: str) -> str | None:
        """Call model `m` `name` in every table, legend and export; why not, when the name is empty or
        another model's."""
        name = " ".join(str(name).split())
        if self.session is None or not 0 <= m < len(self.session.results):
            return "no such model"
        if not name:
            return "a model needs a name"
        if name in self.models and self.models.index(name) != m:
            return f"another model is already called {name!r}"
        r = self.session.results[m]
        old = r.model
        if name == old:
            return None
        # What it was called stays an alias (views saved under it find it); its frame policy goes with it.
        r.aliases = tuple(dict.fromkeys((*r.aliases, old)))
        r.model = name
        self.frame_policies = self.frame_policies.renamed(old, name, r.model_id or None)
        self.models = tuple(self.session.models)
        return None

    @property
    def scenes(self) -> SceneLibrary | None:
        """The release's scene metadata, read on first use and kept while the release is open."""
        if self._scenes[0] is not self.session:
            lib = SceneLibrary(self.session.release.root, self.session.scene_sources) \
                if self.session is not None else None
            self._scenes = (self.session, lib)
        return self._scenes[1]

    # ----------------------------------------------------------- question
    @property
    def current(self) -> Question | None:
        """The question shown."""
        if self.session is None or self.question is None:
            return None
        return self.session.release.questions[self.question]

    @property
    def uid(self) -> str | None:
        q = self.current
        return q.uid if q is not None else None

    def select_uid(self, uid: str) -> bool:
        """Show the question `uid`; False when the release has none (the browser makes it visible)."""
        qi = self.session.release.index.get(uid) if self.session is not None else None
        if qi is None:
            return False
        self.question = qi
        return True

    def position(self) -> int:
        """Where the question shown is in the browser's order; -1 when it is not listed."""
        if self.question is None:
            return -1
        hit = np.flatnonzero(self.order == self.question)
        return int(hit[0]) if len(hit) else -1

    def step(self, delta: int) -> None:
        """The next (+1) or previous (-1) question in the browser's order."""
        n = len(self.order)
        if n:
            self.question = int(self.order[min(max(self.position() + delta, 0), n - 1)])

    def step_failure(self, direction: int) -> str | None:
        """The selected model's next or previous failure in the browser's order; why not, when there is none."""
        m = self.filter.model
        if self.session is None or m is None:
            return "choose a model in the browser to step through its failures"
        result = self.session.results[m]
        pos = step_failure(self.order, result.score, self.position(), direction)
        if pos is None:
            return f"no failure of {result.model} {'after' if direction > 0 else 'before'} this row"
        self.question = int(self.order[pos])
        return None

    # --------------------------------------------------------- frames a model is given
    @property
    def selected_model(self) -> str | None:
        """The name of the model the browser selected (`filter.model`); None when none is."""
        m = self.filter.model
        if self.session is None or m is None or not 0 <= m < len(self.session.results):
            return None
        return self.session.results[m].model

    def model_sources(self) -> dict[str | None, str]:
        """Each model's prediction file by name (whose records' `frames` fields win over its policy); with
        no model, {None: ""}: the policy for every model."""
        from .predictions import named_path
        results = self.session.results if self.session is not None else []
        return {r.model: str(named_path(r.source)[1]) for r in results} or {None: ""}

    def model_identities(self) -> list[tuple[str, tuple[str, ...]]]:
        """Each loaded model's stable id and former names, in load order (for saved views)."""
        results = self.session.results if self.session is not None else []
        return [(r.model_id, tuple(r.aliases)) for r in results]

    def model_frames(self, model: str | None) -> ModelFrames:
        """How `model`'s frames are chosen (None: any model's without a policy of its own), under
        `frame_policies`; its file's `frames` fields read once a session. PolicyError for an unreadable
        `list:` file."""
        source = self.model_sources().get(model, "")
        key = (self.session_serial, self.frame_policies, model, source)
        if key not in self._model_frames:
            self._model_frames = {k: v for k, v in self._model_frames.items() if k[:2] == key[:2]}
            self._model_frames[key] = self.frame_policies.model_frames(model, source)
        return self._model_frames[key]

    # --------------------------------------------------------- what shows
    @property
    def map_choice(self) -> MapChoice | None:
        """The maps the question shown (or the scene shown alone) can be drawn on, best first (None: neither)."""
        release = self.session.release if self.session is not None else None
        return map_choice(release, self.question if self.current is not None else None, self.geometry,
                          self.map_source)

    @property
    def shown_map(self) -> MapSource | None:
        choice = self.map_choice
        return choice.current if choice is not None else None

    def shown_results(self) -> list:
        """The session's results as the views draw them: hidden models answer nothing."""
        return shown_results(self.session.results, self.visible_models) if self.session is not None else []

    def step_stage(self, delta: int) -> None:
        k = TALK_STAGES.index(self.stage) + delta
        self.stage = TALK_STAGES[min(max(k, 0), len(TALK_STAGES) - 1)]


class HiddenResult:
    """A model left out of a view: its answers read as missing, so overlays and charts skip it."""

    def __init__(self, r: ModelResult):
        self.model = r.model
        self.status = np.full(len(r.status), "missing", dtype=object)
        self.answer = r.answer


def shown_results(results: list[ModelResult], models) -> list:
    """`results` with the models not in `models` hidden (None: all shown); indices, hence colours, kept."""
    if models is None:
        return results
    keep = set(models)
    return [r if m in keep else HiddenResult(r) for m, r in enumerate(results)]
