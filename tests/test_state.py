"""The inspector's state and the one map-choice rule, without Qt."""
from dataclasses import replace

import numpy as np
import pytest

from viewer.assets import assets_dir
from viewer.core.map_choice import MapKind, MapSource, choose_map
from viewer.core.overlays import model_answers
from viewer.core.scene.model import link_question
from viewer.core.session import open_session
from viewer.core.state import InspectorState

DEMO = assets_dir() / "demo"
pytestmark = pytest.mark.skipif(not (DEMO / "questions.jsonl").is_file(), reason="no bundled demo")


@pytest.fixture(scope="module")
def session():
    return open_session(DEMO, sorted((DEMO / "predictions").glob("*.jsonl")))


def _first(session, key):
    return next(i for i, q in enumerate(session.release.questions) if q.column.key == key)


def _linked(state, qi):
    q = state.session.release.questions[qi]
    return link_question(q, state.scenes.get(q.scene))


def test_map_source_keys_round_trip_and_junk_is_refused():
    for source in (MapSource.release(), MapSource.scene("occupancy"), MapSource.render("floorplan")):
        assert MapSource.from_key(source.key) == source
    assert MapSource.scene("a:b").key == "scene:a:b" and MapSource.from_key("scene:a:b").name == "a:b"
    for junk in ("scene", "render:sketch", "release:x", "bogus:x", "", None, 3):
        assert MapSource.from_key(junk) is None


def test_one_rule_chooses_the_map(session):
    state = InspectorState()
    state.open(session)
    ed, gp = _first(session, "ED_v"), _first(session, "GP_v")
    q_ed, q_gp = session.release.questions[ed], session.release.questions[gp]
    g_ed, g_gp = _linked(state, ed), _linked(state, gp)
    # The model saw no map: the scene's photo-like one, though the question links the occupancy map.
    assert g_ed.topdown.name == "occupancy"
    choice = choose_map(q_ed, g_ed)
    assert choice.current == MapSource.scene("photo")
    assert {s.kind for s in choice.sources} == {MapKind.SCENE}         # every level ships as an image
    # The model saw a map: that one, unless the user chose another the question has.
    assert choose_map(q_gp, g_gp).current == MapSource.release()
    assert choose_map(q_gp, g_gp, MapSource.scene("floorplan")).current == MapSource.scene("floorplan")
    assert choose_map(q_gp, g_gp, MapSource.render("photo")).current == MapSource.release()
    # Before the scene is read (or without scenes): the release's own image, or nothing.
    assert choose_map(q_gp, None).sources == (MapSource.release(),)
    assert choose_map(q_ed, None).current is None


def test_exports_draw_the_map_the_window_shows(session):
    from viewer.render.question_media import gather_media, read_rgb
    from viewer.render.scene_assets import SceneAssets
    state = InspectorState()
    state.open(session)
    ed = _first(session, "ED_v")
    scene = state.scenes.get(session.release.questions[ed].scene)
    for chosen, name in ((None, "photo"), (MapSource.scene("occupancy"), "occupancy")):
        media = gather_media(session, ed, state.scenes, SceneAssets(), frames=False, map_source=chosen)
        assert np.array_equal(media.map_image, read_rgb(scene.topdown[name].image)), name


def test_open_select_and_step(session):
    state = InspectorState()
    seen = []
    for name in ("session", "question", "models", "filter"):
        getattr(state.events, name).connect(lambda *_, name=name: seen.append(name))
    state.open(session, "demo")
    assert seen == ["session"] and state.question is None       # what follows a session changes with it
    assert state.filter.model == 0 and state.models == tuple(session.models)
    assert state.visible_models == set(range(len(session.results)))
    serials = state.session_serial, state.question_serial
    assert state.select_uid(session.release.uids[5]) and state.question == 5
    assert (state.session_serial, state.question_serial) == (serials[0], serials[1] + 1)
    assert not state.select_uid("no such uid") and state.question == 5
    state.order = np.array([7, 5, 3])
    state.step(+1)
    assert state.question == 3 and state.position() == 2
    state.step(+1)
    assert state.question == 3                                  # the end stays put
    state.question = 11                                         # not listed: the first step enters the list
    state.step(+1)
    assert state.question == 7
    state.filter = replace(state.filter, model=None)
    assert "choose a model" in state.step_failure(+1)


def test_step_failure_follows_the_order(session):
    state = InspectorState()
    state.open(session)
    score = session.results[0].score
    failed = [int(i) for i in np.flatnonzero(score < 1)][:3]
    state.order = np.array(failed[::-1])                        # the browser's order, not the release's
    state.question = failed[-1]
    assert state.step_failure(+1) is None and state.question == failed[-2]
    state.question = failed[0]
    assert "no failure of" in state.step_failure(+1)


def test_hidden_models_answer_nothing(session):
    state = InspectorState()
    state.open(session)
    qi = _first(session, "GP_v")
    answered = [m for m, _ in model_answers(qi, state.shown_results())]
    state.visible_models = frozenset(answered[1:])
    assert [m for m, _ in model_answers(qi, state.shown_results())] == answered[1:]
    assert len(state.shown_results()) == len(session.results)   # indices, hence colours, kept


def test_presentation_stage_steps_within_its_stages():
    state = InspectorState()
    state.step_stage(-1)
    assert state.stage == "question"
    for _ in range(6):
        state.step_stage(+1)
    assert state.stage == "truth"


def test_a_model_is_renamed_everywhere_unless_the_name_is_taken(session):
    state = InspectorState()
    state.open(session)
    heard = []
    state.events.models.connect(lambda models: heard.append(models))
    assert state.rename_model(0, "  my   expert ") is None
    assert state.models[0] == "my expert" == session.results[0].model and heard == [state.models]
    assert "already called" in state.rename_model(1, "my expert")
    assert state.rename_model(1, " ") == "a model needs a name"
    assert state.rename_model(0, "my expert") is None and len(heard) == 1      # the same name: nothing heard
