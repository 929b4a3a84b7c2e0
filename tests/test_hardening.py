"""Regressions from the fuzzing pass (issue 19): inputs that hung, crashed or read outside the release."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from viewer.core.release import load_release
from viewer.core.session import open_session

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"


def _rec(uid, **kw):
    return {"uid": uid, "task": "Global_Structure_Understanding_Topdown_Selection_Easy", "scene": "scene_1",
            "answer": "A", "texts": ["q", "A", "B"], **kw}


def _images(*names):
    return [{"index": k, "copied_path": n} for k, n in enumerate(names)]


def test_a_named_pipe_as_media_is_reported_not_opened(tmp_path):
    (tmp_path / "a.png").write_bytes(b"png")
    os.mkfifo(tmp_path / "pipe.png")
    (tmp_path / "questions.jsonl").write_text(json.dumps(_rec("q1", images=_images("a.png", "pipe.png"))) + "\n")
    r = load_release(tmp_path)
    ref = r.get("q1").images[1]
    assert not ref.exists and "named pipe" in ref.problem
    assert r.get("q1").images[0].exists


def test_a_named_pipe_as_question_file_is_reported_and_the_rest_loads(tmp_path):
    good = tmp_path / "q_good"
    good.mkdir()
    (good / "question.json").write_text(json.dumps(_rec("good")))
    bad = tmp_path / "q_bad"
    bad.mkdir()
    os.mkfifo(bad / "question.json")
    r = load_release(tmp_path)                       # must not block
    assert [q.uid for q in r.questions] == ["good"]
    assert any("named pipe" in d.message or "named pipe" in str(d) for d in r.diagnostics)


@pytest.mark.skipif(os.getuid() == 0 and not Path("/etc/passwd").exists(), reason="needs /etc/passwd")
def test_a_symlink_out_of_the_release_is_refused(tmp_path):
    (tmp_path / "a.png").write_bytes(b"png")
    (tmp_path / "view.png").symlink_to("/etc/passwd")
    inside = tmp_path / "b.png"
    inside.write_bytes(b"png")
    (tmp_path / "link_in.png").symlink_to(inside)
    recs = [_rec("q1", images=_images("a.png", "view.png")), _rec("q2", images=_images("a.png", "link_in.png"))]
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    r = load_release(tmp_path)
    out = r.get("q1").images[1]
    assert not out.exists and out.problem == "escapes the release (symbolic link to /etc/passwd); refused"
    assert r.get("q2").images[1].exists                 # a link that stays inside is followed


@pytest.mark.parametrize("bad", ["a\x00b.png", "a\ud800.png"])
def test_a_nul_or_a_lone_surrogate_in_a_media_path_is_reported(tmp_path, bad):
    (tmp_path / "a.png").write_bytes(b"png")
    recs = [_rec("q1", images=_images("a.png", bad)), _rec("q2", images=_images("a.png", "a.png"))]
    text = "".join(json.dumps(r) + "\n" for r in recs)
    (tmp_path / "questions.jsonl").write_text(text)
    r = load_release(tmp_path)
    assert len(r) == 2 and not r.get("q1").images[1].exists
    assert "NUL" in r.get("q1").images[1].problem
    assert r.get("q2").images[1].exists


def test_deep_nesting_and_huge_integers_are_per_line_errors(tmp_path):
    lines = [json.dumps(_rec("ok1")), "[" * 100_000, '{"uid": "big", "n": ' + "9" * 5000 + "}",
             json.dumps(_rec("ok2"))]
    (tmp_path / "questions.jsonl").write_text("\n".join(lines) + "\n")
    r = load_release(tmp_path)
    assert [q.uid for q in r.questions] == ["ok1", "ok2"]
    errs = {d.line: d for d in r.diagnostics.with_code("json.")}
    assert "nested too deeply" in errs[2].message and "number too long" in errs[3].message


def test_deep_nesting_in_a_question_json_is_reported(tmp_path):
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "question.json").write_text("[" * 100_000)
    r = load_release(tmp_path)
    assert len(r) == 0
    assert any(d.code == "json.unreadable_value" for d in r.diagnostics)


def test_audit_with_a_pipe_over_a_view_image_finishes(tmp_path):
    """`mkfifo` over a demo view image, then `audit`: was a hang (rc 124), now a finding."""
    import shutil
    release = tmp_path / "demo"
    shutil.copytree(DEMO, release)
    view = release / "scenes" / "scene_1" / "views" / "pos_15_orient_0.jpg"
    view.unlink()
    os.mkfifo(view)
    p = subprocess.run([sys.executable, "-m", "viewer", "audit", str(release), "--json", "--checks", "missing_media"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    report = json.loads(p.stdout)
    problems = [f for f in report["findings"] if f["check"] == "missing_media"]
    assert any("pos_15_orient_0.jpg" in json.dumps(f) for f in problems)


def test_scoring_still_works_after_a_pipe_in_the_predictions_folder(tmp_path):
    os.mkfifo(tmp_path / "fifo.jsonl")
    session = open_session(DEMO, [tmp_path / "fifo.jsonl"])
    assert not session.results and any("named pipe" in str(d) for d in session.diagnostics)


def _demo_uids(n):
    return [line.split('"uid": "')[1].split('"')[0] for line in
            (DEMO / "predictions" / "noisy-expert.jsonl").read_text().splitlines()[:n]]


@pytest.mark.parametrize("newline", ["\r", "\n"])
def test_a_table_with_a_huge_cell_or_bare_cr_lines_loses_only_that_row(tmp_path, newline):
    uids = _demo_uids(3)
    rows = ["uid\tprediction", f"{uids[0]}\t10", f"{uids[1]}\t" + "x" * 200_000, f"{uids[2]}\t20"]
    path = tmp_path / "model.tsv"
    path.write_text(newline.join(rows) + newline, newline="")
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"uid": uids[0], "prediction": "5"}) + "\n")
    session = open_session(DEMO, [path, other])      # one bad file never stops the others
    assert [r.model for r in session.results] == ["model", "other"]
    got = session.results[0]
    assert {session.release.uids[i] for i in range(len(got.raw)) if got.raw[i] is not None} == {uids[0], uids[2]}
    assert [d.line for d in got.diagnostics.with_code("prediction.bad_row")] == [3]


def test_audit_json_with_a_nan_answer_is_valid_json(tmp_path):
    recs = [{"uid": "a", "task": "Object_Localization_Egocentric_Distance_visual", "scene": "s", "answer": "NaN",
             "texts": ["q"]}]
    text = "\n".join(json.dumps(r) for r in recs).replace('"NaN"', "NaN") + "\n"
    (tmp_path / "questions.jsonl").write_text(text)
    p = subprocess.run([sys.executable, "-m", "viewer", "audit", str(tmp_path), "--json"],
                       capture_output=True, text=True, timeout=120)
    doc = json.loads(p.stdout)                       # was: "Out of range float values are not JSON compliant"
    (finding,) = [f for f in doc["findings"] if f["check"] == "invalid_answer"]
    assert finding["details"]["answer"] is None


def test_a_scene_id_longer_than_a_file_name_is_reported(tmp_path):
    from viewer.core.scene.sources import SceneLibrary
    long_id = "s" * 300
    rec = {"uid": "a", "task": "Object_Localization_Egocentric_Distance_visual", "scene": long_id, "answer": 1.0,
           "texts": ["q"]}
    (tmp_path / "questions.jsonl").write_text(json.dumps(rec) + "\n")
    (tmp_path / "scenes").mkdir()
    r = load_release(tmp_path)
    assert SceneLibrary(tmp_path).get(r.get("a").scene) is None      # was OSError: File name too long


@pytest.mark.parametrize("key", ["EDist_v", "GP_v"])      # a direction towards it is still finite
def test_a_box_at_1e308_gives_a_reason_not_an_overflow(tmp_path, key):
    import scene_release as sr

    from viewer.core.geometry import recompute_ground_truth
    from viewer.core.scene.model import link_question
    from viewer.core.scene.sources import SceneLibrary

    def far(doc):
        doc["instances"][sr.TARGET]["bbox3"]["translation"] = [1e308, 1e308, 0.0]
    sr.build(tmp_path, video=False)
    sr.write_scene_folder(tmp_path, sr.scene(video=False), edit=far)
    r = load_release(tmp_path)
    q = r.get(sr.UIDS[key])
    got = recompute_ground_truth(q, link_question(q, SceneLibrary(tmp_path).get(q.scene)))
    assert got.value is None and "finite" in got.reason


def test_absurd_intrinsics_are_refused_with_a_message(tmp_path):
    """A 1e9-pixel camera made the audit cast rays for 39 s instead of 2.5 s."""
    import scene_release as sr

    from viewer.core.scene.sources import SceneLibrary

    def huge(doc):
        doc["videos"]["video_0"]["intrinsics"].update(width=1e9, height=1e9)
    sr.build(tmp_path, video=False)
    sr.write_scene_folder(tmp_path, sr.scene(video=True), edit=huge)
    scene = SceneLibrary(tmp_path).get(sr.SCENE)
    assert scene.videos["video_0"].intrinsics is None
    (d,) = [d for d in scene.diagnostics if d.code == "scene.bad_intrinsics"]
    assert "beyond 16384 pixels" in d.message and "video_0" in d.message


def test_a_mesh_beyond_the_triangle_budget_is_refused(tmp_path, monkeypatch):
    import trimesh

    from viewer.core.diagnostics import UserError
    from viewer.render.scene_mesh import load_scene_mesh
    path = tmp_path / "big.ply"
    trimesh.creation.icosphere(subdivisions=3).export(path)          # 1,280 triangles
    assert len(load_scene_mesh(path).triangles) == 1280
    monkeypatch.setenv("GST_VIEWER_MAX_TRIANGLES", "1000")
    with pytest.raises(UserError, match="1,280 triangles, beyond the budget of 1,000"):
        load_scene_mesh(path)


def test_many_rays_are_cast_in_slices_with_the_same_result(monkeypatch):
    import numpy as np

    from viewer.render import raycast
    from viewer.render.scene_mesh import boxes_mesh
    caster = raycast.Raycaster(boxes_mesh({"box": ([0, 0, 0], [1, 1, 1], [0, 0, 0, 1])}, {}))
    rng = np.random.default_rng(0)
    rays = np.concatenate([rng.uniform(-3, 3, (40, 30, 3)), rng.normal(size=(40, 30, 3))], axis=-1).astype(np.float32)
    whole = caster.cast(rays)
    monkeypatch.setattr(raycast, "INTERRUPTIBLE_RAYS", 7)
    sliced = caster.cast(rays)
    for k in whole:
        assert sliced[k].shape == whole[k].shape
        np.testing.assert_array_equal(sliced[k], whole[k])
    assert (whole["primitive_ids"] >= 0).any() and (whole["primitive_ids"] < 0).any()


def test_a_line_separator_inside_a_json_string_keeps_the_record_and_the_line_numbers(tmp_path):
    recs = [_rec("q1", texts=["first\u2028second"]), _rec("q2"), "not json", _rec("q3", texts=["a\x85b"])]
    lines = [json.dumps(r, ensure_ascii=False) if isinstance(r, dict) else r for r in recs]
    (tmp_path / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = load_release(tmp_path)
    assert [q.uid for q in r.questions] == ["q1", "q2", "q3"]
    assert [d.line for d in r.diagnostics.with_code("json.malformed")] == [3]


def test_two_broken_lines_never_merge_into_one_record(tmp_path):
    """Joined by the whole-file parse's commas, `{... [1` and `2]}` read as one record, and a line with two
    values kept the count: the fast path took it. Each of those lines is now judged on its own."""
    good = json.dumps(_rec("ok"))
    broken_start = json.dumps(_rec("merged"))[:-1] + ', "extra": [1'
    broken_end = '2]}'
    two_values = json.dumps(_rec("x1")) + ", " + json.dumps(_rec("x2"))
    (tmp_path / "questions.jsonl").write_text("\n".join([good, broken_start, broken_end, two_values]) + "\n")
    r = load_release(tmp_path)
    assert "merged" not in r.index
    assert [d.line for d in r.diagnostics.with_code("json.malformed")] == [2, 3, 4]


def test_a_400_digit_integer_answer_or_prediction_is_not_finite(tmp_path):
    from viewer.core.kinds import ANGLE, DISTANCE, POINT
    huge = 10**400                                    # json reads it as an int; float() overflows
    assert ANGLE.parse(huge).status == "not_finite"
    assert DISTANCE.parse_truth(huge).status == "not_finite"
    assert POINT.parse([huge, 3]).status == "not_finite"
    rec = _rec("q1", task="Object_Localization_Egocentric_Distance_visual", answer=huge)
    (tmp_path / "questions.jsonl").write_text(json.dumps(rec) + "\n")
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"uid": "q1", "prediction": huge}) + "\n")
    session = open_session(tmp_path, [preds])
    assert session.results[0].status[0] == "not_finite"


def test_a_mesh_linked_out_of_the_scene_folder_is_refused(tmp_path):
    import scene_release as sr

    from viewer.core.scene.sources import SceneLibrary
    outside = tmp_path / "elsewhere.glb"
    outside.write_bytes(b"glTF")
    sr.build(tmp_path / "rel", video=False)

    def with_mesh(doc):
        doc["geometry"] = {"mesh": "scene.glb"}
    folder = sr.write_scene_folder(tmp_path / "rel", sr.scene(video=False), edit=with_mesh)
    (folder / "scene.glb").symlink_to(outside)
    scene = SceneLibrary(tmp_path / "rel").get(sr.SCENE)
    assert scene.mesh is None
    assert any(d.code == "scene.path_escapes" for d in scene.diagnostics)


def test_audit_of_a_release_with_no_question_loaded(tmp_path):
    (tmp_path / "questions.jsonl").write_text("not json\n")
    p = subprocess.run([sys.executable, "-m", "viewer", "audit", str(tmp_path), "--json"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 2), p.stderr
    assert "Traceback" not in p.stderr
