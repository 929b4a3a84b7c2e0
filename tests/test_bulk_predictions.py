"""The bulk path of a plain prediction file (core/predictions/formats.AnswersInOrder, evaluate's one list
comparison with the release's uids) gives what the per-answer path gives: the same raw answers, statuses,
values, scores, errors and messages, on the demo, the six published samples and a generated release; and a
file that is not the release's uids in order (malformed lines, NaN, missing answers, unknown ids,
duplicates) still gets every bad line's message with its file and line."""
import json
from pathlib import Path

import numpy as np
import pytest

from viewer.core.diagnostics import Diagnostics
from viewer.core.evaluate import evaluate
from viewer.core.predictions import PredictionSet, load_predictions
from viewer.core.predictions.formats import AnswersInOrder, Head
from viewer.core.predictions.json_records import read_record_lines
from viewer.core.release import load_release

SAMPLES = Path(__file__).parent / "data" / "gst-bench-page"

# Answers of every shape the parsers tell apart: bare, decorated, canonical and loose points, letters alone
# and in sentences, empty, non-finite, reasoning text, numbers and lists as JSON values.
ANSWERS = ["A", "(B)", "The answer is C", "D.", "e", "unsure", "", "  ", "-120", "\u2212153\u00b0", "35 degrees",
           "About 2.5 m", "3,5 m", "<point>412 87</point>", "<point>1, 2</point>", "<point>0.5 0.25</point>",
           "x=0.059, y=0.587", "12 34 56", "nan", "inf", "1" * 400, "<think>maybe A</think>B",
           "Answer: \\boxed{7}", "Let me think. " * 10 + "The answer is B.", 3, 2.5, [10, 20], None, True]


def _write(path: Path, rows: list) -> Path:
    path.write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in rows))
    return path


def _per_answer(release, path: Path) -> PredictionSet:
    """The file read record by record into a plain dict: the path every file took before the bulk one."""
    diags = Diagnostics()
    s = read_record_lines(path, Head(path, diags), diags)[0]
    s.diagnostics.items[:0] = diags.items
    s.raw = dict(s.raw)
    return s


def _same_result(a, b) -> None:
    assert a.raw.tolist() == b.raw.tolist()
    assert a.status.tolist() == b.status.tolist()
    for x, y in ((a.answer, b.answer), (a.score, b.score), (a.error, b.error)):
        assert np.array_equal(x, y, equal_nan=True)
    assert a.unknown_uids == b.unknown_uids
    assert [(d.level, d.code, d.message, d.line) for d in a.diagnostics] == \
           [(d.level, d.code, d.message, d.line) for d in b.diagnostics]


def _releases():
    from viewer.assets import assets_dir
    return [assets_dir() / "demo", SAMPLES]


@pytest.mark.parametrize("root", _releases(), ids=["demo", "six-samples"])
def test_bulk_path_scores_as_the_per_answer_path(root, tmp_path):
    release = load_release(root)
    for shift in range(3):
        rows = [{"uid": u, "prediction": ANSWERS[(i * 7 + shift) % len(ANSWERS)]} for i, u in enumerate(release.uids)]
        path = _write(tmp_path / f"m{shift}.jsonl", rows)
        (bulk,) = load_predictions(path)
        assert type(bulk.raw) is AnswersInOrder and list(bulk.raw) == release.uids     # the bulk path is taken
        assert dict(bulk.raw) == _per_answer(release, path).raw
        _same_result(evaluate(release, bulk, {}), evaluate(release, _per_answer(release, path)))


def test_bulk_path_on_the_demos_own_answers(tmp_path):
    from viewer.assets import assets_dir
    demo = assets_dir() / "demo"
    release = load_release(demo)
    cache = {}
    for p in sorted((demo / "predictions").glob("*.jsonl")):
        answers = load_predictions(p)[0].raw
        path = _write(tmp_path / p.name, [{"uid": u, "prediction": answers[u]} for u in release.uids])
        (bulk,) = load_predictions(path)
        assert type(bulk.raw) is AnswersInOrder
        _same_result(evaluate(release, bulk, cache), evaluate(release, load_predictions(p)[0]))


@pytest.fixture
def generated(tmp_path) -> Path:
    from viewer.core.benchmarks.gst.columns import COLUMNS
    qs = []
    for i in range(120):
        c = COLUMNS[i % len(COLUMNS)]
        answer = {"angle": "-35", "distance": 2.5, "point": "<point>500 400</point>"}.get(c.kind_name, "B")
        qs.append({"task": c.task, "uid": f"scene{i % 3}_q{i}", "scene": f"scene_{i % 3}", "answer": answer,
                   "texts": ["q"]})
    root = tmp_path / "release"
    root.mkdir()
    _write(root / "questions.jsonl", qs)
    return root


def test_generated_release_in_order_and_out_of_order(generated, tmp_path):
    release = load_release(generated)
    rows = [{"uid": u, "prediction": ANSWERS[i % len(ANSWERS)]} for i, u in enumerate(release.uids)]
    cache = {}
    path = _write(tmp_path / "in_order.jsonl", rows)
    in_order = load_predictions(path)[0]
    assert type(in_order.raw) is AnswersInOrder
    _same_result(evaluate(release, in_order, cache), evaluate(release, _per_answer(release, path)))
    # Missing answers, unknown ids and another order: each uid once, but not the release's list.
    shuffled = rows[::-1][5:] + [{"uid": "no_such_question", "prediction": "A"}]
    path = _write(tmp_path / "shuffled.jsonl", shuffled)
    s = load_predictions(path)[0]
    assert type(s.raw) is AnswersInOrder and list(s.raw) != release.uids
    r = evaluate(release, s, cache)
    _same_result(r, evaluate(release, _per_answer(release, path)))
    assert r.unknown_uids == ["no_such_question"] and (r.status == "missing").sum() == 5
    assert {d.code for d in r.diagnostics} >= {"prediction.unknown_uid", "prediction.missing"}


def test_bad_lines_keep_their_messages(generated, tmp_path):
    release = load_release(generated)
    good = [json.dumps({"uid": u, "prediction": "A"}) + "\n" for u in release.uids]
    bad = {3: '{"uid": "%s", "prediction": \n' % release.uids[3],          # malformed, cut
           10: '{"uid": "%s", "prediction": NaN}\n' % release.uids[10],     # NaN: not JSON, read by json
           20: "not json at all\n",
           30: '{"uid": "%s", "prediction": "A"} {"x": 1}\n' % release.uids[30],   # two values on a line
           40: '{"uid": "%s", "prediction": 1%s}\n' % (release.uids[40], "0" * 5000)}   # a huge integer
    lines = [bad.get(i, line) for i, line in enumerate(good)]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines))
    s = load_predictions(path)[0]
    errors = {d.line for d in s.diagnostics if d.level == "error"}
    assert errors == {3 + 1, 20 + 1, 30 + 1, 40 + 1}                 # each bad line, by its number
    assert all(d.file == str(path) or Path(d.file) == path for d in s.diagnostics if d.level == "error")
    r = evaluate(release, s, {})
    _same_result(r, evaluate(release, _per_answer(release, path)))
    assert r.raw[10] != r.raw[10] and r.status[3] == r.status[20] == "missing"      # NaN read as a float


def test_duplicates_are_read_as_a_dict_and_said(generated, tmp_path):
    release = load_release(generated)
    rows = [{"uid": u, "prediction": "A"} for u in release.uids] + [{"uid": release.uids[2], "prediction": "C"}]
    path = _write(tmp_path / "dup.jsonl", rows)
    s = load_predictions(path)[0]
    assert type(s.raw) is dict and s.raw[release.uids[2]] == "C"
    (w,) = s.diagnostics.with_code("prediction.duplicate")
    assert w.line == len(rows) and "line 3" in w.message
    _same_result(evaluate(release, s, {}), evaluate(release, _per_answer(release, path)))
