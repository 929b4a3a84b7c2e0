"""The model's eye in the window: walking the demo's questions, the strip shows the policy's frames at the
model's size with the red box outlined, the scrubber marks them; without 3D the scrubber still marks a
visual question's target frames, found by the red box alone."""
import json
import shutil

import numpy as np
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
