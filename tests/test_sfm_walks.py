"""A release's walkthroughs (core/scene/walks.py): a visual question's red-box copy joins its original's walk, so
structure from motion runs once per walk and its result serves the copies; and the served path fills the frames a
run did not sample (core/scene/sfm_scene.between_samples)."""
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from viewer.core.release import load_release
from viewer.core.scene.sfm_scene import SfmCacheSource, between_samples
from viewer.core.scene.walks import red_box_copy, release_walks, walk_jobs

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sfm_release as sf  # noqa: E402


def test_a_copy_is_named_after_its_video_and_target():
    # The real sample's copy (tests/data/gst-bench-page/04_...), and the demo's.
    assert red_box_copy("scene_2/video3_obj_armchair_vzhxuf_0.mp4", "armchair_vzhxuf_0")
    assert red_box_copy("videos/video0_obj_floor_lamp_aqtzng_0.mp4", None)
    assert not red_box_copy("videos/video_0.mp4", "armchair_vzhxuf_0")
    assert not red_box_copy("videos/video3_obj_armchair_vzhxuf_0.mp4", "desk_rmftuu_0")    # another target's
    assert not red_box_copy("videos/_obj_x.mp4", "x")


def test_each_scene_has_one_walk_per_video_with_its_copies_and_every_query(tmp_path):
    root = sf.scene_less(tmp_path)
    release = load_release(root)
    walks = release_walks(release)
    main = walks[sf.SCENE][0]
    assert os.path.basename(main.video) == "video_0.mp4"
    assert sorted(os.path.basename(c) for c in main.copies) == ["video0_obj_floor_lamp_aqtzng_0.mp4",
                                                                 "video0_obj_potted_plant_yzwbdf_2.mp4"]
    assert main.ids == ["video_0"]
    # The query views of the copies' questions (ED/EDist visual) are the walk's too.
    copy_views = {r["images"][0]["copied_path"] for r in _records(root)
                  if r["scene"] == sf.SCENE and "_obj_" in r["copied_video_path"] and r.get("images")
                  and "/views/" in r["images"][0]["copied_path"]}
    assert copy_views and copy_views <= set(main.queries)
    assert [os.path.basename(w.video) for w in walks[sf.SCENE][1:]] == ["sub_trajectory_0.mp4",
                                                                         "sub_trajectory_1.mp4"]
    # One job per walk: the copies are not reconstructed again.
    jobs = walk_jobs(release, {sf.SCENE})
    assert [os.path.basename(j["video"]) for j in jobs] == ["video_0.mp4", "sub_trajectory_0.mp4",
                                                             "sub_trajectory_1.mp4"]
    assert walk_jobs(release, {sf.SCENE}, only=main.copies[0])[0]["video"] == main.video


def test_a_copy_of_another_length_is_a_walk_of_its_own(tmp_path):
    release = load_release(sf.scene_less(tmp_path))
    odd = "video0_obj_floor_lamp_aqtzng_0.mp4"
    walks = release_walks(release, {sf.SCENE}, same_walk=lambda a, b: not b.endswith(odd))[sf.SCENE]
    assert [os.path.basename(c) for c in walks[0].copies] == ["video0_obj_potted_plant_yzwbdf_2.mp4"]
    assert any(os.path.basename(w.video) == odd and not w.copies for w in walks)


def test_copies_without_their_original_are_one_walk_led_by_the_first(tmp_path):
    root = sf.scene_less(tmp_path)
    recs = _records(root)
    keep = [r for r in recs if r["scene"] == sf.SCENE and "_obj_" in r["copied_video_path"]]
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in keep))
    walks = release_walks(load_release(root))[sf.SCENE]
    assert len(walks) == 1 and len(walks[0].copies) == 1
    assert os.path.basename(walks[0].video) == "video0_obj_floor_lamp_aqtzng_0.mp4"


def test_a_copys_question_is_served_by_its_walks_result(tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    root = sf.scene_less(tmp_path)
    result, _ = sf.fake_result(root)
    sf.cache(result)
    scene = SfmCacheSource(root).load(sf.SCENE)
    assert scene is not None and "aligned by" in scene.provenance
    assert list(scene.videos) == ["video_0"]          # the id the copies' questions name too
    # A copy reconstructed on its own (an older run) serves the walk when the original has no result.
    cache = tmp_path / "cache"
    shutil.rmtree(cache)
    copy = root / "scenes" / sf.SCENE / "videos" / "video0_obj_floor_lamp_aqtzng_0.mp4"
    result.video = str(copy)
    sf.cache(result)
    assert SfmCacheSource(root).load(sf.SCENE) is not None


def test_frames_between_samples_are_placed_between_their_neighbours():
    poses = np.full((9, 4, 4), np.nan)
    for k in (0, 2, 4, 8):                         # sampled every 2nd; frame 6 sampled and not registered
        m = np.eye(4)
        c, s = np.cos(0.1 * k), np.sin(0.1 * k)           # turned 0.1 rad a frame about z
        m[:3, :3] = [[c, -s, 0], [s, c, 0], [0, 0, 1]]
        m[:3, 3] = [k, 2 * k, 0]
        poses[k] = m
    out = between_samples(poses, 2)
    assert np.allclose(out[1, :3, 3], [1, 2, 0]) and np.allclose(out[3, :3, 3], [3, 6, 0])
    r = out[3, :3, :3]
    assert np.allclose(r @ r.T, np.eye(3)) and np.isclose(np.linalg.det(r), 1)
    angle = np.degrees(np.arctan2(r[1, 0], r[0, 0]))
    assert np.isclose(angle, np.degrees(0.3), atol=0.1)        # halfway between frames 2 and 4
    assert np.isnan(out[5:8]).all()                # a gap the run could not place stays a gap
    assert np.array_equal(out[[0, 2, 4, 8]], poses[[0, 2, 4, 8]])
    assert np.array_equal(between_samples(poses, 1), poses, equal_nan=True)


def _records(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "questions.jsonl").read_text().splitlines()]


def test_a_scene_the_index_names_is_available_without_reading_the_release(tmp_path, monkeypatch):
    """The window asks which scenes have results on its GUI thread: a result a job of the release made (its
    scene noted in the cache's index) answers it without the release's questions."""
    from viewer.core import release as release_module
    from viewer.core.scene import sfm_scene
    from viewer.core.scene.sfm_result import note_scene
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    root = sf.scene_less(tmp_path)
    result, _ = sf.fake_result(root)
    sf.cache(result)
    assert SfmCacheSource(root).available() == [sf.SCENE]          # no scene in the index: from the walks
    note_scene(result.video, sf.SCENE)
    monkeypatch.setattr(release_module, "load_release", lambda *a, **k: pytest.fail("the release was read"))
    monkeypatch.setattr(sfm_scene, "release_walks", lambda *a, **k: pytest.fail("the questions were walked"))
    assert SfmCacheSource(root).available() == [sf.SCENE]
