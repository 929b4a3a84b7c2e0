"""The settings strip (ui/settings_strip.py), the browser's setting patterns and the leaderboard's verdict."""
from __future__ import annotations

import json
from pathlib import Path

from ui_helpers import settle

from viewer.core.browse import BrowseFilter


def _first(root: Path, setting: str) -> dict:
    return next(r for line in (root / "questions.jsonl").read_text().splitlines()
                if (r := json.loads(line)).get("setting", "global") == setting)


def test_strip_shows_the_three_settings_on_one_map(make_inspector, qtbot, settings_demo):
    variant = _first(settings_demo, "local_image")
    preds = sorted((settings_demo / "predictions").glob("*.jsonl"))
    win, state = make_inspector(settings_demo, preds, uid=variant["base_uid"])
    strip = win.settings_strip
    settle(qtbot, win)
    assert strip.figure is not None and strip.figure.width() > 0
    assert strip.message.isHidden()
    # The Local-Image variant shows the same strip; a question of another task has none.
    state.select_uid(variant["uid"])
    settle(qtbot, win)
    assert strip.figure is not None
    state.select_uid(next(json.loads(x)["uid"] for x in (settings_demo / "questions.jsonl").read_text().splitlines()
                          if "Topdown" in json.loads(x)["uid"]))
    settle(qtbot, win)
    assert strip.figure is None and not strip.message.isHidden()
    # Leaderboard: the verdict sentence in the model's tooltip.
    tips = [win.leaderboard.verticalHeaderItem(r).toolTip() for r in range(len(state.models))]
    assert any("Table 2: integration-limited" in t for t in tips)
    # Browser: the pattern filter reaches the state and keeps global questions only.
    win.browser.pattern_box.setCurrentIndex(win.browser.pattern_box.findData("right_locally"))
    assert state.filter.pattern == "right_locally"
    f = BrowseFilter(pattern="right_locally", model=state.models.index("integration-limited"))
    rows = win.browser.index.rows(f, state.session.results)
    assert len(rows) and all(state.session.release.questions[i].setting == "global" for i in rows)
