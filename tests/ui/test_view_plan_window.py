"""The window and the figures run one view plan (core/view/plan.py): walking every question of the demo and
back, the map and overlay shown are the plan's, and the figures' too; a VSI-Bench question with meta_info
draws its objects in the window and in a figure alike."""
from __future__ import annotations

import shutil
from pathlib import Path

from overlay_queries import signature
from ui_helpers import settle

from viewer.core import primitives as pr
from viewer.core.session import open_session
from viewer.render.question_media import gather_media
from viewer.render.scene_assets import SceneAssets

DATA = Path(__file__).parent.parent / "data"
SCENE = "scene0222_01"
PREDS = [DATA / "vsi-gemini" / "gemini_response" / f"{SCENE}_gemini_response.json"]


def shown_is_planned(qtbot, win, state, assets=None) -> None:
    settle(qtbot, win)
    sv = win.sample_view
    p = sv.view_plan()
    q = state.current
    assert p.qi == state.question and p.geometry is state.geometry
    if q.kind.picks_an_option:
        assert sv.answer_stack.currentWidget() is sv.gallery
        assert [o.pane.image is not None for o in sv.gallery.options[:len(p.options)]] == [bool(o.paths) for o in
                                                                                      p.options]
        return
    assert state.geometry is not None and state.geometry.scene is not None, q.uid     # every demo scene reads
    assert sv.map_panel.stack.currentWidget() is sv.map_panel.view, q.uid
    assert sv.map_panel.source_box.currentData() == p.map.source == state.shown_map, q.uid
    image = sv.map_panel.view.image_item.image
    h, w = image.shape[:2]
    drawn = sv.map_panel.view.overlay
    assert signature(drawn) == signature(p.map_overlay(p.map, state.shown_results(), w, h)), q.uid
    if assets is not None:
        # An export of the same question, run synchronously: the same map with the same overlay.
        media = gather_media(state.session, state.question, state.scenes, assets, sorted(state.visible_models),
                             frames=False)
        assert media.map_source == p.map.source and media.map_image.shape == image.shape, q.uid
        assert signature(media.overlay) == signature(drawn), q.uid


def test_every_demo_question_shows_its_plan_forward_and_back(qtbot, inspect_demo):
    win, state = inspect_demo()
    order = [int(i) for i in state.order]
    assert len(order) > 40
    state.question = order[0]
    assets = SceneAssets()
    shown_is_planned(qtbot, win, state, assets)
    for _ in order[1:]:
        state.step(+1)
        shown_is_planned(qtbot, win, state, assets)
    assert state.question == order[-1]
    for _ in order[1:]:
        state.step(-1)                       # back again: scenes already read link at once
        shown_is_planned(qtbot, win, state)
    assert state.question == order[0]
    # Hiding a model changes the overlay drawn, still the plan's.
    state.question = next(i for i in order if not state.session.release.questions[i].kind.picks_an_option)
    state.visible_models = frozenset({0})
    shown_is_planned(qtbot, win, state, assets)


def vsi_with_meta_info(tmp_path: Path) -> Path:
    root = tmp_path / "vsi"
    root.mkdir()
    shutil.copy(DATA / "vsi-gemini" / "scannet_questions" / f"{SCENE}_questions.json", root)
    shutil.copytree(DATA / "vsi-scannet" / "meta_info", root / "meta_info")
    return root


def test_a_vsi_figure_draws_the_objects_the_window_draws(qtbot, make_inspector, tmp_path):
    from viewer.figures.layouts import export_figure, panel_parts, prepare
    root = vsi_with_meta_info(tmp_path)
    uid = f"{SCENE}#14"
    session = open_session(root, PREDS)
    subject = prepare(session, session.release.index[uid], frames=False)
    assert panel_parts(subject)["middle"] == "map"                 # the objects in the map's place
    ov = subject.media.overlay
    assert sorted(x.text for x in ov.of(pr.Label, pr.TARGET)) == ["fan", "lamp", "radiator"]
    assert subject.map_q is not None and (subject.map_q.width(), subject.map_q.height()) == (ov.width, ov.height)
    out = export_figure(subject, "map", tmp_path / "objects.png")
    assert out.stat().st_size > 0
    win, state = make_inspector(root, PREDS, uid=uid)
    settle(qtbot, win)
    assert signature(win.sample_view.map_panel.view.overlay) == signature(ov)
