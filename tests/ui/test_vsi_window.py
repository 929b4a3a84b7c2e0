"""VSI-Bench in the window: text options with truth and picks, MRA bars in the question's unit,
an imported ScanNet-layout scan with its camera path, and the meta_info objects from above."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ui_helpers import settle

from viewer.core import primitives as pr

DATA = Path(__file__).parent.parent / "data"
GEMINI = DATA / "vsi-gemini"
SCAN = DATA / "vsi-scannet"
SCENE = "scene0222_01"
PREDS = [GEMINI / "gemini_response" / f"{SCENE}_gemini_response.json"]


def vsi_release(tmp_path: Path, meta_info: bool = False, scan: bool = False) -> Path:
    """One real scene's questions; optionally its meta_info and its scan imported through scenes/index.json."""
    root = tmp_path / "vsi"
    root.mkdir()
    shutil.copy(GEMINI / "scannet_questions" / f"{SCENE}_questions.json", root)
    if meta_info:
        shutil.copytree(SCAN / "meta_info", root / "meta_info")
    if scan:
        from viewer.render.scene_import import ImportRequest, import_scene
        import_scene(ImportRequest(str(root / "scenes" / "scannet" / SCENE),
                                   mesh=str(SCAN / SCENE / f"{SCENE}_vh_clean_2.ply"), trajectory=str(SCAN / SCENE)))
        (root / "scenes" / "index.json").write_text(json.dumps({SCENE: f"scannet/{SCENE}"}))
    return root


def test_multiple_choice_shows_the_option_texts_truth_and_picks(make_inspector, tmp_path):
    win, state = make_inspector(vsi_release(tmp_path), PREDS, uid=f"{SCENE}#14")
    sv = win.sample_view
    assert sv.chart_stack.isVisible() and sv.chart_stack.currentWidget() is sv.charts["option-texts"]
    rows = sv.charts["option-texts"].rows
    # "If I am standing by the lamp and facing the fan, is the radiator ...": truth D, Gemini answered "A. back-right".
    assert [(r.letter, r.text) for r in rows] == [("A", "back-right"), ("B", "front-right"), ("C", "back-left"),
                                                  ("D", "front-left")]
    assert [r.truth for r in rows] == [False, False, False, True]
    assert rows[0].picked_by == (0,) and not any(r.picked_by for r in rows[1:])
    labels = sv.charts["option-texts"]._labels
    assert "gemini" in labels[0].text() and "ground truth" in labels[3].text()
    state.visible_models = []                                  # hiding the model removes its badge
    assert not any(r.picked_by for r in sv.charts["option-texts"].rows)


@pytest.mark.parametrize("k, axis, truth_text", [
    (10, "size (cm)", "72 cm"),          # object_size_estimation, "measured in centimeters"
    (22, "area (m²)", "17.5 m²"),        # room_size_estimation, "(in square meters)"
    (33, "count", "2"),                  # object_counting: no unit
    (41, "distance (m)", "0.4 m"),       # object_abs_distance, "(in meters)"
])
def test_numeric_bars_are_labelled_in_the_questions_unit(make_inspector, tmp_path, k, axis, truth_text):
    win, state = make_inspector(vsi_release(tmp_path), PREDS, uid=f"{SCENE}#{k}")
    # The header above: the benchmark's short label and the truth in the question's unit, as in figures.
    header = win.sample_view.header.text()
    assert "ground truth <b style='color:#" in header and f">{truth_text}</b>" in header
    assert state.session.release.benchmark.label(state.session.release.questions[state.question].column.key) in header
    bars = win.sample_view.charts["bars"]
    assert win.sample_view.chart_stack.currentWidget() is bars
    assert bars.item.getAxis("bottom").labelText == axis
    assert bars.value_texts[0] == truth_text
    unit = truth_text.split(" ")[1] if " " in truth_text else None
    assert all((t.split(" ")[1] == unit) if unit else (" " not in t.split(" (")[0]) for t in bars.value_texts)


def test_gst_bars_keep_metres(make_inspector):
    from viewer.ui.answer_charts import DistanceBars
    bars = DistanceBars()
    bars.set_answer(4.7, [(0, 5.0)], ["a"], "egocentric")
    assert bars.item.getAxis("bottom").labelText == "distance (m)"
    assert bars.value_texts == ["4.7 m", "5.0 m (6%)"]


def test_an_imported_scannet_scan_shows_the_scan_and_camera_path(qtbot, make_inspector, tmp_path):
    win, state = make_inspector(vsi_release(tmp_path, scan=True), PREDS, uid=f"{SCENE}#14")
    settle(qtbot, win)
    g = state.geometry
    assert g is not None and g.scene is not None and g.scene.id == SCENE
    assert g.video is not None and len(g.video.poses) == 12              # the scan's trajectory
    assert not g.problems, g.problems
    sv = win.sample_view
    assert sv.tabs.isTabEnabled(1)                                       # the 3D view of the scan
    assert state.map_choice.current is not None
    drawn = sv.map_panel.view
    assert drawn.overlay is not None and drawn.overlay.path() is not None     # the camera path on the map
    sv.tabs.setCurrentIndex(1)
    settle(qtbot, win)
    assert sv.view3d.isVisible()


def test_meta_info_draws_the_questions_objects_from_above(qtbot, make_inspector, tmp_path):
    win, state = make_inspector(vsi_release(tmp_path, meta_info=True), PREDS, uid=f"{SCENE}#14")
    sv = win.sample_view
    assert sv.answer_stack.isVisible() and sv.answer_stack.currentWidget() is sv.map_panel
    ov = sv.map_panel.view.overlay
    labels = sorted(p.text for p in ov.of(pr.Label, pr.TARGET))
    assert labels == ["fan", "lamp", "radiator"]                         # the objects the question names
    assert len(ov.of(pr.Polygon, pr.TARGET)) == 3
    assert sv.chart_stack.currentWidget() is sv.charts["option-texts"]              # the options still beside it


def test_task_and_scene_cells_read_whole_at_1600x1000(make_inspector, tmp_path):
    """The browser lists VSI-Bench's short task labels ("ObjCount", "RelDir medium") and its scene ids whole:
    no cell of either column is elided, judged by the table's own font metrics, for every question of the
    five Gemini-study scenes, as listed, after a sort by task and after a filter."""
    from PyQt6.QtWidgets import QStyle

    from viewer.core.browse import BrowseFilter

    root = tmp_path / "all"
    shutil.copytree(GEMINI / "scannet_questions", root)
    shutil.copytree(DATA / "vsi-meta-info" / "meta_info", root / "meta_info")
    win, state = make_inspector(root, sorted((GEMINI / "gemini_response").glob("*.json")), size=(1600, 1000))
    browser = win.browser
    table, model = browser.table, browser.model
    fm = table.fontMetrics()
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    bench = state.session.release.benchmark

    def check_every_row():
        for key in ("column", "scene"):
            col = model.column_of(key)
            room = table.columnWidth(col) - margin
            for row in range(model.rowCount()):
                text = model.data(model.index(row, col))
                assert fm.horizontalAdvance(text) <= room, (key, text, room)

    assert model.rowCount() == 291
    labels = {model.data(model.index(r, model.column_of("column"))) for r in range(model.rowCount())}
    assert labels == {bench.label(c.key) for c in bench.columns}
    assert {"ObjCount", "AbsDist", "RelDir medium", "ApprOrder"} <= labels
    check_every_row()
    model.sort(model.column_of("column"))
    check_every_row()
    state.filter = BrowseFilter(text="scene0697_01")
    assert 0 < model.rowCount() < 291
    check_every_row()


@pytest.mark.parametrize("uid, objects", [
    ("scene0207_02#13", ["bed"]),                                  # object size: "... of the bed ..."
    ("scene0207_02#0", ["chair", "counter", "mirror", "pillow", "towel 1", "towel 2"]),   # relative distance
])
def test_the_real_meta_info_draws_the_questions_objects_in_the_window(make_inspector, tmp_path, uid, objects):
    """thinking-in-space's own meta_info (the committed excerpt of the real files), dropped beside the
    release: the question's objects on its top-down, the answers' chart beside it."""
    root = tmp_path / "real"
    shutil.copytree(GEMINI / "scannet_questions", root)
    shutil.copytree(DATA / "vsi-meta-info" / "meta_info", root / "meta_info")
    win, state = make_inspector(root, sorted((GEMINI / "gemini_response").glob("*.json")), uid=uid)
    sv = win.sample_view
    assert sv.answer_stack.currentWidget() is sv.map_panel
    ov = sv.map_panel.view.overlay
    assert sorted(p.text for p in ov.of(pr.Label, pr.TARGET)) == objects
    assert len(ov.of(pr.Polygon, pr.TARGET)) == len(objects)


def test_a_meta_info_finding_shows_the_objects_it_used_from_above(qtbot, make_inspector, tmp_path):
    """A planted VSI-Bench count (bed: 2 stored as 4): choosing its finding in the Audit dock draws the
    scene's beds from above, captioned with the stored and the recomputed count; then choosing a finding
    of another check (or none with objects) replaces the picture rather than keeping the first."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from PyQt6.QtCore import QCoreApplication, QEvent
    from PyQt6.QtWidgets import QLabel
    from test_vsi_audit import _plant, _release
    from ui_helpers import settle
    root = _release(tmp_path, _plant)
    window, state = make_inspector(root)
    panel = window.audit.panel
    window.audit.run()
    qtbot.waitUntil(lambda: panel.report is not None, timeout=60000)
    for check, words in (("vsi_count_mismatch", ("bed from above", "stored 4", "recomputed 2")),
                         ("vsi_abs_distance_mismatch", ("lamp, nightstand from above", "stored 0.8")),
                         ("vsi_count_mismatch", ("bed from above",))):
        panel.set_filter(check=check)
        panel.table.selectRow(0)
        qtbot.waitUntil(lambda: not panel.evidence.isHidden(), timeout=30000)
        settle(qtbot, window)                    # the previous finding's pictures are deleted later:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        captions = [w.text() for w in panel.evidence.findChildren(QLabel) if w.text()]
        assert len(captions) == 1 and all(word in captions[0] for word in words), captions
        pictures = [w.pixmap() for w in panel.evidence.findChildren(QLabel) if not w.pixmap().isNull()]
        assert len(pictures) == 1
        image = pictures[0].toImage()
        # Not a blank canvas: the objects' footprints are drawn on it.
        colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
        assert len(colours) > 3
        assert state.uid == panel.visible_findings()[0].uid


def test_the_shown_questions_row_is_in_view_once_the_window_is_laid_out(make_inspector, qtbot):
    """Opened on a uid, the browser scrolls to its row; the filters wrapping and the docks settling then resize
    the table, and the row stays in view (it ended a few rows below the table's bottom)."""
    preds = sorted((GEMINI / "gemini_response").glob("*.json"))
    win, state = make_inspector(GEMINI / "scannet_questions", preds, uid=f"{SCENE}#14", size=(1600, 1000))
    settle(qtbot, win)
    table = win.browser.table
    assert state.current.uid == f"{SCENE}#14"
    idx = table.currentIndex()
    assert int(win.browser.model.rows[idx.row()]) == state.question
    rect = table.visualRect(idx)
    assert rect.top() >= 0 and rect.bottom() <= table.viewport().height(), (rect, table.viewport().height())
