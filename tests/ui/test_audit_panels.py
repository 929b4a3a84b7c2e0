"""The audit findings panel and the reviewer flags panel, as standalone widgets."""
import pytest

from viewer.core.audit import AuditReport, Finding, Tally
from viewer.core.audit.registry import CHECKS
from viewer.core.review.flags import DB_NAME, FlagStore
from viewer.core.state import InspectorState

pytest.importorskip("pytestqt")

from PyQt6.QtCore import Qt  # noqa: E402

from viewer.ui.audit_dock import AuditPanel  # noqa: E402
from viewer.ui.flags_panel import FlagsPanel  # noqa: E402


def report() -> AuditReport:
    findings = [
        Finding("q1", "gt_direction_mismatch", "error", "stored direction 90° but the geometry gives 9°",
                {"stored": 90, "recomputed": 9.46}),
        Finding("q2", "query_near_trajectory", "error", "current view is 0.10 m from frame 20", {"distance_m": 0.1}),
        Finding("q2", "models_disagree_with_gt", "warning", "2 models agree on 30°", {"models": ["a", "b"]}),
        Finding(None, "model_answer_convention", "info", "m: mirrored", {"model": "m"}),
    ]
    tally = Tally(CHECKS.ids())
    for f in findings:
        tally.flag(f.check)
    tally.skip("target_unseen_in_video", "no scene metadata")
    return AuditReport(findings, tally, list(tally.counts), seconds=0.5)


def test_audit_panel_lists_dependents_under_their_cause(qtbot):
    cause = Finding("gp", "answers_inconsistent", "error", "2 findings depend on GP_v desk", {},
                    dependents=("ed", "edist"))
    findings = [Finding("a", "answers_inconsistent", "error", "other", {}),
                Finding("ed", "answers_inconsistent", "error", "direction", {}, depends_on="gp"),
                Finding("edist", "answers_inconsistent", "warning", "distance", {}, depends_on="gp"), cause]
    tally = Tally(CHECKS.ids())
    panel = AuditPanel()
    qtbot.addWidget(panel)
    panel.set_report(AuditReport(findings, tally, list(tally.counts)))
    assert [f.uid for f in panel.visible_findings()] == ["a", "gp", "ed", "edist"]
    model = panel.model
    assert [model.data(model.index(r, 2)) for r in range(4)] == ["a", "gp", "↳ ed", "↳ edist"]


def test_audit_panel_filters_and_emits_the_uid(qtbot):
    panel = AuditPanel()
    qtbot.addWidget(panel)
    panel.set_report(report())
    assert len(panel.visible_findings()) == 4
    assert "1 warnings" in panel.status.text() and "1 checks skipped" in panel.status.text()
    panel.set_filter(severity="error")
    assert [f.check for f in panel.visible_findings()] == ["gt_direction_mismatch", "query_near_trajectory"]
    panel.set_filter(check="models_disagree_with_gt")
    assert [f.uid for f in panel.visible_findings()] == ["q2"]
    panel.set_filter()
    with qtbot.waitSignal(panel.uidSelected) as sig:
        panel.table.selectRow(1)
    assert sig.args == ["q2"]
    assert "0.10 m" in panel.details.toPlainText() and '"distance_m": 0.1' in panel.details.toPlainText()
    with qtbot.assertNotEmitted(panel.uidSelected):        # a release-wide finding names no sample
        panel.table.selectRow(3)
    assert "mirrored" in panel.details.toPlainText()
    with qtbot.waitSignal(panel.runRequested):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)


@pytest.fixture
def store(tmp_path):
    s = FlagStore(tmp_path / DB_NAME, author="ana")
    yield s
    s.close()


def test_flags_panel_verdicts_notes_and_undo(qtbot, store):
    panel = FlagsPanel(InspectorState())
    qtbot.addWidget(panel)
    panel.set_store(store)
    panel.set_uid("q1")
    qtbot.mouseClick(panel.buttons["bad_gt"], Qt.MouseButton.LeftButton)
    assert store.get("q1").verdict == "bad_gt" and panel.buttons["bad_gt"].isChecked()
    panel.note.setPlainText("angle off by 40")
    panel.set_uid("q2")                                           # moving on saves the note
    assert store.get("q1").note == "angle off by 40" and panel.note.toPlainText() == ""
    panel.set_uid("q1")
    assert panel.note.toPlainText() == "angle off by 40" and "ana" in panel.info.text()
    qtbot.mouseClick(panel.buttons["bad_gt"], Qt.MouseButton.LeftButton)   # second click clears
    assert store.get("q1").verdict is None
    panel.undo()
    assert store.get("q1").verdict == "bad_gt" and panel.buttons["bad_gt"].isChecked()
    panel.undo()
    panel.undo()
    assert store.get("q1") is None and panel.note.toPlainText() == ""


def test_flags_panel_shortcuts(qtbot, store):
    panel = FlagsPanel(InspectorState())
    qtbot.addWidget(panel)
    panel.set_store(store)
    panel.set_uid("q1")
    with qtbot.waitActive(panel):
        panel.show()
        panel.activateWindow()
    target = panel.buttons["ok"]
    target.setFocus()
    qtbot.keyClick(target, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert store.get("q1").verdict == "ambiguous"
    qtbot.keyClick(target, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert store.get("q1").verdict == "bad_media"
    qtbot.keyClick(target, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert store.get("q1").verdict == "ambiguous"
    panel.note.setFocus()
    qtbot.keyClicks(panel.note, "two lamps")
    qtbot.keyClick(panel.note, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert store.get("q1").note == "two lamps"
    qtbot.keyClick(target, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert store.get("q1").verdict is None


def test_flags_panel_keeps_text_on_conflict(qtbot, tmp_path, store):
    other = FlagStore(tmp_path / DB_NAME, author="ben")
    panel = FlagsPanel(InspectorState())
    qtbot.addWidget(panel)
    panel.set_store(store)
    panel.set_uid("q1")
    other.set_note("q1", "written in the other window")
    panel.note.setPlainText("mine")
    with qtbot.waitSignal(panel.message) as sig:
        panel.save_note()
    assert "changed by ben" in sig.args[0]
    assert panel.note.toPlainText() == "mine" and store.get("q1").note == "written in the other window"
    panel.save_note()                                              # deliberate second save replaces it
    assert store.get("q1").note == "mine"


def test_flags_panel_on_a_damaged_database_is_read_only(qtbot, tmp_path):
    path = tmp_path / DB_NAME
    path.write_bytes(b"garbage" * 200)
    panel = FlagsPanel(InspectorState())
    qtbot.addWidget(panel)
    panel.set_store(FlagStore(path))
    panel.set_uid("q1")
    assert not panel.problem.isHidden() and "damaged" in panel.problem.text()
    assert not panel.buttons["ok"].isEnabled() and panel.note.isReadOnly()
    panel.set_verdict("ok")                                         # ignored, no exception
    assert FlagStore(path).readonly


def test_audit_panel_shows_and_clears_evidence(qtbot):
    import numpy as np
    panel = AuditPanel()
    qtbot.addWidget(panel)
    panel.set_report(report())
    panel.show_evidence([("current view: target in red", np.zeros((48, 64, 3), np.uint8)),
                         ("frame 20", np.full((48, 64, 3), 200, np.uint8))])
    from PyQt6.QtWidgets import QLabel
    captions = [w.text() for w in panel.evidence.findChildren(QLabel) if w.text()]
    assert captions == ["current view: target in red", "frame 20"] and not panel.evidence.isHidden()
    pixmaps = [w.pixmap() for w in panel.evidence.findChildren(QLabel) if not w.pixmap().isNull()]
    assert [p.height() for p in pixmaps] == [AuditPanel.EVIDENCE_HEIGHT] * 2
    with qtbot.waitSignal(panel.findingSelected) as sig:
        panel.table.selectRow(0)
    assert sig.args[0].check == "gt_direction_mismatch" and panel.evidence.isHidden()


def test_evidence_pictures_stay_readable_in_a_low_dock(qtbot):
    """Five pictures in an 850 x 290 dock: each at least EVIDENCE_MIN high, side by side (scrolling), no
    caption over another caption or a picture (issue 28: 60 px thumbnails with overlapping captions)."""
    import numpy as np
    from PyQt6.QtWidgets import QLabel
    panel = AuditPanel()
    qtbot.addWidget(panel)
    panel.resize(850, 290)
    panel.show()
    panel.set_report(report())
    panel.show_evidence([(f"option {c}: the map with the path drawn by the model ({c})",
                          np.zeros((240, 320, 3), np.uint8)) for c in "ABCDE"])
    qtbot.waitUntil(lambda: panel.evidence.isVisible())
    labels = panel.evidence.findChildren(QLabel)
    pictures = [w for w in labels if not w.pixmap().isNull()]
    captions = [w for w in labels if w.text()]
    assert len(pictures) == len(captions) == 5
    assert all(w.pixmap().height() >= 120 for w in pictures)
    boxes = [w.geometry() for w in pictures + captions]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.intersects(b), (a, b)
    for c in captions:                                     # every caption's lines get their height
        assert c.height() >= c.heightForWidth(c.width())
