"""Multiple choice: an option letter, stored as its 0-based index."""
from __future__ import annotations

import numpy as np

from ..answers import STRICT, parse_choice, parse_choices_many
from ..scoring import random_choice_score, score_choice
from .base import WIDTH, AnswerKind, register


class ChoiceKind(AnswerKind):
    name = "choice"
    truth_symbol = "truth-star"
    convention = "one option letter"
    path_gives_nothing_away = True
    picks_an_option = True
    hit_or_miss = True
    truths_in_bulk = True              # no domain: parse_many reads as parse() does

    def parse(self, raw, n_options: int = 4, profile: str = STRICT):
        return parse_choice(raw, n_options, profile)

    def parse_many(self, raws, n_options, cache, profile: str = STRICT):
        values, statuses = parse_choices_many(raws, n_options, cache, profile)
        out = np.full((len(raws), WIDTH), np.nan)
        out[:, 0] = values
        return out, statuses

    def unpack(self, row):
        v = float(row[0])
        return None if np.isnan(v) else int(v)

    def score(self, pred, truth):
        return score_choice(pred[:, 0], truth[:, 0])

    def chance(self, truth, n_options) -> float:
        return float(np.mean([random_choice_score(int(k)) for k in n_options]))

    def format(self, value) -> str:
        return chr(ord("A") + int(value))

    def text(self, value) -> str:
        return self.format(value)

    def json_value(self, value):
        return None if value is None else self.format(value)

    def error_text(self, error: float) -> str:
        return "right" if error == 0 else "wrong"


CHOICE = register(ChoiceKind())
