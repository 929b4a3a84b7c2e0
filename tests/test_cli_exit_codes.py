"""Exit codes and guidance of the command line, one test per case found by trying it as a user (issue 13)."""
import json
import subprocess
import sys

import audit_release as ar
import pytest
from published_samples import ED_UID, POS_UID

from viewer.cli import main
from viewer.ui.app import parse_size

COMMANDS = ("score", "make-demo", "--selftest", "audit", "flags", "render", "clip", "gallery")


@pytest.fixture
def preds(tmp_path):
    f = tmp_path / "modelA.jsonl"
    f.write_text("".join(json.dumps({"uid": u, "prediction": p}) + "\n"
                         for u, p in {ED_UID: "-120", POS_UID: "<point>450 780</point>"}.items()))
    return f


# ------------------------------------------------------------------ score
def test_score_exits_1_when_a_prediction_file_cannot_be_read_but_prints_the_rest(real_samples, preds, tmp_path,
                                                                                  capsys):
    broken = tmp_path / "broken.jsonl"
    broken.write_text("")
    assert main(["score", str(real_samples), str(preds), str(broken)]) == 1
    captured = capsys.readouterr()
    assert "modelA" in captured.out                     # the table, for the file that was read
    assert "broken.jsonl" in captured.err


def test_score_exits_1_when_a_file_matches_no_question(real_samples, preds, tmp_path, capsys):
    stranger = tmp_path / "other-benchmark.jsonl"
    stranger.write_text(json.dumps({"uid": "not-a-gst-question", "prediction": "3"}) + "\n")
    assert main(["score", str(real_samples), str(preds), str(stranger), "-q"]) == 1
    assert "matches a question" in capsys.readouterr().err
    assert main(["score", str(real_samples), str(preds), "-q"]) == 0


def test_score_takes_predictions_with_p_like_every_other_command(real_samples, preds, capsys):
    assert main(["score", str(real_samples), "-p", str(preds), "--json", "-q"]) == 0
    assert "modelA" in json.loads(capsys.readouterr().out)["models"]
    assert main(["score", str(real_samples), "--predictions", str(preds), "-q"]) == 0


def test_score_names_swapped_arguments(real_samples, preds, capsys):
    assert main(["score", str(preds), str(real_samples)]) == 2
    err = capsys.readouterr().err
    assert "is a prediction file, not a release" in err and len(err.splitlines()) == 1
    assert main(["score", str(real_samples), str(real_samples)]) == 2
    assert "is a release, not a prediction file" in capsys.readouterr().err


def test_score_without_predictions_is_a_usage_error(real_samples):
    with pytest.raises(SystemExit) as e:
        main(["score", str(real_samples)])
    assert e.value.code == 2


# ------------------------------------------------------------------ audit
def test_audit_fail_on_gates_ci(tmp_path, capsys):
    root = ar.build(tmp_path / "rel")
    ar.set_answer(root, ar.uid("EDist_v"), 1.0)            # one error finding
    assert main(["audit", str(root), "--json"]) == 0        # findings alone do not fail: it is a report
    assert main(["audit", str(root), "--json", "--fail-on", "error"]) == 1
    assert "--fail-on error" in capsys.readouterr().err
    assert main(["audit", str(root), "--json", "--fail-on", "warning"]) == 1
    clean = ar.build(tmp_path / "clean")
    assert main(["audit", str(clean), "--json", "--fail-on", "warning"]) == 0


def test_audit_names_a_prediction_file_given_as_the_release(preds, capsys):
    assert main(["audit", str(preds)]) == 2
    assert "is a prediction file" in capsys.readouterr().err


# ------------------------------------------------------------------ flags
def test_flags_export_on_a_folder_that_is_not_a_release_writes_nothing(tmp_path, capsys):
    folder = tmp_path / "not-a-release"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello")
    assert main(["flags", "export", str(folder), "--format", "csv"]) == 2
    assert "not a release" in capsys.readouterr().err
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


# ------------------------------------------------------------------ guidance
def test_top_level_help_lists_every_subcommand_with_a_line(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        line = next((l for l in out.splitlines() if l.strip().startswith(name + " ")), None)
        assert line is not None and len(line.split()) > 2, name
    assert "exit codes" in out


def test_unknown_subcommand_gets_a_did_you_mean(capsys):
    assert main(["scor", "assets/demo"]) == 2
    assert "did you mean 'score'" in capsys.readouterr().err
    assert main(["adit"]) == 2
    assert "did you mean 'audit'" in capsys.readouterr().err


def test_opening_a_prediction_file_as_the_release_says_so(preds, capsys):
    assert main([str(preds)]) == 2
    assert "is a prediction file, not a release" in capsys.readouterr().err


def test_size_below_the_minimum_is_not_called_a_format_error():
    from viewer.core.diagnostics import UserError
    with pytest.raises(UserError, match="between 200 and"):
        parse_size("100x100")
    with pytest.raises(UserError, match="expected WIDTHxHEIGHT"):
        parse_size("big")


def test_exit_codes_from_a_real_process(real_samples, preds, tmp_path):
    broken = tmp_path / "broken.jsonl"
    broken.write_text("not json\n")
    run = [sys.executable, "-m", "viewer", "score", str(real_samples), str(preds), str(broken), "-q"]
    p = subprocess.run(run, capture_output=True, text=True)
    assert p.returncode == 1 and "Traceback" not in p.stderr and "modelA" in p.stdout
