import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.core.benchmarks.gst.columns import COLUMN_KEYS
from viewer.core.browse import BrowseFilter, BrowseIndex, answer_text, error_text, step_failure, truth_text
from viewer.core.session import open_session


def _release(tmp_path):
    qs = [
        {"task": "Object_Localization_Egocentric_Direction_visual", "uid": "scene2_a", "scene": "scene_2",
         "answer": "-134", "texts": ["q"]},
        {"task": "Object_Localization_Egocentric_Distance_visual", "uid": "scene10_b", "scene": "scene_10",
         "answer": 13.2, "texts": ["q"]},
        {"task": "Self_Localization_Global_Position", "uid": "scene2_c", "scene": "scene_2",
         "answer": "<point>391 698</point>", "texts": ["q"]},
        {"task": "Global_Structure_Understanding_Topdown_Selection_Easy", "uid": "scene1_d",
         "scene": "scene_1", "answer": "C", "texts": ["q"]},
        {"task": "Self_Localization_Global_Position", "uid": "scene1_e", "scene": "scene_1",
         "answer": "<point>100 100</point>", "texts": ["q"]},
    ]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in qs))
    preds = {"scene2_a": "-130", "scene10_b": "I cannot tell", "scene2_c": "<point>391 698</point>",
             "scene1_d": "B"}                                     # scene1_e missing
    p = tmp_path / "modelx.jsonl"
    p.write_text("\n".join(json.dumps({"uid": k, "prediction": v}) for k, v in preds.items()))
    return open_session(tmp_path, [p])


def test_filters_by_column_scene_status_score_and_text(tmp_path):
    s = _release(tmp_path)
    ix = BrowseIndex(s.release)
    uids = lambda f: [s.release.questions[i].uid for i in ix.rows(f, s.results)]
    assert uids(BrowseFilter()) == ["scene2_a", "scene10_b", "scene2_c", "scene1_d", "scene1_e"]
    pos = COLUMN_KEYS.index("Pos")
    assert uids(BrowseFilter(columns=frozenset({pos}))) == ["scene2_c", "scene1_e"]
    assert uids(BrowseFilter(scenes=frozenset({"scene_2"}))) == ["scene2_a", "scene2_c"]
    assert uids(BrowseFilter(model=0, status="unparsed")) == ["scene10_b"]
    assert uids(BrowseFilter(model=0, status="missing")) == ["scene1_e"]
    assert uids(BrowseFilter(model=0, status="failed")) == ["scene10_b", "scene1_d", "scene1_e"]
    assert uids(BrowseFilter(model=0, score_min=0.5)) == ["scene2_a", "scene2_c"]
    # Status and score filters need a model; without one they keep everything.
    assert len(uids(BrowseFilter(status="failed", score_min=0.5))) == 5
    assert uids(BrowseFilter(text="SCENE2 _c")) == ["scene2_c"]
    # Text also finds what a model said.
    assert uids(BrowseFilter(text="cannot tell")) == ["scene10_b"]
    assert uids(BrowseFilter(text="CANNOT")) == uids(BrowseFilter(text="i cannot")) == ["scene10_b"]
    assert uids(BrowseFilter(text="cannot 391")) == []              # all words in one answer
    assert uids(BrowseFilter(text="698</point>")) == ["scene2_c"]


def test_text_search_reads_answers_in_any_case_and_script(tmp_path):
    """What a model said is searched without regard to case, in any script; a missing answer matches nothing."""
    s = _release(tmp_path)
    p = tmp_path / "modely.jsonl"
    p.write_text("\n".join(json.dumps({"uid": k, "prediction": v}) for k, v in
                            {"scene2_a": "Étwa −130°", "scene1_d": "ΑΠΆΝΤΗΣΗ: B"}.items()))
    s = open_session(tmp_path, [tmp_path / "modelx.jsonl", p])
    ix = BrowseIndex(s.release)
    uids = lambda f: [s.release.questions[i].uid for i in ix.rows(f, s.results)]
    assert uids(BrowseFilter(text="étwa")) == ["scene2_a"]
    assert uids(BrowseFilter(text="−130°")) == ["scene2_a"]
    assert uids(BrowseFilter(text="απάντηση")) == ["scene1_d"]
    assert uids(BrowseFilter(text="none")) == []


def test_sort_worst_first_and_natural_order(tmp_path):
    s = _release(tmp_path)
    ix = BrowseIndex(s.release)
    rows = np.arange(5)
    by_score = ix.sort(rows, ("score", 0), False, s.results)
    scores = s.results[0].score[by_score]
    assert list(scores) == sorted(scores)
    # Scene sort is natural (scene_2 before scene_10), stable within a scene.
    by_scene = ix.sort(rows, "scene", False, s.results)
    assert [s.release.questions[i].scene for i in by_scene] == \
        ["scene_1", "scene_1", "scene_2", "scene_2", "scene_10"]
    desc = ix.sort(rows, "scene", True, s.results)
    assert [s.release.questions[i].scene for i in desc][0] == "scene_10"
    # Unparsed / missing answers have no value and sort last in both orders.
    for d in (False, True):
        by_answer = ix.sort(rows, ("answer", 0), d, s.results)
        assert set(by_answer[-2:]) == {1, 4}
    by_uid = ix.sort(rows, "uid", False, s.results)
    assert [s.release.questions[i].uid for i in by_uid] == \
        ["scene1_d", "scene1_e", "scene2_a", "scene2_c", "scene10_b"]


def test_step_failure_moves_in_displayed_order():
    score = np.array([1.0, 0.0, np.nan, 0.5, 1.0])
    rows = np.array([4, 3, 2, 1, 0])          # displayed order
    assert step_failure(rows, score, -1, +1) == 1   # row 3 at position 1
    assert step_failure(rows, score, 1, +1) == 3
    assert step_failure(rows, score, 3, +1) is None
    assert step_failure(rows, score, 3, -1) == 1
    assert step_failure(rows, score, 1, -1) is None


def test_cell_texts(tmp_path):
    s = _release(tmp_path)
    r, rel = s.results[0], s.release
    assert truth_text(rel, 0) == "-134°"
    assert truth_text(rel, 1) == "13.2 m"
    assert truth_text(rel, 2) == "(391, 698)"
    assert truth_text(rel, 3) == "C"
    assert answer_text(r, rel, 0) == "-130°" and error_text(r, rel, 0) == "4°"
    assert answer_text(r, rel, 1) == "(unparsed)" and error_text(r, rel, 1) == ""
    assert answer_text(r, rel, 3) == "B" and error_text(r, rel, 3) == "wrong"
    assert answer_text(r, rel, 4) == "(missing)"


def test_filter_and_sort_many_questions(tmp_path):
    n = 20_000
    lines = [json.dumps({"task": "Self_Localization_Global_Position", "uid": f"scene{i % 50}_q{i}",
                         "scene": f"scene_{i % 50}", "answer": f"<point>{i % 999} {(7 * i) % 999}</point>",
                         "texts": ["q"]}) for i in range(n)]
    (tmp_path / "questions.jsonl").write_text("\n".join(lines))
    s = open_session(tmp_path)
    ix = BrowseIndex(s.release)
    rows = ix.rows(BrowseFilter(scenes=frozenset({"scene_3"}), text="q3"), s.results)
    assert len(rows) > 0 and all(s.release.questions[i].scene == "scene_3" for i in rows)
    ordered = ix.sort(np.arange(n), "truth", True, s.results)
    assert ordered.shape == (n,)
    tk = ix.truth_key[ordered]
    assert np.all(np.diff(tk) <= 0)


@pytest.mark.parametrize("status", ["any", "failed", "wrong", "parsed", "unparsed", "missing"])
def test_every_status_filter_is_known(tmp_path, status):
    s = _release(tmp_path)
    ix = BrowseIndex(s.release)
    assert ix.mask(BrowseFilter(model=0, status=status), s.results).dtype == bool


def test_filter_by_reviewer_verdict(tmp_path):
    from viewer.core.review.flags import FlagStore
    s = _release(tmp_path)
    ix = BrowseIndex(s.release)
    store = FlagStore.for_release(tmp_path)
    store.set_verdict("scene2_a", "bad_gt")
    store.set_verdict("scene1_d", "ok")
    store.set_verdict("scene1_e", "ok")
    store.set_verdict("scene1_e", None)                   # cleared again: unreviewed
    store.set_verdict("not_in_release", "ambiguous")
    verdicts = store.verdicts()
    uids = lambda v: [s.release.uids[i] for i in ix.rows(BrowseFilter(verdict=v), s.results, verdicts)]
    assert uids("bad_gt") == ["scene2_a"]
    assert uids("ok") == ["scene1_d"]
    assert uids("reviewed") == ["scene2_a", "scene1_d"]
    assert uids("unreviewed") == ["scene10_b", "scene2_c", "scene1_e"]
    assert uids("any") == s.release.uids
    assert uids("ambiguous") == []
    store.close()


def test_errors_of_different_units_sort_as_shares_of_their_tolerance(tmp_path):
    """A map point 250 units off (83 % of 300) ranks above an angle 20° off (44 % of 45°), below a wrong choice;
    a score sort breaks ties by that share, worst first; "error >" knows the unit only of one kind of column."""
    from viewer.core.browse import error_unit
    qs = [
        {"task": "Object_Localization_Egocentric_Direction_visual", "uid": "a", "scene": "s", "answer": "0",
         "texts": ["q"]},
        {"task": "Self_Localization_Global_Position", "uid": "b", "scene": "s", "answer": "<point>100 100</point>",
         "texts": ["q"]},
        {"task": "Global_Structure_Understanding_Topdown_Selection_Easy", "uid": "c", "scene": "s", "answer": "C",
         "texts": ["q"]},
        {"task": "Object_Localization_Egocentric_Direction_visual", "uid": "d", "scene": "s", "answer": "0",
         "texts": ["q"]},
    ]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in qs))
    p = tmp_path / "m.jsonl"
    preds = {"a": "20", "b": "<point>350 100</point>", "c": "B", "d": "50"}
    p.write_text("\n".join(json.dumps({"uid": k, "prediction": v}) for k, v in preds.items()))
    s = open_session(tmp_path, [p])
    ix = BrowseIndex(s.release)
    rows = np.arange(4)
    uids = lambda order: [s.release.questions[i].uid for i in order]
    assert uids(ix.sort(rows, ("error", 0), True, s.results)) == ["d", "c", "b", "a"]    # 1.11, 1, .83, .44
    # scores: d 0 and c 0 (the larger share first), b 0.4 (within 250 and 300), a 2/3 (within 30° and 45°)
    assert uids(ix.sort(rows, ("score", 0), False, s.results)) == ["d", "c", "b", "a"]
    assert uids(ix.sort(rows, ("score", 0), True, s.results)) == ["a", "b", "c", "d"]
    assert error_unit(s.release, None) is None
    angle = COLUMN_KEYS.index("ED_v")
    assert error_unit(s.release, frozenset({angle})) == "°"


def test_kept_orders_give_what_sorting_the_rows_gives(tmp_path):
    """BrowseIndex.sort keeps every question's order per sort and reads any many rows' order off it: the same
    rows in the same order as sorting them (ties, NaN, both directions), and a new result is sorted anew."""
    from viewer.core.browse import ORDERS_KEPT
    from viewer.core.evaluate import reparse
    rng = np.random.default_rng(5)
    qs = [{"task": "Object_Localization_Egocentric_Distance_visual", "uid": f"scene{i % 4}_q{i}",
           "scene": f"scene_{i % 4}", "answer": float(rng.integers(1, 6)), "texts": ["q"]} for i in range(400)]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in qs))
    p = tmp_path / "m.jsonl"
    answers = ["2", "3", "4", "", "none", "2.5 m", "3,5 m"]              # ties, unparsed, a lenient rescue
    p.write_text("\n".join(json.dumps({"uid": q["uid"], "prediction": answers[rng.integers(len(answers))]})
                           for q in qs if rng.random() < 0.9))              # some missing
    s = open_session(tmp_path, [p])
    ix = BrowseIndex(s.release)
    keys = [("score", 0), ("error", 0), ("answer", 0), "scene", "uid", "truth", "row", "column"]
    for _ in range(3):
        for key in keys:
            for d in (False, True):
                for rows in (np.arange(400), rng.permutation(400), np.sort(rng.choice(400, 300, replace=False)),
                             rng.choice(400, 50, replace=False)):
                    assert ix.sort(rows, key, d, s.results).tolist() == ix._sort(rows, key, d, s.results).tolist()
    assert len(ix._orders) <= ORDERS_KEPT
    before = ix.sort(np.arange(400), ("score", 0), False, s.results)
    lenient = [reparse(s.release, s.results[0], "lenient")]        # another result: its own order
    assert not np.array_equal(lenient[0].score, s.results[0].score, equal_nan=True)
    assert ix.sort(np.arange(400), ("score", 0), False, lenient).tolist() == \
        ix._sort(np.arange(400), ("score", 0), False, lenient).tolist() != before.tolist()
    ix.target_k = rng.integers(0, 4, 400).astype(float)                # new k arrays: sorted anew
    ix.sampled_n = np.full(400, 8, np.int32)
    assert ix.sort(np.arange(400), "target_k", False, s.results).tolist() == \
        ix._sort(np.arange(400), "target_k", False, s.results).tolist()


def test_orders_kept_ahead_are_the_sorts(tmp_path):
    """keep_orders (a job's work once a large release's models are in) keeps one order per model beyond
    ORDERS_KEPT, each what sorting gives; sorting then reads them."""
    from viewer.core.browse import ORDERS_KEPT, default_sort
    s = _release(tmp_path)
    results = s.results * (ORDERS_KEPT + 3)                        # more models than the orders usually kept
    ix = BrowseIndex(s.release)
    sorts = [default_sort(m) for m in range(len(results))]
    ix.keep_orders(sorts, results)
    assert len(ix._orders) == len(sorts)
    kept = {k: v[1] for k, v in ix._orders.items()}
    for key, d in sorts:
        assert ix.sort(np.arange(5), key, d, results) is not kept[(key, d)]      # a copy, never the kept array
        assert ix.sort(np.arange(5), key, d, results).tolist() == ix._sort(np.arange(5), key, d, results).tolist()
    assert all(ix._orders[k][1] is v for k, v in kept.items())                # nothing sorted again


def _token_key(s: str):
    """Natural order by tokens (numbers by value, before words; words by their letters): the reference
    natural_key's plain-string key must order as."""
    import re
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", s) if t]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet="ab_0123456789", max_size=12), max_size=30))
def test_natural_key_sorts_as_tokens_do(strings):
    """natural_key's plain strings (for a 200,000-uid sort) order exactly as tokens do: numbers before words,
    by value (leading zeros alike), words by their letters."""
    from viewer.core.release import natural_key
    keys = [natural_key(s) for s in strings]
    for a, b, ka, kb in ((a, b, ka, kb) for a, ka in zip(strings, keys) for b, kb in zip(strings, keys)):
        assert (ka < kb) == (_token_key(a) < _token_key(b)), (a, b)


def test_the_uid_sort_is_natural():
    from viewer.core.release import natural_key
    uids = ["scene10_x_2", "scene2_x_10", "scene2_x_9", "scene2_x", "scene02_y", "scene2_x_09b"]
    order = sorted(range(len(uids)), key=[natural_key(u) for u in uids].__getitem__)
    assert [uids[i] for i in order] == ["scene2_x", "scene2_x_9", "scene2_x_09b", "scene2_x_10", "scene02_y",
                                        "scene10_x_2"]


def test_the_first_question_is_the_browsers_first_listed_or_the_asked_one(tmp_path):
    """`first_question` (which the job opening a release asks, to decode its images ahead) names the question
    the browser shows first: the worst under the first model's score, the asked one when the filter lists it."""
    from viewer.core.browse import default_sort, first_question, opening_filter
    s = _release(tmp_path)
    ix, uid = s.browse_index, lambda i: s.release.questions[i].uid
    f = opening_filter(BrowseFilter(), len(s.results))
    assert f.model == 0 and default_sort(f.model) == (("score", 0), False)
    worst_first = ix.sort(ix.rows(f, s.results), *default_sort(0), s.results)
    assert uid(first_question(ix, f, s.results)) == uid(int(worst_first[0]))
    # The worst: a score of 0 without any error (the refusal, the missing answer), the first row of those.
    assert uid(first_question(ix, f, s.results)) == "scene10_b"
    assert first_question(ix, f, s.results, asked=s.release.index["scene2_c"]) == s.release.index["scene2_c"]
    # A filter kept from the release before (text) leaves the asked question out: the first listed instead.
    kept = opening_filter(replace(BrowseFilter(), text="scene10", model=None), len(s.results))
    assert uid(first_question(ix, kept, s.results, asked=s.release.index["scene2_c"])) == "scene10_b"
    assert first_question(ix, replace(kept, text="nothing-like-it"), s.results) is None
    # Without models: row order.
    bare = open_session(tmp_path)
    g = opening_filter(BrowseFilter(), 0)
    assert g.model is None and first_question(bare.browse_index, g, []) == 0


def test_opening_keeps_the_users_choices_and_resets_the_releases_own(tmp_path):
    from viewer.core.browse import opening_filter
    before = BrowseFilter(columns=frozenset({1}), scenes=frozenset({"scene_2"}), model=3, model_b=4, status="failed",
                          text="armchair", compare="a_wins", error_min=1.0, error_max=2.0, verdict="ok")
    f = opening_filter(before, 1)
    assert (f.columns, f.scenes, f.model, f.model_b, f.compare, f.error_min, f.error_max) == \
        (None, None, 0, None, "none", None, None)
    assert (f.status, f.text, f.verdict) == ("failed", "armchair", "ok")
    assert opening_filter(before, 2).model_b == 1


def test_row_order_keeps_rows_already_in_order_and_sorts_others(tmp_path):
    s = _release(tmp_path)
    ix = s.browse_index
    rows = np.array([0, 2, 3])
    assert ix.sort(rows, "row", False, s.results) is rows
    assert ix.sort(np.array([3, 0, 2]), "row", False, s.results).tolist() == [0, 2, 3]
    assert ix.sort(rows, "row", True, s.results).tolist() == [3, 2, 0]
    assert s.browse_index is ix                        # made once per session


_TEXT = st.one_of(st.none(), st.integers(-5, 5), st.text(alphabet="abcAB İı\x00ßΣσ-é1 ", max_size=12))


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(_TEXT, max_size=40),
       words=st.lists(st.text(alphabet="abi̇ıßσ-é1\x00", min_size=1, max_size=3), min_size=1, max_size=3))
def test_the_text_search_finds_what_each_answer_holds_in_lower_case(texts, words):
    """The answers' search (`_lowered`, `_all_words`) keeps the rows whose answer, in lower case, holds every
    word, whatever the answers are (no answer, numbers, letters that lower into two), the first word over all
    of them and the next ones over the candidates only, in a few answers or in most."""
    from viewer.core.browse import _all_words, _lowered

    def holds(t):
        t = "" if t is None else str(t).lower()
        return all(w in t for w in words)
    want = [holds(t) for t in texts]
    assert _all_words(_lowered(texts), words, len(texts)).tolist() == want
    many = texts * 9
    assert _all_words(_lowered(many), words, len(many)).tolist() == want * 9
