"""VSI-Bench's ground-truth audit: the real meta_info files read in every variant, the stored answers of the
real Gemini-study questions reproduced from them, and planted errors each found by its check."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from viewer.core.audit import run_audit
from viewer.core.benchmarks.vsi.checks import closest_distance, direction_answer
from viewer.core.benchmarks.vsi.objects import MetaInfoLibrary, ObjectBox, read_meta_info
from viewer.core.diagnostics import Diagnostics
from viewer.core.release import load_release

DATA = Path(__file__).parent / "data"
QUESTIONS = DATA / "vsi-gemini" / "scannet_questions"
REAL_META = DATA / "vsi-meta-info" / "meta_info"
SCENES = ("scene0207_02", "scene0222_01", "scene0231_00", "scene0593_00", "scene0697_01")
OWN = ("vsi_count_mismatch", "vsi_size_mismatch", "vsi_room_size_mismatch", "vsi_abs_distance_mismatch",
       "vsi_rel_distance_mismatch", "vsi_rel_direction_mismatch")


# ------------------------------------------------------------------ the real files
@pytest.mark.parametrize("dataset, scene", [("scannet", "scene0207_02"), ("scannetpp", "7b6477cb95"),
                                            ("arkitscenes", "41069025")])
def test_each_real_meta_info_file_reads_with_its_boxes_where_its_min_and_max_say(dataset, scene):
    path = REAL_META / f"{dataset}_meta_info_val.json"
    raw = json.loads(path.read_text())[scene]
    diags = Diagnostics()
    objects = read_meta_info(path, diags)[scene]
    assert not list(diags) and objects.dataset == dataset
    assert objects.room_size == pytest.approx(raw["room_size"])
    assert set(objects.boxes) == set(raw["object_bbox"]) and objects.counts == raw["object_counts"]
    for category, items in raw["object_bbox"].items():
        for box, item in zip(objects.boxes[category], items, strict=True):
            corners = box.corners()        # the axes are rows: the corners span exactly min..max
            assert np.allclose(corners.min(axis=0), item["min"], atol=1e-6)
            assert np.allclose(corners.max(axis=0), item["max"], atol=1e-6)


def test_object_counts_is_the_count_even_where_the_boxes_disagree():
    objects = read_meta_info(REAL_META / "scannet_meta_info_val.json", Diagnostics())["scene0207_02"]
    assert objects.count("printer") == 1 and len(objects.boxes["printer"]) == 2     # as in the real file


def test_a_box_given_by_its_min_and_max_only_is_axis_aligned(tmp_path):
    (tmp_path / "x_meta_info_val.json").write_text(json.dumps(
        {"s1": {"object_bbox": {"lamp": [{"min": [0, 0, 0], "max": [1, 2, 3]}]}}}))
    (box,) = MetaInfoLibrary(tmp_path).scene("s1").boxes["lamp"]
    assert np.allclose(box.centroid, [0.5, 1, 1.5]) and np.allclose(box.lengths, [1, 2, 3])


def test_the_library_says_which_scenes_its_files_do_not_cover(tmp_path):
    shutil.copytree(REAL_META, tmp_path / "meta_info")
    lib = MetaInfoLibrary(tmp_path)
    assert lib.uncovered([*SCENES, "scene0999_00", "41069025"]) == ["scene0999_00"]
    note = lib.coverage([*SCENES, "scene0999_00"])
    assert "do not cover 1 of the release's 6 scenes: scene0999_00" in note
    assert lib.coverage(SCENES) == ""
    assert "no meta_info file beside the release" in MetaInfoLibrary(tmp_path / "none").coverage(SCENES)


# ------------------------------------------------------------------ the rules
def test_closest_points_of_two_boxes():
    eye = np.eye(3)
    a = ObjectBox("a", np.zeros(3), eye, np.ones(3))
    b = ObjectBox("b", np.array([3.0, 0, 0]), eye, np.ones(3))
    assert closest_distance(a, b) == pytest.approx(2.0, abs=1e-9)
    c45 = np.sqrt(0.5)
    turned = ObjectBox("c", np.array([3.0, 0, 0]), np.array([[c45, c45, 0], [-c45, c45, 0], [0, 0, 1]]), np.ones(3))
    assert closest_distance(a, turned) == pytest.approx(2.5 - c45, abs=0.02)    # its corner points at a
    assert closest_distance(a, ObjectBox("d", np.array([0.5, 0, 0]), eye, np.ones(3))) == 0.0


@pytest.mark.parametrize("level, bearing, answer", [
    ("easy", -10, "left"), ("easy", 170, "right"), ("medium", -134, "left"), ("medium", 135, "back"),
    ("medium", 20, "right"), ("hard", -20, "front-left"), ("hard", 100, "back-right"), ("hard", -91, "back-left")])
def test_direction_answers(level, bearing, answer):
    assert direction_answer(level, bearing) == answer


# ------------------------------------------------------------------ the Gemini-study scenes
def _release(tmp_path: Path, edit=None, meta: Path = REAL_META) -> Path:
    """The 5 Gemini-study scenes' questions with the real meta_info beside them; `edit(scene, questions)`
    changes a scene's questions first."""
    root = tmp_path / "release"
    root.mkdir()
    for f in sorted(QUESTIONS.glob("*_questions.json")):
        doc = json.loads(f.read_text())
        if edit is not None:
            edit(doc["scene_name"], doc["questions"])
        (root / f.name).write_text(json.dumps(doc))
    shutil.copytree(meta, root / "meta_info")
    return root


def test_every_stored_answer_of_the_gemini_scenes_is_reproduced(tmp_path):
    report = run_audit(load_release(_release(tmp_path)))
    assert not report.findings
    summary = report.summary()
    checked = {c: summary[c]["checked"] for c in OWN}
    assert checked == {"vsi_count_mismatch": 24, "vsi_size_mismatch": 37, "vsi_room_size_mismatch": 5,
                       "vsi_abs_distance_mismatch": 34, "vsi_rel_distance_mismatch": 56,
                       "vsi_rel_direction_mismatch": 52}
    assert all(summary[c]["skipped"] == 0 for c in OWN)
    assert summary["vsi_meta_info"] == {"flagged": 0, "checked": 1, "skipped": 0}


def _first(questions, qtype):
    return next(q for q in questions if q["question_type"] == qtype)


def _plant(scene, questions):
    if scene == "scene0222_01":
        q = _first(questions, "object_counting")                       # bed: 2
        q["ground_truth"] = str(int(q["ground_truth"]) + 2)
        q = _first(questions, "object_size_estimation")                # lamp: 72
        q["ground_truth"] = str(round(float(q["ground_truth"]) * 1.5))
        q = _first(questions, "room_size_estimation")                  # 17.5
        q["ground_truth"] = str(float(q["ground_truth"]) * 2)
        q = _first(questions, "object_abs_distance")                   # nightstand-lamp: 0.4
        q["ground_truth"] = str(float(q["ground_truth"]) * 2)
        q = _first(questions, "object_rel_direction_hard")             # radiator: D front-left
        q["ground_truth"] = "A"
        q = _first(questions, "object_rel_distance")                   # closest to the lamp: A nightstand
        q["ground_truth"] = "D"


def test_planted_errors_are_each_found_by_their_check(tmp_path):
    report = run_audit(load_release(_release(tmp_path, _plant)))
    by_check = {f.check: f for f in report.findings}
    assert sorted(by_check) == sorted(OWN) and len(report.findings) == len(OWN)
    assert all(f.severity == "error" and f.uid.startswith("scene0222_01#") for f in report.findings)
    count = by_check["vsi_count_mismatch"].details
    assert (count["stored"], count["recomputed"]) == (4, 2) and count["objects"][0]["category"] == "bed"
    size = by_check["vsi_size_mismatch"].details
    assert size["stored"] == 108 and size["recomputed"] == pytest.approx(72.4, abs=0.1)
    assert by_check["vsi_room_size_mismatch"].details["recomputed"] == pytest.approx(17.51, abs=0.01)
    dist = by_check["vsi_abs_distance_mismatch"].details
    assert dist["stored"] == 0.8 and dist["recomputed"] == pytest.approx(0.35, abs=0.02)
    assert [o["category"] for o in dist["objects"]] == ["nightstand", "lamp"]
    direction = by_check["vsi_rel_direction_mismatch"]
    assert (direction.details["stored"], direction.details["recomputed"]) == ("A", "D")
    assert "front-left" in direction.message
    assert [o["category"] for o in direction.details["objects"]] == ["lamp", "fan", "radiator"]
    rel = by_check["vsi_rel_distance_mismatch"].details
    assert (rel["stored"], rel["recomputed"]) == ("D", "A") and rel["distances"]["nightstand"] < 0.4


def _ambiguous(scene, questions):
    if scene == "scene0207_02":          # the printer: counted once, two identical boxes
        questions.append({"dataset": "scannet", "scene_name": scene, "question_type": "object_counting",
                          "question": "How many printer(s) are in this room?", "ground_truth": "2"})
        questions.append({"dataset": "scannet", "scene_name": scene, "question_type": "object_size_estimation",
                          "question": "What is the length of the longest dimension (length, width, or height) "
                                      "of the printer, measured in centimeters?", "ground_truth": "60"})


    if scene == "scene0222_01":          # the radiator 0.8° left of facing the lamp: front-left, stored B
        q = next(q for q in questions if q["question"].startswith("If I am standing by the nightstand and facing "
                                                                  "the lamp, is the radiator to my front-left"))
        assert q["ground_truth"] == "B" and q["options"][3] == "D. front-right"
        q["ground_truth"] = "D"


def test_where_the_rule_cannot_tell_the_finding_says_so_and_is_a_warning(tmp_path):
    report = run_audit(load_release(_release(tmp_path, _ambiguous)))
    by_check = {f.check: f for f in report.findings}
    assert sorted(by_check) == ["vsi_count_mismatch", "vsi_rel_direction_mismatch", "vsi_size_mismatch"]
    tie = by_check["vsi_rel_direction_mismatch"]
    assert tie.severity == "warning" and "0.8° from a boundary between answers: a tie" in tie.message
    count, size = by_check["vsi_count_mismatch"], by_check["vsi_size_mismatch"]
    assert count.severity == size.severity == "warning"
    assert "disagrees with itself" in count.message and count.details["boxes"] == 2
    assert "ambiguous" in size.message and len(size.details["candidates"]) == 2


def test_a_scene_the_meta_info_does_not_cover_is_said_once_and_its_questions_skipped(tmp_path):
    meta = tmp_path / "meta"
    meta.mkdir()
    doc = json.loads((REAL_META / "scannet_meta_info_val.json").read_text())
    del doc["scene0593_00"]
    (meta / "scannet_meta_info_val.json").write_text(json.dumps(doc))
    release = load_release(_release(tmp_path, meta=meta))
    report = run_audit(release)
    (note,) = report.findings
    assert note.check == "vsi_meta_info" and note.details["uncovered"] == ["scene0593_00"]
    n_skipped = sum(report.summary()[c]["skipped"] for c in OWN)
    assert n_skipped == sum(1 for q in release.questions if q.scene == "scene0593_00"
                            and q.column.key not in ("route_planning", "obj_appearance_order"))
