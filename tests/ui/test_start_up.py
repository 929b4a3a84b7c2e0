"""The window's start-up (issue 30): what it does before the first sample is shown, and what it leaves for
later. No timings here (benchmarks/bench_ui.py window); these say what work is done, and when."""
from __future__ import annotations

from pathlib import Path

from ui_helpers import open_release

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "gst-bench-page"
POS_UID = "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4"


def test_a_release_opened_on_a_uid_shows_that_question_first(qtbot, make_inspector, monkeypatch):
    """`gst-viewer RELEASE --uid U`: the first question shown is U's; the first listed question, which
    the browser would otherwise pick, is never shown, so none of its images is read (they were: four
    option images decoded, ~0.5 s of the two job threads, before U's)."""
    import viewer.ui.images as images
    read = []
    real = images.read_image
    monkeypatch.setattr(images, "read_image", lambda path, max_side=0: read.append(path) or real(path, max_side))
    win, state = make_inspector()
    shown = []
    state.events.question.connect(lambda qi: qi is not None and shown.append(state.uid))
    open_release(qtbot, win, SAMPLES, (), POS_UID)
    assert shown == [POS_UID] and state.uid == POS_UID
    assert read and all(Path(p).parent.name == "06_Self_Localization_Global_Position" for p in read), read


def test_a_uid_the_release_lacks_still_opens_the_first_listed(qtbot, make_inspector):
    win, state = make_inspector()
    open_release(qtbot, win, SAMPLES, (), "no-such-uid")
    assert state.question == int(state.order[0])
    assert "no-such-uid" in win.status_label.text()
