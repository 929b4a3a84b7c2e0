"""Answer kinds: one object per kind of answer, registered by name (see base.py).

Importing this package registers the four kinds GST-Bench uses and the two VSI-Bench adds
(option-text, mra). To add a
kind, subclass `AnswerKind` in one module and `register()` an instance; a
column (or a benchmark's column table) names it.
"""
from .angle import ANGLE
from .base import WIDTH, AnswerKind, get_kind, kinds, register, unregister
from .choice import CHOICE
from .distance import DISTANCE
from .mra_number import MRA, MRA_ELEVEN
from .option_text import OPTION_TEXT
from .point import POINT

__all__ = ["AnswerKind", "WIDTH", "register", "unregister", "get_kind", "kinds", "ANGLE", "DISTANCE", "POINT",
           "CHOICE", "OPTION_TEXT", "MRA", "MRA_ELEVEN"]
