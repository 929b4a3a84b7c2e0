"""The model's eye in the window: walking the demo's questions, the strip shows the policy's frames at the
model's size with the red box outlined, the scrubber marks them; without 3D the scrubber still marks a
visual question's target frames, found by the red box alone."""
import json
import shutil

import numpy as np
import pytest
from ui_helpers import settle

from viewer.assets import assets_dir


def _visual_and_semantic(state):
    qs = state.session.release.questions
    visual = [q.uid for q in qs if q.column is not None and q.column.has_target and not q.column.semantic]
    other = [q.uid for q in qs if q.column is not None and not q.column.has_target]
    return visual, other


def test_strip_follows_questions_and_policy(inspect_demo, qtbot):
    win, state = inspect_demo()
    eye, slider = win.models_eye, win.sample_view.player.slider
    visual, other = _visual_and_semantic(state)
    for uid in visual[::3] + other[:2] + visual[:1]:        # visual, then others, then back
        state.select_uid(uid)
        settle(qtbot, win, 60000)
        sheet = eye.sheet.sheet
        n = sheet.n_frames
        assert sheet.sampled == tuple(np.linspace(0, n - 1, 8, dtype=int).tolist())
        assert slider.sampled == sheet.sampled
        if uid in visual:
            assert sheet.target, uid                       # the red box found in its video
            seen = [k for k, b in zip(sheet.shown, sheet.boxes) if b is not None]
            assert seen == sorted(set(sheet.sampled) & set(sheet.target))
            assert f"target in {sheet.k} of the 8" in eye.status.text()
        else:
            assert sheet.target is None and "target" not in eye.status.text()
    # another policy, at the model's resolution
    eye.policy.setCurrentText("uniform:16@448")
    eye.refresh()
    settle(qtbot, win, 60000)
    sheet = eye.sheet.sheet
    assert len(sheet.sampled) == 16 and sheet.size == (448, 358) and sheet.images[0].shape == (358, 448, 3)
    assert "16 of" in eye.status.text() and "448x358" in eye.status.text()
    eye.policy.setCurrentText("uniform:zero")
    eye.refresh()
    settle(qtbot, win)
    assert "uniform" in eye.status.text() and eye.sheet.sheet is None and slider.sampled == ()


def test_without_3d_the_scrubber_marks_the_red_box_frames(make_inspector, qtbot, tmp_path):
    root = tmp_path / "demo"
    shutil.copytree(assets_dir() / "demo", root)
    listed = {}
    for sj in root.glob("scenes/*/scene.json"):
        listed[sj.parent.name] = json.loads(sj.read_text())["videos"]["video_0"]["instances"]
        sj.unlink()
    win, state = make_inspector(root, sorted((root / "predictions").glob("*.jsonl")))
    visual, other = _visual_and_semantic(state)
    slider = win.sample_view.player.slider
    for uid in visual + other[:1] + visual[:1]:
        state.select_uid(uid)
        settle(qtbot, win, 60000)
        q = state.current
        if uid in other:
            assert win.timeline.target is None and slider.seen == ()
            continue
        t = win.timeline.target
        assert t is not None and t.source == "red box", uid
        truth = set(listed[q.scene][q.target]["appear_frames"])
        assert len(set(t.frames) ^ truth) <= 1 and slider.seen == t.frames
        assert t.best in t.frames


def test_k_column_filter_and_score_vs_k(inspect_demo, qtbot):
    win, state = inspect_demo()
    settle(qtbot, win, 120000)
    index, model = win.browser.index, win.browser.model
    release = state.session.release
    known = ~np.isnan(index.target_k)
    # every question about an object has its k under uniform:8; the others have none
    has_target = np.array([q.column is not None and q.column.has_target for q in release.questions])
    assert (known == has_target).all() and (index.sampled_n[has_target] == 8).all()
    col = model.column_of("target_k")
    for r in range(model.rowCount()):
        i = int(model.rows[r])
        text = model.data(model.index(r, col))
        assert text == (f"{int(index.target_k[i])} of 8" if known[i] else "?")
    never = int(np.count_nonzero(known & (index.target_k == 0)))
    assert never > 0
    from viewer.ui.target_k import TargetKBar
    bar = win.browser.findChild(TargetKBar)
    assert f"never sampled in {never} of {int(known.sum())}" in bar.status.text()
    bar.box.setCurrentText("target never sampled")
    settle(qtbot, win)
    assert state.filter.target_k == "target never sampled"
    assert len(model.rows) == never and all(index.target_k[int(i)] == 0 for i in model.rows)
    state.select_uid(release.uids[int(model.rows[0])])
    settle(qtbot, win, 60000)
    assert win.models_eye.sheet.sheet.k == 0 and "never saw it" in win.models_eye.status.text()
    bar.box.setCurrentText("any")
    settle(qtbot, win)
    assert len(model.rows) == len(release)
    # score against k: the buckets, weighted by their counts, give each model's mean over the known ones
    for r in state.session.results:
        xs, ys, ns = win.score_vs_k.curves()[r.model]
        ok = known & ~np.isnan(r.score) & release.in_leaderboard
        assert ns.sum() == ok.sum()
        assert float((ys * ns).sum() / ns.sum()) == pytest.approx(float(r.score[ok].mean()))
    # another policy: more frames, the target missed less often
    win.models_eye.policy.setCurrentText("uniform:32")
    win.models_eye._policy_edited()
    settle(qtbot, win, 120000)
    assert (index.sampled_n[has_target] == 32).all()
    assert int(np.count_nonzero(index.target_k == 0)) < never
