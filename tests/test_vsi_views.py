"""VSI-Bench's views in core and on the command line: units per question, meta_info object boxes,
scans linked by scene id, the audit's skip reason, and --benchmark on every command that opens a release."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from viewer.core import primitives as pr
from viewer.core.benchmarks import GST, VSI, Scale
from viewer.core.benchmarks.vsi.benchmark import question_scale
from viewer.core.benchmarks.vsi.objects import MetaInfoLibrary, objects_topdown, question_categories, read_meta_info
from viewer.core.diagnostics import Diagnostics
from viewer.core.release import load_release

DATA = Path(__file__).parent / "data"
QUESTIONS = DATA / "vsi-gemini" / "scannet_questions"
META = DATA / "vsi-scannet" / "meta_info" / "scannet_meta_info_val.json"


# ------------------------------------------------------------------ units
@pytest.mark.parametrize("qtype, text, scale", [
    ("object_counting", "How many chair(s) are in this room?", Scale("count")),
    ("object_abs_distance", "... between the fan and the lamp (in meters)?", Scale("distance", "m")),
    ("object_size_estimation", "... of the lamp, measured in centimeters?", Scale("size", "cm")),
    ("object_size_estimation", "... of the sofa, in meters?", Scale("size", "m")),     # the text names its unit
    ("room_size_estimation", "What is the size of this room (in square meters)?", Scale("area", "m²")),
    ("object_rel_distance", "which is the closest to the lamp?", None),
])
def test_each_numeric_question_has_its_scale(qtype, text, scale):
    assert question_scale(qtype, text) == scale


def test_scale_texts():
    assert Scale("size", "cm").text(72) == "72 cm" and Scale("area", "m²").text(17.53) == "17.53 m²"
    assert Scale("count").text(3) == "3" and Scale("count").text(2.5) == "2.5"
    assert Scale("size", "cm").axis == "size (cm)" and Scale("count").axis == "count"


def test_the_scale_comes_from_the_benchmark():
    release = load_release(QUESTIONS)
    by_type = {}
    for q in release.questions:
        by_type.setdefault(q.column.key, VSI.scale(q))
    assert by_type["object_size_estimation"] == Scale("size", "cm")
    assert by_type["room_size_estimation"] == Scale("area", "m²")
    assert by_type["object_rel_distance"] is None
    from viewer.assets import default_release
    gst = load_release(default_release())
    assert all(GST.scale(q) is None for q in gst.questions[:50])     # GST distances: the bars' metres, as before


def test_option_text_names_its_chart():
    from viewer.core.benchmarks.vsi.option_text import OPTION_TEXT
    assert OPTION_TEXT.chart == "option-texts"


# ------------------------------------------------------------------ meta_info
def test_meta_info_boxes_and_the_questions_objects():
    diags = Diagnostics()
    scene = read_meta_info(META, diags)["scene0222_01"]
    assert not diags.items and scene.room_size == 17.5
    assert len(scene.boxes["trash bin"]) == 3
    fan = scene.boxes["fan"][0]
    # A box turned 0.4 rad: its footprint is the 4 turned corners around its centroid.
    hull = fan.footprint()
    assert len(hull) == 4 and np.allclose(hull.mean(axis=0), fan.centroid[:2])
    assert np.allclose(sorted(np.linalg.norm(hull - fan.centroid[:2], axis=1)), [np.hypot(.2, .2)] * 4)
    text = "How many trash bin(s) are in this room? Is the bed closer to the lamp?"
    assert question_categories(text, scene.boxes) == ["trash bin", "bed", "lamp"]

    ov = objects_topdown(scene, text)
    assert sorted(p.text for p in ov.of(pr.Label, pr.TARGET)) == ["bed 1", "bed 2", "lamp", "trash bin 1",
                                                                 "trash bin 2", "trash bin 3"]
    pts = np.concatenate([p.points for p in ov.of(pr.Polygon, pr.TARGET)])
    assert max(ov.width, ov.height) == 640
    assert (pts >= 0).all() and (pts[:, 0] <= ov.width).all() and (pts[:, 1] <= ov.height).all()
    # World y up is image y down: the lamp (y = 3.45) is drawn above the bed 1 (y = 1.6).
    lamp = ov.of(pr.Polygon, pr.TARGET)[-1].points
    bed = ov.of(pr.Polygon, pr.TARGET)[2].points
    assert lamp[:, 1].mean() < bed[:, 1].mean()
    room = objects_topdown(scene, "What is the size of this room (in square meters)?")
    assert len(room.of(pr.Polygon, pr.TARGET)) == sum(map(len, scene.boxes.values()))    # every object
    assert any("17.5 m²" in n for n in room.notes)


def test_bad_meta_info_entries_are_reported_and_the_rest_reads(tmp_path):
    bad = tmp_path / "meta_info"
    bad.mkdir()
    (bad / "scannet_meta_info_val.json").write_text(json.dumps({
        "scene1": {"room_size": "big", "object_bboxes": {"lamp": [{"centroid": [0, 0]}, {
            "centroid": [1, 1, 0.5], "axesLengths": [0.2, 0.2, 1], "normalizedAxes": [1, 0, 0, 0, 1, 0, 0, 0, 1]}]}},
        "scene2": [1, 2]}))
    lib = MetaInfoLibrary(tmp_path)
    scene = lib.scene("scene1")
    assert scene.room_size is None and len(scene.boxes["lamp"]) == 1
    (box,) = lib.diagnostics.with_code("meta_info.bad_box")
    assert "scene1.object_bboxes.lamp[0]" in box.message
    assert lib.diagnostics.with_code("meta_info.bad_entry") and lib.scene("scene2") is None


# ------------------------------------------------------------------ scans linked by scene id
def test_a_question_named_after_its_scene_takes_the_scans_one_video():
    from viewer.core.scene.model import Scene, VideoTrack, link_question
    release = load_release(QUESTIONS)
    q = release.questions[0]
    scene = Scene(q.scene, "/nowhere")
    scene.videos["trajectory"] = VideoTrack("trajectory", None, 30.0, None, np.tile(np.eye(4), (3, 1, 1)))
    g = link_question(q, scene)
    assert g.video is scene.videos["trajectory"] and not g.problems
    scene.videos["second"] = scene.videos["trajectory"]
    g = link_question(q, scene)                    # two videos: which one is the question's is not known
    assert g.video is None and "is not in scene" in g.problems[0]


# ------------------------------------------------------------------ audit
def test_the_audit_runs_the_checks_that_apply_to_a_vsi_release_and_says_the_others_do_not():
    from viewer.core.audit import run_audit
    release = load_release(QUESTIONS)       # no meta_info beside it
    report = run_audit(release)
    summary = report.summary()
    n = len(release)
    assert summary["invalid_answer"] == summary["missing_media"] == {"flagged": 0, "checked": n, "skipped": 0}
    own = [c for c in summary if c.startswith("vsi_") and c != "vsi_meta_info"]
    assert len(own) == 6 and sum(summary[c]["skipped"] for c in own) == 208      # the 6 types' questions
    for check in own:
        assert summary[check]["checked"] == 0
        assert set(report.tally.skip_reasons[check]) == {"scene not in the meta_info files"}
    (note,) = report.findings                # the missing meta_info is said once
    assert note.check == "vsi_meta_info" and note.uid is None and "no meta_info file" in note.message
    others = [c for c in summary if c not in VSI.audit_checks]
    assert len(others) == 16 and all(summary[c] == {"flagged": 0, "checked": 0, "skipped": n} for c in others)
    for check in others:
        (reason, _), = report.tally.skip_reasons[check].most_common(1)
        assert reason == "a GST-Bench check; not applicable to VSI-Bench questions"
    assert any("16 of the 25 audit checks do not apply" in p for p in report.problems)


# ------------------------------------------------------------------ --benchmark everywhere
def _run(*args):
    return subprocess.run([sys.executable, "-m", "viewer", *map(str, args)], capture_output=True, text=True,
                          timeout=180, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})


def test_render_takes_benchmark(tmp_path):
    preds = DATA / "vsi-gemini" / "gemini_response" / "scene0222_01_gemini_response.json"
    out = tmp_path / "fig.png"
    ok = _run("render", QUESTIONS, "-p", preds, "--uid", "scene0222_01#14", "--out", out, "--benchmark", "vsi")
    assert ok.returncode == 0, ok.stderr
    assert out.read_bytes()[:4] == b"\x89PNG"
    forced = _run("render", QUESTIONS, "-p", preds, "--uid", "scene0222_01#14", "--out", out, "--benchmark", "gst")
    assert forced.returncode == 2, forced.stderr                                 # the folder is VSI-Bench's: said so
    assert "this folder is a VSI-Bench release (5 `*_questions.json` files); drop --benchmark gst" in forced.stderr


@pytest.mark.parametrize("command", [[], ["clip"], ["gallery"], ["render"]])
def test_every_command_that_opens_a_release_lists_benchmark(command):
    p = _run(*command, "--help")
    assert p.returncode == 0 and ("--benchmark {gst,vsi}" if command else "--benchmark gst|vsi") in p.stdout


def test_window_screenshot_with_forced_benchmark(tmp_path):
    out = tmp_path / "w.png"
    p = _run(QUESTIONS, "-p", DATA / "vsi-gemini" / "gemini_response" / "scene0222_01_gemini_response.json",
             "--benchmark", "vsi", "--uid", "scene0222_01#10", "--screenshot", out, "--size", "900x600")
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:4] == b"\x89PNG"
