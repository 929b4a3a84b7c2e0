"""The audit on a hand-built scene: each planted error is found, and nothing else."""
import json
import shutil

import audit_release as ar
import numpy as np
import pytest

from viewer.core.audit import CHECKS, SCENE, VISIBILITY, Finding, parse_checks, run_audit
from viewer.core.diagnostics import UserError
from viewer.core.release import load_release
from viewer.render.visibility import SceneVisibility

U = ar.uid
# The checks counted per question of a scene with metadata.
# query_localised_off_answer judges only scenes reconstructed from the video (tests/test_sfm_align.py).
SCENE_CHECKS = {c.id for c in CHECKS if SCENE in c.needs and c.per_question} - {"query_localised_off_answer"}
# Per-question ray checks (target_visible_in_local_view counts only local variants: none here).
RAY_CHECKS = {c.id for c in CHECKS if VISIBILITY in c.needs and c.per_question}


def audit(root, **kw):
    return run_audit(load_release(root), visibility=SceneVisibility, **kw)


def flagged(report, severity=None) -> set[tuple[str, str]]:
    return {(f.uid, f.check) for f in report.findings if severity is None or f.severity == severity}


def finding(report, uid, check):
    return next(f for f in report.findings if f.uid == uid and f.check == check)


@pytest.fixture(scope="module")
def clean_template(tmp_path_factory):
    return ar.build(tmp_path_factory.mktemp("audit") / "clean")


@pytest.fixture
def release(clean_template, tmp_path):
    return shutil.copytree(clean_template, tmp_path / "release")


def test_clean_release_has_no_findings_and_every_scene_check_ran(release):
    report = audit(release)
    assert report.findings == []
    summary = report.summary()
    for check in SCENE_CHECKS:
        assert summary[check]["checked"] > 0 and summary[check]["skipped"] == 0, check
    assert report.rays_cast > 0


@pytest.mark.parametrize("mesh", [False, True], ids=["boxes", "mesh"])
def test_target_moved_into_view_is_found_by_ray_casting(tmp_path, mesh):
    root = ar.build(tmp_path / "r", mesh=mesh)
    doc = ar.read_scene(root)
    doc["instances"][ar.CHAIR]["bbox3"]["translation"] = [3.5, 1.0, 0.45]     # 1.6 m in front of pos_1
    ar.write_scene(root, doc)
    ar.refresh(root)
    report = audit(root)
    assert flagged(report) == {(U("ED_v"), "target_visible_in_query_view"),
                               (U("EDist_v"), "target_visible_in_query_view")}
    f = finding(report, U("ED_v"), "target_visible_in_query_view")
    assert f.severity == ("error" if mesh else "warning")     # boxes-only visibility is an overestimate
    assert f.details["visible_pixels"] > 20 and f.details["geometry"] == ("mesh" if mesh else "boxes")
    x0, y0, x1, y1 = f.details["bbox_2d"]
    assert x0 < ar.INTR["width"] / 2 < x1 and y1 > ar.INTR["height"] / 2   # straight ahead, below eye level


def test_target_missing_from_mesh_is_checked_on_its_box(tmp_path):
    root = ar.build(tmp_path / "r", mesh=True)
    doc = ar.read_scene(root)
    doc["instances"][ar.CHAIR]["bbox3"]["translation"] = [3.5, 1.0, 0.45]
    ar.write_scene(root, doc)
    ar.write_mesh(root / "scenes" / ar.SCENE, doc, rename={ar.CHAIR: "node_17"})   # mesh node names unknown
    ar.refresh(root)
    report = audit(root)
    assert flagged(report) == {(U("ED_v"), "target_visible_in_query_view"),
                               (U("EDist_v"), "target_visible_in_query_view")}


def test_viewpoint_on_the_trajectory(release):
    doc = ar.read_scene(release)
    c, s = np.cos(np.radians(10)), np.sin(np.radians(10))
    # 0.1 m to the right of frame 20, turned 10 degrees about the camera's vertical axis.
    frame = ar.video_poses()[20] @ np.array([[c, 0, s, 0.1], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]])
    doc["viewpoints"]["pos_2"]["pose"] = frame.ravel().tolist()
    ar.write_scene(release, doc)
    ar.refresh(release)
    report = audit(release)
    assert flagged(report) == {(U("Pos"), "query_near_trajectory"), (U("Ori"), "query_near_trajectory")}
    d = finding(report, U("Pos"), "query_near_trajectory").details
    assert d["nearest_frame"] == 20 and abs(d["distance_m"] - 0.1) < 1e-6 and abs(d["angle_deg"] - 10) < 1e-3


def test_perturbed_answers_disagree_with_the_geometry(release):
    ar.set_answer(release, U("ED_v"), "69")
    ar.set_answer(release, U("EDist_s"), 9.0)
    ar.set_answer(release, U("GP_v"), "<point>840 583</point>")
    report = audit(release)
    assert flagged(report) == {(U("ED_v"), "gt_direction_mismatch"), (U("EDist_s"), "gt_distance_mismatch"),
                               (U("GP_v"), "gt_point_mismatch")}
    d = finding(report, U("ED_v"), "gt_direction_mismatch").details
    assert d["stored"] == 69 and abs(d["recomputed"] - 29.46) < 0.1 and abs(d["difference_deg"] - 39.5) < 0.1
    assert finding(report, U("GP_v"), "gt_point_mismatch").details["recomputed"] == [800, 583]


def test_small_differences_are_within_tolerance(release):
    ar.set_answer(release, U("ED_v"), "33")          # 3.5 degrees off
    ar.set_answer(release, U("EDist_s"), 7.8)        # 0.3 m off at 7.5 m: within 5 %
    ar.set_answer(release, U("GP_v"), "<point>810 590</point>")
    assert audit(release).findings == []


def test_duplicate_semantic_category(release):
    doc = ar.read_scene(release)
    doc["instances"][ar.TABLE]["semantic"] = "Lamp"
    ar.write_scene(release, doc)
    report = audit(release)
    assert flagged(report) == {(U(k), "ambiguous_semantic_target") for k in ("ED_s", "EDist_s", "GP_s")}
    assert finding(report, U("GP_s"), "ambiguous_semantic_target").details["instances"] == [ar.LAMP, ar.TABLE]


def test_target_hidden_from_the_whole_video(release):
    doc = ar.read_scene(release)
    doc["instances"][ar.LAMP]["bbox3"].update(translation=[2.5, 4.6, 0.3], size=[0.3, 0.3, 0.3])  # in the table
    ar.write_scene(release, doc)
    ar.refresh(release)
    report = audit(release)
    assert flagged(report) == {(U(k), "target_unseen_in_video") for k in ("ED_s", "EDist_s", "GP_s")}
    d = finding(report, U("GP_s"), "target_unseen_in_video").details
    assert d["frame_step"] == 5 and d["frames_sampled"] == 10 and d["best_fraction"] == 0


def test_deleted_video_and_invalid_answers(release):
    (release / "scenes" / ar.SCENE / "videos" / "video_0.mp4").unlink()
    ar.set_answer(release, U("Ori"), "left")
    ar.set_answer(release, U("TDS_E"), "E")
    report = audit(release)
    expected = {(U(k), "missing_media") for k in ar.TASKS}
    expected |= {(U("Ori"), "invalid_answer"), (U("TDS_E"), "invalid_answer")}
    assert flagged(report) == expected
    assert report.summary()["gt_direction_mismatch"]["skipped"] == 1        # Ori: its answer is invalid


def test_unreadable_media_is_reported(release):
    (release / "scenes" / ar.SCENE / "views" / "pos_2.png").write_bytes(b"")
    (release / "options" / "option_1.png").write_bytes(b"GIF89a not a png")
    report = audit(release, checks=["missing_media"])
    problems = {f.uid: [m["problem"] for m in f.details["media"]] for f in report.findings}
    assert problems == {U("Pos"): ["empty file"], U("Ori"): ["empty file"], U("TDS_E"): ["not a PNG file"]}


def test_release_without_scene_metadata_skips_never_passes(real_samples):
    report = audit(real_samples)
    summary = report.summary()
    for check in SCENE_CHECKS - {"ambiguous_semantic_target"}:       # no semantic question in the samples
        assert summary[check]["checked"] == 0 and summary[check]["skipped"] > 0, check
    assert summary["models_disagree_with_gt"] == {"flagged": 0, "checked": 0, "skipped": 6}
    assert {f.check for f in report.findings} == {"missing_media"}       # 5 of 6 samples lack their video
    assert len(report.findings) == 5


def test_scene_without_mesh_or_boxes_skips_visibility(release):
    doc = ar.read_scene(release)
    for inst in doc["instances"].values():
        del inst["bbox3"]
    ar.write_scene(release, doc)
    report = audit(release)
    summary = report.summary()
    for check in ("target_visible_in_query_view", "target_unseen_in_video"):
        assert summary[check]["checked"] == 0 and summary[check]["skipped"] > 0
        assert "no instance has a bbox3" in report.tally.skip_reasons[check].most_common(1)[0][0]
    # Ori needs no target; ED_v and ED_s do.
    assert summary["gt_direction_mismatch"] == {"flagged": 0, "checked": 1, "skipped": 2}
    assert summary["query_near_trajectory"]["checked"] == 6          # needs poses only
    assert not any(f.severity == "error" for f in report.findings)


def test_without_a_ray_caster_the_visibility_checks_are_skipped_never_passed(release):
    doc = ar.read_scene(release)
    doc["instances"][ar.CHAIR]["bbox3"]["translation"] = [3.5, 1.0, 0.45]     # in view of pos_1
    ar.write_scene(release, doc)
    ar.refresh(release)
    report = run_audit(load_release(release))
    summary = report.summary()
    for check in RAY_CHECKS:
        assert summary[check]["checked"] == 0 and summary[check]["skipped"] > 0, check
        assert "no ray caster" in report.tally.skip_reasons[check].most_common(1)[0][0]
    assert report.findings == [] and report.rays_cast == 0
    assert summary["gt_direction_mismatch"]["checked"] == 3            # the other scene checks still run


def test_json_document_has_exactly_the_promised_shape(release):
    ar.set_answer(release, U("ED_v"), "90")
    doc = json.loads(json.dumps(audit(release).to_json(), allow_nan=False))
    assert set(doc) == {"findings", "summary"}
    assert all(set(f) == {"uid", "check", "severity", "message", "details"} for f in doc["findings"])
    assert list(doc["summary"]) == list(CHECKS.ids())
    assert all(set(v) == {"flagged", "checked", "skipped"} for v in doc["summary"].values())


def test_check_selection(release):
    ar.set_answer(release, U("ED_v"), "90")
    report = audit(release, checks=parse_checks("gt_point_mismatch,gt_direction_mismatch"))
    assert set(report.summary()) == {"gt_direction_mismatch", "gt_point_mismatch"}
    assert flagged(report) == {(U("ED_v"), "gt_direction_mismatch")}
    with pytest.raises(UserError, match="unknown check gt_typo"):
        parse_checks("gt_typo")


def test_scenes_in_worker_processes_give_the_same_report(tmp_path):
    root = ar.build(tmp_path / "r")
    ar.build(root, scene="scene_2")
    ar.set_answer(root, U("ED_s", "scene_2"), "-100")
    serial = audit(root, workers=1)
    parallel = audit(root, workers=2)
    assert [f.to_json() for f in parallel.findings] == [f.to_json() for f in serial.findings]
    assert parallel.summary() == serial.summary()
    assert flagged(serial) == {(U("ED_s", "scene_2"), "gt_direction_mismatch")}


def test_evidence_pictures(tmp_path):
    from viewer.render.evidence import finding_evidence
    root = ar.build(tmp_path / "r", mesh=True)
    doc = ar.read_scene(root)
    doc["instances"][ar.CHAIR]["bbox3"]["translation"] = [3.5, 1.0, 0.45]           # into view of pos_1
    doc["instances"][ar.LAMP]["bbox3"].update(translation=[2.5, 4.6, 0.3], size=[0.3, 0.3, 0.3])  # in the table
    doc["viewpoints"]["pos_2"]["pose"] = ar.video_poses()[20].ravel().tolist()        # on the walk
    ar.write_scene(root, doc)
    ar.refresh(root)
    release = load_release(root)
    report = run_audit(release, visibility=SceneVisibility)
    by = {(f.uid, f.check): f for f in report.findings}

    f = by[(U("ED_v"), "target_visible_in_query_view")]
    [view] = finding_evidence(root, release.get(U("ED_v")), f)
    red = (view.rgb[..., 0] > 150) & (view.rgb[..., 1] < 100) & (view.rgb[..., 2] < 100)
    assert view.rgb.shape == (ar.INTR["height"], ar.INTR["width"], 3)
    assert abs(int(red.sum()) - f.details["visible_pixels"]) <= 0.1 * f.details["visible_pixels"]

    f = by[(U("Pos"), "query_near_trajectory")]
    view, frame = finding_evidence(root, release.get(U("Pos")), f)
    assert "frame 20" in frame.caption and np.array_equal(view.rgb, frame.rgb)       # the same pose

    f = by[(U("GP_s"), "target_unseen_in_video")]
    [frame] = finding_evidence(root, release.get(U("GP_s")), f)
    yellow = (frame.rgb == [255, 210, 0]).all(axis=-1)
    assert f"frame {f.details['best_frame']}" in frame.caption and yellow.sum() > 10
    numbers_only = Finding(U("ED_v"), "gt_direction_mismatch", "error", "", {})
    assert finding_evidence(root, release.get(U("ED_v")), numbers_only) == []


def test_unreadable_mesh_falls_back_to_boxes_and_says_so(tmp_path):
    root = ar.build(tmp_path / "r", mesh=True)
    (root / "scenes" / ar.SCENE / "scene.glb").write_bytes(b"glTF but not really")
    report = audit(root)
    assert any("scene.glb" in p and "using instance boxes instead" in p for p in report.problems)
    assert report.findings == [] and report.summary()["target_visible_in_query_view"]["checked"] == 4


def test_an_image_is_checked_as_its_bytes_say_whatever_its_name(real_samples, tmp_path):
    """The published Pos map is a whole JPEG named .png: not missing media. A cut one under that name is, as
    bytes of no image under an image's name are."""
    from viewer.core.audit.checks.missing_media import media_problem
    from viewer.core.audit.image_check import image_problem
    jpeg_as_png = real_samples / "06_Self_Localization_Global_Position" / "image_02_topdown_2.png"
    assert jpeg_as_png.read_bytes()[:3] == b"\xff\xd8\xff"
    assert media_problem(str(jpeg_as_png)) is None and image_problem(str(jpeg_as_png)) is None
    report = audit(real_samples, checks=["missing_media"])
    media = [m for f in report.findings for m in f.details["media"]]
    assert media and not [m for m in media if m["kind"] == "image"], media     # the five missing videos only
    cut = tmp_path / "cut.png"
    cut.write_bytes(jpeg_as_png.read_bytes()[:3000])
    assert "truncated" in media_problem(str(cut)) and image_problem(str(cut)) == media_problem(str(cut))
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"GIF89a not a png")
    assert media_problem(str(junk)) == "not a PNG file" and image_problem(str(junk)) == "not a PNG file"
