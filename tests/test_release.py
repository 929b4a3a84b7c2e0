import json

import numpy as np
import pytest
from published_samples import ED_UID, EDIST_UID, POS_UID, TDSE_UID, TDSM_UID, TRAJ_UID

from viewer.core.diagnostics import UserError
from viewer.core.release import load_release


def test_six_real_samples_load_unchanged(real_samples):
    r = load_release(real_samples)
    assert r.layout == "question-folders"
    assert {q.uid for q in r.questions} == {POS_UID, ED_UID, EDIST_UID, TDSE_UID, TDSM_UID, TRAJ_UID}
    cols = {q.uid: q.column.key for q in r.questions}
    assert cols[ED_UID] == "ED_v" and cols[EDIST_UID] == "EDist_v" and cols[POS_UID] == "Pos"
    assert cols[TDSE_UID] == "TDS_E" and cols[TDSM_UID] == "TDS_M" and cols[TRAJ_UID] == "Traj"
    assert r.get(ED_UID).truth.value == -134
    assert r.get(EDIST_UID).truth.value == 13.2
    assert r.get(POS_UID).truth.value == (391, 698)
    assert r.get(TRAJ_UID).truth.value == 1
    # Exactly the five videos that were not published are reported missing.
    missing = [(q.uid, m.declared) for q, m in r.missing_media()]
    assert len(missing) == 5 and TDSM_UID not in {u for u, _ in missing}
    assert r.get(TDSM_UID).video.exists
    assert [d.level for d in r.diagnostics.with_code("media.missing")] == ["warning"] * 5
    assert not r.diagnostics.of_level("error")
    # sample_summary.json is not a question.
    assert len(r) == 6


def test_uid_links_and_media_roles(real_samples):
    r = load_release(real_samples)
    ed = r.get(ED_UID)
    assert (ed.target, ed.viewpoint, ed.video_id) == ("armchair_vzhxuf_0", "pos_10_orient_4", "video_3")
    pos = r.get(POS_UID)
    assert pos.target is None and pos.viewpoint == "pos_25_orient_11" and pos.video_id == "video_4"
    assert pos.role_image("map").name == "image_02_topdown_2.png"
    assert pos.role_image("view").name == "image_01_position_25_orientation_11.png"
    kinds = [k for k, _ in pos.prompt_segments()]
    assert kinds == ["text", "video", "text", "image", "text", "image", "text"]
    tds = r.get(TDSE_UID)
    assert [tds.image_role(i) for i in range(4)] == ["option"] * 4


def _write_jsonl(path, records, raw_lines=()):
    lines = [json.dumps(r) for r in records] + list(raw_lines)
    path.write_text("\n".join(lines) + "\n")


def _rec(uid, task="Object_Localization_Egocentric_Direction_visual", answer="10", **kw):
    return {"uid": uid, "task": task, "scene": "scene_1", "answer": answer, "texts": ["q"], **kw}


def test_malformed_json_line_is_reported_with_line_and_rest_loads(tmp_path):
    f = tmp_path / "questions.jsonl"
    _write_jsonl(f, [_rec("a")], raw_lines=['{"uid": "b", "task": ', json.dumps(_rec("c"))])
    r = load_release(tmp_path)
    assert [q.uid for q in r.questions] == ["a", "c"]
    errs = r.diagnostics.of_level("error")
    assert len(errs) == 1 and errs[0].line == 2 and errs[0].file.endswith("questions.jsonl")
    assert errs[0].code == "json.malformed"


def test_malformed_question_json_reports_line(tmp_path):
    (tmp_path / "q1").mkdir()
    (tmp_path / "q1" / "question.json").write_text('{\n  "uid": "x",\n  "task": oops\n}\n')
    (tmp_path / "q2").mkdir()
    (tmp_path / "q2" / "question.json").write_text(json.dumps(_rec("ok")))
    r = load_release(tmp_path)
    assert [q.uid for q in r.questions] == ["ok"]
    err = r.diagnostics.of_level("error")[0]
    assert err.line == 3 and "q1" in err.file


def test_unknown_task_reported_and_kept_out_of_columns(tmp_path):
    _write_jsonl(tmp_path / "questions.jsonl", [_rec("a"), _rec("b", task="Counting_Chairs")])
    r = load_release(tmp_path)
    assert len(r) == 2 and r.get("b").column is None
    assert list(r.column) == [0, -1]
    [unknown] = r.diagnostics.with_code("task.unknown")
    assert unknown.level == "warning" and "Counting_Chairs" in unknown.message


def test_task_names_match_case_insensitively_and_trajectory_alias(tmp_path):
    _write_jsonl(tmp_path / "questions.jsonl", [
        _rec("a", task="object_localization_egocentric_direction_VISUAL"),
        _rec("b", task="Global_Structure_Understanding_Trajectory_Selection", answer="A",
             images=[{"index": i, "copied_path": f"{i}.png"} for i in range(1, 5)]),
    ])
    r = load_release(tmp_path)
    assert r.get("a").column.key == "ED_v" and r.get("b").column.key == "Traj"


def test_duplicate_uid_last_wins_with_warning(tmp_path):
    _write_jsonl(tmp_path / "questions.jsonl", [_rec("a", answer="10"), _rec("a", answer="20")])
    r = load_release(tmp_path)
    assert len(r) == 1 and r.get("a").truth.value == 20
    assert [d.line for d in r.diagnostics.with_code("release.duplicate_uid")] == [2]


def test_non_utf8_file_is_reported_and_loads(tmp_path):
    good = json.dumps(_rec("a")).encode()
    bad = json.dumps(_rec("b", texts=["caf\u00e9"]), ensure_ascii=False).encode().replace("\u00e9".encode(), b"\xe9")
    (tmp_path / "questions.jsonl").write_bytes(good + b"\n" + bad + b"\n")
    r = load_release(tmp_path)
    assert len(r) == 2
    err = r.diagnostics.with_code("file.not_utf8")
    assert err and err[0].level == "error" and err[0].line == 2


def test_empty_file_is_reported(tmp_path):
    (tmp_path / "questions.jsonl").write_text("")
    r = load_release(tmp_path)
    assert len(r) == 0 and r.diagnostics.of_level("error")[0].code == "file.empty"


def test_nan_and_invalid_ground_truth(tmp_path):
    (tmp_path / "questions.jsonl").write_text(
        json.dumps(_rec("nan", answer=1.0)).replace("1.0", "NaN") + "\n"
        + json.dumps(_rec("inf", task="Object_Localization_Egocentric_Distance_visual", answer=1.0)
                     ).replace("1.0", "Infinity") + "\n"
        + json.dumps(_rec("word", answer="left")) + "\n")
    r = load_release(tmp_path)
    assert len(r) == 3
    assert np.isnan(r.truth).all()
    assert [d.line for d in r.diagnostics.of_level("error") if d.code == "truth.invalid"] == [1, 2, 3]


def test_media_escaping_the_release_is_refused(tmp_path):
    (tmp_path / "secret.png").write_bytes(b"x")
    rel = tmp_path / "release"
    rel.mkdir()
    _write_jsonl(rel / "questions.jsonl", [_rec("a", copied_video_path="../secret.png",
                                                images=[{"index": 1, "copied_path": "/etc/passwd"}])])
    q = load_release(rel).get("a")
    assert q.video.path is None and "escapes" in q.video.problem
    assert q.images[0].path is None and "absolute" in q.images[0].problem


def test_questions_json_list_layout_with_bad_record(tmp_path):
    (tmp_path / "questions.json").write_text(json.dumps([_rec("a"), "junk", {"task": "x"}]))
    r = load_release(tmp_path)
    assert [q.uid for q in r.questions] == ["a"]
    # Records inside one JSON list have no line of their own: the message names the record.
    assert [(d.code, d.message.split(":")[0]) for d in r.diagnostics.of_level("error")] == [
        ("question.not_object", "record 2"), ("question.no_uid", "record 3")]


def test_missing_release_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        load_release(tmp_path / "nope")
    with pytest.raises(UserError, match="no questions"):
        load_release(tmp_path)


def test_huge_file_is_refused_clearly(tmp_path, monkeypatch):
    import viewer.core.textio as textio
    monkeypatch.setattr(textio, "MAX_TEXT_BYTES", 100)
    _write_jsonl(tmp_path / "questions.jsonl", [_rec("a"), _rec("b")])
    r = load_release(tmp_path)
    assert len(r) == 0
    err = r.diagnostics.of_level("error")[0]
    assert err.code == "file.unreadable" and "larger than" in err.message


def test_media_in_a_symlinked_folder_and_unusual_spellings_are_found(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    (store / "v.mp4").write_bytes(b"x")
    rel = tmp_path / "release"
    (rel / "img").mkdir(parents=True)
    (rel / "img" / "a.png").write_bytes(b"x")
    (rel / "videos").symlink_to(store, target_is_directory=True)
    _write_jsonl(rel / "questions.jsonl", [_rec("a", copied_video_path="videos/v.mp4",
                                                images=[{"index": 1, "copied_path": "./img/a.png"},
                                                        {"index": 2, "copied_path": "img//a.png"},
                                                        {"index": 3, "copied_path": "img/b.png"}])])
    r = load_release(rel)
    assert [(kind, declared) for _, kind, declared, _ in r.missing] == [("image", "img/b.png")]
    q = r.get("a")
    assert q.video.exists and [m.exists for m in q.images] == [True, True, False]
