"""A session holds each distinct short answer once across its models (core/evaluate.py): the same texts,
statuses and scores as models scored apart, with the repeated strings shared rather than copied."""
import json

import numpy as np

from viewer.core.evaluate import SHARED_TEXT_LENGTH
from viewer.core.session import open_session


def test_models_share_their_short_answer_texts(tmp_path):
    qs = [{"task": "Global_Structure_Understanding_Topdown_Selection_Easy", "uid": f"scene1_q{i}",
           "scene": "scene_1", "answer": "ABCD"[i % 4], "texts": ["q"]} for i in range(40)]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in qs) + "\n")
    long = "Let me think. " * 10 + "The answer is B."
    assert len(long) > SHARED_TEXT_LENGTH
    paths = []
    for m in range(3):
        p = tmp_path / f"m{m}.jsonl"
        rows = [{"uid": q["uid"], "prediction": ["A", "B", "(C)", long, 3][(i + m) % 5]}
                for i, q in enumerate(qs) if (i + m) % 9]                  # some missing
        p.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        paths.append(p)
    together = open_session(tmp_path, paths)
    apart = [open_session(tmp_path, [p]).results[0] for p in paths]
    for r, alone in zip(together.results, apart):
        assert r.raw.tolist() == alone.raw.tolist()
        assert r.status.tolist() == alone.status.tolist()
        assert np.array_equal(r.score, alone.score, equal_nan=True)
    held = [x for r in together.results for x in r.raw.tolist() if x is not None]
    for text in ("A", "B", "(C)"):                                      # one string each, not one per answer
        assert sum(x == text for x in held) > 10 and len({id(x) for x in held if x == text}) == 1
    assert any(x == long for x in held) and any(type(x) is int for x in held)   # long texts and numbers kept
