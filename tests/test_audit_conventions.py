"""Convention detective and the model checks, on the hand-built scene (three copies of it)."""
import json
import shutil

import audit_release as ar
import numpy as np
import pytest

from viewer.core.audit import run_audit
from viewer.core.evaluate import evaluate
from viewer.core.predictions import load_predictions
from viewer.core.release import load_release

SCENES = ("scene_1", "scene_2", "scene_3")
ANGLES = ("ED_v", "ED_s", "Ori")


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    root = tmp_path_factory.mktemp("conv") / "r"
    for s in SCENES:
        ar.build(root, scene=s)
    return root


@pytest.fixture
def release(template, tmp_path):
    return shutil.copytree(template, tmp_path / "release")


def rewrite_angles(root, fn, keys=ANGLES):
    records = ar.read_questions(root)
    for r in records:
        if r["uid"].rsplit("_", 1)[-1] in {k.split("_")[-1] for k in keys} and any(
                r["uid"].endswith("_" + k) for k in keys):
            r["answer"] = fn(float(r["answer"]), r)
    ar.write_questions(root, records)


def convention_findings(report):
    return [f for f in report.findings if f.check == "gt_angle_convention"]


def test_clean_release_raises_no_convention_finding(release):
    report = run_audit(load_release(release))
    assert report.findings == []
    assert report.summary()["gt_angle_convention"] == {"flagged": 0, "checked": 2, "skipped": 0}


def test_flipped_signs_are_named_clockwise(release):
    rewrite_angles(release, lambda a, r: str(int(-a)))
    report = run_audit(load_release(release))
    found = convention_findings(report)
    assert [(f.details["family"], f.details["convention"]["sign"], f.details["convention"]["zero"],
             f.details["convention"]["camera"], f.details["convention"]["unit"]) for f in found] == [
        ("ED", "clockwise", "forward", "declared", "deg"), ("Ori", "clockwise", "map_up", "declared", "deg")]
    assert "clockwise positive" in found[0].message and found[0].severity == "error"
    assert found[0].details["best_matched"] == 6 and found[0].details["spec_matched"] == 0
    mismatches = [f for f in report.findings if f.check == "gt_direction_mismatch"]
    assert len(mismatches) == 9
    assert all("clockwise" in f.details["fits_convention"] for f in mismatches)


def test_radians_are_named(release):
    rewrite_angles(release, lambda a, r: f"{np.radians(a):.3f}")
    found = convention_findings(run_audit(load_release(release)))
    assert [f.details["convention"]["unit"] for f in found] == ["rad", "rad"]
    assert all("radians" in f.message for f in found)


def test_directions_from_map_up_are_named(release):
    # Absolute bearing on the map (0 = image up, counter-clockwise) instead of relative to the view.
    from viewer.core import geometry as geo
    lib = {s: ar.read_scene(release, s) for s in SCENES}

    def bearing(a, r):
        inst = lib[r["scene"]]["instances"][r["meta"]["target"]]["bbox3"]["translation"]
        cam = np.array(lib[r["scene"]]["viewpoints"][r["meta"]["viewpoint"]]["pose"]).reshape(4, 4)[:3, 3]
        d = (np.array(inst[:2]) - cam[:2]) @ np.array(ar.W)[:, :2].T
        return str(int(round(np.degrees(np.arctan2(-d[0], -d[1])))))
    rewrite_angles(release, bearing, keys=("ED_v", "ED_s"))
    found = convention_findings(run_audit(load_release(release)))
    assert [(f.details["family"], f.details["convention"]["zero"]) for f in found] == [("ED", "map_up")]
    assert geo is not None


def test_misdeclared_camera_convention_is_named(release):
    for s in SCENES:
        doc = ar.read_scene(release, s)
        doc["camera_convention"] = "opengl"         # the poses are really OpenCV
        ar.write_scene(release, doc, s)
    found = convention_findings(run_audit(load_release(release), checks=["gt_direction_mismatch",
                                                                         "gt_angle_convention"]))
    assert [(f.details["family"], f.details["convention"]["camera"]) for f in found] == [
        ("ED", "swapped"), ("Ori", "swapped")]
    assert "other camera convention" in found[0].message


def test_one_scene_off_is_reported_for_that_scene(release):
    rewrite_angles(release, lambda a, r: str(int(-a)) if r["scene"] == "scene_2" else str(int(a)))
    records = ar.read_questions(release)
    extra = [dict(r, uid=r["uid"] + "_copy") for r in records
             if r["scene"] == "scene_2" and r["uid"].endswith(("_ED_v", "_ED_s"))]
    ar.write_questions(release, records + extra)
    found = convention_findings(run_audit(load_release(release)))
    assert [(f.details["scope"], f.details["family"], f.details["convention"]["sign"]) for f in found] == [
        ("scene_2", "ED", "clockwise")]


# ------------------------------------------------------------------ models
def write_model(root, name, answer):
    lines = [json.dumps({"uid": r["uid"], "prediction": answer(r)}) for r in ar.read_questions(root)]
    path = root / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def truthful(r):
    return str(r["answer"])


def mirrored(r):
    a = r["answer"]
    if r["uid"].endswith(ANGLES):
        return str(-int(float(a)))
    if r["uid"].endswith(("_GP_v", "_GP_s", "_Pos")):
        x, y = a.removeprefix("<point>").removesuffix("</point>").split()
        return f"<point>{999 - int(x)} {y}</point>"
    return str(a)


def scored(root, paths):
    release = load_release(root)
    return release, [evaluate(release, s) for p in paths for s in load_predictions(p)]


def test_models_agreeing_against_the_truth(release):
    paths = [write_model(release, "twin-a", truthful), write_model(release, "twin-b", truthful),
             write_model(release, "guesser", lambda r: "C" if r["task"].endswith("Easy") else "-150")]
    ar.set_answer(release, ar.uid("ED_s", "scene_3"), "120")          # 90 degrees off the geometry
    ar.set_answer(release, ar.uid("TDS_E", "scene_1"), "D")
    report = run_audit(*scored(release, paths), checks=["models_disagree_with_gt"])
    assert {(f.uid, f.check) for f in report.findings} == {(ar.uid("ED_s", "scene_3"), "models_disagree_with_gt")}
    f = report.findings[0]
    assert f.severity == "warning" and f.details["models"] == ["twin-a", "twin-b"] and f.details["truth"] == 120
    # Two models on one wrong letter is chance-level evidence: choice questions need three.
    assert report.summary()["models_disagree_with_gt"]["skipped"] == 3


def test_without_two_models_the_check_is_skipped(release):
    release_, results = scored(release, [write_model(release, "twin-a", truthful)])
    summary = run_audit(release_, results, checks=["models_disagree_with_gt"]).summary()
    assert summary["models_disagree_with_gt"] == {"flagged": 0, "checked": 0, "skipped": 27}


def test_mirroring_model_gets_an_info_finding(release):
    paths = [write_model(release, "sign-flipper", mirrored), write_model(release, "honest", truthful)]
    report = run_audit(*scored(release, paths), checks=["model_answer_convention"])
    got = {(f.details["model"], f.details["answer_type"], f.details["convention"]) for f in report.findings}
    assert got == {("sign-flipper", "angle", "mirror"), ("sign-flipper", "point", "mirror_x")}
    assert all(f.severity == "info" and f.uid is None for f in report.findings)
    angle = next(f for f in report.findings if f.details["answer_type"] == "angle")
    assert "clockwise" in angle.message and angle.details["near_truth"] == 0


def test_a_model_with_no_answer_of_some_kind_is_audited(tmp_path):
    """Predictions for the choice questions only: no angle, point or distance answer to judge (was a crash)."""
    from pathlib import Path

    from viewer.core.audit import run_audit
    from viewer.core.session import open_session
    demo = Path(__file__).resolve().parent.parent / "assets" / "demo"
    lines = [line for line in (demo / "predictions" / "noisy-expert.jsonl").read_text().splitlines()
             if "Selection" in line]
    preds = tmp_path / "choices-only.jsonl"
    preds.write_text("\n".join(lines) + "\n")
    session = open_session(demo, [preds])
    report = run_audit(session.release, session.results, checks=["model_answer_convention"])
    assert report.summary()["model_answer_convention"]["flagged"] == 0
