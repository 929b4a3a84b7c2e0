"""`score --json` and `--per-sample` validate against their JSON Schemas in docs/."""
import json
from pathlib import Path

import jsonschema  # a test dependency (pyproject's test extras)
import pytest

from viewer.cli import main

DOCS = Path(__file__).resolve().parent.parent / "docs"
DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"


def _schema(name):
    schema = json.loads((DOCS / name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("profile", ["strict", "lenient"])
def test_demo_outputs_validate(profile, tmp_path, capsys):
    per_sample = tmp_path / "per.jsonl"
    preds = sorted(str(p) for p in (DEMO / "predictions").glob("*.jsonl"))
    assert main(["score", str(DEMO), *preds, "--json", "-q", "--parser", profile,
                 "--per-sample", str(per_sample)]) == 0
    doc = json.loads(capsys.readouterr().out)
    _schema("score.schema.json").validate(doc)
    rows = [json.loads(line) for line in per_sample.read_text().splitlines()]
    validator = _schema("per-sample.schema.json")
    for row in rows:
        validator.validate(row)
    assert {r["kind"] for r in rows} == {"angle", "distance", "point", "choice"}


def test_real_samples_with_odd_answers_validate(real_samples, tmp_path, capsys):
    from published_samples import ED_UID, EDIST_UID, POS_UID, TDSE_UID, TRAJ_UID
    preds = tmp_path / "odd.jsonl"
    preds.write_text("".join(json.dumps({"uid": u, "prediction": p}) + "\n" for u, p in {
        ED_UID: "<think>frame 3</think> Answer: 200", EDIST_UID: "3,5 m", POS_UID: "<point>1200 -5</point>",
        TDSE_UID: "E", TRAJ_UID: "", "unknown-uid": "4"}.items()))
    per_sample = tmp_path / "per.jsonl"
    assert main(["score", str(real_samples), str(preds), "--json", "--per-sample", str(per_sample)]) == 0
    doc = json.loads(capsys.readouterr().out)
    _schema("score.schema.json").validate(doc)
    parse = doc["models"]["odd"]["parse"]
    assert parse["out_of_range"] == 2 and parse["several_numbers"] == 1      # 200 degrees, a point off the map
    assert parse["letter_out_of_range"] == 1 and parse["empty"] == 1 and set(parse) <= {
        "out_of_range", "several_numbers", "letter_out_of_range", "empty", "missing"}
    assert {w["code"] for w in doc["warnings"]} >= {"prediction.unknown_uid"}
    validator = _schema("per-sample.schema.json")
    for line in per_sample.read_text().splitlines():
        validator.validate(json.loads(line))


def test_a_string_truth_beside_a_number_would_not_validate():
    bad = {"model": "m", "uid": "u", "column": "ED_v", "kind": "angle", "ground_truth": "-161",
           "ground_truth_raw": "-161", "prediction": 2.0, "prediction_raw": "2", "status": "ok",
           "profile": "strict", "error": 1.0, "score": 0.0}
    with pytest.raises(jsonschema.ValidationError):
        _schema("per-sample.schema.json").validate(bad)
