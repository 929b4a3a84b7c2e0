"""target_unseen_in_video without 3D: a visual question's video must show the red box that marks its target."""
import shutil
from pathlib import Path

import pytest

from viewer.core.audit import run_audit
from viewer.core.release import load_release
from viewer.render.audit_images import SceneImages

DEMO = Path(__file__).resolve().parents[1] / "assets" / "demo"
CHECK = "target_unseen_in_video"


@pytest.fixture
def no_3d(tmp_path):
    """The demo without its scenes' metadata and meshes: videos and pictures only."""
    rel = tmp_path / "demo"
    shutil.copytree(DEMO, rel)
    for f in list(rel.glob("scenes/*/scene.json")) + list(rel.glob("scenes/*/scene.glb")):
        f.unlink()
    return rel


def test_visual_questions_are_judged_by_the_red_box(no_3d):
    # the lamp's boxed video swapped for the unboxed one: its three questions show no box
    lamp = no_3d / "scenes/scene_1/videos/video0_obj_floor_lamp_aqtzng_0.mp4"
    shutil.copyfile(no_3d / "scenes/scene_1/videos/video_0.mp4", lamp)
    report = run_audit(load_release(no_3d), checks=[CHECK], images=SceneImages)
    counts = report.tally.counts[CHECK]
    flagged = [f for f in report.findings if f.check == CHECK]
    assert sorted(f.uid for f in flagged) == sorted(
        q.uid for q in load_release(no_3d).questions if q.target == "floor_lamp_aqtzng_0" and "visual" in q.task)
    assert all("red box" in f.message and f.details["method"] == "red box" for f in flagged)
    assert counts["flagged"] == 3 and counts["passed"] == 15
    reasons = report.tally.skip_reasons[CHECK]
    assert counts["skipped"] == 18 and all("semantic" in r for r in reasons)


def test_without_an_image_reader_it_says_why(no_3d):
    report = run_audit(load_release(no_3d), checks=[CHECK])
    assert report.tally.counts[CHECK]["skipped"] == 36
    assert any("no image reader" in r for r in report.tally.skip_reasons[CHECK])
