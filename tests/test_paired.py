"""Paired comparisons (core/paired.py, `gst-viewer compare`): identical files, the demo's clear case, the
permutation test against exact enumeration, Holm, unanswered questions, VSI-Bench's group."""
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from intervals_release import percentile, plain_bootstrap, scored_model, write_release

from viewer.cli import main
from viewer.core.intervals import Bootstrap, column_draws
from viewer.core.paired import compare_models, holm
from viewer.core.session import open_session

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "assets" / "demo"
PRED = DEMO / "predictions"
VSI = ROOT / "tests" / "data" / "vsi-gemini"


@pytest.fixture(scope="module")
def demo():
    return open_session(DEMO, sorted(PRED.glob("*.jsonl")))


def _result(session, name):
    return next(r for r in session.results if r.model == name)


def test_identical_prediction_files_differ_by_zero_with_p_one(capsys):
    f = str(PRED / "sign-flipper.jsonl")
    assert main(["compare", str(DEMO), f, f, "--json", "-q", "--permutations", "500"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["a"] == "sign-flipper" and doc["b"] == "sign-flipper (2)"
    for d in [*doc["columns"].values(), doc["avg"]]:
        assert d["difference"] == 0 and d["ci_low"] == 0 and d["ci_high"] == 0
        assert d["p"] == 1 and not d["significant"]
    assert all(d["p_holm"] == 1 for d in doc["columns"].values())


def test_noisy_expert_beats_random_guesser_significantly_on_avg(demo, capsys):
    c = compare_models(demo.release, _result(demo, "noisy-expert"), _result(demo, "random-guesser"))
    board = demo.leaderboard()["models"]
    assert c.avg.difference == pytest.approx(board["noisy-expert"]["avg"] - board["random-guesser"]["avg"])
    assert c.avg.significant() and c.avg.p < 0.001 and c.avg.low > 0
    # six questions a column: the family-wise correction leaves few columns significant on their own
    assert any(not d.significant() for d in c.columns.values())
    assert main(["compare", str(DEMO), str(PRED / "noisy-expert.jsonl"), str(PRED / "random-guesser.jsonl"),
                 "-q"]) == 0
    out = capsys.readouterr().out.splitlines()
    avg = next(line for line in out if line.startswith("Avg"))
    assert avg.endswith("*") and "+69.9" in avg
    assert any(line.startswith("not significant:") for line in out)


def test_difference_interval_is_the_bootstrap_of_the_per_question_differences(demo):
    a, b = _result(demo, "noisy-expert"), _result(demo, "sign-flipper")
    method = Bootstrap(replicates=300, seed=4)
    c = compare_models(demo.release, a, b, method, permutations=100)
    plain = plain_bootstrap(demo.release, a.score - b.score, 300, 4)
    for key, d in [*c.columns.items(), ("avg", c.avg)]:
        assert (d.low, d.high) == pytest.approx(plain[key], abs=1e-9), key


def test_permutation_p_value_matches_exact_enumeration(demo):
    """On one column, all 2^k sign patterns of the k non-zero differences give the exact p-value."""
    a, b = _result(demo, "noisy-expert"), _result(demo, "sign-flipper")
    c = compare_models(demo.release, a, b, Bootstrap(replicates=10), permutations=20_000)
    release = demo.release
    for key in ("ED_v", "Pos", "TDS_H"):
        q = np.flatnonzero(release.column == release.benchmark.keys.index(key))
        d = (a.score - b.score)[q]
        nz = d[d != 0]
        observed = abs(d.sum())
        flips = [abs(np.dot(signs, nz)) for signs in itertools.product((-1, 1), repeat=len(nz))]
        exact = np.mean([f >= observed - 1e-12 for f in flips])
        assert c.columns[key].p == pytest.approx(exact, abs=0.015), key


def test_holm_adjustment():
    adjusted = holm({"a": 0.01, "b": 0.04, "c": 0.03})
    assert adjusted == pytest.approx({"a": 0.03, "c": 0.06, "b": 0.06})
    assert holm({"a": 0.5, "b": 0.9}) == {"a": 1.0, "b": 1.0}


def test_unanswered_questions_are_counted_and_score_zero(tmp_path, capsys):
    lines = (PRED / "noisy-expert.jsonl").read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(json.dumps({**json.loads(x), "model": "cut"}) for x in lines[7:]) + "\n")
    assert main(["compare", str(DEMO), str(cut), str(PRED / "noisy-expert.jsonl"), "--json", "-q",
                 "--replicates", "100", "--permutations", "100"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["avg"]["missing_a"] == 7 and doc["avg"]["missing_b"] == 0
    assert sum(d["missing_a"] for d in doc["columns"].values()) == 7
    full, part = open_session(DEMO, [str(PRED / "noisy-expert.jsonl"), str(cut)]).leaderboard()["models"].values()
    assert doc["avg"]["difference"] == pytest.approx(part["avg"] - full["avg"], abs=1e-9)
    assert doc["avg"]["difference"] < 0


def test_grouped_column_difference_on_vsi_bench(tmp_path):
    """VSI-Bench's direction column: A-B is the mean of its members' differences, tested as one column."""
    s = open_session(VSI / "scannet_questions", sorted(map(str, (VSI / "gemini_response").glob("*.json"))))
    a = s.results[0]
    rng = np.random.default_rng(0)
    flipped = np.where(rng.random(len(a.score)) < 0.3, 1.0 - np.nan_to_num(a.score), a.score)
    b = scored_model(s.release, "b", np.where(np.isnan(a.score), np.nan, flipped))
    c = compare_models(s.release, a, b, Bootstrap(replicates=200), permutations=200)
    group = s.release.benchmark.groups["object_rel_direction"]
    members = [c.subcolumns[m].difference for m in group]
    assert c.columns["object_rel_direction"].difference == pytest.approx(np.mean(members))
    assert c.columns["object_rel_direction"].n == 52 and c.columns["object_rel_direction"].p_holm is not None
    assert all(d.p_holm is None for d in c.subcolumns.values())      # the family is the leaderboard's columns
    assert len([d for d in c.columns.values() if d.p is not None]) == 8


def test_compare_refuses_a_file_with_no_matching_question(tmp_path, capsys):
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"uid": "nowhere", "prediction": "A"}) + "\n")
    assert main(["compare", str(DEMO), str(other), str(PRED / "noisy-expert.jsonl")]) == 2
    assert "matches a question" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:       # B not given: argparse's usage error
        main(["compare", str(DEMO), str(PRED / "noisy-expert.jsonl")])
    assert e.value.code == 2
    assert main(["compare", str(PRED / "noisy-expert.jsonl"), str(DEMO), str(DEMO)]) == 2    # swapped


def test_column_draws_are_the_same_in_chunks_as_the_bootstrap_uses_them():
    """The draws are a function of (seed, column, n, replicates) only, so every model is resampled alike."""
    one = np.concatenate(list(column_draws(0, 3, 7, 50)))
    assert one.shape == (50, 7) and one.min() >= 0 and one.max() < 7
    assert (one == np.concatenate(list(column_draws(0, 3, 7, 50)))).all()
    assert not (one == np.concatenate(list(column_draws(0, 4, 7, 50)))).all()
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == np.percentile([1, 2, 3, 4], 50)


def test_a_synthetic_release_with_empty_columns_compares_only_the_filled_ones(tmp_path):
    release = write_release(tmp_path / "r", {"ED_v": 40, "TDS_E": 40})
    rng = np.random.default_rng(1)
    a = scored_model(release, "a", rng.random(80) < 0.7)
    b = scored_model(release, "b", rng.random(80) < 0.3)
    c = compare_models(release, a, b, Bootstrap(replicates=300), permutations=2_000)
    assert c.columns["EDist_v"].difference is None and c.columns["EDist_v"].p is None
    assert c.columns["EDist_v"].n == 0 and not c.columns["EDist_v"].significant()
    assert c.avg.difference == pytest.approx((c.columns["ED_v"].difference + c.columns["TDS_E"].difference) / 2)
    assert c.avg.significant()
    small, large = sorted((c.columns[k] for k in ("ED_v", "TDS_E")), key=lambda d: d.p)
    assert small.p_holm == pytest.approx(2 * small.p) and large.p_holm == pytest.approx(max(2 * small.p, large.p))
