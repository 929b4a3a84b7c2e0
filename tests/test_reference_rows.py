"""Reference rows (`score --reference`): the published numbers against the paper's stated figures, the
project page's extra entries marked, a user's CSV, and the outputs that carry them."""
import json
from pathlib import Path

import numpy as np
import pytest

from viewer.cli import main
from viewer.core.benchmarks import GST
from viewer.core.benchmarks.gst.published import ROWS
from viewer.core.diagnostics import UserError
from viewer.core.reference_rows import PAGE_ONLY, read_reference_csv, reference_rows

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "assets" / "demo"
PREDS = sorted(str(p) for p in (DEMO / "predictions").glob("*.jsonl"))


def test_published_rows_match_the_figures_the_paper_states():
    rows = {r.name: r for r in reference_rows("paper", GST)}
    # the abstract and the text: Gemini-3-Pro 42.68, humans 79.08; Table 1's rows quoted in the text
    stated = {"Gemini-3-Pro": 42.68, "Human Level (20 samples/task)": 79.08, "Random Guessing": 20.01,
              "InternVL3.5-38B": 30.71, "Qwen3-VL-8B": 25.89}
    for name, avg in stated.items():
        assert rows[name].avg == avg and rows[name].origin == "paper"
    assert len(rows) == 24 and len([r for r in rows.values() if r.family != "Baseline"]) == 22
    assert max(r.avg for r in rows.values() if r.family != "Baseline") == 42.68      # the strongest model


def test_every_paper_row_avg_is_the_mean_of_its_columns():
    """A copying slip in any of the 12 numbers would show: Avg is their mean, to the published rounding."""
    for name, _, in_paper, values in ROWS:
        if in_paper:
            assert abs(np.mean(values[:-1]) - values[-1]) <= 0.006, name


def test_project_page_only_entries_are_marked_and_left_out_by_default():
    paper = {r.name for r in reference_rows("paper", GST)}
    page = reference_rows("page", GST)
    extra = [r for r in page if r.name not in paper]
    assert {r.name for r in extra} == {"Gemini-3.1-Pro", "GPT-5.5", "Seed2.1-Pro", "GPT-6 Astra", "RynnBrain1.1-9B"}
    assert all(r.origin == PAGE_ONLY for r in extra)
    human = next(r for r in page if r.name.startswith("Human")).avg
    assert [r.name for r in page if r.avg > human] == ["GPT-6 Astra"]     # above the human level: page only
    assert all("leaderboard.js" in r.source and "2026-12-01" in r.source for r in page)


def test_a_users_csv_by_key_or_label_with_or_without_avg(tmp_path):
    keys = GST.table_keys
    f = tmp_path / "ours.csv"
    f.write_text("Model," + ",".join(GST.label(k) for k in keys) + "\n"
                 "mine," + ",".join(str(10 + i) for i in range(12)) + "\n"
                 "\n"
                 "other," + ",".join(["50"] * 11 + [""]) + "\n")
    mine, other = read_reference_csv(f, GST)
    assert mine.columns["Traj"] == 21 and mine.avg == pytest.approx(15.5) and mine.origin == "ours.csv"
    assert other.columns["Traj"] is None and other.avg == 50
    bad = tmp_path / "bad.csv"
    bad.write_text("Model," + ",".join(keys) + ",Avg\nx," + ",".join(["1"] * 12) + ",abc\n")
    with pytest.raises(UserError, match=r"bad.csv:2: Avg is 'abc'"):
        read_reference_csv(bad, GST)
    bad.write_text("Model,ED_v\nx,1\n")
    with pytest.raises(UserError, match=r"bad.csv:1: the columns EDist_v, .* are missing"):
        read_reference_csv(bad, GST)


def test_score_reference_in_the_table_json_and_exports(tmp_path, capsys):
    import jsonschema
    assert main(["score", str(DEMO), *PREDS, "-q", "--reference", "page"]) == 0
    out = capsys.readouterr().out
    assert "GPT-6 Astra (project page only)" in out and "Gemini-3-Pro (paper)" in out
    assert "no per-question data, so no interval" in out
    assert main(["score", str(DEMO), *PREDS, "-q", "--json", "--ci", "--replicates", "100", "--reference",
                 "paper"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator(json.loads((ROOT / "docs" / "score.schema.json").read_text())).validate(doc)
    assert len(doc["reference"]) == 24 and "intervals" not in doc["reference"][0]
    assert main(["score", str(DEMO), *PREDS, "-q", "--format", "tex", "--reference", "paper"]) == 0
    tex = capsys.readouterr().out
    human = next(line for line in tex.splitlines() if line.startswith("Human"))
    assert r"\textbf" not in human and "100.0" in human          # published rows are never bold
    assert main(["score", str(DEMO), *PREDS, "-q", "--reference", str(tmp_path / "none.csv")]) == 2
    assert main(["score", str(ROOT / "tests" / "data" / "vsi-gemini" / "scannet_questions"),
                 *map(str, (ROOT / "tests" / "data" / "vsi-gemini" / "gemini_response").glob("*.json")),
                 "-q", "--reference", "paper"]) == 2
    assert "no published results are bundled for VSI-Bench" in capsys.readouterr().err
