"""The model's eye in the window: walking the demo's questions, the strip shows the policy's frames at the
model's size with the red box outlined, the scrubber marks them; without 3D the scrubber still marks a
visual question's target frames, found by the red box alone."""
import json
import shutil
from dataclasses import replace

import numpy as np
import pytest
from ui_helpers import settle

from viewer.assets import assets_dir


def _pick(eye, text):
    """Type a policy into the Model's-eye box and press Enter, as a user does."""
    eye.policy.setCurrentText(text)
    eye.policy.lineEdit().editingFinished.emit()


def _visual_and_semantic(state):
    qs = state.session.release.questions
    visual = [q.uid for q in qs if q.column is not None and q.column.has_target and not q.column.semantic]
    other = [q.uid for q in qs if q.column is not None and not q.column.has_target]
    return visual, other


def test_strip_follows_questions_and_policy(inspect_demo, qtbot):
    win, state = inspect_demo()
    # Behind another tab the dock reads no frame: the scrubber's ticks only (next sample stays fast).
    state.select_uid(_visual_and_semantic(state)[0][1])
    settle(qtbot, win, 60000)
    assert win.models_eye.sheet.sheet.images == [] and len(win.sample_view.player.slider.sampled) == 8
    win.models_eye_dock.raise_()                            # the user opens the Model's eye tab
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
    _pick(eye, "uniform:16@448")
    settle(qtbot, win, 60000)
    sheet = eye.sheet.sheet
    assert len(sheet.sampled) == 16 and sheet.size == (448, 358) and sheet.images[0].shape == (358, 448, 3)
    assert "16 of" in eye.status.text() and "448x358" in eye.status.text()
    _pick(eye, "uniform:zero")
    settle(qtbot, win)
    assert "uniform" in eye.status.text() and eye.sheet.sheet is None and slider.sampled == ()
    assert str(state.frame_policies.policy_of(state.selected_model)) == "uniform:16@448"    # kept


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
    win.models_eye_dock.raise_()
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
        assert text == (f"{int(index.target_k[i])} of 8" if known[i] else "?" if has_target[i] else "")
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
    # score against k, over the plots dock's column: the buckets, weighted by their counts, give each
    # model's mean over the column's questions with known target frames
    win.plots_dock.raise_()
    settle(qtbot, win)
    box = win.plots.column_box
    columns = [box.itemData(i) for i in range(1, box.count())]
    objects = [c for c in columns if release.benchmark.columns[c].has_target]
    assert len(objects) >= 2
    plain = [c for c in columns if not release.benchmark.columns[c].has_target]
    for c in objects + plain[:1] + objects[:1]:              # object columns, one without, back again
        box.setCurrentIndex(box.findData(c))
        settle(qtbot, win)
        assert win.score_vs_k.column == c
        curves = win.score_vs_k.curves()
        for r in state.session.results:
            ok = known & ~np.isnan(r.score) & release.in_leaderboard & (release.column == c)
            xs, ys, ns = curves[r.model]
            assert ns.sum() == ok.sum()
            if ok.any():
                assert float((ys * ns).sum() / ns.sum()) == pytest.approx(float(r.score[ok].mean()))
    # another policy for the selected model: more frames, the target missed less often
    _pick(win.models_eye, "uniform:32")
    settle(qtbot, win, 120000)
    assert (index.sampled_n[has_target] == 32).all()
    assert int(np.count_nonzero(index.target_k == 0)) < never


def test_a_policy_per_model(make_inspector, qtbot, tmp_path):
    """`--frames uniform:8 sign-flipper=uniform:32` and a record's own frames: the dock, the k column and its
    filter follow the selected model's policy; the picker changes that model's only."""
    from ui_helpers import open_release

    from viewer.core.frames import FramePolicies
    root = tmp_path / "demo"
    shutil.copytree(assets_dir() / "demo", root)
    # noisy-expert's records give their own frames for two questions: indices, and a policy
    path = root / "predictions" / "noisy-expert.jsonl"
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    win, state = make_inspector()
    win.models_eye_dock.raise_()
    win.set_frame_policies(FramePolicies.parse(["uniform:8", "sign-flipper=uniform:32"]))
    release_uids = None
    open_release(qtbot, win, root, sorted((root / "predictions").glob("*.jsonl")))
    settle(qtbot, win, 120000)
    release = state.session.release
    visual, _ = _visual_and_semantic(state)
    own_indices, own_policy = visual[0], visual[1]
    for r in recs:
        if r["uid"] == own_indices:
            r["frames"] = [0, 1, 2]
        elif r["uid"] == own_policy:
            r["frames"] = "uniform:4"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    release_uids = release.uids
    # re-open, so the window reads the records' frames
    open_release(qtbot, win, root, sorted((root / "predictions").glob("*.jsonl")))
    settle(qtbot, win, 120000)
    state, release = win.state, win.state.session.release
    assert release.uids == release_uids
    names = list(state.models)
    eye, index, model = win.models_eye, win.browser.index, win.browser.model
    from viewer.ui.target_k import TargetKBar
    bar = win.browser.findChild(TargetKBar)
    has_target = np.array([q.column is not None and q.column.has_target for q in release.questions])
    col = model.column_of("target_k")

    def select(name):
        state.filter = replace(state.filter, model=names.index(name))
        settle(qtbot, win, 120000)

    def k_texts():
        return {release.uids[int(i)]: model.data(model.index(r, col)) for r, i in enumerate(model.rows)}

    never = {}
    for name, n in (("noisy-expert", 8), ("sign-flipper", 32), ("random-guesser", 8), ("sign-flipper", 32)):
        select(name)
        assert eye.policy.currentText() == f"uniform:{n}" and name in eye.model_label.text()
        assert f"{name} at uniform:{n}" in bar.status.text()
        plain = has_target.copy()
        if name == "noisy-expert":
            plain[[release.index[own_indices], release.index[own_policy]]] = False
        assert (index.sampled_n[plain] == n).all(), name
        texts = k_texts()
        assert texts[visual[2]].endswith(f"of {n}")
        never[name] = int(np.count_nonzero(index.target_k == 0))
        for uid in visual[2:5] + visual[2:3]:            # the dock walks the questions under this policy
            state.select_uid(uid)
            settle(qtbot, win, 60000)
            assert len(eye.sheet.sheet.sampled) == n and f"of the {n} sampled" in eye.status.text()
    assert never["sign-flipper"] < never["noisy-expert"]
    # a record's own frames win for its question: its indices, its policy
    select("noisy-expert")
    assert index.sampled_n[release.index[own_indices]] == 3
    assert index.sampled_n[release.index[own_policy]] == 4
    state.select_uid(own_indices)
    settle(qtbot, win, 60000)
    assert eye.sheet.sheet.sampled == (0, 1, 2)
    state.select_uid(own_policy)
    settle(qtbot, win, 60000)
    assert len(eye.sheet.sheet.sampled) == 4
    # the filter follows the selected model, and back again
    bar.box.setCurrentText("target never sampled")
    settle(qtbot, win)
    assert len(model.rows) == never["noisy-expert"]
    select("sign-flipper")
    assert len(model.rows) == never["sign-flipper"] and all(index.target_k[int(i)] == 0 for i in model.rows)
    select("noisy-expert")
    assert len(model.rows) == never["noisy-expert"]
    bar.box.setCurrentText("any")
    settle(qtbot, win)
    # the picker changes the selected model's policy only
    _pick(eye, "uniform:16")
    settle(qtbot, win, 120000)
    p = state.frame_policies
    assert str(p.policy_of("noisy-expert")) == "uniform:16" and str(p.policy_of("sign-flipper")) == "uniform:32"
    assert str(p.policy_of("random-guesser")) == "uniform:8"
    assert index.sampled_n[release.index[visual[2]]] == 16
    select("random-guesser")
    assert eye.policy.currentText() == "uniform:8" and index.sampled_n[release.index[visual[2]]] == 8
    # the plot draws each model against its own k
    k = win.score_vs_k.k
    assert int(np.nansum(k["sign-flipper"] == 0)) == never["sign-flipper"]
    assert int(np.count_nonzero(k["noisy-expert"][has_target] > 0)) > 0


@pytest.mark.parametrize("size", [(1600, 1000), (1280, 800)])
def test_the_strip_fits_its_dock_thumbnails_and_labels_whole(inspect_demo, qtbot, size):
    """At the README's size and a laptop's, the thumbnails take the dock's height with their frame labels
    under them: the strip scrolls across, never down (it used to cut the thumbnails and hide the labels)."""
    from viewer.ui.models_eye import LABEL_ROOM
    win, state = inspect_demo()
    win.resize(*size)
    win.models_eye_dock.raise_()
    state.select_uid(_visual_and_semantic(state)[0][0])
    settle(qtbot, win, 60000)
    eye = win.models_eye
    strip = eye.sheet
    assert strip.sheet is not None and strip.sheet.images
    assert strip._thumb_height() + LABEL_ROOM <= strip.height()
    assert not eye.scroll.verticalScrollBar().isVisible()
    assert strip.minimumWidth() >= len(strip.sheet.images) * strip._thumb_width()
