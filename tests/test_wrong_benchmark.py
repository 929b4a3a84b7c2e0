"""A prediction file for another benchmark gets no row, one message saying what it looks like, and exit 1
(issue 25, point 2). A match by position is taken only where the file's own question texts agree.

The VLMEvalKit table is our own, in VLMEvalKit's result layout (the dataset's TSV columns `index`,
`question`, the options, `answer`, `category`, with the model's `prediction` added); the lmms-eval log is
in lmms-eval's sample-log layout (`doc_id`, `doc`, `resps`, `filtered_resps`)."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from viewer.assets import default_release
from viewer.core.session import open_session

DATA = Path(__file__).parent / "data"
VSI_RELEASE = DATA / "vsi-gemini" / "scannet_questions"
VSI_RESPONSES = DATA / "vsi-gemini" / "gemini_response" / "scene0222_01_gemini_response.json"
DEMO = default_release()
DEMO_PREDICTIONS = DEMO / "predictions" / "noisy-expert.jsonl"


def _cv_bench_table(path: Path, rows: int = 1200) -> Path:
    """A VLMEvalKit result table of another benchmark (CV-Bench-3D-like questions), indexed 0..rows-1."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["index", "question", "A", "B", "answer", "category", "prediction"])
        for k in range(rows):
            w.writerow([k, f"Which object is closer to the camera taking this photo, the lamp ({k}) or the sofa?",
                        "lamp", "sofa", "A", "Depth", "A"])
    return path


def _lmms_log(path: Path, n: int = 50) -> Path:
    path.write_text("".join(json.dumps({"doc_id": k, "doc": {"question": f"What is {k} + {k}?", "answer": str(2 * k)},
                                        "target": str(2 * k), "resps": [[str(2 * k)]],
                                        "filtered_resps": [str(2 * k)]}) + "\n" for k in range(n)))
    return path


def _score(release, *preds, json_out=False):
    args = [sys.executable, "-m", "viewer", "score", str(release), *map(str, preds)] + (["--json"] if json_out else [])
    return subprocess.run(args, capture_output=True, text=True, timeout=180)


CASES = {
    "vsi responses on a gst release": (DEMO, lambda tmp: VSI_RESPONSES,
                                       "a VSI-Bench prediction file (VSI-Bench per-scene responses); "
                                       "this release is GST-Bench"),
    "gst predictions on a vsi release": (VSI_RELEASE, lambda tmp: DEMO_PREDICTIONS,
                                         "none of which matches a question of this VSI-Bench release"),
    "another benchmark's vlmevalkit table": (DEMO, lambda tmp: _cv_bench_table(tmp / "CV-Bench-3D.tsv"),
                                             "a VLMEvalKit table (TSV/CSV) of 1200 rows whose questions match "
                                             "none of this release's prompts"),
    "the same table on a vsi release": (VSI_RELEASE, lambda tmp: _cv_bench_table(tmp / "CV-Bench-3D.tsv"),
                                        "whose questions match none of this release's prompts"),
    "an lmms-eval log of another task": (DEMO, lambda tmp: _lmms_log(tmp / "samples_gsm8k.jsonl"),
                                         "lmms-eval sample log"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_file_of_another_benchmark_gets_no_row_one_message_and_exit_1(tmp_path, case):
    release, make, said = CASES[case]
    preds = make(tmp_path)
    p = _score(release, preds)
    assert p.returncode == 1, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if preds.name in ln]
    assert len(lines) == 1 and said in lines[0] and "left out" in lines[0], p.stderr
    assert "\x1f" not in p.stderr
    assert preds.stem not in p.stdout                      # no row in the table


def test_json_and_the_session_leave_the_file_out(tmp_path):
    table = _cv_bench_table(tmp_path / "CV-Bench-3D.tsv")
    p = _score(DEMO, DEMO_PREDICTIONS, table, json_out=True)
    assert p.returncode == 1
    board = json.loads(p.stdout)
    assert list(board["models"]) == ["noisy-expert"]
    said = [w for w in board["warnings"] if w["code"] == "prediction.no_match"]
    assert len(said) == 1 and "CV-Bench-3D.tsv" in said[0]["message"]
    session = open_session(DEMO, [table])
    assert session.results == [] and len(session.diagnostics.with_code("prediction.no_match")) == 1


def test_a_table_matched_by_position_is_taken_where_its_questions_agree(tmp_path):
    session = open_session(DEMO, [])
    questions = session.release.questions
    f = tmp_path / "positional.tsv"
    with open(f, "w", newline="") as out:
        w = csv.writer(out, delimiter="\t")
        w.writerow(["index", "question", "prediction"])
        for k, q in enumerate(questions):
            w.writerow([k, q.texts[-1], q.answer_raw])
    s = open_session(DEMO, [f])
    assert s.leaderboard()["models"]["positional"]["avg"] == pytest.approx(100)
    assert s.diagnostics.with_code("prediction.matched_by_position")
    # the same rows shifted by one: every question is another's, so nothing is matched by position
    with open(f, "w", newline="") as out:
        w = csv.writer(out, delimiter="\t")
        w.writerow(["index", "question", "prediction"])
        for k, q in enumerate(questions):
            w.writerow([(k + 1) % len(questions), q.texts[-1], q.answer_raw])
    s = open_session(DEMO, [f])
    assert s.results == []
    (d,) = s.diagnostics.with_code("prediction.no_match")
    assert "ask another question than the release's at that position" in d.message


def test_rows_that_disagree_in_a_file_matched_by_position_are_said(tmp_path):
    session = open_session(DEMO, [])
    questions = session.release.questions
    f = tmp_path / "mostly.tsv"
    with open(f, "w", newline="") as out:
        w = csv.writer(out, delimiter="\t")
        w.writerow(["index", "question", "prediction"])
        for k, q in enumerate(questions):
            w.writerow([k, "What colour is the sky?" if k == 3 else q.texts[-1], q.answer_raw])
    s = open_session(DEMO, [f])
    assert s.models == ["mostly"]
    (d,) = s.diagnostics.with_code("prediction.position_disagrees")
    assert "1 of the 84 rows" in d.message and "rows 3" in d.message
