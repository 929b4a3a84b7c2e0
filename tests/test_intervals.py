"""Confidence intervals (core/intervals.py, `score --ci`): against a plain-Python bootstrap, VSI-Bench's
grouped column, Wilson's interval, coverage at the nominal rate, and the outputs that carry them."""
import json
from pathlib import Path

import numpy as np
import pytest
from intervals_release import plain_bootstrap, scored_model, write_release

from viewer.cli import main
from viewer.core.exports.board import export_board
from viewer.core.intervals import Bootstrap, model_intervals, wilson
from viewer.core.session import open_session

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "assets" / "demo"
DEMO_PREDS = sorted(str(p) for p in (DEMO / "predictions").glob("*.jsonl"))
VSI = ROOT / "tests" / "data" / "vsi-gemini"


@pytest.fixture(scope="module")
def demo():
    return open_session(DEMO, DEMO_PREDS)


def _check_against_plain(session, method, tol):
    release = session.release
    for r in session.results:
        ours = model_intervals(release, [r], method)[r.model]
        plain = plain_bootstrap(release, r.score, method.replicates, method.seed, method.level)
        for key, iv in [*ours.columns.items(), ("avg", ours.avg)]:
            if iv.value is None:
                assert key not in plain
                continue
            assert iv.low == pytest.approx(plain[key][0], abs=tol), (r.model, key)
            assert iv.high == pytest.approx(plain[key][1], abs=tol), (r.model, key)


def test_intervals_are_a_plain_python_bootstrap_on_the_same_draws(demo):
    _check_against_plain(demo, Bootstrap(replicates=500, seed=3), tol=1e-9)


@pytest.mark.slow
def test_intervals_agree_with_an_independent_bootstrap_within_a_third_of_a_point(demo):
    """Another random generator, enough replicates: the percentiles' Monte Carlo error is ~0.1 point."""
    ours = model_intervals(demo.release, demo.results, Bootstrap(replicates=10_000, seed=1))
    for r in demo.results[1:]:           # the two with the widest intervals
        plain = plain_bootstrap(demo.release, r.score, 10_000, seed=2, same_draws=False)["avg"]
        iv = ours[r.model].avg
        assert abs(iv.low - plain[0]) < 0.3 and abs(iv.high - plain[1]) < 0.3, (r.model, iv, plain)


def test_intervals_surround_the_leaderboards_values_and_count_its_questions(demo):
    board = demo.leaderboard()["models"]
    for model, mi in model_intervals(demo.release, demo.results).items():
        assert mi.avg.value == board[model]["avg"]
        assert mi.avg.n == sum(board[model]["counts"].values()) == 84
        for key, iv in mi.columns.items():
            assert iv.value == board[model]["columns"][key] and iv.n == board[model]["counts"][key]
            assert iv.low <= iv.value + 1e-9 and iv.value <= iv.high + 1e-9
        # Avg averages 12 columns' errors: narrower than the columns' intervals on average.
        assert mi.avg.high - mi.avg.low < np.mean([iv.high - iv.low for iv in mi.columns.values()])


def test_the_same_seed_gives_the_same_intervals_and_another_seed_others(demo):
    a = model_intervals(demo.release, demo.results, Bootstrap(seed=5))
    b = model_intervals(demo.release, demo.results, Bootstrap(seed=5))
    c = model_intervals(demo.release, demo.results, Bootstrap(seed=6))
    assert a == b
    assert any(a[m].avg.low != c[m].avg.low for m in a)


def test_vsi_bench_direction_group_is_the_mean_of_its_resampled_members():
    s = open_session(VSI / "scannet_questions", sorted(map(str, (VSI / "gemini_response").glob("*.json"))))
    assert len(s.results) == 1
    _check_against_plain(s, Bootstrap(replicates=400, seed=2), tol=1e-9)
    mi = model_intervals(s.release, s.results)[s.results[0].model]
    group = s.release.benchmark.groups["object_rel_direction"]
    assert mi.columns["object_rel_direction"].n == sum(mi.subcolumns[m].n for m in group) == 52
    # Wilson's interval is for a proportion: each member has one, the group (a mean of three) has none.
    assert all(mi.subcolumns[m].wilson is not None for m in group)
    assert mi.columns["object_rel_direction"].wilson is None
    assert mi.columns["object_counting"].wilson is None and mi.columns["route_planning"].wilson is not None
    assert mi.avg.value == pytest.approx(s.leaderboard()["models"][s.results[0].model]["avg"])


def test_wilson_interval_known_values():
    low, high = wilson(5, 10)
    assert low == pytest.approx(23.66, abs=0.01) and high == pytest.approx(76.34, abs=0.01)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 100.0
    low, high = wilson(30, 100)
    assert low == pytest.approx(21.89, abs=0.01) and high == pytest.approx(39.58, abs=0.01)
    assert wilson(30, 100, level=0.9)[1] - wilson(30, 100, level=0.9)[0] < high - low


def test_unanswered_questions_score_zero_and_are_counted(tmp_path):
    lines = (DEMO / "predictions" / "noisy-expert.jsonl").read_text().splitlines()
    cut = tmp_path / "noisy-expert.jsonl"
    cut.write_text("\n".join(lines[10:]) + "\n")
    s = open_session(DEMO, [str(cut)])
    mi = model_intervals(s.release, s.results)["noisy-expert"]
    assert mi.avg.missing == 10 == sum(iv.missing for iv in mi.columns.values())
    assert mi.avg.value == s.leaderboard()["models"]["noisy-expert"]["avg"]


@pytest.mark.slow
def test_bootstrap_covers_a_known_mean_at_the_nominal_rate(tmp_path):
    """500 seeded replications of a model whose per-question scores are drawn from known distributions:
    the 95 % intervals hold the true column means and Avg about 95 % of the time (within 2 points)."""
    release = write_release(tmp_path / "r", {"ED_v": 80, "EDist_v": 80, "TDS_E": 80})
    col = release.column
    angle, mra = np.array([0, 1 / 3, 2 / 3, 1]), np.linspace(0, 1, 11)
    p_angle = np.array([0.4, 0.2, 0.2, 0.2])
    p_mra = np.full(11, 1 / 11)
    truth = {"ED_v": 100 * angle @ p_angle, "EDist_v": 100 * mra @ p_mra, "TDS_E": 40.0}
    truth["avg"] = np.mean(list(truth.values()))
    hits = {k: 0 for k in truth}
    wilson_hits = 0
    runs = 500
    for i in range(runs):
        rng = np.random.default_rng(10_000 + i)
        score = np.empty(len(release))
        score[col == 0] = rng.choice(angle, size=80, p=p_angle)
        score[col == 1] = rng.choice(mra, size=80, p=p_mra)
        score[col == 8] = rng.random(80) < 0.4
        mi = model_intervals(release, [scored_model(release, "m", score)], Bootstrap(replicates=1_000, seed=i))["m"]
        for key in truth:
            iv = mi.avg if key == "avg" else mi.columns[key]
            hits[key] += iv.low <= truth[key] <= iv.high
        w = mi.columns["TDS_E"].wilson
        wilson_hits += w[0] <= truth["TDS_E"] <= w[1]
    for key, h in hits.items():
        assert abs(100 * h / runs - 95) <= 2, (key, h / runs)
    assert abs(100 * wilson_hits / runs - 95) <= 2


# ------------------------------------------------------------------ score --ci
def test_score_json_without_ci_has_no_intervals_and_with_ci_validates(capsys):
    import jsonschema
    assert main(["score", str(DEMO), *DEMO_PREDS, "--json", "-q"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert "intervals" not in plain and all("intervals" not in m for m in plain["models"].values())
    assert main(["score", str(DEMO), *DEMO_PREDS, "--json", "-q", "--ci", "--replicates", "300"]) == 0
    doc = json.loads(capsys.readouterr().out)
    schema = json.loads((ROOT / "docs" / "score.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["intervals"]["replicates"] == 300 and doc["intervals"]["level"] == 0.95
    iv = doc["models"]["noisy-expert"]["intervals"]
    assert iv["columns"]["ED_v"]["n"] == 6 and iv["avg"]["n"] == 84
    assert iv["avg"]["ci_low"] < doc["models"]["noisy-expert"]["avg"] < iv["avg"]["ci_high"]
    assert "wilson_low" in iv["columns"]["Traj"] and "wilson_low" not in iv["columns"]["ED_v"]
    # everything else is the document without --ci
    for m in doc["models"].values():
        del m["intervals"]
    del doc["intervals"]
    assert doc == plain


def test_score_ci_table_shows_plus_minus_and_marks_small_columns(capsys):
    assert main(["score", str(DEMO), *DEMO_PREDS, "-q", "--ci", "--replicates", "200"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[0] == "n" and out[1].split()[1] == "6†" and out[1].split()[-1] == "84"
    row = next(line for line in out if line.startswith("noisy-expert"))
    assert row.count("±") == 13
    assert any(line.startswith("± half the 95% interval") for line in out)
    assert next(line for line in out if line.startswith("Random (uniform)")).count("±") == 0


def test_exports_carry_intervals_and_counts_with_ci(demo):
    board = demo.leaderboard()
    assert "ci_low" not in export_board("csv", board, demo.random_row(), demo.release.benchmark)
    from viewer.core.intervals import add_to_board
    method = Bootstrap(replicates=200)
    add_to_board(board, model_intervals(demo.release, demo.results, method), method)
    csv_lines = export_board("csv", board, demo.random_row(), demo.release.benchmark).splitlines()
    header = csv_lines[0].split(",")
    assert header[1:5] == ["ED_v", "ED_v ci_low", "ED_v ci_high", "ED_v n"] and header[-1] == "Avg n"
    expert = dict(zip(header, csv_lines[1].split(",")))
    assert expert["Avg n"] == "84" and float(expert["Avg ci_low"]) < float(expert["Avg"]) < float(expert["Avg ci_high"])
    assert csv_lines[-1].startswith("Random (uniform),16.7,,,")
    md = export_board("md", board, demo.random_row(), demo.release.benchmark).splitlines()
    assert md[2].startswith("| *n* | 6† |") and " ± " in md[3] and md[-1].startswith("± half the 95%")
    tex = export_board("tex", board, demo.random_row(), demo.release.benchmark, models=["noisy-expert"])
    assert r"\textit{n} & 6$^\dagger$" in tex and r"{\scriptsize\,$\pm$\," in tex and "sign-flipper" not in tex


def test_a_benchmark_whose_overall_is_not_linear_is_aggregated_replicate_by_replicate(demo):
    import copy
    from dataclasses import fields

    from viewer.core.intervals import ColumnLayout

    base = demo.release.benchmark

    class BestColumn(type(base)):
        def overall(self, table, sub):
            vals = [v for v in table.values() if v is not None]
            return max(vals) if vals else None

    release = copy.copy(demo.release)
    release.benchmark = BestColumn(**{f.name: getattr(base, f.name) for f in fields(base)})
    r = demo.results[2]
    assert ColumnLayout(release, ~np.isnan(r.score)).weights is None
    mi = model_intervals(release, [r], Bootstrap(replicates=200))[r.model]
    assert mi.avg.value == max(iv.value for iv in mi.columns.values())
    # per replicate the best column is at least each column, so its percentiles are too
    assert mi.avg.low >= max(iv.low for iv in mi.columns.values())
    assert mi.avg.high >= max(iv.high for iv in mi.columns.values()) - 1e-9
