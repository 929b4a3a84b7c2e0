"""A third benchmark costs one package: Toy-Bench (tests/toy_bench.py), defined in the tests alone, opens,
scores, audits and renders a figure with no edit to viewer/ (its window part: tests/ui/test_toy_benchmark_window.py).

Its own loader, column table, answer kind, prediction format and audit check are registered for each
test and taken back out after it, and the built-in benchmarks are shown to be unaffected.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import toy_bench as toy

from viewer.cli import main
from viewer.core.audit import run_audit
from viewer.core.audit.run import applies_to
from viewer.core.benchmarks.registry import BENCHMARKS
from viewer.core.diagnostics import UserError
from viewer.core.kinds import get_kind, kinds
from viewer.core.predictions import FORMATS, load_predictions
from viewer.core.release import load_release
from viewer.core.session import open_session


@pytest.fixture
def registered():
    toy.registered()
    yield
    toy.unregister_all()


@pytest.fixture
def release_dir(tmp_path):
    return toy.write_release(tmp_path / "toy-release")


@pytest.fixture
def answers(tmp_path):
    return toy.write_answers(tmp_path / "colour-bot.toy")


def test_it_opens_detected_by_its_own_loader(registered, release_dir, answers):
    release = load_release(release_dir)
    assert release.benchmark is toy.TOY and release.layout == "toy"
    assert release.uids == [q["id"] for q in toy.QUESTIONS]
    assert [release.benchmark.columns[c].key for c in release.column] == ["Wall", "Door", "Width"] * 2
    # Truths read by each column's kind: a colour index for the toy kind, metres for `distance`.
    assert release.questions[0].truth.value == toy.COLOURS.index("blue")
    assert release.truth[2, 0] == 4.0 and release.truth[3, 0] == toy.COLOURS.index("yellow")
    assert load_release(release_dir / "toy.json").benchmark is toy.TOY      # the file alone, too
    assert load_release(release_dir, benchmark="toy").benchmark is toy.TOY  # and forced by name


def test_its_prediction_format_reads_its_files(registered, answers):
    (s,) = load_predictions(answers)
    assert s.model == "colour-bot" and s.format == "toy-answers" and s.raw == toy.ANSWERS
    assert s.lines["t1"] == 2


def test_it_scores(registered, release_dir, answers):
    session = open_session(release_dir, [answers])
    board = session.leaderboard()
    row = board["models"]["colour-bot"]
    distance = get_kind("distance")
    width_score = distance.score(np.array([[5.0, np.nan]]), np.array([[4.0, np.nan]]))[0][0]
    assert 0 < width_score < 1
    assert row["columns"] == pytest.approx({"Wall": 100.0, "Door": 50.0, "Width": 100 * (width_score + 1) / 2})
    assert row["avg"] == pytest.approx(np.mean(list(row["columns"].values())))
    assert row["counts"] == {"Wall": 2, "Door": 2, "Width": 2}
    assert row["parse"].get(toy.NO_COLOUR) == 1                      # t5's "I cannot tell"
    assert board["random"]["columns"]["Wall"] == pytest.approx(100 / len(toy.COLOURS))
    assert not [w for w in board["warnings"] if w["level"] == "error"]


def test_the_score_command_prints_its_table(registered, release_dir, answers, capsys):
    assert main(["score", str(release_dir), str(answers), "--quiet"]) == 0
    table = capsys.readouterr().out
    header = table.splitlines()[0].split()
    assert header[1:] == ["Wall", "Door", "W", "Avg"]                 # its columns, its short labels
    assert "colour-bot" in table
    assert main(["score", str(release_dir), str(answers), "--json", "--benchmark", "toy"]) == 0
    assert json.loads(capsys.readouterr().out)["models"]["colour-bot"]["columns"]["Wall"] == 100.0


def test_it_is_audited_by_the_checks_that_apply(registered, release_dir, answers):
    release = load_release(release_dir)
    session = open_session(release_dir, [answers])
    report = run_audit(release, session.results)
    summary = report.summary()
    assert summary["toy_yellow_walls"] == {"flagged": 1, "checked": 2, "skipped": 0}
    assert [f.uid for f in report.findings if f.check == "toy_yellow_walls"] == ["t4"]
    from viewer.core.audit import CHECKS
    for check in CHECKS:
        reasons = report.tally.skip_reasons[check.id]
        if applies_to(check, toy.TOY):                 # run: what it skips, it skips for a reason of its own
            assert not any("not applicable" in r for r in reasons), (check.id, reasons)
        else:                                          # skipped for every question, saying why
            assert summary[check.id] == {"flagged": 0, "checked": 0, "skipped": len(release)}, check.id
            (reason, _), = report.tally.skip_reasons[check.id].most_common(1)
            assert reason.endswith("not applicable to Toy-Bench questions"), reason


@pytest.mark.parametrize("layout", ["panel", "map"])
def test_it_renders_a_figure(registered, release_dir, answers, tmp_path, layout):
    out = tmp_path / f"t1-{layout}.png"
    assert main(["render", str(release_dir), "--uid", "t1", "--layout", layout, "--out", str(out),
                 "-p", str(answers)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG" and out.stat().st_size > 5_000


def test_a_file_no_format_identifies_gets_one_message_naming_every_format_tried(registered, tmp_path):
    odd = tmp_path / "answers.txt"
    odd.write_text("t1: blue\n")
    with pytest.raises(UserError) as e:
        load_predictions(odd)
    message = str(e.value)
    assert message.startswith(str(odd)) and "\n" not in message
    for fmt in FORMATS:
        assert fmt.label in message
    assert toy.TOY_ANSWERS.label in message and "VSI-Bench per-scene responses" in message


def test_unregistering_leaves_the_built_in_benchmarks_as_they_were(release_dir):
    toy.registered()
    toy.unregister_all()
    assert "toy" not in BENCHMARKS and toy.TOY_ANSWERS not in FORMATS
    assert toy.COLOUR not in kinds()
    from viewer.core.audit import CHECKS
    assert "toy_yellow_walls" not in CHECKS.ids()
    with pytest.raises(UserError, match="no questions"):     # a toy folder is no release of the others
        load_release(release_dir)
