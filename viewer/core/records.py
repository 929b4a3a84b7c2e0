"""The prediction record decoded straight from JSON Lines by msgspec (textio.stream_json_lines).

Imported lazily by the readers: msgspec is needed to read a file, never to import the core. A
release's own records are typed in its benchmark's package (its loader decodes them the same way).
"""
from __future__ import annotations

from typing import Any

import msgspec


class PlainPrediction(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """A line of the common prediction file, exactly {"uid", "prediction"}; any other line (a "model",
    an lmms-eval log) fails to decode as this and is read as plain JSON."""
    uid: str
    prediction: Any
