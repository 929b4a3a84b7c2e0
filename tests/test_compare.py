"""Comparing models (issue 16): palette, comparison filters, plot statistics, saved views, exports, timeline."""
import itertools
import sqlite3

import numpy as np
import pytest

from viewer.core import model_palette
from viewer.core.benchmarks.gst.uid import uid_tail
from viewer.core.browse import BrowseFilter, BrowseIndex
from viewer.core.compare import comparison_mask, error_range_mask
from viewer.core.exports.board import export_board, tex_escape
from viewer.core.review.views import ViewStore, resolve_view, view_document
from viewer.core.timeline import frames_from_counts, nearest_frame, release_target_frames, target_frames


def test_palette_is_colour_blind_safe_and_never_a_ui_colour():
    for a, b in itertools.combinations(model_palette.MODEL_COLORS, 2):
        assert model_palette.cvd_distance(a, b) > 15, (a, b)
    for c in model_palette.MODEL_COLORS:
        for what, ui in model_palette.RESERVED.items():
            assert model_palette.cvd_distance(c, ui) > 20, (c, what)
    # colour and shape together tell the first twelve models apart
    looks = {(model_palette.model_color(k), model_palette.model_shape(k)) for k in range(12)}
    assert len(looks) == 12


def test_one_palette_for_window_and_figures():
    from viewer.figures import theme
    from viewer.ui import style
    for k in range(8):
        assert style.model_color(k).name().lower() == theme.model_color(k).name().lower() \
            == model_palette.model_color(k).lower()
        assert theme.model_shape(k) == style.model_shape(k) == model_palette.model_shape(k)


def test_comparison_masks():
    nan = np.nan
    a = np.array([1.0, 1.0, 0.0, 0.5, nan, 0.0])
    b = np.array([0.0, 1.0, 0.0, 1.0, 0.0, nan])
    c = np.array([0.0, 1.0, 0.2, 1.0, 1.0, 0.0])
    scores = [a, b, c]
    assert comparison_mask("none", scores, 0, 1) is None
    assert comparison_mask("a_right_b_wrong", scores, 0, 1).tolist() == [True, False, False, False, False, False]
    assert comparison_mask("b_right_a_wrong", scores, 0, 1).tolist() == [False, False, False, True, False, False]
    assert comparison_mask("both_wrong", scores, 0, 1).tolist() == [False, False, True, False, False, False]
    assert comparison_mask("all_wrong", scores, 0, 1).tolist() == [False, False, True, False, False, False]
    assert comparison_mask("disagree", scores, 0, 1).tolist() == [True, False, False, True, True, False]
    assert not comparison_mask("a_right_b_wrong", scores, 0, None).any()       # B missing: nothing, not all
    assert not comparison_mask("a_right_b_wrong", scores, 1, 1).any()
    assert error_range_mask(np.array([1.0, 5.0, nan, 20.0]), 2.0, None).tolist() == [False, True, False, True]


def test_comparison_combines_with_the_browser_filters(demo_session):
    s = demo_session
    index = BrowseIndex(s.release)
    a, b = s.results[0].score, s.results[1].score
    want = set(np.flatnonzero((a >= 1) & (b < 1)).tolist())
    assert want
    rows = index.rows(BrowseFilter(model=0, model_b=1, compare="a_right_b_wrong"), s.results)
    assert set(rows.tolist()) == want
    col = int(s.release.column[rows[0]])
    rows = index.rows(BrowseFilter(model=0, model_b=1, compare="a_right_b_wrong", columns=frozenset({col})),
                      s.results)
    assert set(rows.tolist()) == {i for i in want if s.release.column[i] == col}


def test_plot_statistics_count_what_they_do_not_draw(demo_session):
    from viewer.core import plots
    s = demo_session
    rel = s.release
    for c, col in enumerate(rel.benchmark.columns):
        rows = plots.column_rows(rel, c)
        if not len(rows):
            continue
        r = s.results[2]
        h = plots.error_histogram(r, rows)
        left = sum(h.not_plotted.values())
        assert int(h.counts.sum()) + left == len(rows)
        assert np.isfinite(h.values).all()
        sc = plots.scatter(rel, r, rows, col.kind_name)
        if col.kind_name in ("angle", "distance", "point"):
            assert sc is not None and len(sc.rows) + sum(sc.not_plotted.values()) == len(rows)
            assert np.isfinite(sc.x).all() and np.isfinite(sc.y).all()
            if sc.mode == "circular":
                assert (np.abs(sc.y - sc.x) <= 180).all()
        counts = plots.status_counts(r, rows)
        assert sum(counts.values()) <= len(rows)


def test_missing_answers_are_counted_not_drawn_at_zero(demo_session):
    from dataclasses import replace

    from viewer.core import plots
    s = demo_session
    r = s.results[0]
    rows = plots.column_rows(s.release, 0)
    status = r.status.copy()
    status[rows[:2]] = "missing"
    error = r.error.copy()
    error[rows[:2]] = np.nan
    hidden = replace(r, status=status, error=error)
    h = plots.error_histogram(hidden, rows)
    assert h.not_plotted.get("missing") == 2 and rows[0] not in h.rows


def test_saved_views_round_trip_and_skip_models_not_loaded(tmp_path):
    store = ViewStore(tmp_path / "annotations.sqlite")
    models = ("a", "b", "c")
    f = BrowseFilter(columns=frozenset({2}), model=2, model_b=0, compare="a_right_b_wrong", error_min=5.0)
    store.save("c beats a", view_document(f, (("score", 2), True), frozenset({0, 2}), models))
    assert store.names() == ["c beats a"]
    again = ViewStore(tmp_path / "annotations.sqlite")        # another window on the same file
    v = resolve_view("c beats a", again.documents()["c beats a"], models)
    assert v.filter == f and v.sort == (("score", 2), True) and v.visible == {0, 2} and not v.skipped
    v = resolve_view("c beats a", again.documents()["c beats a"], ("a", "b"))
    assert v.skipped == ("c",) and v.filter.model is None and v.filter.model_b == 0 and v.sort[0] == "row"
    assert v.visible == {0}
    con = sqlite3.connect(tmp_path / "annotations.sqlite")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    again.delete("c beats a")
    assert store.names() == []


def test_saved_views_sit_beside_the_flags(tmp_path):
    from viewer.core.review.flags import FlagStore
    flags = FlagStore.for_release(tmp_path)
    flags.set_verdict("u1", "ok")
    views = ViewStore.for_release(tmp_path)
    views.save("v", {"filter": {}})
    assert views.path == flags.path
    assert FlagStore.for_release(tmp_path).verdicts() == {"u1": "ok"}


def test_leaderboard_formats(demo_session):
    s = demo_session
    board, rnd = s.leaderboard(), s.random_row()
    csv_text = export_board("csv", board, rnd, s.release.benchmark)
    lines = csv_text.splitlines()
    assert lines[0].startswith("Model,") and lines[0].endswith(",Avg") and len(lines) == len(s.results) + 2
    md = export_board("md", board, rnd, s.release.benchmark)
    assert md.splitlines()[1].startswith("| --- |") and "Random (uniform)" in md
    tex = export_board("tex", board, rnd, s.release.benchmark, models=[s.results[0].model])
    assert tex.startswith("\\begin{tabular}") and "\\textbf{" in tex and s.results[1].model not in tex
    assert tex_escape("a_b & 50%") == "a\\_b \\& 50\\%"


def test_score_format_option(capsys):
    from viewer.assets import assets_dir
    from viewer.cli import main
    demo = assets_dir() / "demo"
    preds = sorted(str(p) for p in (demo / "predictions").glob("*.jsonl"))
    assert main(["score", str(demo), *preds, "--format", "md", "-q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| Model |") and "noisy-expert" in out


def test_timeline_marks_from_the_release_and_from_a_ray_cast():
    inst = {"chair_1": {"appear_frames": [5, 3, 3, -1, "x", 400], "best_frame_idx": 4}}
    t = release_target_frames(inst, "chair_1", n_frames=300)
    assert t.frames == (3, 4, 5) and t.best == 4 and t.source == "release"
    assert release_target_frames(inst, "other", 300) is None
    assert release_target_frames({"c": {"appear_frames": [], "best_frame_idx": None}}, "c") is None
    t = frames_from_counts(np.array([0, 30, 300, 1, 0]), samples=10_000)
    assert t.frames == (1, 2) and t.best == 2 and t.source == "ray cast"
    poses = np.repeat(np.eye(4)[None], 4, axis=0)
    poses[:, 0, 3] = [0.0, 1.0, 2.0, 3.0]
    poses[1] = np.nan
    view = np.eye(4)
    view[0, 3] = 1.1
    assert nearest_frame(poses, view) == 2
    assert nearest_frame(poses, None) is None


def test_target_frames_is_one_lookup_for_every_question_of_a_scene():
    """Every question naming a target in a demo scene gets its frames, not only the scene's first; without
    the release's frames the ray cast passed in is asked."""
    from viewer.assets import assets_dir
    from viewer.core.scene.model import link_question
    from viewer.core.scene.sources import SceneLibrary
    from viewer.core.session import open_session
    demo = assets_dir() / "demo"
    s = open_session(demo)
    lib = SceneLibrary(demo)
    found = 0
    for q in s.release.questions:
        g = link_question(q, lib.get(q.scene))
        t = target_frames(q, g)
        if q.target and g.video is not None and q.target in g.video.instances:
            rec = g.video.instances[q.target]
            assert t.frames == tuple(sorted(set(rec["appear_frames"]) | {rec["best_frame_idx"]})), q.uid
            assert t.best == rec["best_frame_idx"] and t.source == "release"
            found += 1
        elif not q.target:
            assert t is None
    assert found >= 3 * 3 * 3
    q = next(q for q in s.release.questions if q.target)
    g = link_question(q, lib.get(q.scene))
    g.video.instances = {}
    asked = []
    cast = lambda scene, video, target: asked.append(target) or release_target_frames(
        {target: {"appear_frames": [7], "best_frame_idx": 7}}, target)
    assert target_frames(q, g) is None
    assert target_frames(q, g, cast).best == 7 and asked == [q.target]


def test_uid_tail_tells_neighbours_apart():
    u = "scene2_Object_Localization_Egocentric_Direction_visual_armchair_vzhxuf_0_pos_10_orient_4_video_3"
    assert uid_tail(u, "armchair_vzhxuf_0") == "armchair_vzhxuf_0 p10/4 v3"
    assert uid_tail("scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4") == "p25/11 v4"
    assert uid_tail("scene46_Topdown_Selection_Easy_video_0") == "Topdown_Selection_Easy_video_0"


@pytest.fixture(scope="module")
def demo_session():
    from viewer.assets import assets_dir
    from viewer.core.session import open_session
    demo = assets_dir() / "demo"
    return open_session(demo, sorted((demo / "predictions").glob("*.jsonl")))
