"""The structure-from-motion result's file: round trip, the cache key, refusals."""
import numpy as np
import pytest

from viewer.core.scene.model import Intrinsics
from viewer.core.scene.sfm_result import QueryPose, SfmResult, load_sfm_result, save_sfm_result, sfm_cache_file


def _result(tmp_path):
    poses = np.full((5, 4, 4), np.nan)
    poses[1] = np.eye(4)
    poses[3] = np.eye(4)
    poses[3, :3, 3] = [1, 2, 3]
    q = QueryPose("images/q.png", np.eye(4), inliers=40, matches=90, confidence=0.8)
    lost = QueryPose("images/r.png", np.full((4, 4), np.nan), why="12 matches, too few")
    return SfmResult(str(tmp_path / "v.mp4"), 5, poses, Intrinsics(64, 48, 50.0, 50.0, 32.0, 24.0),
                     np.arange(6).reshape(2, 3), [[255, 0, 0], [0, 255, 0]], {q.name: q, lost.name: lost},
                     {"registered_frames": 2})


def test_round_trip_keeps_every_field(tmp_path):
    r = _result(tmp_path)
    save_sfm_result(r, tmp_path / "c" / "r.npz", key="k1")
    back = load_sfm_result(tmp_path / "c" / "r.npz", key="k1")
    assert back.frame_count == 5 and back.video == r.video
    assert np.array_equal(back.registered, [False, True, False, True, False])
    assert np.allclose(back.poses[3, :3, 3], [1, 2, 3])
    assert back.intrinsics == r.intrinsics
    assert back.points.shape == (2, 3) and back.colors.tolist() == [[255, 0, 0], [0, 255, 0]]
    assert back.queries["images/q.png"].localised and back.queries["images/q.png"].inliers == 40
    assert not back.queries["images/r.png"].localised and "too few" in back.queries["images/r.png"].why
    assert back.stats == {"registered_frames": 2}


def test_a_changed_video_misses_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    video = tmp_path / "v.mp4"
    video.write_bytes(b"12345")
    file, key = sfm_cache_file(video, "1")
    assert file.parent == tmp_path / "cache" / "sfm"
    save_sfm_result(_result(tmp_path), file, key)
    assert load_sfm_result(file, key) is not None
    video.write_bytes(b"123456")
    _, new_key = sfm_cache_file(video, "1")
    assert new_key != key and load_sfm_result(file, new_key) is None
    assert sfm_cache_file(video, "2")[1] != new_key


def test_a_foreign_file_is_named(tmp_path):
    bad = tmp_path / "x.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="x.npz"):
        load_sfm_result(bad)
    # A cut or overwritten .npz (zip's magic, then nothing of it) is named too, not a BadZipFile.
    bad.write_bytes(b"PK\x03\x04" + bytes(100))
    with pytest.raises(ValueError, match="x.npz: not a readable structure-from-motion result"):
        load_sfm_result(bad)


def test_the_cached_videos_come_from_the_index_and_old_results_from_their_header(tmp_path, monkeypatch):
    from viewer.core.scene import sfm_scene
    from viewer.core.scene.sfm_result import INDEX, indexed_results
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "cache" / "sfm"
    videos = []
    for name in ("a", "b"):
        r = _result(tmp_path)
        r.video = str(tmp_path / f"{name}.mp4")
        save_sfm_result(r, folder / f"{name}.npz", key="k")
        videos.append(r.video)
    assert indexed_results(folder) == {"a.npz": (videos[0], ""), "b.npz": (videos[1], "")}
    # Listed by the index alone: no result's header is read.
    real_load = np.load
    monkeypatch.setattr(sfm_scene.np, "load", lambda *a, **k: pytest.fail("a header was read"))
    assert sorted(sfm_scene.cached_videos()) == videos
    # A result the index does not list (written before it was) is found by its header; a torn line and a
    # line whose file is gone count for nothing.
    monkeypatch.setattr(sfm_scene.np, "load", real_load)
    (folder / INDEX).write_text(f"a.npz\t{videos[0]}\ngone.npz\t/x/gone.mp4\nb.np")
    assert sorted(sfm_scene.cached_videos()) == videos
    # A job of a release says the scene; a later line without one keeps it.
    (folder / INDEX).write_text(f"a.npz\t{videos[0]}\na.npz\t{videos[0]}\tscene_7\na.npz\t{videos[0]}\n")
    assert indexed_results(folder)["a.npz"] == (videos[0], "scene_7")
