"""A prediction file's `frames` fields (core/frames/seen.record_frames): a file without any is told from its
bytes, the word found wherever the file's blocks cut it."""
import json

from viewer.core.frames import seen
from viewer.core.frames.seen import record_frames


def test_frames_fields_are_read_and_a_file_without_them_gives_none(tmp_path):
    p = tmp_path / "m.jsonl"
    lines = [{"uid": f"q{i}", "prediction": "A"} for i in range(50)]
    lines[37]["frames"] = [0, 4, 9]
    lines[41]["frames"] = "uniform:8"
    p.write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    got, problems = record_frames(p)
    assert got["q37"] == (0, 4, 9) and str(got["q41"]).startswith("uniform") and set(got) == {"q37", "q41"}
    assert not problems
    plain = tmp_path / "plain.jsonl"
    plain.write_text("\n".join(json.dumps({"uid": f"q{i}", "prediction": "frames"}) for i in range(50)) + "\n")
    assert record_frames(plain) == ({}, [])
    assert record_frames(tmp_path / "absent.jsonl") == ({}, [])


def test_the_word_is_found_across_every_block_boundary(tmp_path):
    p = tmp_path / "m.jsonl"
    text = b'{"uid": "q1", "prediction": "A", "frames": [1]}\n'
    p.write_bytes(text)
    for block in range(1, len(text) + 2):
        assert seen._mentions(p, b'"frames"', block), block
        assert not seen._mentions(p, b'"framez"', block)
