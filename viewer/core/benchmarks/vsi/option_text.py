"""Multiple choice with text options, read as VSI-Bench's upstream scorer reads it.

lmms-eval's `vsibench` (and thinking-in-space) take the text up to the first
space, strip trailing dots, then surrounding whitespace, and compare it with
the ground-truth letter case-insensitively. "B. fan" picks B; "(B)" or
"Answer: B" pick nothing, exactly as upstream scores them 0. The answer is
stored as its 0-based option index.
"""
from __future__ import annotations

import numpy as np

from ...answers import EMPTY, LETTER_OUT_OF_RANGE, NO_LETTER, OK, OUT_OF_RANGE, STRICT, Parsed
from ...kinds.base import WIDTH, register
from ...kinds.choice import ChoiceKind


def first_token(raw) -> str:
    """Upstream's `fuzzy_matching`: `pred.split(" ")[0].rstrip(".").strip()`."""
    return str(raw).split(" ")[0].rstrip(".").strip()


class OptionTextKind(ChoiceKind):
    """A choice read by upstream's first-token rule; stored, scored and written as any choice."""
    name = "option-text"
    truth_symbol = "truth-star"
    convention = "the option's letter first, e.g. \"B. fan\" or \"B\""
    chart = "option-texts"       # the options' texts with the truth and each model's pick
    path_gives_nothing_away = True
    picks_an_option = False      # its options are texts in the prompt, not images to lay out

    def parse(self, raw, n_options: int = 4, profile: str = STRICT) -> Parsed:
        # Upstream's rule, whatever the profile: these kinds reproduce published VSI-Bench numbers.
        if raw is None:
            return Parsed(None, EMPTY)
        token = first_token(raw)
        if not token:
            return Parsed(None, EMPTY)
        if len(token) != 1 or not token.isascii() or not token.isalpha():
            return Parsed(None, NO_LETTER)
        index = ord(token.upper()) - ord("A")
        return Parsed(index, OK) if index < n_options else Parsed(index, LETTER_OUT_OF_RANGE)

    def parse_truth(self, raw, n_options: int = 4) -> Parsed:
        # A letter beyond the options is reported but kept: upstream compares letters, not options.
        p = self.parse(raw, n_options)
        return Parsed(p.value, OUT_OF_RANGE) if p.status == LETTER_OUT_OF_RANGE else p

    def parse_many(self, raws, n_options, cache, profile: str = STRICT):
        out = np.full((len(raws), WIDTH), np.nan)
        statuses = []
        for j, (r, k) in enumerate(zip(raws, n_options)):
            p = self.parse(r, k)
            if p.ok:
                out[j, 0] = p.value
            statuses.append(p.status)
        return out, statuses



OPTION_TEXT = register(OptionTextKind())
