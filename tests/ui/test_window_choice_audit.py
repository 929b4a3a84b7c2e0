"""The Audit dock shows a choice finding's options beside the reference, each with its score.

Set GST_SCREENSHOT_DIR to keep the grabs (docs/screenshots/audit-choice-*.png come from here).
"""
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ui_helpers import settle  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "assets" / "demo"
pytestmark = pytest.mark.slow


def planted_demo(tmp_path, column_word: str) -> tuple[Path, str, str]:
    """The bundled demo with the first question of a choice column given a wrong letter
    (at the hard level, a mirrored copy of the right plan); (root, uid, letter)."""
    if not DEMO.is_dir():
        pytest.skip("the bundled demo release is not here")
    root = shutil.copytree(DEMO, tmp_path / "demo", ignore=shutil.ignore_patterns("predictions"))
    recs = [json.loads(x) for x in (root / "questions.jsonl").read_text().splitlines() if x.strip()]
    rec = next(r for r in recs if "Selection" in r["task"] and column_word in r["task"])
    truth = "ABCD".index(rec["answer"])
    wrong = next(k for k, label in enumerate(rec["meta"]["options"]) if k != truth
                 and ("mirror" in label or column_word != "Hard"))
    rec["answer"] = "ABCD"[wrong]
    (root / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    return root, rec["uid"], rec["answer"]


@pytest.mark.parametrize("column_word", ["Hard", "Trajection"])
def test_choice_finding_shows_the_options_with_scores(qtbot, make_inspector, tmp_path, column_word):
    from PyQt6.QtWidgets import QLabel
    root, uid, letter = planted_demo(tmp_path, column_word)
    window, state = make_inspector(root, size=(1500, 950))
    window.audit_dock.raise_()
    from PyQt6.QtCore import Qt
    window.resizeDocks([window.audit_dock], [430], Qt.Orientation.Vertical)
    panel = window.audit.panel
    window.audit.run()
    qtbot.waitUntil(lambda: panel.report is not None, timeout=120000)
    panel.set_filter(check="choice_answer_mismatch")
    assert [(f.uid, f.severity) for f in panel.visible_findings()] == [(uid, "error")]
    panel.table.selectRow(0)
    qtbot.waitUntil(lambda: not panel.evidence.isHidden(), timeout=60000)
    settle(qtbot, window)
    captions = [w.text() for w in panel.evidence.findChildren(QLabel) if w.text()]
    assert captions[0].startswith("reference: scene_1" if column_word == "Hard" else "the clip's camera path")
    assert sum("stored answer" in c for c in captions) == 1 and sum("best match" in c for c in captions) == 1
    assert any(c.startswith(f"{letter}: ") and "stored answer" in c for c in captions)
    assert len([c for c in captions if c[:2] in ("A:", "B:", "C:", "D:")]) == 4
    assert state.uid == uid
    out = os.environ.get("GST_SCREENSHOT_DIR")
    if out:
        name = "tds" if column_word == "Hard" else "traj"
        window.grab().save(str(Path(out) / f"audit-choice-{name}.png"))
