"""The first question's images decoded ahead (issue 30): the job that reads a release names the question the
browser will show first and starts decoding its images while the panels are built; the views then take
them from the cache, each decoded once. No timings here (benchmarks/bench_ui.py window)."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
from ui_helpers import open_release

import viewer.ui.images as images

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "gst-bench-page"
POS_UID = "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4"


@pytest.fixture
def decoded(monkeypatch):
    """Every decode: (path, max side, thread name), in order."""
    seen = []
    real = images.read_image

    def read(path, max_side=0):
        seen.append((path, max_side, threading.current_thread().name))
        return real(path, max_side)
    monkeypatch.setattr(images, "read_image", read)
    return seen


def _png(tmp_path, name="a.png", size=(40, 30)):
    path = tmp_path / name
    rgb = np.random.default_rng(0).integers(0, 255, (size[1], size[0], 3), np.uint8)
    assert images.array_to_qimage(rgb).save(str(path))
    return str(path)


def test_an_image_being_decoded_is_not_decoded_again_by_a_second_load(tmp_path, monkeypatch):
    path = _png(tmp_path)
    calls, real = [], images.read_image

    def slow(p, max_side=0):
        calls.append(p)
        time.sleep(0.3)                  # the second load comes while the first decodes
        return real(p, max_side)
    monkeypatch.setattr(images, "read_image", slow)
    cache = images.ImageCache()
    cache.prefetch([(path, 0)])
    time.sleep(0.05)
    got = []
    loaders = [threading.Thread(target=lambda: got.append(cache.load(path))) for _ in range(2)]
    for t in loaders:
        t.start()
    for t in loaders:
        t.join(10)
    assert calls == [path]
    assert len(got) == 2 and got[0] is got[1] and got[0].width() == 40
    assert cache.load(path) is got[0] and calls == [path]
    assert cache.load(path, 20).width() == 20 and calls == [path, path]      # another size is another image


def test_an_image_that_cannot_be_read_ahead_is_said_by_the_views_load_and_tried_again(tmp_path, monkeypatch):
    bad = tmp_path / "cut.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 10)
    cache = images.ImageCache()
    cache.prefetch([(str(bad), 0)])
    with pytest.raises(images.ImageError, match="cut.png"):
        cache.load(str(bad))
    bad.write_bytes(Path(_png(tmp_path, "whole.png")).read_bytes())     # mended: a failure is not kept
    assert cache.load(str(bad)).width() == 40


def _first_shown(win):
    """The images the shown question's views load (as `plan_images` names them)."""
    return images.plan_images(win.sample_view.view_plan())


@pytest.fixture
def named_ahead(monkeypatch):
    """The (path, max side) keys every `ImageCache.prefetch` was given."""
    named = []
    real = images.ImageCache.prefetch
    monkeypatch.setattr(images.ImageCache, "prefetch", lambda self, keys: named.extend(keys) or real(self, keys))
    return named


@pytest.fixture
def panels_slower_than_decoding(monkeypatch):
    """As at start-up, where the panels take longer to build than the first images to decode: the release is
    handed over once what was queued ahead is decoded."""
    import viewer.ui.main_window as mw
    read = mw.open_session

    def read_then_decode(*a, **k):
        session = read(*a, **k)
        images._AHEAD.submit(lambda: None).result(30)
        return session
    monkeypatch.setattr(mw, "open_session", read_then_decode)


@pytest.mark.parametrize("uid", [None, POS_UID])
def test_the_first_questions_images_are_decoded_ahead_once_each(qtbot, make_inspector, decoded, named_ahead, uid,
                                                                prediction_files, panels_slower_than_decoding):
    """As at start-up, where the panels take longer to build than the images to decode: the views find every
    image of the first question decoded, and load none through a job."""
    win, state = make_inspector()
    submitted = []
    real_submit = win.jobs.submit
    win.jobs.submit = lambda fn, *a, **k: submitted.append(k.get("label")) or real_submit(fn, *a, **k)
    open_release(qtbot, win, SAMPLES, prediction_files, uid)
    if uid is not None:
        assert state.uid == uid
    else:                               # the first model's worst answer first
        assert state.question == int(state.order[0]) and state.sort == (("score", 0), False)
    wanted = _first_shown(win)
    assert wanted and named_ahead == wanted, (wanted, named_ahead)
    assert [(p, s) for p, s, _ in decoded] == wanted                  # each once
    assert all(thread.startswith("gst-viewer-image-ahead") for _, _, thread in decoded), decoded
    assert "loading image" not in submitted and "loading map" not in submitted, submitted


def test_an_image_the_view_asks_for_before_its_turn_ahead_is_decoded_once(qtbot, make_inspector, decoded,
                                                                         named_ahead):
    """The panels were built before the release was read (a second release, a fast machine): the view asks for
    the map while the large view image is still decoding ahead; it decodes the map itself, and nothing twice."""
    win, state = make_inspector()
    open_release(qtbot, win, SAMPLES, (), POS_UID)
    wanted = _first_shown(win)
    assert named_ahead == wanted and len(wanted) == 2
    assert sorted((p, s) for p, s, _ in decoded) == sorted(wanted)
    sv = win.sample_view
    assert sv.view_pane.image is not None and sv.view_pane.image.width() == 1280 and sv.view_pane.damage == ""
    assert sv.map_panel.view.image_item.image.shape[:2] == (512, 640)


def test_the_question_named_ahead_follows_the_filter_kept_from_the_release_before(qtbot, make_inspector,
                                                                                 named_ahead, prediction_files):
    """The second opening: a status filter the user chose stays for the next release, and the question named
    ahead is the one that filter lists first, not the first of every question."""
    from dataclasses import replace
    win, state = make_inspector(SAMPLES, prediction_files)
    first = state.uid
    state.filter = replace(state.filter, status="wrong")          # model-a's wrong answers only
    qtbot.wait(1)
    named_ahead.clear()
    open_release(qtbot, win, SAMPLES, prediction_files)
    assert state.filter.status == "wrong" and 1 <= len(state.order) < 6
    assert named_ahead == _first_shown(win) and named_ahead, (named_ahead, state.uid, first)


def test_opening_a_release_links_its_first_question_to_its_scene_once(qtbot, make_inspector):
    """The state's session and question are both set on opening; the geometry loader linked the question at
    each, and every view drew the question's map and charts again for the second link."""
    win, state = make_inspector()
    links = []
    state.events.geometry.connect(lambda g: g is not None and links.append(state.uid))
    open_release(qtbot, win, SAMPLES, (), POS_UID)
    assert links == [POS_UID]
    for step in (-1, +1):                       # each question shown after is linked once too
        links.clear()
        before = state.uid
        state.step(step)
        qtbot.wait(1)
        assert state.uid != before and links == [state.uid]


ED_UID = "scene2_Object_Localization_Egocentric_Direction_visual_armchair_vzhxuf_0_pos_10_orient_4_video_3"


@pytest.mark.parametrize("folder, name, uid", [
    ("04_Object_Localization_Egocentric_Direction_visual", "image_01_19_14.jpg", ED_UID),        # a view
    ("06_Self_Localization_Global_Position", "image_02_topdown_2.png", POS_UID)])                # a map
def test_a_cut_image_of_the_first_question_decoded_ahead_is_still_said_once(qtbot, make_inspector, real_samples,
                                                                           folder, name, uid,
                                                                           panels_slower_than_decoding):
    """Decoded ahead, the first question's images reach the views from the cache, not from a load job; what is
    wrong with one that decoded although cut (a JPEG cut in its scan) is said all the same (it was not: the
    cache's hit skipped it), the map's as the view's, once however often the question is shown."""
    path = real_samples / folder / name
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 3 // 4])
    win, state = make_inspector(real_samples, (), uid)

    def said():
        return [t for t in (win.problems.item(k).text() for k in range(win.problems.count())) if name in t]
    qtbot.waitUntil(lambda: len(said()) == 1, timeout=30000)
    assert "cut" in said()[0] or "truncated" in said()[0], said()
    if name.endswith(".jpg"):                    # the view pane says it across the picture's foot too
        assert "truncated" in win.sample_view.view_pane.damage
    else:                                        # the map's note says it beside the map box
        assert "map file truncated" in win.sample_view.map_panel.note.text()
    state.step(-1)
    qtbot.wait(1)
    state.step(+1)
    qtbot.wait(50)
    assert state.uid == uid and len(said()) == 1
    if not name.endswith(".jpg"):                # shown again from the kept map: said on the map again
        assert "map file truncated" in win.sample_view.map_panel.note.text()


def test_the_published_map_a_whole_jpeg_named_png_is_not_said_to_be_broken(qtbot, make_inspector):
    """The paper's Pos sample ships its map as a JPEG named image_02_topdown_2.png: every reader decodes it by
    its bytes, and so is it checked; the window shows it and lists no problem for it."""
    win, state = make_inspector(SAMPLES, (), POS_UID)
    assert win.sample_view.map_panel.view.image_item.image.shape[:2] == (512, 640)
    listed = [win.problems.item(k).text() for k in range(win.problems.count())]
    assert not [t for t in listed if "topdown_2" in t], listed
