"""`score --per-sample`: one JSON line per (model, question), typed as docs/per-sample.schema.json says,
made a block of lines at a time so that 22 models x 200,000 questions are written without being held.

A line reads {"model", "uid", "column", "kind", "ground_truth", "ground_truth_raw", "prediction",
"prediction_raw", "status", "profile", "error", "score"}: truth and prediction as their kind writes them
in JSON (numbers, [x, y], letters), the raw texts beside them; models in order, each over every
question in release order. Each value is encoded exactly as `json.dumps(line, ensure_ascii=False)`
encodes it inside the object; the question's part of the line is encoded once, not once per model.
"""
from __future__ import annotations

import json
import math
from typing import Iterator

from ..answers import scored_mask

LINES_PER_BLOCK = 4096
_encode = json.JSONEncoder(ensure_ascii=False).encode      # what json.dumps(x, ensure_ascii=False) does


def question_parts(release) -> tuple[list[str], list]:
    """Per question, the JSON of its part of the line (from "uid" to "ground_truth_raw", without braces)
    and its answer kind (None for an unknown task). Questions are built one at a time and not kept."""
    parts, kinds = [], []
    for q in release.each_question():
        kind = q.kind
        column = q.column
        truth = kind.json_value(q.truth.value) if kind and q.truth.ok else None
        parts.append(f'"uid": {_encode(q.uid)}, "column": {_encode(column.key if column else None)}, '
                     f'"kind": {_encode(kind.name if kind else None)}, "ground_truth": {_encode(truth)}, '
                     f'"ground_truth_raw": {_encode(q.answer_raw)}')
        kinds.append(kind)
    return parts, kinds


def per_sample_blocks(release, results, block: int | None = None) -> Iterator[str]:
    """The per-sample file as text blocks of up to `block` lines each (default LINES_PER_BLOCK; every
    line ends in a newline, and a model's last block may be shorter)."""
    block = block or LINES_PER_BLOCK
    parts, kinds = question_parts(release)
    for r in results:
        head = f'{{"model": {_encode(r.model)}, '
        profile = f', "profile": {_encode(r.profile)}, "error": '
        statuses = r.status.tolist()
        scored = scored_mask(statuses).tolist()
        # Python lists, not numpy rows and scalars: the same floats, read several times faster per line.
        raws, errors, scores, answers = r.raw.tolist(), r.error.tolist(), r.score.tolist(), r.answer.tolist()
        status_json = {s: f', "status": {_encode(s)}{profile}' for s in set(statuses)}
        lines: list[str] = []
        for i, part in enumerate(parts):
            kind = kinds[i]
            prediction = kind.json_value(kind.unpack(answers[i])) if kind and scored[i] else None
            lines.append(f'{head}{part}, "prediction": {_encode(prediction)}, "prediction_raw": '
                         f'{_encode(raws[i])}{status_json[statuses[i]]}'
                         f'{_number(errors[i])}, "score": {_number(scores[i])}}}\n')
            if len(lines) == block:
                yield "".join(lines)
                lines = []
        if lines:
            yield "".join(lines)


def _number(x: float) -> str:
    """A float as JSON, null when it is not finite (JSON has no NaN)."""
    return repr(float(x)) if math.isfinite(x) else "null"
