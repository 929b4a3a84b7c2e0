"""Prediction formats are a registry: the best-priority format that identifies a file reads it, content
decides where the extension does not, and a file no format identifies gets one message naming them all."""
from __future__ import annotations

import json

import pytest

from viewer.core.diagnostics import UserError
from viewer.core.predictions import FORMATS, PredictionFormat, PredictionSet, format_of, load_predictions
from viewer.core.predictions.formats import Head


def _lines(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _format(path):
    from viewer.core import benchmarks  # noqa: F401  (the benchmarks' own formats)
    from viewer.core.diagnostics import Diagnostics
    return format_of(path, Head(path, Diagnostics())).label


def test_each_file_goes_to_its_format(tmp_path):
    plain = _lines(tmp_path / "m.jsonl", [{"uid": "a", "prediction": "B"}])
    lmms = _lines(tmp_path / "samples_x.jsonl", [{"doc_id": 0, "doc": {"uid": "a"}, "resps": [["B"]]}])
    logs = tmp_path / "old.json"
    logs.write_text(json.dumps({"results": {}, "logs": [{"doc_id": 0, "doc": {"uid": "a"}, "resps": [["B"]]}]}))
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"uid": "a", "prediction": "B"}]))
    mapped = tmp_path / "map.json"
    mapped.write_text(json.dumps({"a": "B"}))
    scenes = tmp_path / "scene0_response.json"
    scenes.write_text(json.dumps({"scene_name": "s0", "questions": [{"question": "q?", "gemini_answer": "B"}]}))
    table = tmp_path / "m.tsv"
    table.write_text("index\tprediction\n0\tB\n")
    assert {p.name: _format(p) for p in (plain, lmms, logs, listed, mapped, scenes, table)} == {
        "m.jsonl": "JSON Lines records", "samples_x.jsonl": "lmms-eval sample log (JSON Lines)",
        "old.json": "lmms-eval sample log (JSON with 'logs')", "list.json": "JSON list of records",
        "map.json": "JSON object of uid -> prediction", "scene0_response.json": "VSI-Bench per-scene responses",
        "m.tsv": "VLMEvalKit table (TSV/CSV)"}
    assert [s.format for s in load_predictions(lmms)] == ["lmms-eval"]


def test_json_lines_are_told_by_their_content_when_the_extension_says_nothing(tmp_path):
    f = _lines(tmp_path / "answers.txt", [{"uid": "a", "prediction": "B"}, {"uid": "b", "prediction": "C"}])
    (s,) = load_predictions(f)
    assert s.raw == {"a": "B", "b": "C"} and s.model == "answers"


def test_a_higher_priority_format_wins_and_unregistering_restores_the_old_one(tmp_path):
    f = _lines(tmp_path / "m.jsonl", [{"uid": "a", "prediction": "B"}])

    def read(path, head, diags):
        s = PredictionSet("shouting", str(path), format="shout")
        s.raw = {"a": "B!"}
        return [s]

    loud = PredictionFormat("shouted JSON Lines", lambda path, head: '"uid"' in head.first_line, read, 100)
    from viewer.core.predictions import register_format, unregister_format
    register_format(loud)
    try:
        assert [(s.model, s.raw) for s in load_predictions(f)] == [("shouting", {"a": "B!"})]
    finally:
        unregister_format(loud)
    assert loud not in FORMATS and [s.model for s in load_predictions(f)] == ["m"]


def test_a_malformed_json_document_says_where_and_what_was_tried(tmp_path):
    f = tmp_path / "m.json"
    f.write_text('{\n  "a": "B",\n  "b" "C"\n}\n')
    with pytest.raises(UserError) as e:
        load_predictions(f)
    message = str(e.value)
    assert message.startswith(f"{f}:3: malformed JSON") and "tried: " in message and "\n" not in message
    assert "JSON object of uid -> prediction" in message


def test_an_unknown_file_names_every_format_once(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("a: B\n")
    with pytest.raises(UserError) as e:
        load_predictions(f)
    tried = str(e.value).split("tried: ", 1)[1].rstrip(")").split(", ")
    from viewer.core import benchmarks  # noqa: F401
    assert sorted(tried) == sorted(fmt.label for fmt in FORMATS) and len(tried) == len(set(tried))
