"""Structure from motion tied to the map by the answers (core/scene/align.py, sfm_scene.py) and its audit check.

The SfM results are built from the demo's true poses moved by a random
similarity, with noise and 30 % of frames unregistered (tests/sfm_release.py),
so what the alignment recovers is checked against the generator's truth.
"""
from __future__ import annotations

import numpy as np
import pytest
from sfm_release import DEMO, SCENE, VIDEO, cache, fake_result, scene_less

from viewer.core import geometry as geo
from viewer.core.audit import run_audit
from viewer.core.release import load_release
from viewer.core.scene.align import Anchor, align
from viewer.core.scene.model import load_scene
from viewer.core.scene.sources import SceneLibrary

PLANTED = "scene1_Egocentric_Localization_Global_Position_pos_16_orient_10_video_0"


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))


def plant(recs):
    for r in recs:
        if r["uid"] == PLANTED:
            r["answer"] = "<point>150 200</point>"       # the view is at (703, 333)


def served(tmp_path, edit=None, seed=0, **kw):
    root = scene_less(tmp_path, edit)
    result, _ = fake_result(root, seed, **kw)
    cache(result)
    return root, SceneLibrary(root).get(SCENE)


def errors(scene):
    """Median position (m) and heading (deg) errors of the aligned path against the truth, and the views'."""
    truth = load_scene(DEMO, SCENE)
    W = truth.topdown["occupancy"].world_to_pixel
    m = 1.0 / np.sqrt(abs(np.linalg.det(W[:, :2])))            # true metres per map pixel
    Wa = scene.topdown["answers"].world_to_pixel
    true, got = truth.videos[VIDEO].poses, scene.videos[VIDEO].poses
    ok = np.isfinite(got).all(axis=(1, 2))
    pos = np.linalg.norm(geo.world_to_pixel(Wa, got[ok, :3, 3]) - geo.world_to_pixel(W, true[ok, :3, 3]), axis=1) * m
    head = np.abs((geo.map_heading(got[ok], Wa) - geo.map_heading(true[ok], W) + 180) % 360 - 180)
    views = [np.linalg.norm(geo.world_to_pixel(Wa, vp.pose[:3, 3])
                            - geo.world_to_pixel(W, truth.viewpoints[vid].pose[:3, 3])) * m
             for vid, vp in scene.viewpoints.items()]
    return float(np.median(pos)), float(np.median(head)), views, int(ok.sum()), len(ok)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alignment_recovers_a_known_similarity(tmp_path, seed):
    _, scene = served(tmp_path, seed=seed)
    assert scene.alignment.ok and scene.provenance.endswith("aligned by 16 answers")
    pos, head, views, registered, frames = errors(scene)
    assert registered < 0.8 * frames                 # about 30 % of the frames were not registered
    assert pos < 0.25 and head < 10.0
    assert len(views) == 4 and max(views) < 0.5
    # Metric: the camera stands at the generator's 1.5 m over the floor the cloud shows.
    assert np.nanmedian(scene.videos[VIDEO].poses[:, 2, 3]) == pytest.approx(1.5, abs=0.15)
    assert scene.points is not None and len(scene.points) and abs(np.percentile(scene.points[:, 2], 2)) < 0.1


def test_one_wrong_position_answer_does_not_bend_the_path(tmp_path):
    _, scene = served(tmp_path, plant)
    al = scene.alignment
    pos, head, _, _, _ = errors(scene)
    assert pos < 0.25 and head < 10.0
    wrong = [r for r in al.residuals if PLANTED in r.anchor.uids and r.anchor.kind == "position"]
    assert len(wrong) == 1 and not wrong[0].inlier and wrong[0].residual_m > 5.0 and wrong[0].left_out_m > 5.0
    assert all(r.inlier for r in al.residuals if r is not wrong[0])     # its bearing to its target: 8°, kept
    assert "1 answer left out" in al.describe()


def test_fewer_than_two_answers_keep_the_models_frame(tmp_path):
    result, _ = fake_result(tmp_path, 0)
    one = Anchor("position", "v", result.poses[np.isfinite(result.poses).all(axis=(1, 2))][0, :3, 3],
                 np.array([10.0, 20.0]), ("uid",))
    al = align(result.poses, [one], 0.02, (640, 512))
    assert not al.ok and "only 1 usable position answer" in al.why and "3D only" in al.why

    def only_one_pos(recs):      # every Pos answer but one removed: the other views have no place
        pos = [r for r in recs if r["scene"] == SCENE and "Global_Position_pos" in r["uid"]]
        for r in pos[1:]:
            recs.remove(r)
    _, scene = served(tmp_path / "one", only_one_pos)
    assert not scene.alignment.ok
    assert scene.provenance.endswith("not aligned to the map (1 usable position answer, 2 needed): 3D only")
    assert scene.topdown == {}                       # no map: 3D only
    assert np.isfinite(scene.videos[VIDEO].poses).any() and scene.diagnostics.items


def test_the_cache_serves_only_scenes_without_their_own_files(tmp_path):
    root = scene_less(tmp_path)
    assert SceneLibrary(root).available() == [] and SceneLibrary(root).get(SCENE) is None   # nothing cached
    result, _ = fake_result(root)
    cache(result)
    lib = SceneLibrary(root)
    assert lib.available() == [SCENE] and lib.get(SCENE).provenance
    assert lib.get("scene_2") is None                # its video was not reconstructed
    # Another release without scenes is not even read: none of its videos is in the cache.
    from viewer.core.scene.sfm_scene import SfmCacheSource
    other = SfmCacheSource(scene_less(tmp_path / "other"))
    assert other.available() == [] and other._release is None
    # The release this process holds (the window's) is the one the source reads its answers from.
    held = load_release(root)
    again = SfmCacheSource(root)
    assert again.available() == [SCENE] and again._release is held
    # A release with its scene files: those win, whatever is cached for its videos.
    with_scenes = tmp_path / "with"
    import shutil
    shutil.copytree(DEMO, with_scenes)
    result.video = str(with_scenes / "scenes" / SCENE / "videos" / f"{VIDEO}.mp4")
    cache(result)
    scene = SceneLibrary(with_scenes).get(SCENE)
    assert scene.provenance == "" and scene.alignment is None and "occupancy" in scene.topdown


def test_the_check_finds_a_planted_wrong_position_answer(tmp_path):
    root, _ = served(tmp_path, plant)
    report = run_audit(load_release(root), checks=["query_localised_off_answer"])
    found = [f for f in report.findings if f.check == "query_localised_off_answer"]
    assert [f.uid for f in found] == [PLANTED]
    f = found[0]
    assert f.severity == "error" and f.details["inliers"] == 240 and f.details["distance_m"] > 5.0
    assert f.details["alignment_positions_without_it"] == 3
    counts = report.tally.counts["query_localised_off_answer"]
    assert counts["passed"] == 7                      # the 3 other Pos and the 4 Ori questions of the scene


def test_the_check_is_quiet_on_clean_answers_and_leaves_other_checks_out(tmp_path):
    root, _ = served(tmp_path)
    report = run_audit(load_release(root), checks=["query_localised_off_answer", "gt_point_mismatch"])
    assert report.findings == []
    assert report.tally.counts["query_localised_off_answer"]["passed"] == 8
    # The geometry was placed by these answers: the ground-truth checks do not judge them by it.
    reasons = report.tally.skip_reasons["gt_point_mismatch"]
    assert any("reconstructed from the video" in r for r in reasons)


def test_a_wrong_heading_answer_is_found(tmp_path):
    uid = "scene1_Egocentric_Localization_Global_Orientation_pos_15_orient_0_video_0"

    def turn(recs):
        for r in recs:
            if r["uid"] == uid:
                r["answer"] = str(int(r["answer"]) + 180 if int(r["answer"]) < 0 else int(r["answer"]) - 180)
    root, _ = served(tmp_path, turn)
    report = run_audit(load_release(root), checks=["query_localised_off_answer"])
    assert [(f.uid, f.details["angle_deg"] > 150) for f in report.findings] == [(uid, True)]


def test_an_aligned_scene_is_written_and_read_back_with_its_points(tmp_path):
    from viewer.core.scene.reader import read_scene_file
    from viewer.core.scene.writer import write_scene
    root, scene = served(tmp_path)
    scene.folder = str(root / "scenes" / SCENE)          # its video, views and map lie under it
    path = write_scene(scene)
    back = read_scene_file(path, SCENE)
    # Unregistered frames are written as NaN, which gst-scene/1 reports per frame (and keeps as NaN).
    assert back.provenance == scene.provenance
    assert {d.code for d in back.diagnostics.of_level("error")} <= {"scene.bad_pose", "scene.bad_pose_summary"}
    np.testing.assert_allclose(back.points, scene.points, atol=1e-4)
    np.testing.assert_allclose(back.videos[VIDEO].poses, scene.videos[VIDEO].poses, atol=1e-4)
    (root / "scenes" / SCENE / "points.npy").write_bytes(b"not numpy")
    broken = read_scene_file(path, SCENE)
    assert broken.points is None and any("points.npy" in str(d) for d in broken.diagnostics)


def test_targets_are_triangulated_from_direction_answers_and_give_bearings(tmp_path):
    from viewer.core.scene.sfm_scene import _target_anchors
    root, scene = served(tmp_path)
    al = scene.alignment
    # Every direction answer of the scene gave a bearing from its view to its target, all within 2°.
    bearings = [r for r in al.residuals if r.anchor.kind == "bearing"]
    assert len(bearings) == 4 and all(r.inlier and r.residual < 2.0 for r in bearings)
    # Whatever the questions' order (a view's Pos question before its direction questions).
    _, backwards = served(tmp_path / "backwards", lambda recs: recs.reverse())
    assert len([r for r in backwards.alignment.residuals if r.anchor.kind == "bearing"]) == 4
    # A target seen from several localised views is placed where their direction answers' rays cross.
    result, sim = fake_result(root)
    truth = load_scene(DEMO, SCENE)
    W = truth.topdown["occupancy"].world_to_pixel
    target = truth.instances["potted_plant_yzwbdf_2"].bbox.center
    rays = {"plant": [(vid, sim.poses(vp.pose), float(geo.egocentric_direction(vp.pose, target)), f"ED {vid}")
                      for vid, vp in truth.viewpoints.items()]}
    [anchor] = _target_anchors(result, rays, {"plant": geo.world_to_pixel(W, target)}, {"plant": ("GP",)})
    assert anchor.kind == "position" and anchor.uids[0] == "GP" and len(anchor.uids) == 5
    from viewer.core.scene.align import floor_frame
    basis, origin = floor_frame(result.poses[result.registered])
    on_floor = (np.array([anchor.model, sim.points(target)]) - origin) @ basis[:2].T
    assert np.linalg.norm(on_floor[0] - on_floor[1]) < 0.15 * sim.s      # within 15 cm, in the floor's plane


def test_the_check_warns_on_a_weak_alignment_and_never_accuses_a_doubtful_localisation(tmp_path):
    def plant_and_drop(recs):    # the planted answer, and one of the 3 other Pos answers gone: 2 left to judge it
        plant(recs)
        recs.remove(next(r for r in recs if r["uid"] == "scene1_Egocentric_Localization_Global_Position_"
                         "pos_0_orient_1_video_0"))
    root, _ = served(tmp_path / "weak", plant_and_drop)
    [f] = run_audit(load_release(root), checks=["query_localised_off_answer"]).findings
    assert f.uid == PLANTED and f.severity == "warning" and "rests on 2 position answers" in f.message

    # The same wrong answer, its view localised with little evidence: skipped, not flagged.
    root = scene_less(tmp_path / "doubt", plant)
    result, _ = fake_result(root)
    result.queries[f"scenes/{SCENE}/views/pos_16_orient_10.jpg"].confidence = 0.2
    cache(result)
    report = run_audit(load_release(root), checks=["query_localised_off_answer"])
    assert report.findings == []
    assert any("not confident" in r for r in report.tally.skip_reasons["query_localised_off_answer"])
