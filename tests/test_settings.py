"""Global vs Local-Video vs Local-Image: format, Table 2, verdicts, patterns, the generator and the audit."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from settings_release import ED, EDIST, write_predictions, write_settings_release
from settings_release import q as record

from viewer.cli import main
from viewer.core.benchmarks.gst.columns import COLUMN_BY_KEY
from viewer.core.release import load_release
from viewer.core.session import open_session
from viewer.core.settings_table import (
    GAIN,
    GLOBAL,
    GOOD,
    INTEGRATION,
    LOCAL_IMAGE,
    LOCAL_VIDEO,
    MIXED,
    PERCEPTION,
    family_of,
    pattern_mask,
    verdict_of,
)
from viewer.demo import settings_models

GOOD_ANSWERS = {"ed1": "-150", "ed1_local_video": "60", "ed1_li": "60", "ed2": "90", "ed2_local_image": "10",
                "d1": "9", "d1_local_video": "3", "d1_local_image": "3.1", "pos1": "<point>500 500</point>"}


def test_settings_and_base_uids_are_read_with_the_suffix_rule(tmp_path):
    r = load_release(write_settings_release(tmp_path / "r"))
    assert r.get("ed1").setting == GLOBAL and r.get("ed1").base_uid is None
    assert r.get("ed1_local_video").base_uid == "ed1"                  # by the suffix rule
    assert r.get("ed1_li").base_uid == "ed1"                           # written
    fam = family_of(r, r.index["ed1_li"])
    assert fam == {GLOBAL: r.index["ed1"], LOCAL_VIDEO: r.index["ed1_local_video"], LOCAL_IMAGE: r.index["ed1_li"]}


def test_bad_variants_are_reported_and_left_out_of_both_tables(tmp_path):
    r = load_release(write_settings_release(tmp_path / "r"))
    codes = {d.code for d in r.diagnostics}
    assert {"setting.unknown", "setting.unknown_base", "setting.duplicate", "setting.no_target"} <= codes
    for uid in ("orphan_local_video", "ed2_again", "ed2_local_image", "ed1_local_map", "pos1_local_image"):
        assert r.base[r.index[uid]] == -1, uid
        assert not r.in_leaderboard[r.index[uid]], uid
    assert family_of(r, r.index["ed2"]) is None            # its two local_image variants cancel each other


def test_leaderboard_counts_only_global_questions(tmp_path):
    with_variants = open_session(write_settings_release(tmp_path / "a"),
                                 [write_predictions(tmp_path / "m.jsonl", "m", GOOD_ANSWERS)])
    plain = tmp_path / "b"
    plain.mkdir()
    recs = [json.loads(line) for line in (tmp_path / "a" / "questions.jsonl").read_text().splitlines()]
    (plain / "questions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in recs
                                                   if x.get("setting", GLOBAL) == GLOBAL and "base_uid" not in x))
    only_global = open_session(plain, [tmp_path / "m.jsonl"])
    a, b = with_variants.leaderboard(), only_global.leaderboard()
    for key in ("columns", "avg", "counts"):
        assert a["models"]["m"][key] == b["models"]["m"][key]
    assert a["random"] == b["random"]
    assert "settings" not in b["models"]["m"]              # a release without variants: Table 1 only


def test_table2_deltas_and_verdict(tmp_path):
    s = open_session(write_settings_release(tmp_path / "r", bad=False),
                     [write_predictions(tmp_path / "m.jsonl", "m", GOOD_ANSWERS)])
    m = s.leaderboard()["models"]["m"]
    t = m["settings"]
    assert t[GLOBAL]["columns"]["ED_v"] == 0 and t[LOCAL_VIDEO]["columns"]["ED_v"] == 100
    assert t[LOCAL_IMAGE]["columns"]["EDist_v"] == pytest.approx(100 * np.mean(np.abs(3.1 - 3) / 3 <= 1 - np.arange(
        0.5, 0.951, 0.05) + 1e-9))
    d = m["settings_verdict"]
    assert d["deltas"][LOCAL_IMAGE]["avg"] == pytest.approx(t[LOCAL_IMAGE]["avg"] - t[GLOBAL]["avg"])
    assert d["verdict"] == INTEGRATION


def test_verdict_thresholds():
    assert verdict_of(20, 70, 80)[0] == INTEGRATION
    assert verdict_of(20, 25, 20 + GAIN + 5)[0] == PERCEPTION      # gains, but never good
    assert verdict_of(GOOD - 1, GOOD - 2, GOOD - 5)[0] == PERCEPTION
    v, why = verdict_of(70, 30, 25)
    assert v == MIXED and "worse when easier" in why
    assert verdict_of(80, 82, 85)[0] == MIXED
    assert verdict_of(None, 50, 50)[0] is None


def test_score_prints_table2_and_json(tmp_path, capsys):
    root = write_settings_release(tmp_path / "r", bad=False)
    p = write_predictions(tmp_path / "m.jsonl", "m", GOOD_ANSWERS)
    assert main(["score", str(root), str(p), "-q"]) == 0
    out = capsys.readouterr().out
    assert "Table 2" in out and "LI-G" in out and "m: integration-limited" in out
    assert main(["score", str(root), str(p), "-q", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["models"]["m"]["settings"]) == {GLOBAL, LOCAL_VIDEO, LOCAL_IMAGE}


def test_browser_patterns(tmp_path):
    from viewer.core.browse import BrowseFilter, BrowseIndex
    s = open_session(write_settings_release(tmp_path / "r", bad=False),
                     [write_predictions(tmp_path / "m.jsonl", "m", {**GOOD_ANSWERS, "ed2": "-90",
                                                                     "ed2_local_image": "170"})])
    r, score = s.release, s.results[0].score
    right = set(np.flatnonzero(pattern_mask(r, score, "right_locally")).tolist())
    worse = set(np.flatnonzero(pattern_mask(r, score, "worse_when_easier")).tolist())
    assert right == {r.index["ed1"], r.index["d1"]}
    assert worse == {r.index["ed2"]}
    rows = BrowseIndex(r).rows(BrowseFilter(pattern="worse_when_easier", model=0), s.results)
    assert rows.tolist() == [r.index["ed2"]]


def _family_release(root: Path, n: int = 60) -> Path:
    """n families of ED, EDist and GP questions with both variants, truths drawn at random."""
    rng = np.random.default_rng(5)
    recs = []
    gp = COLUMN_BY_KEY["GP_s"].task
    for k in range(n):
        task, answer = [(ED, lambda: str(int(rng.integers(-180, 180)))),
                        (EDIST, lambda: round(float(rng.uniform(1, 8)), 1)),
                        (gp, lambda: "<point>{} {}</point>".format(*rng.integers(100, 900, 2)))][k % 3]
        recs.append(record(f"f{k}", task, answer()))
        recs += [record(f"f{k}_{s}", task, answer(), setting=s) for s in (LOCAL_VIDEO, LOCAL_IMAGE)]
    root.mkdir()
    (root / "questions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in recs))
    return root


@pytest.mark.parametrize("model, verdict", [("integration-limited", INTEGRATION),
                                            ("perception-limited", PERCEPTION),
                                            ("easier-is-worse", MIXED)])
def test_simulated_models_get_the_verdict_they_were_built_with(tmp_path, model, verdict):
    root = _family_release(tmp_path / "r")
    records = [json.loads(line) for line in (root / "questions.jsonl").read_text().splitlines()]
    preds = tmp_path / f"{model}.jsonl"
    preds.write_text("".join(json.dumps(p) + "\n" for p in settings_models.predictions(model, records, 0)))
    m = open_session(root, [preds]).leaderboard()["models"][model]
    d = m["settings_verdict"]
    assert d["verdict"] == verdict, d["reason"]
    gain = d["deltas"][LOCAL_IMAGE]["avg"]
    if model == "integration-limited":
        assert gain >= 3 * GAIN
    elif model == "perception-limited":
        assert abs(gain) < GAIN and max(s["avg"] for s in m["settings"].values()) < GOOD
    else:
        assert gain <= -3 * GAIN and d["deltas"][LOCAL_VIDEO]["avg"] <= -3 * GAIN
        assert "worse when easier" in d["reason"]


def test_generated_local_views_show_the_target_and_global_views_do_not(settings_demo):
    from viewer.core.audit.checks.ray_cast import VIEW_MIN_FRACTION
    from viewer.core.scene.sources import SceneLibrary
    from viewer.render.raycast import Raycaster
    from viewer.render.scene_mesh import load_scene_mesh
    release = load_release(settings_demo)
    library = SceneLibrary(settings_demo)
    casters: dict = {}
    seen_by = {GLOBAL: 0, LOCAL_VIDEO: 0, LOCAL_IMAGE: 0}
    for q in release.questions:
        if q.column is None or not q.column.has_target or q.viewpoint is None:
            continue
        scene = library.get(q.scene)
        caster = casters.get(q.scene) or casters.setdefault(q.scene, Raycaster(load_scene_mesh(scene.mesh)))
        vp = scene.viewpoints[q.viewpoint]
        px = caster.visible_pixel_counts(vp.pose, vp.intrinsics).get(caster.mesh.index_of(q.target), 0)
        if q.setting == GLOBAL:
            assert px == 0, q.uid
        else:
            assert px >= VIEW_MIN_FRACTION * vp.intrinsics.width * vp.intrinsics.height, q.uid
            assert (q.video is None) == (q.setting == LOCAL_IMAGE), q.uid
            assert release.get(q.base_uid).column == q.column
        seen_by[q.setting] += 1
    assert seen_by[LOCAL_VIDEO] == seen_by[LOCAL_IMAGE] > 0
    summary = json.loads((settings_demo / "demo.json").read_text())
    assert summary["local_variants"] == {LOCAL_VIDEO: seen_by[LOCAL_VIDEO], LOCAL_IMAGE: seen_by[LOCAL_IMAGE]}


def test_audit_confirms_both_promises(settings_demo):
    from viewer.core.audit import run_audit
    from viewer.render.visibility import SceneVisibility
    release = load_release(settings_demo)
    report = run_audit(release, checks=["target_visible_in_query_view", "target_visible_in_local_view",
                                        "local_video_in_prompt", "gt_direction_mismatch", "gt_distance_mismatch",
                                        "gt_point_mismatch", "query_near_trajectory"],
                       visibility=SceneVisibility, workers=1)
    assert report.findings == []
    n_local = int(np.sum(release.setting > 0))
    assert report.tally.counts["target_visible_in_local_view"]["passed"] == n_local
    assert report.tally.counts["local_video_in_prompt"]["passed"] == n_local
    assert report.tally.counts["target_visible_in_query_view"]["passed"] > 0


def test_audit_flags_a_local_variant_that_breaks_its_promise(settings_demo, tmp_path):
    import shutil

    from viewer.core.audit import run_audit
    from viewer.render.visibility import SceneVisibility
    broken = tmp_path / "broken"
    shutil.copytree(settings_demo, broken)
    recs = [json.loads(line) for line in (broken / "questions.jsonl").read_text().splitlines()]
    first = {}
    for r in recs:
        first.setdefault(r.get("setting", GLOBAL), r)
    li, lv = first[LOCAL_IMAGE], first[LOCAL_VIDEO]
    li["copied_video_path"] = lv["copied_video_path"]                       # Local-Image showing the video
    glob = next(r for r in recs if r["uid"] == lv["base_uid"] and "viewpoint" in r["meta"])
    lv["meta"]["viewpoint"] = glob["meta"]["viewpoint"]                     # a view hiding the target
    (broken / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    report = run_audit(load_release(broken), checks=["target_visible_in_local_view", "local_video_in_prompt"],
                       visibility=SceneVisibility, workers=1)
    assert {(f.check, f.uid) for f in report.findings} == {("target_visible_in_local_view", lv["uid"]),
                                                           ("local_video_in_prompt", li["uid"])}


def test_settings_need_scene_metadata(tmp_path):
    from viewer.core.diagnostics import UserError
    from viewer.demo.generate import generate_demo
    with pytest.raises(UserError, match="--settings"):
        generate_demo(tmp_path / "x", scenes=1, with_scenes=False, with_settings=True)
