"""The window on the six published samples (no scene metadata, one video)."""
from dataclasses import replace

import numpy as np
from overlay_queries import truth_point
from PyQt6.QtCore import QMimeData, QPointF, QSize, Qt, QUrl
from PyQt6.QtGui import QDropEvent
from PyQt6.QtTest import QTest
from ui_helpers import settle

from viewer.core import primitives as pr
from viewer.core.benchmarks.gst.columns import COLUMN_KEYS
from viewer.core.browse import BrowseFilter
from viewer.core.map_choice import MapSource

POS_UID = "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4"
ED_UID = "scene2_Object_Localization_Egocentric_Direction_visual_armchair_vzhxuf_0_pos_10_orient_4_video_3"
EDIST_UID = "scene1_Object_Localization_Egocentric_Distance_visual_armchair_bslhmj_0_pos_2_orient_0_video_5"
TDSM_UID = "scene16_Topdown_Selection_Medium_video_1"


def test_every_sample_shows_without_error(qtbot, make_inspector, real_samples, prediction_files):
    window, state = make_inspector(real_samples, prediction_files)
    assert len(state.order) == 6 and state.models == ("model-a", "model-b")
    assert window.browser.model.columnCount() == 5 + 3 * 2 + 1        # + k (ui/target_k.py)
    for pos in range(6):
        window.browser.select_position(pos)                 # a click on the row
        settle(qtbot, window)
        assert state.position() == pos
        assert state.uid in window.sample_view.header.text()
    # Five missing videos and model-b's missing answer: reported, not fatal.
    texts = [window.problems.item(i).text() for i in range(window.problems.count())]
    assert sum("file not found" in t for t in texts) == 5
    assert sum("no prediction from 'model-b'" in t for t in texts) == 1
    assert "6 problems" in window.problems_button.text()


def test_point_sample_draws_truth_and_predictions_on_the_map(qtbot, make_inspector, real_samples,
                                                             prediction_files):
    window, state = make_inspector(real_samples, prediction_files, uid=POS_UID)
    sv = window.sample_view
    assert state.uid == POS_UID and state.shown_map == MapSource.release()
    assert sv.answer_stack.currentWidget() is sv.map_panel
    assert sv.map_panel.stack.currentWidget() is sv.map_panel.view
    ov = sv.map_panel.view.overlay
    assert (ov.width, ov.height) == (640, 512)
    # <point>391 698</point>: the centre of cell (391, 698) of the 1000-grid on a 640x512 map.
    np.testing.assert_allclose(truth_point(ov), [391.5 * 0.64, 698.5 * 0.512])
    assert [r.label for r in ov.of(pr.Ring)] == ["100", "150", "200", "250", "300"]
    assert [p.model for p in ov.of(pr.Marker, pr.MODEL)] == [0, 1]
    np.testing.assert_allclose(ov.of(pr.Marker, pr.MODEL)[0].at, [450.5 * 0.64, 640.5 * 0.512])
    assert sv.view_pane.image is not None                      # the current view loaded
    assert "file not found" in sv.player.pane.message           # video4.mp4 is not published
    assert not sv.player.play_button.isEnabled()
    state.visible_models = frozenset({1})                       # model-a hidden
    assert [p.model for p in sv.map_panel.view.overlay.of(pr.Marker, pr.MODEL)] == [1]
    assert sv.answers.item(0, 0).checkState() == Qt.CheckState.Unchecked


def test_answer_table_check_boxes_are_the_visible_models(qtbot, make_inspector, real_samples, prediction_files):
    window, state = make_inspector(real_samples, prediction_files, uid=POS_UID)
    table = window.sample_view.answers
    table.item(1, 0).setCheckState(Qt.CheckState.Unchecked)
    assert state.visible_models == {0}
    assert [p.model for p in window.sample_view.map_panel.view.overlay.of(pr.Marker, pr.MODEL)] == [0]


def test_angle_and_distance_samples_use_dial_and_bars(qtbot, make_inspector, real_samples, prediction_files):
    window, state = make_inspector(real_samples, prediction_files, uid=ED_UID)
    sv = window.sample_view
    assert sv.chart_stack.currentWidget() is sv.charts["dial"] and sv.chart_stack.isVisible()
    assert not sv.answer_stack.isVisible()           # no map for an egocentric question without a scene
    legend = [label.text for _, label in sv.charts["dial"].legend.items]
    assert "ground truth" in legend
    # Seen from above, facing up: -134° is behind on the right, model-b's 45° ahead on the left.
    tips = dict(sv.charts["dial"].arrow_tips)
    from viewer.ui import style
    truth_tip = tips[style.TRUTH.name()]
    assert truth_tip[0] > 0 and truth_tip[1] < 0
    b_tip = tips[style.model_color(1).name()]
    assert b_tip[0] < 0 and b_tip[1] > 0
    np.testing.assert_allclose(np.hypot(*b_tip), 0.9)
    state.select_uid(EDIST_UID)
    settle(qtbot, window)
    assert sv.chart_stack.currentWidget() is sv.charts["bars"]
    # Back to a choice question: its gallery takes the answer area again.
    state.select_uid(TDSM_UID)
    settle(qtbot, window)
    assert sv.answer_stack.isVisible() and sv.answer_stack.currentWidget() is sv.gallery
    assert not sv.chart_stack.isVisible()
    ticks = sv.charts["bars"].item.getAxis("left")._tickLevels[0]
    assert [name for _, name in ticks] == ["ground truth", "model-a"]    # model-b gave no answer


def test_choice_gallery_and_video_playback(qtbot, make_inspector, real_samples, prediction_files):
    window, state = make_inspector(real_samples, prediction_files, uid=TDSM_UID)
    sv = window.sample_view
    assert sv.answer_stack.currentWidget() is sv.gallery
    opts = sv.gallery.options
    assert "ground truth" in opts[2].pane._caption and opts[2].pane._frame_color is not None
    assert "model-a" in opts[0].picks.text() and "model-b" in opts[2].picks.text()
    assert all(o.pane.image is not None for o in opts[:4])
    player = sv.player
    qtbot.waitUntil(lambda: player.n_frames > 0, timeout=20000)
    assert player.n_frames == 535 and state.frame == 0
    player.step(+1)
    qtbot.waitUntil(lambda: state.frame == 1, timeout=10000)
    state.frame = 400                                           # seeks the video
    qtbot.waitUntil(lambda: player.current == 400, timeout=10000)
    assert player.pane.image.width() == 640
    player.play()
    qtbot.waitUntil(lambda: state.frame >= 403, timeout=10000)
    player.pause()
    assert "/ 535" in player.label.text()


def test_filter_sort_and_keys(qtbot, make_inspector, real_samples, prediction_files):
    window, state = make_inspector(real_samples, prediction_files)
    uids = state.session.release.uids
    b = window.browser
    b.search.setText("topdown")                                 # typed: the state follows
    qtbot.waitUntil(lambda: len(state.order) == 2, timeout=3000)
    assert state.filter.text == "topdown"
    state.filter = replace(state.filter, text="")               # set: the widgets follow
    assert len(state.order) == 6 and b.search.text() == ""
    b.column_box.setCurrentIndex(b.column_box.findData(COLUMN_KEYS.index("ED_v")))
    assert state.filter.columns == {COLUMN_KEYS.index("ED_v")} and len(state.order) == 1
    state.filter = replace(state.filter, columns=None, status="failed")     # model-a is selected by default
    assert b.column_box.currentIndex() == 0 and b.status_box.currentData() == "failed"
    assert {uids[i] for i in state.order} == {TDSM_UID, ED_UID, EDIST_UID}
    state.filter = replace(state.filter, status="any")
    # Sorted by model-a's score: the order the state publishes follows.
    score_col = 5 + 2
    b.table.sortByColumn(score_col, Qt.SortOrder.AscendingOrder)
    scores = state.session.results[0].score[state.order]
    assert list(scores) == sorted(scores)
    # j/k move; n/p jump between model-a's failures in the displayed order.
    state.question = int(state.order[0])
    with qtbot.waitActive(window):
        window.activateWindow()
    b.table.setFocus()
    QTest.keyClick(window, Qt.Key.Key_J)
    assert state.position() == 1 and b.table.currentIndex().row() == 1
    QTest.keyClick(window, Qt.Key.Key_K)
    assert state.position() == 0
    b.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    state.question = int(state.order[0])
    QTest.keyClick(window, Qt.Key.Key_N)
    assert state.uid == TDSM_UID
    QTest.keyClick(window, Qt.Key.Key_N)
    assert state.uid == ED_UID
    QTest.keyClick(window, Qt.Key.Key_P)
    assert state.uid == TDSM_UID
    QTest.keyClick(window, Qt.Key.Key_P)
    assert "no failure of model-a before" in window.status_label.text()


def test_a_question_shown_from_elsewhere_clears_the_filters_hiding_it(make_inspector, real_samples,
                                                                      prediction_files):
    window, state = make_inspector(real_samples, prediction_files)
    state.filter = replace(state.filter, columns=frozenset({COLUMN_KEYS.index("ED_v")}), text="armchair")
    assert state.uid == ED_UID
    assert state.select_uid(POS_UID)
    assert state.filter == BrowseFilter(model=0, model_b=1) and len(state.order) == 6   # models A and B stay
    assert window.browser.model.rows[window.browser.table.currentIndex().row()] == state.question
    assert not state.select_uid("no such uid")


def test_leaderboard_click_filters_browser(qtbot, make_inspector, real_samples, prediction_files):
    window, state = make_inspector(real_samples, prediction_files)
    lb = window.leaderboard
    assert lb.rowCount() == 3 and lb.verticalHeaderItem(2).text().startswith("Random")
    col = COLUMN_KEYS.index("Pos")
    assert lb.item(0, col).text() == "100.0" and lb.item(1, col).text() == "0.0"
    lb.cellClicked.emit(1, col)
    assert state.filter.model == 1 and state.filter.columns == {col}
    assert [state.session.release.uids[i] for i in state.order] == [POS_UID]
    assert window.browser.model_box.currentData() == 1
    lb.cellClicked.emit(2, col)                      # reference rows do not filter
    assert state.filter.model == 1


def test_add_predictions_and_bad_prediction_file(qtbot, make_inspector, real_samples, prediction_files, tmp_path):
    window, state = make_inspector(real_samples, prediction_files[:1], uid=POS_UID)
    assert window.leaderboard.rowCount() == 2
    bad = tmp_path / "broken.jsonl"
    bad.write_text("{not json\n")
    with qtbot.waitSignal(window.predictionsAdded, timeout=30000):
        window.add_predictions([prediction_files[1], bad])
    assert state.models == ("model-a", "model-b") and state.visible_models == {0, 1}
    assert state.uid == POS_UID                      # still shown, now with both answers
    assert [p.model for p in window.sample_view.map_panel.view.overlay.of(pr.Marker, pr.MODEL)] == [0, 1]
    assert window.leaderboard.rowCount() == 3
    assert window.browser.model.columnCount() == 5 + 3 * 2 + 1        # + k (ui/target_k.py)
    assert any("broken.jsonl" in window.problems.item(i).text() for i in range(window.problems.count()))


def test_corrupt_video_is_reported_in_the_player(qtbot, make_inspector, real_samples):
    video = real_samples / "02_Global_Structure_Understanding_Topdown_Selection_Medium" / "video1.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"garbage" * 1000)
    window, _ = make_inspector(real_samples, uid=TDSM_UID)
    player = window.sample_view.player
    qtbot.waitUntil(lambda: "cannot be played" in player.pane.message, timeout=20000)
    assert not player.play_button.isEnabled()


def test_missing_release_is_a_message_not_a_crash(qtbot, make_inspector, tmp_path):
    window, state = make_inspector()
    with qtbot.waitSignal(window.loadFailed, timeout=10000):
        window.open_release(tmp_path / "nowhere")
    assert "no such file or folder" in window.status_label.text() and state.session is None


def test_layout_and_recent_releases_are_remembered(qtbot, settings, make_inspector, real_samples):
    from viewer.ui.main_window import MainWindow
    win, state = make_inspector(real_samples)
    state.map_source = MapSource.scene("occupancy")
    # The offscreen screen is 800x600 and Qt keeps restored windows on screen, so
    # check what was saved and that the new window took it rather than the defaults.
    win.sample_view.top_split.setSizes([300, 700])
    qtbot.wait(50)
    state = win.sample_view.top_split.saveState()
    win.close()
    assert settings.value("splitters/top_split") == state
    assert settings.value("window/geometry") == win.saveGeometry()
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert again.size() != QSize(1600, 1000)          # the default when nothing is remembered
    assert again.recent_releases() == [str(real_samples.resolve())]
    assert again.state.map_source == MapSource.scene("occupancy")


def test_drop_a_release_folder_then_prediction_files(qtbot, make_inspector, real_samples, prediction_files):
    window, state = make_inspector()

    def drop(paths):
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
        event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                           Qt.KeyboardModifier.NoModifier)
        window.dropEvent(event)

    with qtbot.waitSignal(window.sessionLoaded, timeout=30000):
        drop([real_samples])
    with qtbot.waitSignal(window.predictionsAdded, timeout=30000):
        drop(prediction_files)
    assert state.models == ("model-a", "model-b")
    settle(qtbot, window)
