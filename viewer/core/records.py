"""Typed records decoded straight from JSON Lines by msgspec (textio.stream_json_lines).

Imported lazily by the loaders: msgspec is needed to read a file, never to
import the core. Fields other than the ones named are dropped at decoding
(a release's own records: each benchmark's package, e.g. benchmarks/gst/records.py), and an absent field
reads as None, exactly as `dict.get` did. Only `uid` and `task` are typed
(str): a record whose other fields have unexpected types still decodes, and
the loader judges them as before.
"""
from __future__ import annotations

from typing import Any

import msgspec


class PlainPrediction(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """A line of the common prediction file, exactly {"uid", "prediction"}; any other line (a "model",
    an lmms-eval log) fails to decode as this and is read as plain JSON."""
    uid: str
    prediction: Any
