import json
import subprocess
import sys

import pytest
from published_samples import ED_UID, EDIST_UID, POS_UID, TDSE_UID

from viewer.cli import main
from viewer.core.benchmarks.gst.columns import COLUMN_KEYS


@pytest.fixture
def preds(tmp_path):
    f = tmp_path / "modelA.jsonl"
    f.write_text("".join(json.dumps({"uid": u, "prediction": p}) + "\n" for u, p in {
        ED_UID: "-120", EDIST_UID: "10.0 m", POS_UID: "<point>450 780</point>", TDSE_UID: "(C)",
    }.items()))
    return f


def test_score_json_document_shape(real_samples, preds, capsys):
    assert main(["score", str(real_samples), str(preds), "--json", "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["profile", "models", "random", "warnings"]
    assert doc["profile"] == "strict"
    m = doc["models"]["modelA"]
    assert set(m) == {"columns", "avg", "counts", "unparsed", "parse"}
    assert m["parse"] == {"ok": 4, "missing": 2}
    assert doc["random"]["columns"]["ED_v"] == pytest.approx(100 / 6)
    assert any(w["code"] == "prediction.missing" for w in doc["warnings"])
    assert list(m["columns"]) == list(COLUMN_KEYS)
    assert m["columns"]["ED_v"] == 100 and m["columns"]["EDist_v"] == pytest.approx(60)
    assert m["columns"]["Pos"] == pytest.approx(80) and m["columns"]["TDS_M"] == 0
    assert m["columns"]["GP_v"] is None
    assert m["unparsed"] == 0


def test_score_table_has_models_columns_and_dashes(real_samples, preds, capsys):
    assert main(["score", str(real_samples), str(preds), "-q"]) == 0
    out = capsys.readouterr().out.splitlines()
    header = out[0].split()
    assert header == ["Model", *COLUMN_KEYS, "Avg"]
    row = next(l for l in out if l.startswith("modelA")).split()
    assert row[1] == "100.0" and row[3] == "-"          # ED_v, GP_v
    assert any(l.startswith("Random (uniform)") for l in out)


def test_per_sample_file(real_samples, preds, tmp_path):
    out = tmp_path / "per.jsonl"
    assert main(["score", str(real_samples), str(preds), "--per-sample", str(out), "-q"]) == 0
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert len(rows) == 6
    ed = next(r for r in rows if r["uid"] == ED_UID)
    assert ed == {"model": "modelA", "uid": ED_UID, "column": "ED_v", "kind": "angle", "ground_truth": -134.0,
                  "ground_truth_raw": "-134", "prediction": -120.0, "prediction_raw": "-120",
                  "status": "ok", "profile": "strict", "error": 14.0, "score": 1.0}
    pos = next(r for r in rows if r["uid"] == POS_UID)
    assert pos["ground_truth"] == [391.0, 698.0] and pos["prediction"] == [450.0, 780.0]
    tds = next(r for r in rows if r["uid"] == TDSE_UID)
    assert tds["ground_truth"] == "C" and tds["prediction"] == "C"
    missing = [r for r in rows if r["status"] == "missing"]
    assert len(missing) == 2 and all(r["score"] == 0 for r in missing)


def test_user_errors_exit_2_with_one_line_and_no_traceback(tmp_path, preds):
    for args in (["score", str(tmp_path / "nope"), str(preds)],
                 ["score", str(tmp_path), str(preds)]):
        p = subprocess.run([sys.executable, "-m", "viewer", *args], capture_output=True, text=True)
        assert p.returncode == 2
        assert "Traceback" not in p.stderr
        assert p.stderr.startswith("gst-viewer: ") and len(p.stderr.strip().splitlines()) == 1


def test_all_prediction_files_unreadable_is_an_error(real_samples, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("garbage\n")
    assert main(["score", str(real_samples), str(bad)]) == 2
    assert "bad.jsonl" in capsys.readouterr().err
