"""Messages that say the cause (issue 25, point 3): a link out of the release, a Git LFS pointer.

Each is checked where a user reads it: the load's diagnostics (the window's Problems list shows
them, tests/ui/test_hardening_ui.py), and the audit's JSON (`code` is the check, `message` the cause).
"""
import json
import subprocess
import sys

import pytest
from broken_release import LFS_POINTER_TEXT, make_broken

from viewer.core.diagnostics import UserError
from viewer.core.predictions import load_predictions
from viewer.core.release import load_release


def _media_problems(report: dict, name: str) -> list[str]:
    """What the audit's missing_media findings say of the file `name` (a finding lists all its question's media)."""
    return [m["problem"] for f in report["findings"] if f["check"] == "missing_media"
            for m in f["details"]["media"] if name in m["path"]]


def _audit_json(root) -> dict:
    p = subprocess.run([sys.executable, "-m", "viewer", "audit", str(root), "--json", "--checks", "missing_media"],
                       capture_output=True, text=True, timeout=120)
    assert p.stdout, p.stderr
    return json.loads(p.stdout)


def test_a_link_out_of_the_release_is_said_to_escape_it_not_to_be_missing(tmp_path):
    root, name, _ = make_broken(tmp_path, "symlink")
    release = load_release(root)
    why = [m.message for m in release.diagnostics.with_code("media.missing") if name in m.message]
    assert why and "escapes the release (symbolic link to /etc/passwd); refused" in why[0], why
    assert "file not found" not in why[0]
    assert _media_problems(_audit_json(root), name) == ["escapes the release (symbolic link to /etc/passwd); refused"]


def test_a_git_lfs_pointer_in_place_of_an_image_is_named_so(tmp_path):
    root, name, _ = make_broken(tmp_path, "lfs-image")
    assert _media_problems(_audit_json(root), name) == ["a Git LFS pointer, not the file (run `git lfs pull`)"]


def test_a_git_lfs_pointer_in_place_of_a_question_file_is_not_called_malformed_json(tmp_path):
    root, name, _ = make_broken(tmp_path, "lfs-json")
    release = load_release(root)
    said = [d for d in release.diagnostics if name in str(d.file or "") or name in d.message]
    assert said and "a Git LFS pointer, not the file (run `git lfs pull`)" in said[0].message, said
    assert not release.diagnostics.with_code("json.malformed")
    assert len(release) == 5                            # the other samples still open


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_a_git_lfs_pointer_in_place_of_a_prediction_file(tmp_path, suffix):
    f = tmp_path / f"model{suffix}"
    f.write_text(LFS_POINTER_TEXT)
    with pytest.raises(UserError, match=r"model\.\w+: a Git LFS pointer, not the file \(run `git lfs pull`\)"):
        load_predictions(f)


def test_score_says_each_error_once(tmp_path):
    from viewer.assets import default_release
    demo = default_release()
    good = sorted((demo / "predictions").glob("*.jsonl"))[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("garbage\n")
    p = subprocess.run([sys.executable, "-m", "viewer", "score", str(demo), str(bad), str(good)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1
    lines = [ln for ln in p.stderr.splitlines() if "bad.jsonl" in ln]
    assert len(lines) == 1 and "malformed JSON" in lines[0], p.stderr


@pytest.mark.parametrize("release, forced, said", [
    ("assets/demo", "vsi", "this folder is a GST-Bench release (`questions.jsonl`); drop --benchmark vsi"),
    ("tests/data/vsi-gemini/scannet_questions", "gst",
     "this folder is a VSI-Bench release (5 `*_questions.json` files); drop --benchmark gst"),
])
def test_a_forced_benchmark_that_does_not_fit_says_whose_release_it_is(release, forced, said):
    from published_samples import REPO
    root = REPO / release
    with pytest.raises(UserError, match="drop --benchmark") as e:
        load_release(root, forced)
    assert said in str(e.value) and "mixes" not in str(e.value)
    p = subprocess.run([sys.executable, "-m", "viewer", "audit", str(root), "--json", "--benchmark", forced],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and said in p.stderr and p.stderr.count(said) == 1, p.stderr
