"""A sample's view plan (core/view/plan.py), with no Qt: which map, its pixel transform, its overlay, the view
image and the boxes, for every column of the demo, a VSI-Bench question with meta_info and questions without
a scene; and the state's geometry, cleared by a new question."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import scene_release as sr
from overlay_queries import signature as overlay_signature

from viewer.assets import assets_dir
from viewer.core import primitives as pr
from viewer.core.inferred import inferred_for
from viewer.core.map_choice import MapKind, MapSource
from viewer.core.overlays import published_map_overlay, scene_map_overlay
from viewer.core.release import load_release
from viewer.core.scene.model import link_question
from viewer.core.scene.sources import SceneLibrary
from viewer.core.session import open_session
from viewer.core.state import InspectorState
from viewer.core.view.plan import MapCanvas, MapFile, MapRender, map_choice, plan, video_boxes

DATA = Path(__file__).parent / "data"
DEMO = assets_dir() / "demo"
VSI_SCENE = "scene0222_01"


@pytest.fixture(scope="module")
def demo():
    release = load_release(DEMO)
    return release, SceneLibrary(release.root)


def one_per_column(release):
    seen = {}
    for i, q in enumerate(release.questions):
        seen.setdefault(q.column.key, i)
    return seen


def test_every_column_of_the_demo_is_planned(demo):
    release, scenes = demo
    columns = one_per_column(release)
    assert len(columns) == 12
    for key, qi in columns.items():
        q = release.questions[qi]
        g = link_question(q, scenes.get(q.scene))
        p = plan(release, qi, g, None)
        assert p.boxes == video_boxes(q, g), key
        if q.kind.picks_an_option:
            # The options take the map's place; each names its image file.
            assert p.choice is None and p.maps == () and p.view is None and not p.map_wanted, key
            assert [o.paths for o in p.options] == [(im.path,) for im in q.images] and len(p.options) == 4, key
            continue
        assert p.options == () and p.map_wanted and p.choice == map_choice(release, qi, g), key
        assert [m.source for m in p.maps] == list(p.choice.ranked) and p.map.source == p.choice.current, key
        own = q.role_image("view")
        scene_view = (g.viewpoint.image,) if g.viewpoint is not None and g.viewpoint.image else ()
        assert p.view.paths == ((own.path,) if own is not None else ()) + scene_view, key
        if q.target and g.video is not None:
            assert p.boxes, key                      # the target's best frame, for the video's box
        for m in p.maps:
            if m.source.kind is MapKind.RELEASE:
                assert m.load == MapFile(q.role_image("map").path) and m.lines_up, key
            elif m.source.kind is MapKind.SCENE:
                tmap = g.scene.topdown[m.source.name]
                assert m.load == MapFile(tmap.image, (tmap.width, tmap.height)), key
                assert m.lines_up == (tmap is g.topdown), key
            else:
                assert isinstance(m.load, MapRender) and m.load.scene is g.scene, key


def test_a_scene_map_is_drawn_through_its_affine_scaled_to_the_pixels_read(demo):
    release, scenes = demo
    qi = one_per_column(release)["ED_v"]                  # no map of its own: the scene's photo map first
    q = release.questions[qi]
    g = link_question(q, scenes.get(q.scene))
    p = plan(release, qi, g, None)
    m = p.map
    assert m.source == MapSource.scene("photo") and not m.lines_up
    tmap = g.scene.topdown["photo"]
    W = np.asarray(tmap.world_to_pixel, float)
    w, h = tmap.width, tmap.height
    assert np.allclose(m.transform(w, h), W)
    # Read at twice its declared size, the affine doubles: one rescale, for the window and the figures alike.
    assert np.allclose(m.transform(2 * w, 2 * h), np.diag([2.0, 2.0]) @ W)
    drawn = p.map_overlay(m, [], 2 * w, 2 * h)
    assert overlay_signature(drawn) == overlay_signature(scene_map_overlay(q, qi, [], g, 2 * w, 2 * h, 2 * W))
    # The question's own map: the overlay scales the question's affine itself.
    own = next(x for x in p.maps if x.lines_up)
    assert own.transform(w, h) is None
    assert overlay_signature(p.map_overlay(own, [], w, h)) == overlay_signature(
        scene_map_overlay(q, qi, [], g, w, h, None))


def test_a_rendered_map_lines_up_with_the_questions_own(tmp_path):
    root = sr.build(tmp_path / "release")
    release = load_release(root)
    qi = release.index[sr.UIDS["Pos"]]
    q = release.questions[qi]
    g = link_question(q, SceneLibrary(root).get(q.scene))
    p = plan(release, qi, g, MapSource.render("floorplan"))
    m = p.map
    assert m.source == MapSource.render("floorplan")
    assert m.load == MapRender(g.scene, "floorplan", g.topdown.world_to_pixel, (g.topdown.width, g.topdown.height))
    assert m.lines_up and m.transform(10, 10, rendered=np.eye(2, 3)) is None


def test_without_geometry_the_own_map_carries_the_published_overlay(demo):
    release, _ = demo
    qi = one_per_column(release)["GP_v"]
    q = release.questions[qi]
    p = plan(release, qi, None, None, has_scenes=False)
    assert p.map.source == MapSource.release() and p.map.lines_up
    assert overlay_signature(p.map_overlay(p.map, [], 640, 512)) == overlay_signature(
        published_map_overlay(q, qi, [], 640, 512, inferred_for(release, qi)))
    # A question with no map of its own is shown on a linked question's map of the same scene.
    ed = one_per_column(release)["ED_v"]
    linked = plan(release, ed, None, None, has_scenes=False).map
    assert linked.source.kind is MapKind.LINKED and linked.lines_up
    assert linked.load == MapFile(release.get(linked.source.name).role_image("map").path)


def test_a_question_without_a_scene_says_why_there_is_no_map():
    release = load_release(DATA / "gst-bench-page")
    qi = next(i for i, q in enumerate(release.questions) if q.column.key == "ED_v")    # scene2: no map, no scene
    p = plan(release, qi, None, None, has_scenes=False)
    assert p.maps == () and not p.map_wanted               # its dial alone
    assert p.map_problem == "No top-down map for this question (no scene metadata)."
    assert p.scene_overlay([]) is None and p.boxes == {}
    # With scene metadata still being read, it says so; with the scene's problems, those.
    assert "loading the scene" in plan(release, qi, None, None).map_problem
    g = link_question(release.questions[qi], None)
    assert g.problems[0] in plan(release, qi, g, None).map_problem


def vsi_release(tmp_path: Path, meta_info: bool) -> Path:
    root = tmp_path / ("vsi-meta" if meta_info else "vsi")
    root.mkdir()
    shutil.copy(DATA / "vsi-gemini" / "scannet_questions" / f"{VSI_SCENE}_questions.json", root)
    if meta_info:
        shutil.copytree(DATA / "vsi-scannet" / "meta_info", root / "meta_info")
    return root


def test_a_vsi_question_with_meta_info_is_drawn_on_a_canvas_of_its_objects(tmp_path):
    release = load_release(vsi_release(tmp_path, meta_info=True))
    qi = release.index[f"{VSI_SCENE}#14"]        # "standing by the lamp and facing the fan, is the radiator ..."
    p = plan(release, qi, None, None, has_scenes=False)
    (m,) = p.maps
    assert m.source is None and isinstance(m.load, MapCanvas) and p.map_wanted
    ov = p.map_overlay(m, [], m.load.width, m.load.height)
    assert sorted(x.text for x in ov.of(pr.Label, pr.TARGET)) == ["fan", "lamp", "radiator"]
    image = m.load.image()
    assert image.shape == (ov.height, ov.width, 3) and (image == 250).all()
    # The benchmark reads a release's meta_info once: a second plan reads no file, a release opened anew does.
    shutil.rmtree(release.root / "meta_info")
    again = plan(release, qi, None, None, has_scenes=False).map.drawing
    assert overlay_signature(again) == overlay_signature(ov)
    reopened = load_release(release.root)
    assert plan(reopened, qi, None, None, has_scenes=False).maps == ()


def test_a_vsi_question_without_meta_info_has_no_map(tmp_path):
    release = load_release(vsi_release(tmp_path, meta_info=False))
    qi = release.index[f"{VSI_SCENE}#14"]
    p = plan(release, qi, None, None, has_scenes=False)
    assert p.maps == () and release.benchmark.objects_overlay(release, release.questions[qi]) is None
    assert not p.map_wanted                     # the option texts alone, beside no map


def test_a_gst_question_has_no_objects_of_the_benchmark(demo):
    release, _ = demo
    assert all(release.benchmark.objects_overlay(release, release.questions[qi]) is None
               for qi in one_per_column(release).values())


def test_a_new_question_clears_the_geometry_before_any_listener_hears_of_it(demo):
    release, scenes = demo
    state = InspectorState()
    state.open(open_session(DEMO, []))
    state.question = 0
    state.geometry = link_question(state.current, state.scenes.get(state.current.scene))
    seen = []
    state.events.question.connect(lambda: seen.append(state.geometry))
    state.question = 1
    assert seen == [None] and state.geometry is None
