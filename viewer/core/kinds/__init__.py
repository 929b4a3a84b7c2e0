"""Answer kinds: one object per kind of answer, registered by name (see base.py).

Importing this package registers the four generic kinds (angle, distance, point, choice); a
benchmark's own kinds live in its package and register when it is imported (VSI-Bench's
option-text and mra: viewer/core/benchmarks/vsi/). To add a kind, subclass `AnswerKind`
in one module and `register()` an instance; a
column (or a benchmark's column table) names it.
"""
from .angle import ANGLE
from .base import WIDTH, AnswerKind, get_kind, kinds, register, unregister
from .choice import CHOICE
from .distance import DISTANCE
from .point import POINT

__all__ = ["AnswerKind", "WIDTH", "register", "unregister", "get_kind", "kinds", "ANGLE", "DISTANCE", "POINT",
           "CHOICE"]
