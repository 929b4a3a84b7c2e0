"""The Audit and Review docks inside the inspector window."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import audit_release as ar  # noqa: E402
from ui_helpers import settle  # noqa: E402


def test_audit_runs_off_the_gui_thread_and_opens_the_finding(qtbot, make_inspector, tmp_path):
    root = ar.build(tmp_path / "release")
    ar.set_answer(root, ar.uid("EDist_s"), 2.0)
    window, state = make_inspector(root, uid=ar.uid("TDS_E"))
    controller = window.audit
    assert controller.store is not None and controller.store.path == root.resolve() / "annotations.sqlite"
    controller.run()
    qtbot.waitUntil(lambda: controller.panel.report is not None, timeout=60000)
    settle(qtbot, window)
    assert [(f.uid, f.check) for f in controller.panel.visible_findings()] == [
        (ar.uid("EDist_s"), "gt_distance_mismatch")]
    controller.panel.table.selectRow(0)
    assert state.uid == ar.uid("EDist_s")
    assert window.browser.model.rows[window.browser.table.currentIndex().row()] == state.question
    assert controller.flags.uid == ar.uid("EDist_s")


def test_choosing_a_visibility_finding_renders_its_evidence(qtbot, make_inspector, tmp_path):
    root = ar.build(tmp_path / "release")
    doc = ar.read_scene(root)
    doc["instances"][ar.CHAIR]["bbox3"]["translation"] = [3.5, 1.0, 0.45]
    ar.write_scene(root, doc)
    ar.refresh(root)
    window, _ = make_inspector(root)
    panel = window.audit.panel
    window.audit.run()
    qtbot.waitUntil(lambda: panel.report is not None, timeout=60000)
    panel.set_filter(check="target_visible_in_query_view")
    panel.table.selectRow(0)
    qtbot.waitUntil(lambda: not panel.evidence.isHidden(), timeout=30000)
    settle(qtbot, window)
    from PyQt6.QtWidgets import QLabel
    assert any("pixels of chair_abcdef_0" in w.text() for w in panel.evidence.findChildren(QLabel))


def test_review_dock_flags_the_shown_sample(qtbot, make_inspector, tmp_path):
    root = ar.build(tmp_path / "release")
    window, state = make_inspector(root, uid=ar.uid("ED_v"))
    flags = window.audit.flags
    assert flags.uid == ar.uid("ED_v")
    flags.verdict_actions["bad_gt"].trigger()
    flags.note.setPlainText("off by 40 degrees")
    flags.save_note()
    state.select_uid(ar.uid("Pos"))
    settle(qtbot, window)
    assert flags.uid == ar.uid("Pos") and flags.note.toPlainText() == ""
    saved = window.audit.store.get(ar.uid("ED_v"))
    assert (saved.verdict, saved.note) == ("bad_gt", "off by 40 degrees")


def test_browser_filters_by_the_verdict_just_set(qtbot, make_inspector, tmp_path):
    from dataclasses import replace
    root = ar.build(tmp_path / "release")
    window, state = make_inspector(root, uid=ar.uid("ED_v"))
    window.audit.flags.verdict_actions["bad_gt"].trigger()
    assert state.verdicts == {ar.uid("ED_v"): "bad_gt"}
    state.filter = replace(state.filter, verdict="bad_gt")
    settle(qtbot, window)
    assert [state.session.release.uids[i] for i in state.order] == [ar.uid("ED_v")]
    assert window.browser.verdict_box.currentData() == "bad_gt"
    state.filter = replace(state.filter, verdict="unreviewed")
    settle(qtbot, window)
    assert ar.uid("ED_v") not in [state.session.release.uids[i] for i in state.order]
    assert len(state.order) == len(state.session.release) - 1
