"""What talks and exports show about a question: texts, reveal order, clip timing, gallery picks."""
from pathlib import Path

import numpy as np
import pytest

from viewer.core.benchmarks.gst.columns import COLUMN_BY_KEY as GST_COLUMNS
from viewer.core.benchmarks.gst.columns import COLUMN_KEYS
from viewer.core.diagnostics import UserError
from viewer.core.scene.model import link_question
from viewer.core.scene.sources import SceneLibrary
from viewer.core.session import open_session
from viewer.core.talk.gallery_pick import FULL_AREA, pick_examples, target_area
from viewer.core.talk.showcase import build_story, choose_models, find_question, question_sentence
from viewer.core.talk.storyboard import (
    ANSWER,
    CLIP_STAGES,
    QUESTION,
    TRUTH,
    VIDEO,
    layers_at,
    plan_clip,
    strip_frames,
)

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"
ED = "scene1_Object_Localization_Egocentric_Direction_visual_potted_plant_yzwbdf_2_pos_15_orient_0_video_0"


@pytest.fixture(scope="module")
def session():
    return open_session(DEMO, sorted((DEMO / "predictions").glob("*.jsonl")))


def test_unknown_uid_names_the_closest(session):
    with pytest.raises(UserError) as e:
        find_question(session.release, ED[:-1] + "9")
    assert ED in str(e.value) and "closest" in str(e.value)
    with pytest.raises(UserError, match="none close"):
        find_question(session.release, "zzzz")
    assert session.release.uids[find_question(session.release, ED)] == ED


def test_models_by_name_keep_their_index(session):
    assert choose_models(session, None) == [0, 1, 2]
    assert choose_models(session, "sign-flipper, noisy-expert") == [2, 0]
    with pytest.raises(UserError, match="no model 'gpt'.*noisy-expert"):
        choose_models(session, "gpt")


def test_story_texts_and_answers(session):
    qi = session.release.index[ED]
    story = build_story(session, qi, [2])
    assert story.key == "ED_v" and story.truth == "-161°"
    assert story.sentence == "In which direction relative to you is the object marked with a red box in the video?"
    assert "left turns positive" in story.convention
    assert [a.name for a in story.answers] == ["sign-flipper"] and story.answers[0].index == 2
    assert story.answers[0].score == pytest.approx(float(session.results[2].score[qi]))
    tds = session.release.get("scene1_Topdown_Selection_Easy_video_0")
    sentence, prompt = question_sentence(tds)
    assert sentence.startswith("Among the four images below") and sentence.endswith("?")
    assert not prompt.rstrip().endswith("A.")


def test_reveal_never_gives_the_answer_away_early():
    for stage in (QUESTION, VIDEO, ANSWER):
        assert not layers_at(GST_COLUMNS["Pos"], stage).viewpoint      # the viewpoint is Pos's answer
        assert not layers_at(GST_COLUMNS["Ori"], stage).viewpoint
        assert not layers_at(GST_COLUMNS["ED_v"], stage).target        # the box is where the object is
        assert not layers_at(GST_COLUMNS["GP_s"], stage).truth
    assert layers_at(GST_COLUMNS["ED_v"], QUESTION).viewpoint           # given, not asked
    assert layers_at(GST_COLUMNS["ED_v"], ANSWER).answers
    video = layers_at(GST_COLUMNS["GP_v"], VIDEO, frame=12)
    assert video.marker == 12 and video.path_until == 12 and not video.answers
    truth = layers_at(GST_COLUMNS["Pos"], TRUTH)
    assert truth.viewpoint and truth.truth and truth.answers and truth.target
    with pytest.raises(ValueError):
        layers_at(GST_COLUMNS["Pos"], "bogus")


@pytest.mark.parametrize("seconds,fps,n_video", [(10, 15, 337), (2, 10, 40), (1, 8, 3), (3, 10, 0)])
def test_clip_plan_frame_count_and_order(seconds, fps, n_video):
    plan = plan_clip(seconds, fps, n_video)
    assert len(plan) == round(seconds * fps)
    stages = [f.stage for f in plan]
    order = [s for k, s in enumerate(stages) if k == 0 or stages[k - 1] != s]
    expected = [s for s in CLIP_STAGES if n_video > 0 or s != VIDEO]
    assert order == expected                      # each stage once, in clip order, ending on the truth
    vf = [f.video_frame for f in plan if f.stage == VIDEO]
    if n_video:
        assert vf[0] == 0 and vf[-1] == n_video - 1 and vf == sorted(vf)
    assert plan[-1].stage == TRUTH
    assert np.allclose([f.time for f in plan], np.arange(len(plan)) / fps)


def test_strip_frames_spread_and_include_the_best():
    assert strip_frames(337, 6) == [0, 67, 134, 202, 269, 336]
    picks = strip_frames(337, 6, best=280)
    assert 280 in picks and len(picks) == 6 and picks[0] == 0
    assert strip_frames(3, 6) == [0, 1, 2]
    assert strip_frames(0, 6) == []


def test_gallery_picks_a_clean_large_target_per_column(session):
    release = session.release
    scenes = SceneLibrary(release.root)

    def link(qi):
        q = release.questions[qi]
        return link_question(q, scenes.get(q.scene))

    picks = pick_examples(release, link, [r.score for r in session.results])
    assert list(picks) == list(COLUMN_KEYS) and all(c is not None for c in picks.values())
    assert all(not c.reasons for c in picks.values())           # every example is clean on the demo
    for key in ("ED_v", "GP_s"):
        c = picks[key]
        rows = np.flatnonzero(release.column == COLUMN_KEYS.index(key))
        areas = {int(i): target_area(release, int(i), link(int(i))) for i in rows}
        # Larger targets win, up to the size that counts as "large".
        best = max(min(a, FULL_AREA) for a in areas.values() if a is not None)
        assert min(areas[c.qi], FULL_AREA) == pytest.approx(best)
