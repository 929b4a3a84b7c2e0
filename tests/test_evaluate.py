import json

import numpy as np
import pytest
from published_samples import ED_UID, EDIST_UID, POS_UID, TDSE_UID, TDSM_UID, TRAJ_UID

from viewer.core.benchmarks.gst.columns import COLUMN_KEYS
from viewer.core.session import open_session


def _preds(tmp_path, name, mapping):
    f = tmp_path / f"{name}.jsonl"
    f.write_text("".join(json.dumps({"uid": u, "prediction": p}) + "\n" for u, p in mapping.items()))
    return f


def test_real_samples_scored_by_hand(real_samples, tmp_path):
    f = _preds(tmp_path, "hand", {
        ED_UID: "\u2212170",                  # error 36 -> 1/3
        EDIST_UID: "10.0",                    # MRA 0.6
        POS_UID: "<point>450 780</point>",    # 0.8
        TDSE_UID: "Answer: C",                # right
        TDSM_UID: "B",                        # wrong
        "scene9_not_in_release": "A",         # unknown uid
    })                                        # TRAJ_UID has no prediction -> 0
    s = open_session(real_samples, [f])
    board = s.leaderboard()["models"]["hand"]
    cols = board["columns"]
    assert cols["ED_v"] == pytest.approx(100 / 3)
    assert cols["EDist_v"] == pytest.approx(60)
    assert cols["Pos"] == pytest.approx(80)
    assert cols["TDS_E"] == 100 and cols["TDS_M"] == 0 and cols["Traj"] == 0
    for k in ("GP_v", "ED_s", "EDist_s", "GP_s", "Ori", "TDS_H"):
        assert cols[k] is None
    assert board["avg"] == pytest.approx(np.mean([100 / 3, 60, 80, 100, 0, 0]))
    assert set(board["counts"]) == set(COLUMN_KEYS) and board["counts"]["Pos"] == 1
    assert board["counts"]["GP_v"] == 0
    r = s.results[0]
    assert r.unknown_uids == ["scene9_not_in_release"]
    assert [s.release.questions[i].uid for i in r.missing] == [TRAJ_UID]
    codes = {d.code for d in s.diagnostics}
    assert {"prediction.unknown_uid", "prediction.missing"} <= codes


def test_unparsed_predictions_score_zero_and_are_counted(real_samples, tmp_path):
    f = _preds(tmp_path, "bad", {ED_UID: "to the left", POS_UID: "near the sofa", TDSE_UID: "E",
                                 EDIST_UID: "NaN"})
    s = open_session(real_samples, [f])
    r = s.results[0]
    i = s.release.index
    assert r.status[i[ED_UID]] == "no_number" and r.score[i[ED_UID]] == 0
    assert r.status[i[POS_UID]] == "no_point"
    assert r.status[i[TDSE_UID]] == "letter_out_of_range"
    assert r.status[i[EDIST_UID]] == "not_finite"
    assert s.leaderboard()["models"]["bad"]["unparsed"] == 4


def test_same_model_name_twice_is_kept_apart(real_samples, tmp_path):
    a = _preds(tmp_path, "m", {ED_UID: "-134"})
    (tmp_path / "other").mkdir()
    b = _preds(tmp_path / "other", "m", {ED_UID: "0"})
    s = open_session(real_samples, [a, b])
    assert s.models == ["m", "m (2)"]


def test_unreadable_prediction_file_does_not_stop_the_others(real_samples, tmp_path):
    good = _preds(tmp_path, "good", {ED_UID: "-134"})
    bad = tmp_path / "bad.jsonl"
    bad.write_text("")
    s = open_session(real_samples, [bad, good])
    assert s.models == ["good"]
    assert any("bad.jsonl" in str(d) for d in s.diagnostics.of_level("error"))


def test_positional_predictions_match_release_order(real_samples, tmp_path):
    s0 = open_session(real_samples, [])
    order = [q.uid for q in s0.release.questions]
    f = tmp_path / "pos.tsv"
    # VLMEvalKit's layout: the dataset's own question text beside each index (checked before a match by position)
    import csv
    with open(f, "w", newline="") as out:
        w = csv.writer(out, delimiter="\t")
        w.writerow(["index", "question", "prediction"])
        for k, u in enumerate(order):
            w.writerow([k, s0.release.get(u).texts[-1], s0.release.get(u).answer_raw])
    s = open_session(real_samples, [f])
    assert s.leaderboard()["models"]["pos"]["avg"] == pytest.approx(100)


def test_random_row(real_samples):
    s = open_session(real_samples, [])
    row = s.random_row()
    assert row["ED_v"] == pytest.approx(100 / 6)
    assert row["TDS_E"] == 25 and row["Traj"] == 25
    assert row["GP_v"] is None
    assert 0 < row["Pos"] < 20


def test_structured_answers_do_not_break_scoring(real_samples, tmp_path):
    f = tmp_path / "odd.jsonl"
    f.write_text(json.dumps({"uid": POS_UID, "prediction": [450, 780]}) + "\n"
                 + json.dumps({"uid": ED_UID, "prediction": {"angle": -134}}) + "\n"
                 + json.dumps({"uid": TDSE_UID, "prediction": ["C"]}) + "\n")
    s = open_session(real_samples, [f])
    r, i = s.results[0], s.release.index
    assert r.score[i[POS_UID]] == pytest.approx(0.8)       # a [x, y] list is a point
    assert r.status[i[ED_UID]] == "ok" and r.score[i[ED_UID]] == 1.0
    assert r.raw[i[TDSE_UID]] == ["C"]
