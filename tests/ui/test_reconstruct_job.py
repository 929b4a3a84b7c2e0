"""The window's reconstruct job (ui/reconstruct_job.py) on a release without 3D: offered where the map has no
path, its stage and per cent shown, cancelled leaving no cache, started again while the user walks to other
questions and back, and the path on the map when it is done; failures said naming the file.

The runs that must be steered (held, cancelled at a chosen stage) stand the pipeline's `reconstruct_video` in
with one that reports the real stages and returns the demo's SfM result made from its true poses
(tests/sfm_release.py); `cached_reconstruction`, the cache and the scene source are the real ones. One test
runs the real pipeline on the synthetic room of tests/sfm_scene.py, cancels it and runs it again to the end.
"""
import json
import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from viewer.core import primitives as pr
from viewer.core.scene.sfm_result import PIPELINE_VERSION, sfm_cache_file
from viewer.render.sfm import pipeline
from viewer.ui.reconstruct_job import BUTTON_TEXT

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import sfm_release as sf  # noqa: E402
from sfm_scene import pose, render, walkthrough, write_pos_release  # noqa: E402
from ui_helpers import settle  # noqa: E402

POS = "scene1_Egocentric_Localization_Global_Position_pos_15_orient_0_video_0"
OTHER_SCENE = "scene2_Egocentric_Localization_Global_Position_pos_12_orient_1_video_0"
STAGES = ("decoding", "features", "matching", "mapping")


class FakeRun:
    """`reconstruct_video` reporting the pipeline's stages; held at `gate` in its mapping stage until the test
    opens it; polls `cancel` as the pipeline's watch does."""

    def __init__(self, root: Path):
        self.root = root
        self.gate = threading.Event()
        self.calls: list[str] = []
        self.stopped = threading.Event()

    def __call__(self, video, queries=None, settings=None, progress=None, cancel=None):
        self.calls.append(os.path.basename(video))
        self.stopped.clear()
        try:
            for stage in STAGES:
                for k in range(4):
                    while stage == "mapping" and k == 2 and not self.gate.wait(0.02):
                        if cancel():
                            raise pipeline.Cancelled("cancelled")
                    if cancel():
                        raise pipeline.Cancelled("cancelled")
                    progress(stage, k, 4)
            result, _ = sf.fake_result(self.root)
            assert os.path.realpath(result.video) == os.path.realpath(video)
            assert queries and all(os.path.isfile(p) for p in queries.values())
            return result
        finally:
            self.stopped.set()


@pytest.fixture
def scene_less(tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    root = sf.scene_less(tmp_path)
    run = FakeRun(root)
    monkeypatch.setattr(pipeline, "reconstruct_video", run)
    return root, run


def _cache_file(root: Path) -> Path:
    return sfm_cache_file(root / "scenes" / sf.SCENE / "videos" / f"{sf.VIDEO}.mp4", PIPELINE_VERSION)[0]


def _shown(qtbot, state, uid):
    state.select_uid(uid)
    qtbot.waitUntil(lambda: state.current is not None and state.current.uid == uid and state.geometry is not None,
                    timeout=20000)


def _map(window):
    return window.sample_view.map_panel


def test_start_progress_cancel_start_again_walk_away_and_back_then_the_path(qtbot, make_inspector, scene_less):
    root, run = scene_less
    empty, _ = make_inspector()
    assert not empty.reconstruct.start_action.isEnabled()       # no release: nothing to reconstruct
    empty.close()
    window, state = make_inspector(root, uid=POS)
    job, button = window.reconstruct, _map(window).path_button
    qtbot.waitUntil(lambda: state.geometry is not None)
    # No 3D: no path on the map, and the offer where it would be, in the menu and the palette too.
    qtbot.waitUntil(lambda: button.isVisible())
    assert button.text() == BUTTON_TEXT and job.start_action.isEnabled()
    assert _map(window).view.overlay.path() is None
    from viewer.ui.command_palette import window_actions
    assert any(a is job.start_action for _, a in window_actions(window))

    # Start; the stage and per cent are shown on the button and the status bar.
    qtbot.mouseClick(button, _left())
    qtbot.waitUntil(lambda: "mapping 25 % · 0:" in button.text(), timeout=10000)
    assert "reconstructing video_0.mp4: mapping 25 %" in window.status_label.text()
    assert window.cancel_button.isVisible() and not job.start_action.isEnabled()
    # Cancel: nothing cached, the run stopped, the offer back.
    qtbot.mouseClick(button, _left())
    assert run.stopped.wait(10)
    qtbot.waitUntil(lambda: button.text() == BUTTON_TEXT)
    assert "cancelled; nothing cached" in window.status_label.text()
    assert not _cache_file(root).exists()
    assert not list((root.parent / "cache" / "sfm").rglob("*"))

    # Again, from the menu this time; the user walks to another scene's question and back meanwhile.
    job.start_action.trigger()
    qtbot.waitUntil(lambda: "mapping 25 %" in button.text(), timeout=10000)
    _shown(qtbot, state, OTHER_SCENE)
    assert button.isVisible() and "Cancel" in button.text()      # the run goes on, and says so
    _shown(qtbot, state, POS)
    run.gate.set()
    with qtbot.waitSignal(job.ended, timeout=20000) as ended:
        pass
    assert ended.args == ["done"]
    assert run.calls == ["video_0.mp4", "video_0.mp4"] and _cache_file(root).is_file()
    # The map shows the path at once, with where it came from; the offer is gone.
    qtbot.waitUntil(lambda: state.geometry is not None and state.geometry.scene is not None, timeout=20000)
    qtbot.waitUntil(lambda: _map(window).view.overlay is not None and _map(window).view.overlay.path() is not None,
                    timeout=20000)
    ov = _map(window).view.overlay
    assert any("reconstructed from the video" in e.text for e in ov.legend if e.kind == "path")
    assert not button.isVisible()
    assert "frames placed" in window.status_label.text()
    # Every question of the scene has it now, the other scene still offers its own run.
    scene_uids = [q.uid for q in state.session.release.questions if q.scene == sf.SCENE]
    for uid in (scene_uids[0], OTHER_SCENE, POS):
        _shown(qtbot, state, uid)
        if uid == OTHER_SCENE:
            qtbot.waitUntil(lambda: button.isVisible())
            assert state.geometry.scene is None
        else:
            assert state.geometry.scene is not None and "reconstructed" in state.geometry.scene.provenance
            assert not button.isVisible()
    assert not window.jobs.callback_errors


def _left():
    from PyQt6.QtCore import Qt
    return Qt.MouseButton.LeftButton


def test_a_red_box_copys_question_runs_its_walks_original_once(qtbot, make_inspector, scene_less):
    root, run = scene_less
    release_copy = next(q for q in json_lines(root) if "_obj_" in q["copied_video_path"] and q["scene"] == sf.SCENE)
    window, state = make_inspector(root, uid=release_copy["uid"])
    job = window.reconstruct
    qtbot.waitUntil(lambda: job.start_action.isEnabled())
    run.gate.set()
    job.start_action.trigger()
    with qtbot.waitSignal(job.ended, timeout=20000) as ended:
        pass
    assert ended.args == ["done"]
    assert run.calls == ["video_0.mp4"]                  # the original, not the copy the question shows
    assert "serves its 2 red-box copies too" in window.status_label.text()
    qtbot.waitUntil(lambda: state.geometry is not None and state.geometry.scene is not None, timeout=20000)
    assert state.geometry.video is not None              # the copy's question has the walk's path


def json_lines(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "questions.jsonl").read_text().splitlines()]


def test_without_pycolmap_it_says_what_to_install_naming_the_video(qtbot, make_inspector, tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(sys.modules, "pycolmap", None)              # import pycolmap raises ImportError
    root = sf.scene_less(tmp_path)
    window, state = make_inspector(root, uid=POS)
    job = window.reconstruct
    qtbot.waitUntil(lambda: job.start_action.isEnabled())
    job.start_action.trigger()
    with qtbot.waitSignal(job.ended, timeout=20000) as ended:
        pass
    message = ended.args[0]
    assert 'pip install "gst-viewer[sfm]"' in message
    problems = [window.problems.item(k).text() for k in range(window.problems.count())]
    assert any('gst-viewer[sfm]' in p and "video_0.mp4" in p for p in problems), problems
    assert "cannot reconstruct" in window.status_label.text()
    # The window goes on: another question, and the offer is back.
    _shown(qtbot, state, OTHER_SCENE)
    qtbot.waitUntil(lambda: _map(window).path_button.isVisible() and job.start_action.isEnabled())


def test_an_undecodable_video_is_said_naming_it(qtbot, make_inspector, tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    root = sf.scene_less(tmp_path)
    video = root / "scenes" / sf.SCENE / "videos" / f"{sf.VIDEO}.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(2000))        # an mp4 header and nothing to decode
    window, state = make_inspector(root, uid=POS)
    job = window.reconstruct
    qtbot.waitUntil(lambda: job.start_action.isEnabled())
    job.start_action.trigger()
    with qtbot.waitSignal(job.ended, timeout=60000) as ended:
        pass
    assert str(video) in ended.args[0] or os.path.realpath(video) in ended.args[0]
    assert not list((tmp_path / "cache" / "sfm").rglob("*"))
    problems = [window.problems.item(k).text() for k in range(window.problems.count())]
    assert any("cannot reconstruct" in p and "video_0.mp4" in p for p in problems), problems


def test_a_damaged_cache_file_is_said_naming_it_and_a_run_replaces_it(qtbot, make_inspector, scene_less):
    root, run = scene_less
    bad = _cache_file(root)
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"PK\x03\x04 not a result")
    window, state = make_inspector(root, uid=POS)
    job, button = window.reconstruct, _map(window).path_button
    qtbot.waitUntil(lambda: window.problems.count() > 0 and button.isVisible(), timeout=20000)
    problems = [window.problems.item(k).text() for k in range(window.problems.count())]
    assert any(str(bad) in p and "not a readable structure-from-motion result" in p for p in problems), problems
    assert str(bad) in button.toolTip()
    # Said once, however often the question is shown.
    _shown(qtbot, state, OTHER_SCENE)
    _shown(qtbot, state, POS)
    qtbot.waitUntil(lambda: button.isVisible())
    assert sum(str(bad) in window.problems.item(k).text() for k in range(window.problems.count())) == 1
    run.gate.set()
    job.start_action.trigger()
    with qtbot.waitSignal(job.ended, timeout=20000):
        pass
    qtbot.waitUntil(lambda: state.geometry is not None and state.geometry.scene is not None, timeout=20000)
    assert "aligned by" in state.geometry.scene.provenance


def test_closing_the_window_during_a_run_stops_it_before_the_window_is_gone(qtbot, make_inspector, scene_less):
    root, run = scene_less
    window, state = make_inspector(root, uid=POS)
    job = window.reconstruct
    qtbot.waitUntil(lambda: job.start_action.isEnabled())
    job.start_action.trigger()
    qtbot.waitUntil(lambda: "mapping 25 %" in _map(window).path_button.text(), timeout=10000)
    window.close()
    assert run.stopped.is_set()                 # the run had stopped when close returned (it cleans up first)
    assert not _cache_file(root).exists()


# --------------------------------------------------------------------------- the real pipeline
W, H, FRAMES = 200, 150, 20


def _room_release(root: Path) -> Path:
    """One Pos question on the synthetic room's walk (tests/sfm_scene.py), its view taken on the path."""
    frames, poses = walkthrough(FRAMES, W, H)
    root.mkdir()
    p = poses[8]
    write_pos_release(root, frames, render(pose(p[:3, 3], float(np.arctan2(p[1, 2], p[0, 2]))), W, H))
    return root


def test_the_real_pipeline_cancelled_leaves_nothing_and_run_again_shows_the_path_in_3d(
        qtbot, make_inspector, tmp_path, monkeypatch):
    import tempfile
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))        # the run's work folder, watched
    (tmp_path / "tmp").mkdir()
    root = _room_release(tmp_path / "room")
    window, state = make_inspector(root)
    job, button = window.reconstruct, _map(window).path_button
    qtbot.waitUntil(lambda: job.start_action.isEnabled(), timeout=20000)
    job.start_action.trigger()
    # Feature extraction reports only its start: the stage and the time since the run began say it is alive.
    qtbot.waitUntil(lambda: "features · 0:" in button.text(), timeout=60000)
    job.cancel()
    assert window.jobs.wait(60000)                         # the worker has stopped
    assert not list((tmp_path / "cache" / "sfm").rglob("*")) and not list((tmp_path / "tmp").iterdir())
    assert button.text() == BUTTON_TEXT
    job.start_action.trigger()
    with qtbot.waitSignal(job.ended, timeout=300000) as ended:
        pass
    assert ended.args == ["done"]
    qtbot.waitUntil(lambda: state.geometry is not None and state.geometry.scene is not None, timeout=20000)
    scene = state.geometry.scene
    # One Pos answer cannot align it: the path is in the 3D tab, and the map says why it is not on it.
    assert "not aligned to the map" in scene.provenance and "3D only" in scene.provenance
    # The window runs the command's default, every 2nd frame; the frames between are placed between their
    # neighbours, so the path is one line (NaN every other row would draw none).
    placed = np.isfinite(state.geometry.video.poses).all(axis=(1, 2))
    assert placed.sum() >= 0.9 * (FRAMES - 1)
    qtbot.waitUntil(lambda: "3D only" in _map(window).note.text(), timeout=20000)
    settle(qtbot, window)
    assert "frames placed" in window.status_label.text()        # what the run found, after the scene's problems
    sv = window.sample_view
    assert sv.tabs.isTabEnabled(1)
    sv.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: sv.view3d.overlay is not None and bool(sv.view3d.overlay.of(pr.Polyline, pr.PATH)),
                    timeout=20000)
