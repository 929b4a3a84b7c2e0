"""Simulated models for `make-demo --settings`, each built with one of the behaviours of the paper's Table 2.

- integration-limited: locates a target it sees, not one it must place from
  the video: in the local settings as precise as noisy-expert, globally
  uniform guesses (global-structure questions at chance).
- perception-limited: poor everywhere: angles off by N(0, 95°), distances by
  a factor 1 ± 90 %, map points off by N(0, 330) units; choices at chance.
- easier-is-worse: moderate globally (angles N(0, 22°), distances ± 20 %,
  points N(0, 80)); given the view, it answers about what the view shows and
  its local answers are uniform guesses. It gets worse as the task gets easier.

`tests/test_settings.py` checks that Table 2 gives each the verdict it was
built for. Their answers are written only with --settings, so the bundled
demo (generated without) keeps its three models.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from viewer.core.settings_table import GLOBAL

from ..core.benchmarks.gst.columns import column_for_task
from .models import _ANGLE_STYLES, _CHOICE_STYLES, _DISTANCE_STYLES, _POINT_STYLES, _style, _wrap

PROFILES = {
    "integration-limited": "expert precision when the target is in view (Local-Video, Local-Image); uniform "
                           "guesses globally",
    "perception-limited": "poor everywhere: angles N(0, 95 deg), distances x(1 +- 90 %), points N(0, 330)",
    "easier-is-worse": "moderate globally (angles N(0, 22 deg), distances x(1 +- 20 %), points N(0, 80)); uniform "
                       "guesses when given the view",
}


@dataclass(frozen=True)
class Noise:
    """How far an answer strays from the truth; None: a uniform guess."""
    angle: float | None
    distance: float | None
    point: float | None
    choices_right: float | None


UNIFORM = Noise(None, None, None, None)
EXPERT = Noise(12.0, 0.12, 45.0, 0.85)
BEHAVIOUR = {
    "integration-limited": {GLOBAL: UNIFORM, "local": EXPERT},
    "perception-limited": {GLOBAL: Noise(95.0, 0.9, 330.0, None), "local": Noise(95.0, 0.9, 330.0, None)},
    "easier-is-worse": {GLOBAL: Noise(22.0, 0.2, 80.0, 0.5), "local": UNIFORM},
}


def answer(model: str, record: dict, rng: np.random.Generator) -> str:
    """The raw text `model` answers to one question record (global or local variant)."""
    noise = BEHAVIOUR[model][GLOBAL if record.get("setting", GLOBAL) == GLOBAL else "local"]
    column = column_for_task(record["task"])
    n_options = len(record.get("images") or []) or 4
    truth = column.kind.parse_truth(record["answer"], n_options).value
    kind = column.kind_name
    if kind == "angle":
        v = rng.uniform(-180, 180) if noise.angle is None else _wrap(truth + rng.normal(0, noise.angle))
        return _style(rng, _ANGLE_STYLES).format(v=int(round(v)))
    if kind == "distance":
        v = (rng.uniform(0.5, 12) if noise.distance is None
             else truth * max(0.1, 1 + rng.normal(0, noise.distance)))
        return _style(rng, _DISTANCE_STYLES).format(v=v)
    if kind == "point":
        xy = rng.uniform(0, 999, 2) if noise.point is None else np.asarray(truth, float) + rng.normal(0, noise.point, 2)
        x, y = (int(np.clip(round(c), 0, 999)) for c in xy)
        return _style(rng, _POINT_STYLES).format(x=x, y=y)
    right = 1 / n_options if noise.choices_right is None else noise.choices_right
    letter = int(truth) if rng.random() < right else int(rng.choice([k for k in range(n_options) if k != truth]))
    return _style(rng, _CHOICE_STYLES).format(L="ABCD"[letter])


def predictions(model: str, records: list[dict], seed: int) -> list[dict]:
    """One {"uid", "model", "prediction"} per question, reproducible from the seed."""
    rng = np.random.default_rng([seed, 7100 + sorted(PROFILES).index(model)])
    return [{"uid": r["uid"], "model": model, "prediction": answer(model, r, rng)} for r in records]
