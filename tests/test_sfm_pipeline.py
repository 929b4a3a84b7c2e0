"""Structure from motion from a walkthrough video (viewer/render/sfm) on a textured room walked through by a known
camera (tests/sfm_scene.py): the path recovered up to a similarity, a query view localised, bad videos refused
with the reason, a cancelled run caching nothing, and `gst-viewer reconstruct` on a release."""
from __future__ import annotations

import json
import sys
import tempfile

import numpy as np
import pytest
from broken_media import small_mp4
from sfm_scene import QUERY_VIEW, fit_similarity, pose, render, walkthrough, write_mp4, write_pos_release

from viewer.render.image_io import write_png
from viewer.render.sfm import Cancelled, SfmError, SfmSettings, cached_reconstruction, reconstruct_video

W, H, FRAMES = 200, 150, 20
SETTINGS = SfmSettings(step=1, threads=2)        # as `reconstruct --step 1` runs (threads are not in the key)
QUERY = QUERY_VIEW
FLAT = "views/flat.png"              # a grey image: no features
ELSEWHERE = "views/elsewhere.png"    # another room: features that match nothing


def _query_pose() -> np.ndarray:
    """Between frames 8 and 9 of the walk, a little off the path and turned: a view the video never had."""
    _, poses = walkthrough(FRAMES, W, H)
    p = poses[8].copy()
    p[:3, 3] = (poses[8][:3, 3] + poses[9][:3, 3]) / 2 + [0.05, -0.08, 0.05]
    yaw = np.arctan2(p[1, 2], p[0, 2]) + 0.1
    return pose(p[:3, 3], float(yaw))


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    """A release holding the walk's video and one Pos question whose view is the query; the reconstruction
    run once, cached in the module's own cache folder."""
    root = tmp_path_factory.mktemp("room")
    frames, _ = walkthrough(FRAMES, W, H)
    write_pos_release(root, frames, render(_query_pose(), W, H))
    write_png(root / FLAT, np.full((H, W, 3), 90, np.uint8))
    write_png(root / ELSEWHERE, render(_query_pose(), W, H, seed=7))
    cache = root / "cache"
    mp = pytest.MonkeyPatch()
    mp.setenv("GST_VIEWER_CACHE", str(cache))
    queries = {n: str(root / n) for n in (QUERY, FLAT, ELSEWHERE)}
    result, cached = cached_reconstruction(root / "video0.mp4", queries, SETTINGS)
    assert not cached
    yield root, result
    mp.undo()


def test_the_walk_is_one_model_and_its_centres_are_the_truth_up_to_a_similarity(room):
    _, result = room
    _, truth = walkthrough(FRAMES, W, H)
    reg = result.registered
    assert reg.sum() >= 0.9 * FRAMES, result.stats
    assert result.stats["largest_model_share"] >= 0.9 and result.stats["models"] == 1
    s, r, t = fit_similarity(result.poses[reg, :3, 3], truth[reg, :3, 3])
    err = np.linalg.norm(result.poses[reg, :3, 3] @ (s * r).T + t - truth[reg, :3, 3], axis=1)
    path_length = np.linalg.norm(np.diff(truth[:, :3, 3], axis=0), axis=1).sum()      # about 4 m
    assert np.median(err) < 0.03 * path_length and err.max() < 0.1 * path_length, err
    # headings too: the recovered rotations, carried by the same similarity, face where the true ones do
    fwd = result.poses[reg, :3, 2] @ r.T
    heading = np.degrees(np.arccos(np.clip((fwd * truth[reg, :3, 2]).sum(1), -1, 1)))
    assert np.median(heading) < 3 and heading.max() < 10, heading.round(1)
    assert len(result.points) > 200 and result.intrinsics.width == W


def test_the_query_view_is_localised_where_it_was_taken(room):
    _, result = room
    _, truth = walkthrough(FRAMES, W, H)
    q = result.queries[QUERY]
    assert q.localised and q.inliers >= 30 and q.confidence > 0.5 and q.why == ""
    reg = result.registered
    s, r, t = fit_similarity(result.poses[reg, :3, 3], truth[reg, :3, 3])
    assert np.linalg.norm(s * r @ q.pose[:3, 3] + t - _query_pose()[:3, 3]) < 0.15      # metres, in a 6 m room


def test_views_it_cannot_place_are_not_localised_and_say_why(room):
    _, result = room
    flat, elsewhere = result.queries[FLAT], result.queries[ELSEWHERE]
    assert not flat.localised and "too few features" in flat.why
    assert not elsewhere.localised and elsewhere.why and elsewhere.confidence == 0.0


def test_the_cached_result_is_served_again(room, monkeypatch):
    root, result = room
    monkeypatch.setenv("GST_VIEWER_CACHE", str(root / "cache"))
    again, cached = cached_reconstruction(root / "video0.mp4", {QUERY: str(root / QUERY)}, SETTINGS)
    assert cached and np.allclose(again.poses, result.poses, equal_nan=True)


def test_an_undecodable_video_is_refused_naming_the_file(tmp_path):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 8)
    with pytest.raises(SfmError, match="broken.mp4"):
        reconstruct_video(bad, settings=SETTINGS)


def test_a_flat_video_is_refused_for_too_few_features(tmp_path):
    flat = tmp_path / "flat.mp4"
    flat.write_bytes(small_mp4(frames=8, size=(96, 64)))
    with pytest.raises(SfmError, match=r"flat\.mp4.*too few features"):
        reconstruct_video(flat, settings=SETTINGS)


def test_a_camera_turning_in_place_is_refused_for_too_little_motion(tmp_path):
    turn = tmp_path / "turn.mp4"
    write_mp4(turn, [render(pose(np.array([0.0, -1.0, 1.4]), 0.3 + 0.06 * k), 160, 120) for k in range(12)])
    with pytest.raises(SfmError, match=r"turn\.mp4.*too little motion"):
        reconstruct_video(turn, settings=SETTINGS)


def test_a_cancelled_run_leaves_no_cache_and_no_work_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    frames, _ = walkthrough(FRAMES, W, H)
    video = tmp_path / "walk.mp4"
    write_mp4(video, frames[:8])
    stop = {"now": False}

    def progress(stage, done, total):
        if stage == "features":          # frames decoded and written: cancel mid-run
            stop["now"] = True
    with pytest.raises(Cancelled):
        cached_reconstruction(video, None, SETTINGS, progress=progress, cancel=lambda: stop["now"])
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.npz"))
    assert list((tmp_path / "tmp").iterdir()) == []


def test_the_command_reports_each_video_from_the_cache(room, monkeypatch, capsys):
    from viewer.cli import main
    root, result = room
    monkeypatch.setenv("GST_VIEWER_CACHE", str(root / "cache"))
    assert main(["reconstruct", str(root), "--step", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["ok"] and out["cached"] and out["queries_localised"] == 1
    assert out["registered_frames"] == int(result.registered.sum()) and out["sampled_frames"] == FRAMES


def test_the_command_fails_on_a_flat_video_naming_it(tmp_path, monkeypatch, capfd):
    from viewer.cli import main
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    (tmp_path / "rel").mkdir()
    (tmp_path / "rel/flat.mp4").write_bytes(small_mp4(frames=8, size=(96, 64)))
    (tmp_path / "rel/questions.jsonl").write_text(json.dumps({
        "uid": "scene1_x_video_0", "task": "Self_Localization_Global_Position", "scene": "scene_1",
        "answer": "<point>1 2</point>", "texts": ["v", "q"], "copied_video_path": "flat.mp4", "images": []}) + "\n")
    monkeypatch.delenv("GST_VIEWER_COLMAP_LOG", raising=False)
    assert main(["reconstruct", str(tmp_path / "rel")]) == 1
    out = capfd.readouterr()
    assert "flat.mp4: FAILED" in out.out and "too few features" in out.out
    # COLMAP's own log (a few lines per frame) stays out of the command's output: its errors only.
    assert "feature_extraction.cc" not in out.err and "Processed file" not in out.err, out.err[:500]
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.npz"))


def test_without_pycolmap_the_command_says_what_to_install(tmp_path, monkeypatch, capsys):
    from viewer.cli import main
    monkeypatch.setitem(sys.modules, "pycolmap", None)
    assert main(["reconstruct", str(tmp_path)]) == 2
    assert 'pip install "gst-viewer[sfm]"' in capsys.readouterr().err


def test_the_command_on_dask_runs_each_video_in_a_worker_and_a_bad_one_comes_back_as_its_reason(
        room, tmp_path, monkeypatch, capsys):
    """`reconstruct --executor dask`: a LocalCluster worker process runs the pipeline (a cache of its own, so it
    really runs) and writes the result where the window looks; a flat video fails there and comes back as its
    reason, without stopping the other; the order of the report is the release's."""
    import shutil

    from viewer.cli import main
    root, local = room
    rel = tmp_path / "rel"
    shutil.copytree(root, rel, ignore=shutil.ignore_patterns("cache"))
    (rel / "flat.mp4").write_bytes(small_mp4(frames=8, size=(96, 64)))
    with (rel / "questions.jsonl").open("a") as f:
        f.write(json.dumps({"uid": "scene2_x_video_0", "task": "Self_Localization_Global_Position", "scene": "scene_2",
                            "answer": "<point>1 2</point>", "texts": ["v", "q"], "copied_video_path": "flat.mp4",
                            "images": []}) + "\n")
    cache = tmp_path / "cache"
    monkeypatch.setenv("GST_VIEWER_CACHE", str(cache))          # the workers are spawned with it
    assert main(["reconstruct", str(rel), "--step", "1", "--json", "--executor", "dask", "--workers", "1"]) == 1
    out = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines() if line.startswith("{")]
    assert [o["video"].rsplit("/", 1)[-1] for o in out] == ["video0.mp4", "flat.mp4"]
    walk, flat = out
    assert walk["ok"] and not walk["cached"] and walk["queries_localised"] == 1
    assert walk["registered_frames"] >= 0.9 * FRAMES and walk["sampled_frames"] == FRAMES
    assert not flat["ok"] and "too few features" in flat["error"] and "flat.mp4" in flat["error"]
    # The worker's result is the cache this process (the window) serves: no second run.
    again, cached = cached_reconstruction(rel / "video0.mp4", {QUERY: str(rel / QUERY)}, SETTINGS)
    assert cached and int(again.registered.sum()) == walk["registered_frames"]
    assert len(list((cache / "sfm").glob("*.npz"))) == 1
    # The worker told the cache's index the release's scene of it (the window finds it without the release).
    from viewer.core.scene.sfm_result import indexed_results
    assert list(indexed_results(cache / "sfm").values()) == [(walk["video"], "scene_1")]
    # As the local run found it, up to SfM's own frame: the same frames placed, the same query localised.
    assert abs(int(local.registered.sum()) - walk["registered_frames"]) <= 1
