"""VSI-Bench: scores on real Gemini 3 Flash answers against a plain per-row scorer, the study's own
numbers under --scoring-variant eleven-thresholds, bad input, and GST-Bench left alone."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from viewer.core.diagnostics import UserError
from viewer.core.release import load_release
from viewer.core.session import open_session

DATA = Path(__file__).parent / "data" / "vsi-gemini"
QUESTIONS = DATA / "scannet_questions"
RESPONSES = sorted((DATA / "gemini_response").glob("*.json"))
STUDY = json.loads((DATA / "gemini_vsibench_scores.json").read_text())
SCENES = [r["scene_name"] for r in STUDY["scene_reports"]]

NUMERIC = {"object_counting", "object_abs_distance", "object_size_estimation", "room_size_estimation"}
DIRECTIONS = ["object_rel_direction_easy", "object_rel_direction_medium", "object_rel_direction_hard"]


# ------------------------------------------------------------------ a plain scorer, one row at a time
def plain_row_score(question_type: str, prediction: str, truth: str, thresholds: list[float]) -> float:
    token = prediction.split(" ")[0].rstrip(".").strip()
    if question_type not in NUMERIC:
        return 1.0 if token.lower() == truth.lower() else 0.0
    try:
        p, t = float(token), float(truth)
    except ValueError:
        return 0.0
    error = abs(p - t) / t
    return sum(1 for th in thresholds if error <= 1 - th) / len(thresholds)


def plain_scores(scenes: list[str], eleven: bool) -> dict:
    thresholds = [0.5 + 0.05 * k for k in range(10)]
    if eleven:
        thresholds = [round(0.5 + 0.05 * k, 10) for k in range(10)] + [1.0]
    rows: dict[str, list[float]] = {}
    for scene in scenes:
        questions = json.loads((QUESTIONS / f"{scene}_questions.json").read_text())["questions"]
        answers = json.loads((DATA / "gemini_response" / f"{scene}_gemini_response.json").read_text())
        by_text = {a["question"]: a["gemini_answer"] for a in answers["questions"]}
        for q in questions:
            rows.setdefault(q["question_type"], []).append(
                plain_row_score(q["question_type"], by_text[q["question"]], q["ground_truth"], thresholds))
    means = {t: 100 * sum(v) / len(v) for t, v in rows.items()}
    present = [means[d] for d in DIRECTIONS if d in means]
    table = {t: m for t, m in means.items() if t not in DIRECTIONS}
    table["object_rel_direction"] = sum(present) / len(present)
    values = list(table.values()) + ([means[d] for d in DIRECTIONS if d in means] if eleven else [])
    return {"table": table, "sub": {d: means[d] for d in DIRECTIONS if d in means},
            "overall": sum(values) / len(values)}


def score_cli(release: Path, predictions: list[Path], *extra: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "viewer.cli", "score", str(release), *map(str, predictions),
                          "--json", "-q", *extra], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["models"]["gemini"]


# ------------------------------------------------------------------ acceptance
def test_upstream_rule_matches_the_plain_scorer():
    got = score_cli(QUESTIONS, RESPONSES)
    want = plain_scores(SCENES, eleven=False)
    assert list(got["columns"]) == ["object_counting", "object_abs_distance", "object_size_estimation",
                                    "room_size_estimation", "object_rel_distance", "object_rel_direction",
                                    "route_planning", "obj_appearance_order"]
    for key, value in want["table"].items():
        assert got["columns"][key] == pytest.approx(value, abs=1e-9), key
    for key, value in want["sub"].items():
        assert got["subcolumns"][key] == pytest.approx(value, abs=1e-9), key
    assert got["avg"] == pytest.approx(want["overall"], abs=1e-9)
    assert sum(got["counts"].values()) == 291 and got["unparsed"] == 0


def _study_key(key: str) -> str:
    return key + ("_MRA:.5:.95:.05" if key in NUMERIC else "_accuracy")


def _check_against_study(got: dict, study: dict) -> None:
    assert got["avg"] == pytest.approx(study["overall"], abs=1e-3)
    shown = {**got["columns"], **got["subcolumns"]}
    for key, value in shown.items():
        if _study_key(key) in study:
            assert value == pytest.approx(study[_study_key(key)], abs=1e-3), key
        else:
            assert value is None, key            # the study lists only the types a scene has
    listed = [k for k in study if not k.startswith(("overall", "tabulated"))]
    assert len(listed) == sum(v is not None for v in shown.values())


def test_eleven_thresholds_reproduces_the_study_overall():
    _check_against_study(score_cli(QUESTIONS, RESPONSES, "--scoring-variant", "eleven-thresholds"),
                         STUDY["overall_benchmark_scores"])


@pytest.mark.parametrize("report", STUDY["scene_reports"], ids=SCENES)
def test_eleven_thresholds_reproduces_each_scene_table(report):
    scene = report["scene_name"]
    s = open_session(QUESTIONS / f"{scene}_questions.json",
                     [DATA / "gemini_response" / f"{scene}_gemini_response.json"],
                     scoring_variant="eleven-thresholds")
    got = s.leaderboard()["models"]["gemini"]
    _check_against_study(got, report["benchmark_scores"])
    assert sum(got["counts"].values()) == report["num_questions_scored"]
    assert not s.diagnostics.with_code("prediction.")


def test_release_reads_the_scene_files():
    r = load_release(QUESTIONS)
    assert r.benchmark.name == "vsi" and len(r) == 291 and len(r.scenes) == 5
    assert r.uids[0] == "scene0207_02#0"                   # no id: scene and index
    q = r.questions[0]
    assert q.options[:2] == ["A. counter", "B. towel"] and q.n_options == 4
    assert q.column.kind_name == "option-text" and q.truth.value == 1
    assert "Options:\nA. counter" in q.texts[0]
    assert [d.code for d in r.diagnostics] == ["media.vsi_video_absent"]


def test_unknown_variant_is_refused():
    with pytest.raises(UserError, match="eleven-thresholds"):
        open_session(QUESTIONS, [], scoring_variant="twelve")


# ------------------------------------------------------------------ other layouts and formats
def _jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


ROWS = [
    {"id": 0, "dataset": "scannet", "scene_name": "s1", "question_type": "object_counting",
     "question": "How many chair(s) are in this room?", "options": None, "ground_truth": "4"},
    {"id": 1, "dataset": "scannet", "scene_name": "s1", "question_type": "object_rel_distance",
     "question": "Which is closest?", "options": ["A. x", "B. y", "C. z"], "ground_truth": "B"},
]


def test_test_jsonl_with_jsonl_and_lmms_eval_predictions(tmp_path):
    rel = tmp_path / "vsi"
    rel.mkdir()
    _jsonl(rel / "test.jsonl", ROWS)
    (rel / "scannet").mkdir()
    (rel / "scannet" / "s1.mp4").write_bytes(b"")
    plain = _jsonl(tmp_path / "plain.jsonl", [{"id": 0, "prediction": "3 chairs"}, {"uid": "1", "prediction": "b."}])
    lmms = _jsonl(tmp_path / "samples_vsibench.jsonl", [
        {"doc_id": 7, "doc": {"id": 0, "question": "How many chair(s) are in this room?"}, "filtered_resps": ["4"]},
        {"doc_id": 8, "doc": {"id": 1}, "resps": [["(B)"]]}])
    s = open_session(rel, [plain, lmms])
    assert s.release.layout == "vsi-jsonl" and s.release.uids == ["0", "1"]
    assert s.release.questions[0].video is not None and s.release.questions[0].video.exists
    plain_r, lmms_r = s.results
    assert plain_r.score[0] == pytest.approx(0.6) and plain_r.score[1] == 1.0     # |3-4|/4 = .25: 6 of 10
    assert lmms_r.score[0] == 1.0 and lmms_r.score[1] == 0.0                      # "(B)" is not "B", as upstream
    assert lmms_r.status[1] == "no_letter"


def test_bad_input_is_reported_and_the_rest_loads(tmp_path):
    scene = {"scene_name": "s1", "questions": [
        {"dataset": "scannet", "scene_name": "s1", "question": "q zero", "question_type": "object_counting",
         "ground_truth": "0"},
        {"dataset": "scannet", "scene_name": "s1", "question": "q words", "question_type": "room_size_estimation",
         "ground_truth": "big"},
        {"dataset": "scannet", "scene_name": "s1", "question": "q letter", "question_type": "route_planning",
         "ground_truth": "E", "options": ["A. l", "B. r"]},
        {"dataset": "scannet", "scene_name": "s1", "question": "q fine", "question_type": "object_rel_distance",
         "ground_truth": "A", "options": ["A. l", "B. r"]}]}
    (tmp_path / "s1_questions.json").write_text(json.dumps(scene))
    answers = {"scene_name": "s1", "questions": [
        {"question": "q zero", "model_answer": "0"}, {"question": "q words", "model_answer": "20"},
        {"question": "q letter", "model_answer": "E"}, {"question": "q fine", "model_answer": "B"},
        {"question": "q fine", "model_answer": "A"}, {"question": "not asked", "model_answer": "A"}]}
    resp = tmp_path / "answers" / "s1_model_response.json"
    resp.parent.mkdir()
    resp.write_text(json.dumps(answers))
    s = open_session(tmp_path, [resp])
    codes = {d.code: str(d) for d in s.diagnostics}
    assert "questions[0]" in codes["truth.zero"]
    assert "questions[2]" in s.diagnostics.with_code("truth.invalid")[1].message
    assert "not a number" in s.diagnostics.with_code("truth.invalid")[0].message
    assert "questions[4]" in codes["prediction.duplicate"] and "questions[3]" in codes["prediction.duplicate"]
    assert "questions[5]" in codes["prediction.unmatched_question"]
    r = s.results[0]
    assert r.model == "model"
    assert list(r.score) == [0.0, 0.0, 0.0, 1.0]          # zero and unreadable truths score 0; last answer wins


def test_per_scene_files_merge_and_overlaps_are_reported(tmp_path):
    one, two = RESPONSES[0], tmp_path / "again_gemini_response.json"
    two.write_text(one.read_text())
    s = open_session(QUESTIONS, [one, RESPONSES[1], two])
    assert s.models == ["gemini"]
    assert s.diagnostics.with_code("prediction.overlap")


def test_mixed_release_is_refused(tmp_path):
    _jsonl(tmp_path / "questions.jsonl", [{"uid": "a", "task": "Self_Localization_Global_Position", "answer": "1"},
                                          ROWS[0]])
    with pytest.raises(UserError, match="mixes 1 GST-Bench questions .* and 1 VSI-Bench"):
        load_release(tmp_path)
    _jsonl(tmp_path / "questions.jsonl", [ROWS[0], {"uid": "a", "task": "Self_Localization_Global_Position"}])
    with pytest.raises(UserError, match="mixes"):
        load_release(tmp_path)


def test_gst_benchmark_is_todays_table():
    from viewer.core.benchmarks import GST
    from viewer.core.benchmarks.gst.columns import COLUMNS
    assert GST.columns is COLUMNS and GST.table_keys == tuple(c.key for c in COLUMNS) and not GST.groups
