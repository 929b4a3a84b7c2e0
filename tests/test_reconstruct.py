"""Rebuilding the map geometry from the answers (benchmarks/gst/reconstruct.py) and the answers_inconsistent check."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sfm_release

from viewer.assets import default_release
from viewer.core import geometry as geo
from viewer.core.audit import run_audit
from viewer.core.benchmarks.gst.reconstruct import fit_scale, image_size, reconstruct
from viewer.core.overlays import inferred_pose, published_map_overlay
from viewer.core.release import load_release
from viewer.core.scene.model import link_question, load_scene

DEMO = default_release()


def scene_less(tmp: Path, edit=None) -> Path:
    """The demo's questions and media with no scenes' 3D metadata (and no meta, no videos), optionally edited."""
    return sfm_release.scene_less(tmp, edit, videos=False)


def test_reconstruction_matches_the_scenes(tmp_path):
    truth_release = load_release(DEMO)
    rec = reconstruct(load_release(scene_less(tmp_path)))
    checked = {"view": 0, "heading": 0, "target": 0}
    for i, q in enumerate(truth_release.questions):
        inf = rec.for_question(i)
        if inf is None:
            continue
        scene = load_scene(DEMO, q.scene)
        g = link_question(q, scene)
        tmap = scene.topdown["occupancy"]
        W = np.asarray(tmap.world_to_pixel, float)
        size = np.array([tmap.width, tmap.height], float)
        if inf.viewpoint is not None and g.viewpoint is not None:
            true_px = geo.world_to_pixel(W, geo.camera_center(g.viewpoint.pose)[:2])
            assert np.linalg.norm(inf.viewpoint / 1000 * size - true_px) <= 1.0
            checked["view"] += 1
        if inf.heading is not None and g.viewpoint is not None:
            true_h = float(geo.map_heading(g.viewpoint.pose, W))
            assert abs((inf.heading - true_h + 180) % 360 - 180) <= 1.0
            checked["heading"] += 1
        if inf.target is not None and g.target is not None:
            true_px = geo.world_to_pixel(W, g.target.bbox.center[:2])
            assert np.linalg.norm(inf.target / 1000 * size - true_px) <= 1.0
            checked["target"] += 1
    assert min(checked.values()) >= 12
    for sid, sm in rec.scenes.items():
        W = np.asarray(load_scene(DEMO, sid).topdown["occupancy"].world_to_pixel, float)
        true_scale = 1.0 / np.sqrt(abs(np.linalg.det(W[:, :2])))
        assert sm.scale is not None and not sm.scale.weak
        assert sm.scale.metres_per_px == pytest.approx(true_scale, rel=0.02)


def test_inferred_pose_follows_the_map_heading_convention():
    for heading in (-135, -90, 0, 30, 90, 180):
        W, pose = inferred_pose(np.array([100.0, 50.0]), heading, 0.02)
        got = float(geo.map_heading(pose, W))
        assert abs((got - heading + 180) % 360 - 180) < 1e-6
        assert geo.world_to_pixel(W, geo.camera_center(pose)[:2]) == pytest.approx([100.0, 50.0])


def _audit(root):
    release = load_release(root)
    report = run_audit(release, checks=["answers_inconsistent"])
    return release, report.findings


def test_clean_release_is_consistent_with_and_without_scenes(tmp_path):
    for root in (DEMO, scene_less(tmp_path)):
        _, findings = _audit(root)
        assert [f.message for f in findings if f.severity == "error"] == []


def test_planted_inconsistencies_are_found_exactly(tmp_path):
    planted: set[str] = set()

    def plant(recs):
        by_task = {}
        for r in recs:
            by_task.setdefault(r["task"], []).append(r)
        ed = by_task["Object_Localization_Egocentric_Direction_visual"][0]
        ed["answer"] = str(int((int(ed["answer"]) + 90 + 180) % 360 - 180))
        dist = by_task["Object_Localization_Egocentric_Distance_semantic"][-1]
        dist["answer"] = round(2 * float(dist["answer"]), 1)
        gp = by_task["Object_Localization_Global_Position_semantic"][2]
        x, y = (int(v) for v in gp["answer"][7:-8].split())
        gp["answer"] = f"<point>{x + 200 if x < 500 else x - 200} {y}</point>"
        planted.update({ed["uid"], dist["uid"], gp["uid"]})
    _, findings = _audit(scene_less(tmp_path, plant))
    errors = [f for f in findings if f.severity == "error"]
    assert errors
    named = set()
    for f in errors:
        hit = planted & set(f.details["questions"])
        assert hit, f.message                       # no error on clean questions
        named |= hit
    assert named == planted


def test_bad_inputs_are_messages_not_drawings(tmp_path):
    def spoil(recs):
        pos = [r for r in recs if r["task"] == "Self_Localization_Global_Position"]
        dup = dict(pos[0], uid=pos[0]["uid"].replace("_video_0", "_video_7"), answer="<point>10 10</point>")
        recs.append(dup)                                               # contradictory duplicate
        recs.remove(pos[1])                                            # an Ori without its Pos
        recs.append(dict(pos[2], uid="not_a_linked_uid"))              # a uid that follows no pattern
        dists = [r for r in recs if "Egocentric_Distance" in r["task"] and r["uid"].startswith("scene3")]
        for r in dists[1:]:
            recs.remove(r)                                             # scene 3: a scale from one pair
    root = scene_less(tmp_path, spoil)
    release = load_release(root)
    rec = reconstruct(release)
    codes = {d.code for d in rec.diagnostics}
    assert {"reconstruct.duplicates_disagree", "reconstruct.no_position", "reconstruct.uid_unlinked",
            "reconstruct.scale_weak"} <= codes
    assert rec.scenes["scene_3"].scale.weak
    # The viewpoint whose Pos answers disagree is not drawn; the panel says what is missing and why.
    uid = next(u for u in release.uids if u.endswith("_video_7"))
    i = release.index[uid.replace("_video_7", "_video_0").replace("Global_Position", "Global_Orientation")]
    inf = rec.for_question(i)
    assert inf.viewpoint is None and any("disagree" in m for m in inf.missing)
    q = release.questions[i]
    ov = published_map_overlay(q, i, [], 640, 512, inf)
    assert ov is None or not any(p.role == "viewpoint" for p in ov.items)
    _, findings = _audit(root)
    assert {"reconstruct.duplicates_disagree", "reconstruct.no_position"} <= {f.details.get("code") for f in findings}


def test_map_sizes_differ_is_reported():
    release = load_release(DEMO)
    sizes = iter([(640, 512), (320, 256)] * 50)
    rec = reconstruct(release, map_size=lambda i: next(sizes))
    assert "reconstruct.map_sizes_differ" in {d.code for d in rec.diagnostics}


def test_scale_fit_is_robust_and_weak_with_one_pair():
    rng = np.random.default_rng(0)
    p = rng.uniform(50, 400, 20)
    d = np.sqrt((0.02 * p) ** 2 + 1.0)
    d[3] *= 2
    fit = fit_scale(p, d, tuple(f"q{k}" for k in range(20)))
    # The band the agreeing pairs allow holds the true scale; the doubled answer is left out of it.
    assert fit.low <= 0.02 <= fit.high and fit.metres_per_px == pytest.approx(0.02, rel=0.03)
    assert fit.outliers == ("q3",) and not fit.weak
    assert fit_scale(p[:1], d[:1]).weak
    # Two of three pairs wrong in the same way outvote nothing: too few agree for a strong scale.
    assert fit_scale(p[:3], d[:3] * np.array([1, 2, 2.1])).weak


def test_image_size_reads_png_and_jpeg_headers():
    assert image_size(str(DEMO / "scenes/scene_1/topdown/occupancy.png")) == (640, 512)
    view = next((DEMO / "scenes/scene_1/views").glob("*.jpg"))
    assert image_size(str(view)) == (400, 320)
