import json

import pytest

from viewer.core.diagnostics import UserError
from viewer.core.predictions import load_predictions


def test_plain_jsonl_with_aliases_and_model_field(tmp_path):
    f = tmp_path / "mine.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in [
        {"uid": "a", "prediction": "1"},
        {"id": "b", "response": "2"},
        {"question_id": "c", "output": "3"},
        {"uid": "d", "text": "4"},
        {"uid": "e", "answer": "5"},
    ]) + "\n")
    (s,) = load_predictions(f)
    assert s.model == "mine" and s.raw == {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}


def test_model_field_splits_one_file_into_models(tmp_path):
    f = tmp_path / "all.jsonl"
    f.write_text(json.dumps({"uid": "a", "prediction": "1", "model": "gpt"}) + "\n"
                 + json.dumps({"uid": "a", "prediction": "2", "model": "qwen"}) + "\n")
    sets = {s.model: s.raw for s in load_predictions(f)}
    assert sets == {"gpt": {"a": "1"}, "qwen": {"a": "2"}}


def test_duplicates_last_wins_and_warns(tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text('{"uid": "a", "prediction": "1"}\n{"uid": "a", "prediction": "2"}\n')
    (s,) = load_predictions(f)
    assert s.raw["a"] == "2"
    w = s.diagnostics.of_level("warning")[0]
    assert w.code == "prediction.duplicate" and w.line == 2 and "line 1" in w.message     # where the first was


def test_malformed_lines_reported_rest_kept(tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text('{"uid": "a", "prediction": "1"}\nnot json\n{"uid": "b"}\n[1]\n{"uid": "c", "prediction": "3"}\n')
    (s,) = load_predictions(f)
    assert s.raw == {"a": "1", "c": "3"}
    errors = sorted((d.line, d.code) for d in s.diagnostics.of_level("error"))
    assert errors == [(2, "json.malformed"), (3, "prediction.no_value"), (4, "prediction.not_object")]


def test_lmms_eval_new_layout(tmp_path):
    folder = tmp_path / "qwen2-vl"
    folder.mkdir()
    f = folder / "samples_gst_bench_2026-01-01.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in [
        {"doc_id": 0, "doc": {"uid": "a"}, "resps": [["raw a"]], "filtered_resps": ["filtered a"]},
        {"doc_id": 1, "doc": {"uid": "b"}, "resps": [["raw b"]]},
    ]) + "\n")
    (s,) = load_predictions(f)
    assert s.model == "qwen2-vl" and s.raw == {"a": "filtered a", "b": "raw b"}
    assert not s.positional


def test_lmms_eval_old_layout_without_uids_is_positional(tmp_path):
    f = tmp_path / "llava.json"
    f.write_text(json.dumps({"logs": [
        {"doc_id": 0, "doc": {"question": "?"}, "resps": [["C"]], "filtered_resps": [["C"]]},
        {"doc_id": 1, "doc": {"question": "?"}, "resps": [["-12"]], "filtered_resps": ["-12"]},
    ]}))
    (s,) = load_predictions(f)
    assert s.raw == {"0": "C", "1": "-12"} and s.positional


def test_vlmevalkit_tsv(tmp_path):
    f = tmp_path / "GPT4o_GSTBench.tsv"
    f.write_text("index\tquestion\tanswer\tprediction\n0\tq\tC\tThe answer is C\n1\tq\t-134\t-120\n")
    (s,) = load_predictions(f)
    assert s.model == "GPT4o_GSTBench" and s.raw == {"0": "The answer is C", "1": "-120"}
    assert s.positional


def test_vlmevalkit_xlsx(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["index", "uid", "prediction"])
    ws.append([0, "a", "B"])
    ws.append([1, "b", 12.5])
    f = tmp_path / "m.xlsx"
    wb.save(f)
    (s,) = load_predictions(f)
    assert s.raw == {"a": "B", "b": 12.5} and not s.positional


def test_table_without_prediction_column_is_a_user_error(tmp_path):
    f = tmp_path / "m.tsv"
    f.write_text("index\tanswer\n0\tC\n")
    with pytest.raises(UserError, match="prediction"):
        load_predictions(f)


@pytest.mark.parametrize("content", ["", "\n\n", "not json at all\n"])
def test_empty_or_unusable_file_is_a_user_error(tmp_path, content):
    f = tmp_path / "m.jsonl"
    f.write_text(content)
    with pytest.raises(UserError, match="m.jsonl"):
        load_predictions(f)


def test_missing_file_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="no such prediction file"):
        load_predictions(tmp_path / "nope.jsonl")


def test_name_equals_path_names_the_model(tmp_path):
    from viewer.cli_args import check_prediction_args
    from viewer.core.predictions import named_path
    p = tmp_path / "samples_gst_uid.jsonl"
    p.write_text(json.dumps({"uid": "a", "prediction": "1"}) + "\n")
    assert named_path(p) == (None, p)
    assert named_path(f"Qwen2.5-VL 7B={p}") == ("Qwen2.5-VL 7B", p)
    [s] = load_predictions(f"Qwen2.5-VL 7B={p}")
    assert s.model == "Qwen2.5-VL 7B"
    assert load_predictions(p)[0].model != "Qwen2.5-VL 7B"          # unnamed: the name the file gives
    odd = tmp_path / "run=3.jsonl"                    # a file whose own name has '=' is a file, not a name
    odd.write_text(p.read_text())
    assert named_path(odd) == (None, odd) and load_predictions(odd)[0].raw
    # Several models in one file: NAME/model.
    two = tmp_path / "two.jsonl"
    two.write_text("\n".join(json.dumps({"uid": "a", "prediction": "1", "model": m}) for m in ("x", "y")) + "\n")
    assert sorted(s.model for s in load_predictions(f"run1={two}")) == ["run1/x", "run1/y"]
    with pytest.raises(UserError, match="no such prediction file"):
        check_prediction_args([f"name={tmp_path / 'absent.jsonl'}"])
