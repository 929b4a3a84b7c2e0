"""models_disagree_with_gt, model_answer_convention: the audit checks that read the models' answers.

`models_disagree_with_gt`: when several capable models give the same answer
and all of them miss the stored truth, the truth is the suspect. Only models
that score clearly above chance overall count as witnesses: a random
guesser agreeing with anything is no evidence, and a model whose answers
are systematically mirrored is caught by the convention check instead.

`model_answer_convention`: a model whose answers cluster near a transformed
truth (the mirror -g, the opposite direction, radians, the map mirrored,
feet) most likely uses another convention than the prompt asks for.
"""
from __future__ import annotations

import numpy as np

from ...answers import OK
from ...evaluate import ModelResult, average, column_means, random_baseline
from ...kinds import get_kind
from ...release import Release
from ...scoring import ANGLE_TOLERANCES, POINT_THRESHOLDS
from ..auditors import ReleaseAuditor
from ..registry import Check
from ..types import ALL_COLUMNS, Finding, Tally, json_safe

# A model is a witness when its Table-1 average beats chance by this many points.
COMPETENCE_MARGIN = 10.0
# Models agree when within the tightest scoring threshold of each other, and
# miss when outside the middle one (distance: relative error).
AGREE = {"angle": float(ANGLE_TOLERANCES[0]), "distance": 0.10,
         "point": float(POINT_THRESHOLDS[0]), "choice": 0.0}
MISS = {"angle": float(ANGLE_TOLERANCES[1]), "distance": 0.25,
        "point": float(POINT_THRESHOLDS[2]), "choice": 0.5}
# Two wrong models pick the same wrong letter by chance one time in three;
# three doing so is rare enough to mean something.
MIN_AGREEING = {"angle": 2, "distance": 2, "point": 2, "choice": 3}


def competent_models(release: Release, results: list[ModelResult]) -> list[int]:
    chance = average(random_baseline(release))
    if chance is None:
        return []
    out = []
    for m, r in enumerate(results):
        avg = average(column_means(release, r.score))
        if avg is not None and avg >= chance + COMPETENCE_MARGIN:
            out.append(m)
    return out


def _answers(r: ModelResult, i: int, at: str):
    if r.status[i] != OK:
        return None
    return _as_kind(r.answer[i], at)


def _as_kind(rows: np.ndarray, at: str) -> np.ndarray:
    """Stored answer rows as the kind's values: points keep both numbers, the others the first."""
    return rows if get_kind(at).width == 2 else rows[..., 0]


def _gap(a, b, at: str) -> float:
    if at == "angle":
        return abs((a - b + 180.0) % 360.0 - 180.0)
    if at == "distance":
        return abs(a - b) / max(abs(a), abs(b), 1e-9)
    if at == "point":
        return float(np.hypot(*(np.asarray(a) - np.asarray(b))))
    return 0.0 if a == b else 1.0


def _largest_agreeing(values: list, at: str) -> list[int]:
    """Indices of the largest group whose members are pairwise within AGREE."""
    tol = AGREE[at]
    best: list[int] = []
    for c in range(len(values)):
        group = [j for j in range(len(values)) if _gap(values[c], values[j], at) <= tol]
        if all(_gap(values[a], values[b], at) <= tol for a in group for b in group) and len(group) > len(best):
            best = group
    return best


def _consensus(values: list, at: str):
    if at == "angle":
        rad = np.radians(values)
        return float(np.degrees(np.arctan2(np.sin(rad).mean(), np.cos(rad).mean())))
    if at == "point":
        return np.median(np.asarray(values, float), axis=0)
    if at == "choice":
        return "ABCDEFGH"[int(values[0])]
    return float(np.median(values))


def _shown(v, at: str):
    if at == "choice" and not isinstance(v, str):
        return "ABCDEFGH"[int(v)]
    return v


def models_disagree(release: Release, results: list[ModelResult], tally: Tally) -> list[Finding]:
    check = "models_disagree_with_gt"
    # A pass that keeps no question it builds (the audit has built them; a release may be 200,000).
    questions = ((i, q) for i, q in enumerate(release.each_question()) if q.column is not None and q.truth.ok)
    if len(results) < 2:
        reason = "no predictions loaded" if not results else "needs predictions from at least 2 models"
        for _ in questions:
            tally.skip(check, reason)
        return []
    witnesses = competent_models(release, results)
    out = []
    for i, q in questions:
        at = q.column.kind_name
        need = MIN_AGREEING[at]
        answered = [(m, _answers(results[m], i, at)) for m in witnesses]
        answered = [(m, v) for m, v in answered if v is not None]
        if len(answered) < need:
            tally.skip(check, f"fewer than {need} models scoring clearly above chance answered")
            continue
        group = _largest_agreeing([v for _, v in answered], at)
        members = [answered[k] for k in group]
        missing = all(results[m].error[i] > MISS[at] for m, _ in members)
        if len(members) < need or 2 * len(members) < len(answered) or not missing:
            tally.passed(check)
            continue
        tally.flag(check)
        names = [results[m].model for m, _ in members]
        consensus = _consensus([v for _, v in members], at)
        truth = q.truth.value
        out.append(Finding(q.uid, check, "warning",
                           f"{len(members)} models ({', '.join(names)}) agree on {_fmt(consensus, at)} "
                           f"and all miss the stored {_fmt(_shown(truth, at), at)}",
                           json_safe({"models": names, "answers": [_shown(v, at) for _, v in members],
                                      "consensus": consensus, "truth": _shown(truth, at),
                                      "errors": [results[m].error[i] for m, _ in members],
                                      "witnesses": len(answered), "agree_within": AGREE[at],
                                      "miss_beyond": MISS[at]})))
    return out


def _fmt(v, at: str) -> str:
    if at == "choice":
        return str(_shown(v, at))
    if at == "distance":
        return get_kind(at).text(float(v))
    # Consensus values are means: whole degrees and units read better.
    return get_kind(at).text(np.round(np.asarray(v, float)) if at == "point" else round(float(v)))


# ------------------------------------------------------------ conventions
def _angle_candidates(pred: np.ndarray, truth: np.ndarray) -> list[tuple[str, str, np.ndarray, np.ndarray]]:
    """(name, explanation, gap of each answer to the transformed truth, how far the transform
    moves the truth from where a correct answer lies), in degrees."""
    gap = lambda a, b: np.abs((a - b + 180.0) % 360.0 - 180.0)           # noqa: E731
    return [
        ("mirror", "the mirror of the truth (-g): it likely takes clockwise as positive (left and right "
                   "swapped)", gap(pred, -truth), gap(-truth, truth)),
        ("opposite", "the opposite direction (g + 180°): it likely measures from behind the camera "
                     "(OpenCV +z vs OpenGL -z forward)", gap(pred, truth + 180.0), np.full(len(truth), 180.0)),
        ("mirror_opposite", "180° - g: clockwise and from behind at once",
         gap(pred, 180.0 - truth), gap(180.0 - truth, truth)),
        ("radians", "the truth in radians: it likely answers in radians",
         gap(np.degrees(pred), truth), gap(np.radians(truth), truth)),
    ]


def _point_transforms():
    return [
        ("mirror_x", "the truth mirrored left-right (999 - x): x likely measured from the right",
         lambda g: np.stack([999.0 - g[:, 0], g[:, 1]], 1)),
        ("mirror_y", "the truth mirrored top-bottom (999 - y): y likely measured upwards",
         lambda g: np.stack([g[:, 0], 999.0 - g[:, 1]], 1)),
        ("swap_xy", "the truth with x and y swapped: it likely answers (row, column)", lambda g: g[:, ::-1]),
        ("rotate_180", "the truth rotated 180° (999 - x, 999 - y)", lambda g: 999.0 - g),
    ]


MODEL_MIN_INFORMATIVE = 5        # questions where the transform moves the truth far enough to tell
MODEL_MIN_SHARE = 0.5


def model_conventions(release: Release, results: list[ModelResult], tally: Tally) -> list[Finding]:
    check = "model_answer_convention"
    if not results:
        tally.skip(check, "no predictions loaded")
        return []
    out = []
    columns = release.benchmark.columns
    kinds = {c: k for k, c in enumerate(columns)}
    for r in results:
        for at in ("angle", "point", "distance"):
            cols = [kinds[c] for c in columns if c.kind_name == at]
            m = np.isin(release.column, cols) & (r.status == OK)
            truth, pred = _as_kind(release.truth[m], at), _as_kind(r.answer[m], at)
            missing = np.isnan(truth)
            ok = ~(missing.any(axis=1) if missing.ndim == 2 else missing)   # a model may have no answer of a kind
            truth, pred = truth[ok], pred[ok]
            if not len(truth):
                continue
            f = _model_convention(r.model, at, pred, truth)
            if f is None:
                tally.passed(check) if len(truth) >= MODEL_MIN_INFORMATIVE else \
                    tally.skip(check, f"fewer than {MODEL_MIN_INFORMATIVE} parsed answers of one type")
            else:
                tally.flag(check)
                out.append(f)
    return out


def _model_convention(model: str, at: str, pred: np.ndarray, truth: np.ndarray) -> Finding | None:
    best = None
    if at == "angle":
        tol = float(ANGLE_TOLERANCES[0])
        candidates = _angle_candidates(pred, truth)
        unit = "angle"
    elif at == "point":
        tol = float(POINT_THRESHOLDS[0])
        gap = lambda a, b: np.hypot(*(a - b).T)                              # noqa: E731
        candidates = [(name, text, gap(pred, t_(truth)), gap(t_(truth), truth))
                      for name, text, t_ in _point_transforms()]
        unit = "map point"
    else:
        tol = 0.25
        rel = lambda a, b: np.abs(a - b) / np.maximum(np.abs(b), 1e-9)      # noqa: E731
        candidates = [(name, text, rel(pred, truth * k), np.full(len(truth), np.inf))
                      for name, text, k in (("feet", "the truth in feet: it likely answers in feet", 3.2808),
                                            ("centimetres", "the truth in centimetres", 100.0))]
        unit = "distance"
    identity_gap = (np.abs((pred - truth + 180.0) % 360.0 - 180.0) if at == "angle" else
                    np.hypot(*(pred - truth).T) if at == "point" else
                    np.abs(pred - truth) / np.maximum(np.abs(truth), 1e-9))
    for name, text, gap_t, moved in candidates:
        informative = moved > 2 * tol                      # the transform moves the truth out of reach
        n = int(informative.sum())
        if n < MODEL_MIN_INFORMATIVE:
            continue
        near = int((gap_t[informative] <= tol).sum())
        near_truth = int((identity_gap[informative] <= tol).sum())
        if near >= MODEL_MIN_SHARE * n and near > 2 * near_truth and (best is None or near / n > best[3] / best[4]):
            best = (name, text, near_truth, near, n)
    if best is None:
        return None
    name, text, near_truth, near, n = best
    return Finding(None, "model_answer_convention", "info",
                   f"{model}: {near} of {n} {unit} answers lie near {text}",
                   {"model": model, "answer_type": at, "convention": name, "matched": near,
                    "informative": n, "near_truth": near_truth, "tolerance": tol})


class ModelsDisagreeWithGt(Check):
    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        return models_disagree(audit.release, audit.results, audit.tally)


class ModelAnswerConvention(Check):
    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        return model_conventions(audit.release, audit.results, audit.tally)


MODELS_DISAGREE_WITH_GT = ModelsDisagreeWithGt("models_disagree_with_gt", "warning",
                                               "several models agree on another answer", ALL_COLUMNS)
# Counted once per model and answer type, not per question.
MODEL_ANSWER_CONVENTION = ModelAnswerConvention("model_answer_convention", "info",
                                                "a model's answers follow another convention", ALL_COLUMNS,
                                                per_question=False)
