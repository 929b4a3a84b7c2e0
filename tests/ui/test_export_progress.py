"""Clip and gallery exports from the window's actions go through one ExportProgress: its dialog, its
Cancel (the export stops and leaves no half-written file) and its error (a message naming the file)."""
import shutil
import sys
from pathlib import Path

import pytest
from PyQt6.QtWidgets import QDialog, QFileDialog

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ui_helpers import settle  # noqa: E402

from viewer.ui import talk_actions  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "assets" / "demo"
ED = "scene1_Object_Localization_Egocentric_Direction_visual_potted_plant_yzwbdf_2_pos_15_orient_0_video_0"


@pytest.fixture
def window(make_inspector, tmp_path):
    demo = Path(shutil.copytree(DEMO, tmp_path / "demo"))    # the window keeps flags beside the release
    win, state = make_inspector(demo, sorted((demo / "predictions").glob("*.jsonl")), uid=ED)
    assert state.uid == ED
    return win


@pytest.fixture
def user(monkeypatch):
    """What the user answers in the export dialogs: `user.save_as` / `user.folder`, the clip's options
    the shortest and smallest the dialog offers."""
    class Answers:
        save_as = ""
        folder = ""

    answers = Answers()

    def accept_short_clip(opts):
        opts.seconds.setValue(opts.seconds.minimum())
        opts.fps.setValue(5)
        opts.size_box.setCurrentIndex(opts.size_box.count() - 1)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(talk_actions.ClipOptions, "exec", accept_short_clip)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (answers.save_as, ""))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: answers.folder)
    return answers


def watch(exports, cancel_at: int | None = None) -> list:
    """The (done, total) steps the export reports; with `cancel_at`, the running dialog's Cancel is pressed
    once that many are done."""
    seen = []

    def on_step(done, total):
        seen.append((done, total))
        if done == cancel_at:
            exports.dialog.cancel()
    exports.progressed.connect(on_step)
    return seen


def status(win) -> str:
    return win.status_label.text()


def test_clip_and_gallery_run_cancel_and_fail_through_the_one_wrapper(qtbot, window, user, tmp_path):
    talk = window.talk
    out = tmp_path / "out"
    out.mkdir()

    # A clip, from the menu action: written whole, reported on the status bar.
    user.save_as = str(out / "clip.mp4")
    talk.clip_action.trigger()
    clip = (out / "clip.mp4").read_bytes()
    assert len(clip) > 1000 and status(window).startswith(f"clip written: {out / 'clip.mp4'}")
    assert talk.exports.dialog is None

    # Cancelled half-way over the same file: the clip from before is untouched, no partial file is left.
    seen = watch(talk.exports, cancel_at=3)
    talk.clip_action.trigger()
    assert seen[-1][0] == 3 and seen[-1][1] > 3                      # it stopped midway, not at the end
    assert status(window) == "clip export cancelled; nothing written"
    assert sorted(p.name for p in out.iterdir()) == ["clip.mp4"] and (out / "clip.mp4").read_bytes() == clip
    talk.exports.progressed.disconnect()

    # ... and cancelled as a new file: nothing at all.
    watch(talk.exports, cancel_at=2)
    user.save_as = str(out / "new.gif")
    talk.clip_action.trigger()
    assert sorted(p.name for p in out.iterdir()) == ["clip.mp4"]
    talk.exports.progressed.disconnect()

    # A gallery, from its action, through the same wrapper (its steps are the slides, then the files).
    user.folder = str(out / "gallery")
    steps = watch(talk.exports)
    talk.gallery_action.trigger()
    slides = sorted(p.name for p in (out / "gallery").glob("slide_*.png"))
    assert len(slides) == 12 and (out / "gallery" / "grid.png").is_file()
    assert status(window).startswith("task gallery: 12 slides") and steps[-1][0] == steps[-1][1] == 13
    talk.exports.progressed.disconnect()

    # Cancelled after two slides: no slide, grid or index is written.
    watch(talk.exports, cancel_at=2)
    user.folder = str(out / "gallery2")
    talk.gallery_action.trigger()
    assert status(window) == "task gallery cancelled; nothing written"
    assert list((out / "gallery2").iterdir()) == []
    talk.exports.progressed.disconnect()

    # Errors: a message box and the status bar name the file that could not be written; the window goes on.
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("x")
    user.save_as = str(blocker / "clip.mp4")
    talk.clip_action.trigger()
    box = talk.exports.error_box
    assert box is not None and box.isVisible()
    assert str(blocker / "clip.mp4") in box.text() and "not a folder" in box.text()
    assert str(blocker / "clip.mp4") in status(window)
    box.accept()
    assert talk.exports.error_box is None
    user.folder = str(blocker)
    talk.gallery_action.trigger()
    assert str(blocker) in talk.exports.error_box.text() and talk.exports.dialog is None
    talk.exports.error_box.accept()
    assert blocker.read_text() == "x"
    settle(qtbot, window)
    window.state.step(1)                                              # still usable
    assert window.state.uid != ED
