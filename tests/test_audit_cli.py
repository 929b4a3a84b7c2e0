"""`gst-viewer audit`: JSON document, summary table, bad input."""
import json

import audit_release as ar
import pytest

from viewer.cli import main


def test_audit_json_on_a_planted_release(tmp_path, capsys):
    root = ar.build(tmp_path / "rel")
    ar.set_answer(root, ar.uid("EDist_v"), 1.0)
    assert main(["audit", str(root), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(f["uid"], f["check"], f["severity"]) for f in doc["findings"]] == [
        (ar.uid("EDist_v"), "gt_distance_mismatch", "error")]
    assert doc["summary"]["gt_distance_mismatch"] == {"flagged": 1, "checked": 2, "skipped": 0}
    assert doc["findings"][0]["details"]["stored"] == 1.0


def test_audit_table_names_checks_counts_and_skip_reasons(real_samples, capsys):
    assert main(["audit", str(real_samples), "--checks", "missing_media,gt_point_mismatch"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("missing", "gt_"))}
    assert lines["missing_media"][1:5] == ["error", "5", "6", "0"]
    assert lines["gt_point_mismatch"][1:5] == ["error", "0", "0", "1"]
    assert "no scene metadata" in out and "5 findings: 5 errors" in out


def test_audit_with_predictions_and_bad_input(tmp_path, capsys):
    root = ar.build(tmp_path / "rel")
    preds = tmp_path / "m.jsonl"
    preds.write_text("\n".join(json.dumps({"uid": r["uid"], "prediction": str(r["answer"])})
                               for r in ar.read_questions(root)) + "\n")
    assert main(["audit", str(root), "-p", str(preds), "--json", "--checks", "models_disagree_with_gt"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["models_disagree_with_gt"]["skipped"] == 9      # one model is no consensus
    assert main(["audit", str(root), "--checks", "gt_typo"]) == 2
    assert "unknown check gt_typo" in capsys.readouterr().err
    assert main(["audit", str(tmp_path / "missing")]) == 2


def test_frame_chunk_reaches_the_audit_and_leaves_the_json_as_it_was(tmp_path, capsys, monkeypatch):
    import viewer.core.audit as audit
    root = ar.build(tmp_path / "rel")
    assert main(["audit", str(root), "--json"]) == 0
    whole = capsys.readouterr().out
    seen = []
    real_run_audit = audit.run_audit

    def spy(*args, **kwargs):
        seen.append(kwargs.get("frame_chunk"))
        return real_run_audit(*args, **kwargs)

    monkeypatch.setattr(audit, "run_audit", spy)
    assert main(["audit", str(root), "--json", "--frame-chunk", "1"]) == 0
    assert seen == [1]
    assert capsys.readouterr().out == whole
    with pytest.raises(SystemExit) as refused:
        main(["audit", str(root), "--frame-chunk", "0"])
    assert refused.value.code == 2 and "at least 1" in capsys.readouterr().err
