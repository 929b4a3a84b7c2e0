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
    assert not out.exists and "outside the release" in out.problem
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
