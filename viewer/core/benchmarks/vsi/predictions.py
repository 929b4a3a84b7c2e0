"""VSI-Bench answers given per scene, matched to questions by their text.

A per-scene response file is `{scene_name, questions: [{question, question_type, ...,
<model>_answer}]}`, as the public Gemini study writes them. Its answers carry no
question id, so they are matched to the release's questions by exact question text
within the scene (as the study's own scorer does; a text asked twice in a scene gets
the answer for both). The model is named by the `*_answer` key (`gemini_answer` gives
`gemini`), else by the file name. Files of one model covering different questions
(one per scene) merge into one model; answers given twice are reported.

The format is registered with the benchmark (`VSI.prediction_formats`). The other VSI-Bench
formats (lmms-eval `vsibench` sample logs, JSON Lines with `id` or `uid`) are core/predictions'
generic ones, matched by id.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...diagnostics import Diagnostics
from ...predictions.formats import Head, PredictionFormat, PredictionSet

ANSWER_SUFFIX = "_answer"
_SEP = "\x1f"     # between scene and question text in a key; appears in neither


@dataclass
class SceneResponses(PredictionSet):
    """Answers keyed by scene and question text until `resolve` gives them the release's uids."""
    where: dict[str, tuple[str, str]] = field(default_factory=dict)    # key -> (file, JSON path)

    def add(self, scene: str, question: str, value: Any, source: str, jpath: str) -> None:
        key = scene + _SEP + question
        if key in self.raw:
            file, prev = self.where[key]
            same = file == source
            self.diagnostics.warning(
                f"{jpath}: a second answer to the question {_short(question)!r} of {scene} (first at "
                f"{prev if same else file + ' ' + prev}); the last one wins", source,
                code="prediction.duplicate" if same else "prediction.overlap")
        self.raw[key] = value
        self.where[key] = (source, jpath)

    def merge(self, other: SceneResponses) -> None:
        for key, value in other.raw.items():
            scene, question = key.split(_SEP, 1)
            self.add(scene, question, value, *other.where[key])
        self.diagnostics.extend(other.diagnostics)

    def resolve(self, release) -> PredictionSet:
        """The same answers keyed by the release's uids; answers matching no question are reported."""
        by_text: dict[str, list[str]] = {}
        for q in release.questions:
            text = q.meta.get("question") if isinstance(q.meta, dict) else None
            if isinstance(text, str):
                by_text.setdefault(q.scene + _SEP + text, []).append(q.uid)
        out = PredictionSet(self.model, self.source, format=self.format)
        out.diagnostics.extend(self.diagnostics)
        for key, value in self.raw.items():
            uids = by_text.get(key)
            if not uids:
                scene, question = key.split(_SEP, 1)
                file, jpath = self.where[key]
                out.diagnostics.warning(f"{jpath}: no question of {scene or 'the release'} reads "
                                        f"{_short(question)!r}; answer ignored", file,
                                        code="prediction.unmatched_question")
                continue
            for uid in uids:
                out.raw[uid] = value
        return out


def is_scene_responses(doc: Any) -> bool:
    """A `{questions: [...]}` object whose items carry a question and a `*_answer`."""
    if not isinstance(doc, dict) or not isinstance(doc.get("questions"), list):
        return False
    return any(isinstance(q, dict) and "question" in q and any(_answer_keys(q)) for q in doc["questions"])


def _identify(path: Path, head: Head) -> bool:
    return is_scene_responses(head.json_document())


def _read(path: Path, head: Head, diags: Diagnostics) -> list[PredictionSet]:
    return scene_response_sets(path, head.document())


def scene_response_sets(path: Path, doc: dict) -> list[PredictionSet]:
    sets: dict[str, SceneResponses] = {}
    default_scene = doc.get("scene_name") if isinstance(doc.get("scene_name"), str) else ""
    for k, item in enumerate(doc["questions"]):
        jpath = f"questions[{k}]"
        if not isinstance(item, dict):
            continue
        question = item.get("question")
        scene = item.get("scene_name") if isinstance(item.get("scene_name"), str) else default_scene
        for key in _answer_keys(item):
            model = key[:-len(ANSWER_SUFFIX)] or _model_from_file(path)
            s = sets.get(model)
            if s is None:
                s = sets[model] = SceneResponses(model, str(path), format="scene-responses")
            if not isinstance(question, str):
                s.diagnostics.error(f"{jpath}: answer without a 'question' text", path,
                                    code="prediction.no_uid")
                continue
            s.add(scene, question, item[key], str(path), jpath)
    return list(sets.values())


def merge_scene_responses(sets: list[PredictionSet]) -> list[PredictionSet]:
    """One set per model: per-scene response files of the same model become one."""
    out: list[PredictionSet] = []
    first: dict[str, SceneResponses] = {}
    for s in sets:
        if isinstance(s, SceneResponses):
            kept = first.get(s.model)
            if kept is not None:
                kept.merge(s)
                continue
            first[s.model] = s
        out.append(s)
    return out


def _answer_keys(item: dict) -> list[str]:
    return [k for k in item if isinstance(k, str) and k.endswith(ANSWER_SUFFIX) and k != "ground_truth_answer"]


def _model_from_file(path: Path) -> str:
    stem = path.stem
    for suffix in ("_response", "_responses"):
        stem = stem.removesuffix(suffix)
    return stem


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


# Above the generic JSON shapes: a per-scene file is a JSON object its `questions` list tells apart.
SCENE_RESPONSES = PredictionFormat("VSI-Bench per-scene responses", _identify, _read, 40)
