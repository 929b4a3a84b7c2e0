"""`score --per-sample` and `audit --json` are written a piece at a time (issue 26, class 8): the same
bytes as the whole documents built in memory, on the demo; the pieces are bounded; and a lone surrogate in
an answer is written as its JSON escape and said, not raised."""
import json

import pytest

from viewer.assets import default_predictions, default_release
from viewer.cli import main
from viewer.core import atomic
from viewer.core.answers import is_scored
from viewer.core.exports.per_sample import per_sample_blocks
from viewer.core.session import open_session

DEMO = default_release()


def whole_per_sample(session) -> str:
    """The per-sample file as it was made before streaming: every line a dict dumped, all joined."""
    release = session.release
    out = []
    for r in session.results:
        for i, q in enumerate(release.questions):
            kind = q.kind
            status = r.status[i]
            error, score = float(r.error[i]), float(r.score[i])
            out.append(json.dumps({
                "model": r.model, "uid": q.uid,
                "column": q.column.key if q.column else None,
                "kind": kind.name if kind else None,
                "ground_truth": kind.json_value(q.truth.value) if kind and q.truth.ok else None,
                "ground_truth_raw": q.answer_raw,
                "prediction": kind.json_value(r.parsed(release, i)) if kind and is_scored(status) else None,
                "prediction_raw": r.raw[i], "status": status, "profile": r.profile,
                "error": error if error == error and abs(error) != float("inf") else None,
                "score": score if score == score and abs(score) != float("inf") else None,
            }, ensure_ascii=False))
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def demo_predictions():
    preds = default_predictions(DEMO)
    assert len(preds) >= 2
    return preds


def test_per_sample_file_is_the_whole_document_byte_for_byte(demo_predictions, tmp_path):
    out = tmp_path / "per.jsonl"
    assert main(["score", str(DEMO), *map(str, demo_predictions), "-q", "--per-sample", str(out)]) == 0
    expected = whole_per_sample(open_session(DEMO, demo_predictions))
    assert out.read_bytes() == expected.encode("utf-8")
    assert len(expected.splitlines()) == len(demo_predictions) * len(open_session(DEMO, []).release)


def test_per_sample_lines_come_in_bounded_blocks_without_keeping_the_questions(demo_predictions):
    session = open_session(DEMO, demo_predictions)
    release = session.release
    blocks = per_sample_blocks(release, session.results, block=7)
    first = next(blocks)                          # a generator: the first block before the rest is made
    assert first.count("\n") == 7
    rest = list(blocks)
    assert all(b.count("\n") <= 7 for b in rest) and len(rest) >= len(session.results) * len(release) // 7 - 1
    # Each question was built for its line and let go: none is held by the release afterwards.
    assert all(q is None for q in release.questions._built)
    assert "".join([first, *rest]) == whole_per_sample(session)


def test_per_sample_writes_block_by_block(demo_predictions, tmp_path, monkeypatch):
    sizes = []
    write = atomic.TextSink.write

    def counting(self, text):
        sizes.append(text.count("\n"))
        write(self, text)
    monkeypatch.setattr(atomic.TextSink, "write", counting)
    monkeypatch.setattr("viewer.core.exports.per_sample.LINES_PER_BLOCK", 10)
    out = tmp_path / "per.jsonl"
    assert main(["score", str(DEMO), *map(str, demo_predictions), "-q", "--per-sample", str(out)]) == 0
    lines = len(out.read_text().splitlines())
    assert max(sizes) == 10 and sum(sizes) == lines and len(sizes) >= lines // 10


def test_a_lone_surrogate_in_an_answer_is_escaped_and_named(real_samples, tmp_path, capsys):
    from published_samples import ED_UID, EDIST_UID
    preds = tmp_path / "model.jsonl"
    # "\ud800" in the file is a JSON escape: Python reads it as a lone surrogate, which UTF-8 cannot hold.
    preds.write_text(json.dumps({"uid": ED_UID, "prediction": "-12\ud800"}) + "\n"
                     + json.dumps({"uid": EDIST_UID, "prediction": "\udfff3.0 \ud83d"}) + "\n")
    assert "\\ud800" in preds.read_text()
    out = tmp_path / "per.jsonl"
    assert main(["score", str(real_samples), str(preds), "--per-sample", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{out}: 3 lone surrogates" in err
    text = out.read_bytes().decode("utf-8")               # valid UTF-8
    rows = {r["uid"]: r for r in map(json.loads, text.splitlines())}
    assert rows[ED_UID]["prediction_raw"] == "-12\ud800"    # the escape reads back as the same text
    assert rows[EDIST_UID]["prediction_raw"] == "\udfff3.0 \ud83d"


def test_atomic_text_counts_what_it_escapes(tmp_path):
    out = tmp_path / "a.txt"
    assert atomic.atomic_write_text(out, "plain é ✓ 😀\n") == 0
    assert out.read_text(encoding="utf-8") == "plain é ✓ 😀\n"
    assert atomic.atomic_write_text(out, "a\ud800b\udc00") == 2
    assert out.read_bytes() == b"a\\ud800b\\udc00"


@pytest.fixture(scope="module")
def six_audit():
    """The audit of the six published samples (findings of several checks, details of every shape)."""
    from published_samples import FIXTURES

    from viewer.core.audit import run_audit
    from viewer.render.audit_images import SceneImages
    from viewer.render.visibility import SceneVisibility
    session = open_session(FIXTURES, [])
    report = run_audit(session.release, session.results, workers=1, visibility=SceneVisibility, images=SceneImages)
    assert len(report.findings) >= 3
    return report


@pytest.mark.parametrize("per_block", [1, 2, 1024])
def test_audit_json_in_blocks_is_the_whole_document(six_audit, per_block):
    whole = json.dumps(six_audit.to_json(), indent=1, ensure_ascii=False, allow_nan=False)
    blocks = list(six_audit.json_blocks(per_block))
    assert "".join(blocks) == whole
    findings = len(six_audit.listed())
    assert len(blocks) == 3 + -(-findings // per_block)         # head, the blocks of findings, tail, summary


def test_audit_json_of_no_findings(six_audit):
    from viewer.core.audit.types import AuditReport
    empty = AuditReport([], six_audit.tally, six_audit.checks)
    assert "".join(empty.json_blocks()) == json.dumps(empty.to_json(), indent=1, ensure_ascii=False)


def test_audit_cli_json_is_the_whole_document_on_the_demo(demo_predictions, capsys):
    from viewer.core.audit import run_audit
    from viewer.render.audit_images import SceneImages
    from viewer.render.visibility import SceneVisibility
    assert main(["audit", str(DEMO), "-p", *map(str, demo_predictions), "--json", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    session = open_session(DEMO, demo_predictions)
    report = run_audit(session.release, session.results, workers=1, visibility=SceneVisibility, images=SceneImages)
    assert out == json.dumps(report.to_json(), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    assert json.loads(out)["findings"]


def test_a_session_scores_each_file_before_reading_the_next(demo_predictions, monkeypatch):
    """22 models x 200,000 answers held at once cost a gigabyte: each file's answers go once it is scored."""
    import gc
    import weakref

    from viewer.core import session as session_module
    read, alive_at_each_read = [], []
    load = session_module.load_predictions

    def loading(path):
        gc.collect()
        alive_at_each_read.append(sum(ref() is not None for ref in read))
        sets = load(path)
        read.extend(weakref.ref(s) for s in sets)
        return sets
    monkeypatch.setattr(session_module, "load_predictions", loading)
    session = open_session(DEMO, demo_predictions)
    assert len(session.results) == len(demo_predictions)
    assert alive_at_each_read == [0] * len(demo_predictions)


def test_scoring_as_read_gives_what_reading_all_first_gives(demo_predictions, tmp_path, monkeypatch):
    """Same models, names, results and diagnostics, in the same order, whether the files are scored as
    read (a benchmark that does not merge files) or all read first: duplicates renamed, an unreadable
    file and one that matches nothing said where they were."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("garbage{\n")
    stranger = tmp_path / "stranger.jsonl"
    stranger.write_text(json.dumps({"uid": "no-such-question", "prediction": "1"}) + "\n")
    files = [demo_predictions[0], bad, stranger, *demo_predictions, demo_predictions[0]]
    streamed = open_session(DEMO, files)
    monkeypatch.setattr(type(streamed.release.benchmark), "merges_predictions", True)
    whole = open_session(DEMO, files)
    assert [r.model for r in streamed.results] == [r.model for r in whole.results]
    assert [r.model for r in streamed.results][-1].endswith("(3)")
    assert [str(d) for d in streamed.diagnostics] == [str(d) for d in whole.diagnostics]
    assert streamed.leaderboard() == whole.leaderboard()
    assert any(d.code == "prediction.no_match" for d in streamed.diagnostics)
    assert any(d.code == "prediction.unreadable" for d in streamed.diagnostics)
