"""Planted wrong answers against answers_inconsistent (benchmarks/bench_planted_audit.py, a few releases).

Each planted release has 1 to 3 wrong answers per scene among ED, EDist, GP,
Pos and Ori, in the demo with and without its 3D metadata. Every planted
answer is named by a finding, no error finding names only correct questions,
and the findings that rest on one planted answer hang under one finding.
"""
from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from viewer.assets import default_release
from viewer.core.audit import run_audit
from viewer.core.release import load_release

DEMO = default_release()
BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_planted_audit.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_planted_audit", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def without_scenes(tmp: Path) -> Path:
    """The demo as the real release ships: no scene.json, meshes, videos or meta."""
    out = tmp / "no_scenes"
    shutil.copytree(DEMO, out, ignore=shutil.ignore_patterns("scene.json", "*.glb", "*.mp4"))
    recs = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    for r in recs:
        r.pop("meta", None)
    (out / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return out


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    bench = _bench()
    tmp = tmp_path_factory.mktemp("planted")
    with_scenes = tmp / "with_scenes"
    shutil.copytree(DEMO, with_scenes)
    return bench, [bench.Base.load(with_scenes), bench.Base.load(without_scenes(tmp))], tmp


def test_planted_answers_are_found_and_no_error_names_only_correct_questions(bases):
    bench, roots, tmp = bases
    counts = bench.run(roots, releases=8, seed=11, work=tmp)
    assert counts.planted >= 8 * 3
    assert counts.missed == []
    assert counts.false_alarms == []
    assert counts.ungrouped == []
    assert counts.heads > 0 and counts.dependents > 0


def test_one_moved_point_is_one_cause_with_its_findings_under_it(bases, tmp_path):
    """The issue's case: GP_v desk moved by 250 units. Its direction and distance findings depend on it;
    no other question is accused, and the finding names every question its expectation rests on."""
    bench, roots, _ = bases
    gp = "scene2_Object_Localization_Global_Position_visual_desk_rmftuu_0_video_0"
    for base in roots:
        recs = [dict(r) for r in base.recs]
        for r in recs:
            if r["uid"] == gp:
                r["answer"] = "<point>309 587</point>"
        report = run_audit(load_release(bench.write_copy(base, recs, tmp_path / base.root.name)),
                           checks=["answers_inconsistent"])
        listed = [f for f in report.listed() if f.uid is not None]
        assert all(gp in f.details["questions"] for f in listed if f.severity == "error"), \
            [f.message for f in listed]
        heads = [f for f in listed if f.dependents]
        assert len(heads) == 1 and gp in heads[0].details["suspects"]
        head = heads[0]
        under = listed[listed.index(head) + 1:listed.index(head) + 1 + len(head.dependents)]
        assert {f.uid for f in under} == set(head.dependents) and all(f.depends_on == head.uid for f in under)
        assert {f.uid for f in under} >= {gp.replace("Global_Position", "Egocentric_Direction")
                                          .replace("_video_0", "_pos_12_orient_1_video_0")}
        assert f"{len(head.dependents)} finding" in head.message and "desk_rmftuu_0" in head.message
        for f in under:
            assert all(u in f.message for u in f.details["questions"])
        # The JSON lists each finding once, the dependents right after their cause.
        js = report.to_json()["findings"]
        assert len(js) == len(report.findings)
        k = next(i for i, f in enumerate(js) if f.get("dependents"))
        assert [f["uid"] for f in js[k + 1:k + 1 + len(head.dependents)]] == list(head.dependents)
        assert all(f["depends_on"] == head.uid for f in js[k + 1:k + 1 + len(head.dependents)])


def test_doubled_distances_set_no_scale_that_errs_on_a_clean_one(bases, tmp_path):
    """Two EDist answers of a scene doubled: no error names only the clean ones (a weak scale warns)."""
    bench, roots, _ = bases
    base = roots[1]
    recs = [dict(r) for r in base.recs]
    doubled = []
    for r in recs:
        if "Egocentric_Distance" in r["task"] and r["uid"].startswith("scene2") and len(doubled) < 2:
            r["answer"] = round(2 * float(r["answer"]), 1)
            doubled.append(r["uid"])
    report = run_audit(load_release(bench.write_copy(base, recs, tmp_path / "doubled")),
                       checks=["answers_inconsistent"])
    for f in report.findings:
        if f.uid is not None and f.severity == "error":
            assert set(doubled) & set(f.details["questions"]), f.message
    named = {u for f in report.findings if f.uid is not None for u in f.details.get("questions", [])}
    assert set(doubled) <= named


def test_the_table_lists_a_dependent_once_under_its_cause(bases, tmp_path):
    from viewer.audit_cli import format_report
    bench, roots, _ = bases
    gp = "scene2_Object_Localization_Global_Position_visual_desk_rmftuu_0_video_0"
    recs = [dict(r, answer="<point>309 587</point>") if r["uid"] == gp else r for r in roots[1].recs]
    report = run_audit(load_release(bench.write_copy(roots[1], recs, tmp_path / "gp")),
                       checks=["answers_inconsistent"])
    lines = format_report(report, limit=None).splitlines()
    head = next(i for i, line in enumerate(lines) if "depend on" in line)
    dependents = [f for f in report.findings if f.depends_on is not None]
    assert dependents
    for f in dependents:
        rows = [line for line in lines if f"  {f.uid}:" in line]
        assert len(rows) == 1 and rows[0].startswith("    ")
        assert lines.index(rows[0]) in range(head + 1, head + 1 + len(dependents))
