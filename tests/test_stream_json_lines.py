"""textio.stream_json_lines: chunked msgspec decoding reports bad lines exactly as the whole-file json path."""
from __future__ import annotations

import pytest

from viewer.core import textio
from viewer.core.benchmarks.gst.records import QuestionRecord
from viewer.core.diagnostics import Diagnostics
from viewer.core.records import PlainPrediction
from viewer.core.textio import read_json_lines, stream_json_lines

LINES = ['{"uid": "a", "prediction": "1"}', "", '{"uid": "b", "prediction": NaN}', "{not json",
         '{"uid": "c", "prediction": "3"} {"uid": "d"}', "\u00a0", '{"uid": "e", "prediction": "' + "x" * 300 + '"}',
         '{"uid": "f", "prediction": "6"}', "[1, 2]", '"\\ud800"', '{"uid": "g", "prediction": 1e400}']


def streamed(path, chunk: int, types=()):
    textio_chunk = textio.JSON_LINES_CHUNK
    textio.JSON_LINES_CHUNK = chunk
    try:
        d = Diagnostics()
        numbers, values = [], []
        for n, v in stream_json_lines(path, d, types):
            numbers += n
            values += v
        return numbers, values, [(x.level, x.code, x.line, x.message) for x in d]
    finally:
        textio.JSON_LINES_CHUNK = textio_chunk


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
def test_chunks_give_the_whole_file_reading(tmp_path, chunk):
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    d = Diagnostics()
    want_numbers, want_values = read_json_lines(path.read_text(encoding="utf-8"), path, d)
    want_diags = [(x.level, x.code, x.line, x.message) for x in d]
    numbers, values, diags = streamed(path, chunk)
    assert numbers == want_numbers
    assert [v if not hasattr(v, "uid") else {"uid": v.uid, "prediction": v.prediction} for v in values] == \
        want_values
    assert diags == want_diags


def test_typed_records_where_every_line_fits(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('\ufeff{"uid": "a", "task": "t", "extra": [1]}\n\n{"uid": "b", "task": "t", "answer": "A"}\n',
                    encoding="utf-8")
    numbers, values, diags = streamed(path, 1 << 20, (QuestionRecord,))
    assert numbers == [1, 3] and diags == []
    assert [type(v) for v in values] == [QuestionRecord, QuestionRecord] and values[1].answer == "A"


def test_a_line_not_of_the_type_falls_back_to_plain_values(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"uid": "a", "prediction": "1", "model": "m"}\n', encoding="utf-8")
    _, values, _ = streamed(path, 1 << 20, (PlainPrediction,))
    assert values == [{"uid": "a", "prediction": "1", "model": "m"}]


def test_blank_and_invalid_utf8(tmp_path):
    path = tmp_path / "e.jsonl"
    path.write_text(" \n\t\n", encoding="utf-8")
    assert streamed(path, 1 << 20)[2] == [("error", "file.empty", None, "file is empty")]
    path.write_bytes(b'{"uid": "a", "prediction": "1"}\n{"uid": "b", "prediction": "\xff"}\n')
    numbers, values, diags = streamed(path, 1 << 20)
    assert numbers == [1, 2] and values[1]["prediction"] == "\ufffd"
    assert [(c, line) for _, c, line, _ in diags] == [("file.not_utf8", 2)]
