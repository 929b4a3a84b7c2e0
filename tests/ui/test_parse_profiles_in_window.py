"""The window shows both parse profiles: the leaderboard's tooltip, the browser's status filter."""
import json
from dataclasses import replace

from published_samples import ED_UID, EDIST_UID, POS_UID

from viewer.core.benchmarks.gst.columns import COLUMN_KEYS


def test_leaderboard_tooltip_and_status_filter(qtbot, make_inspector, real_samples, tmp_path):
    preds = tmp_path / "reasoner.jsonl"
    preds.write_text("".join(json.dumps({"uid": u, "prediction": p}) + "\n" for u, p in {
        ED_UID: "<think>frame 3</think> 134 degrees to the right",     # truth -134: lenient rescues the sign
        EDIST_UID: "About 13.2 m (43 ft)",                              # several numbers, flagged
        POS_UID: "<point>1200 -5</point>",                              # off the map, flagged
    }.items()))
    window, state = make_inspector(real_samples, [preds])
    tip = window.leaderboard.item(0, len(COLUMN_KEYS)).toolTip()
    assert "strict" in tip and "lenient" in tip and "sign_from_words" in tip and "1 answers" in tip
    assert "lenient" in window.leaderboard.verticalHeaderItem(0).toolTip()

    box = window.browser.status_box
    keys = [box.itemData(i) for i in range(box.count())]
    assert {"flagged", "several_numbers", "out_of_range", "sign_from_words"} <= set(keys)
    uids = state.session.release.uids
    state.filter = replace(state.filter, model=0, status="several_numbers")
    assert [uids[i] for i in state.order] == [EDIST_UID]
    state.filter = replace(state.filter, status="flagged")
    assert sorted(uids[i] for i in state.order) == sorted([EDIST_UID, POS_UID])
    state.filter = replace(state.filter, status="parsed")
    assert len(state.order) == 3                     # flagged answers are scored


def test_strict_against_lenient_is_computed_when_a_tooltip_asks_and_once(inspect_demo, monkeypatch):
    """Reparsing every answer of every model under the other profile waits for the tooltip that shows it
    (22 models of 200,000 answers took 15 s of the window's start), and is not redone at a redraw."""
    import viewer.core.session as session_module
    calls = []
    real = session_module.compare_profiles
    monkeypatch.setattr(session_module, "compare_profiles", lambda *a, **k: calls.append(a[1].model) or real(*a, **k))
    window, state = inspect_demo()
    board = window.leaderboard
    avg = len(COLUMN_KEYS)
    assert calls == [] and board.item(0, avg).text()
    assert "strict" in board.item(0, avg).toolTip() and calls == [state.models[0]]
    assert "lenient" in board.verticalHeaderItem(0).toolTip() and len(calls) == 1     # the row's two tips share it
    board.set_session(state.session)                                                 # a redraw
    assert "strict" in board.item(0, avg).toolTip() and len(calls) == 1
    assert "lenient" in board.verticalHeaderItem(1).toolTip() and calls[1:] == [state.models[1]]
