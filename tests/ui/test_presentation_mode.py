"""Presentation mode steps through its stages on key presses; the window's talk actions export."""
import shutil
import sys
from pathlib import Path

import pytest
from PyQt6.QtCore import Qt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ui_helpers import settle  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "assets" / "demo"
ED = "scene1_Object_Localization_Egocentric_Direction_visual_potted_plant_yzwbdf_2_pos_15_orient_0_video_0"


@pytest.fixture
def demo(tmp_path):
    """A copy: the window keeps reviewer flags beside the release it opens."""
    return Path(shutil.copytree(DEMO, tmp_path / "demo"))


def _open_demo(make_inspector, demo):
    window, state = make_inspector(demo, sorted((demo / "predictions").glob("*.jsonl")), uid=ED)
    assert state.uid == ED
    return window, state


def test_arrow_keys_step_question_video_answer_truth(qtbot, make_inspector, demo):
    window, state = _open_demo(make_inspector, demo)
    shows = window.talk.present(full_screen=False)
    qtbot.waitExposed(shows)
    seen = []
    state.events.stage.connect(seen.append)
    assert state.stage == "question"
    qtbot.keyClick(shows, Qt.Key.Key_Right)
    assert shows.stage == "video"
    qtbot.waitUntil(lambda: shows.frame > 3, timeout=5000)          # the video plays
    for key, stage in ((Qt.Key.Key_Space, "answer"), (Qt.Key.Key_PageDown, "truth"),
                       (Qt.Key.Key_Right, "truth"), (Qt.Key.Key_Left, "answer"), (Qt.Key.Key_Home, "question"),
                       (Qt.Key.Key_End, "truth")):
        qtbot.keyClick(shows, key)
        assert shows.stage == stage
    assert seen == ["video", "answer", "truth", "answer", "question", "truth"]   # no change at the end
    assert not shows.timer.isActive()                                 # playback stops off the video stage
    dark = shows.theme.name
    qtbot.keyClick(shows, Qt.Key.Key_T)
    assert shows.theme.name != dark and shows.theme.font_px >= 24     # large type for projectors
    grab = shows.grab().toImage()
    assert grab.width() > 100
    start = state.position()
    qtbot.keyClick(shows, Qt.Key.Key_Down)                            # next question, from the start
    assert state.uid != ED and state.position() == start + 1
    assert state.stage == "question" and shows.subject.qi == state.question
    state.question = int(state.order[3])                              # chosen in the window: presented
    assert shows.subject.qi == state.question
    settle(qtbot, window)
    with qtbot.waitSignal(shows.closed, timeout=3000):
        qtbot.keyClick(shows, Qt.Key.Key_Escape)
    assert window.talk.presentation is None


def test_menu_actions_and_exports(qtbot, make_inspector, tmp_path, demo):
    window, state = _open_demo(make_inspector, demo)
    texts = {a.text(): a for a in window.findChildren(type(window.talk.present_action))}
    assert texts["Presentation mode"].shortcut().toString() == "F5"
    assert {"Export figure…", "Export clip…", "Build task gallery…"} <= set(texts)
    assert window.talk.export_figure(str(tmp_path / "f.png"), "map", 1.0)
    assert (tmp_path / "f.png").stat().st_size > 10_000
    state.visible_models = frozenset({0})                  # exports draw the models the window shows
    subject = window.talk._subject(frames=False)
    assert subject.models == [0] and [a.index for a in subject.story.answers] == [0]
    subject.close()
    # ... on the map the window shows, also when the user chose another one.
    other = next(s for s in state.map_choice.sources if s != state.map_choice.current)
    state.map_source = other
    subject = window.talk._subject(frames=False)
    assert subject.media.map_source == other
    subject.close()
    assert window.talk.export_clip(str(tmp_path / "c.mp4"), seconds=1, fps=5, size=(160, 90))
    assert (tmp_path / "c.mp4").stat().st_size > 1000


def test_clip_dialog_sets_length_size_fps_and_models(qtbot, make_inspector, tmp_path, demo):
    window, state = _open_demo(make_inspector, demo)
    state.visible_models = frozenset({0, 2})
    opts = window.talk.clip_options()
    assert [b.isChecked() for b in opts.model_boxes] == [True, False, True]
    assert opts.seconds.value() == 10 and opts.fps.value() == 15 and opts.size() == (1280, 720)
    opts.model_boxes[2].setChecked(False)
    opts.size_box.setCurrentIndex(opts.size_box.count() - 1)
    assert opts.models() == [0] and opts.size() == (640, 360)
    assert window.talk.export_clip(str(tmp_path / "m.mp4"), 1, 5, opts.size(), opts.models(), "light")


def test_default_save_folder_is_never_inside_the_app(make_inspector, demo, monkeypatch, tmp_path):
    from viewer import assets
    window, state = _open_demo(make_inspector, demo)
    assert Path(window.talk._default_name(".mp4")).parent == Path(state.release_path).resolve().parent
    monkeypatch.setattr(assets, "assets_dir", lambda: Path(state.release_path).parent)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Path(window.talk._default_name(".mp4")).parent == tmp_path
