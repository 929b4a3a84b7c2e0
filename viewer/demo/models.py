"""Simulated models: raw-text answers with distinct, documented failure profiles.

Each model answers every question as a VLM would, in free text ("I think
it is about -120°", "Answer: C", "<point>450 780</point>"), and a few of its
answers cannot be parsed at all. What each profile gets right and wrong is
what the leaderboard must show:

- noisy-expert: knows the scene; angles off by N(0, 12°), distances by a
  factor around 1 (12 % spread), map points off by N(0, 45) units per axis,
  85 % of choices right.
- sign-flipper: as precise as the expert but confuses left and right: every
  angle comes back with its sign flipped and map points mirrored left-right
  (x -> 999 - x); distances are as good as the expert's; 60 % of choices right.
  It scores well on EDist, poorly on ED, Ori, GP and Pos.
- random-guesser: uniform answers (angles in [-180, 180], distances in
  [0.5, 12] m, points in [0, 999]^2, letters A-D); chance level everywhere.
"""
from __future__ import annotations

import numpy as np

from ..core.benchmarks.gst.columns import column_for_task

PROFILES = {
    "noisy-expert": ("angles N(0, 12 deg), distances x(1 +- 12 %), points N(0, 45), 85 % of choices right; "
                     "2 % unparseable"),
    "sign-flipper": "expert precision but left/right confused: angle signs flipped, points mirrored left-right; "
                    "60 % of choices right; 3 % unparseable",
    "random-guesser": "uniform answers; 5 % unparseable",
}
UNPARSEABLE_RATE = {"noisy-expert": 0.02, "sign-flipper": 0.03, "random-guesser": 0.05}

_ANGLE_STYLES = ("{v}", "{v}°", "I think it is about {v}°", "The object is at roughly {v} degrees.", "Answer: {v}")
_DISTANCE_STYLES = ("{v:.1f}", "About {v:.1f} m", "{v:.1f} meters", "Approximately {v:.1f}")
_POINT_STYLES = ("<point>{x} {y}</point>", "The location is <point>{x} {y}</point>.", "({x}, {y})")
_CHOICE_STYLES = ("{L}", "Answer: {L}", "The answer is {L}.", "({L})")
_REFUSALS = {
    "angle": ("It is somewhere to my left, behind the sofa.", "Hard to say from this view."),
    "distance": ("Quite far away.", "Not sure, the object is out of view."),
    "point": ("Near the kitchen, close to the wall.", "Somewhere in the middle of the apartment."),
    "choice": ("Cannot determine from the video.", "None of them match the video."),
}


def _wrap(a: float) -> float:
    return (a + 180.0) % 360.0 - 180.0


def _style(rng: np.random.Generator, styles) -> str:
    return styles[int(rng.integers(len(styles)))]


def answer(model: str, record: dict, rng: np.random.Generator) -> str:
    """The raw text `model` answers to one question record."""
    column = column_for_task(record["task"])
    at = column.kind_name
    n_options = len(record["images"]) or 4
    if rng.random() < UNPARSEABLE_RATE[model]:
        return _style(rng, _REFUSALS[at])
    truth = column.kind.parse_truth(record["answer"], n_options).value
    expert, flipper = model == "noisy-expert", model == "sign-flipper"
    if at == "angle":
        if expert or flipper:
            v = _wrap(truth + rng.normal(0, 12))
            v = -v if flipper else v
        else:
            v = rng.uniform(-180, 180)
        return _style(rng, _ANGLE_STYLES).format(v=int(round(v)))
    if at == "distance":
        v = truth * max(0.2, 1 + rng.normal(0, 0.12)) if (expert or flipper) else rng.uniform(0.5, 12)
        return _style(rng, _DISTANCE_STYLES).format(v=v)
    if at == "point":
        if expert or flipper:
            x, y = np.asarray(truth, float) + rng.normal(0, 45, 2)
            x = 999 - x if flipper else x
        else:
            x, y = rng.uniform(0, 999, 2)
        x, y = (int(np.clip(round(c), 0, 999)) for c in (x, y))
        return _style(rng, _POINT_STYLES).format(x=x, y=y)
    right = {"noisy-expert": 0.85, "sign-flipper": 0.60}.get(model, 1 / n_options)
    if rng.random() < right:
        letter = int(truth)
    else:
        letter = int(rng.choice([k for k in range(n_options) if k != truth]))
    return _style(rng, _CHOICE_STYLES).format(L="ABCD"[letter])


def predictions(model: str, records: list[dict], seed: int) -> list[dict]:
    """One {"uid", "model", "prediction"} per question, reproducible from the seed."""
    rng = np.random.default_rng([seed, 7000 + sorted(PROFILES).index(model)])
    return [{"uid": r["uid"], "model": model, "prediction": answer(model, r, rng)} for r in records]
