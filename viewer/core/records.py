"""Typed records decoded straight from JSON Lines by msgspec (textio.stream_json_lines).

Imported lazily by the loaders: msgspec is needed to read a file, never to
import the core. Fields other than the ones named are dropped at decoding
(a release question keeps only what `release.py` reads), and an absent field
reads as None, exactly as `dict.get` did. Only `uid` and `task` are typed
(str): a record whose other fields have unexpected types still decodes, and
the loader judges them as before.
"""
from __future__ import annotations

from typing import Any

import msgspec


class QuestionRecord(msgspec.Struct, gc=False):
    """One question of a GST-Bench release file, as release.py reads it."""
    uid: str
    task: str
    scene: Any = None
    answer: Any = None
    texts: Any = None
    copied_video_path: Any = None
    images: Any = None
    meta: Any = None
    setting: Any = None          # Table 2's settings (core/settings_table.py); None: global
    base_uid: Any = None

    @classmethod
    def from_dict(cls, rec: dict) -> QuestionRecord:
        """The record of a question read as a plain dict (a file msgspec refused); uid and task already checked."""
        g = rec.get
        return cls(rec["uid"], rec["task"], g("scene"), g("answer"), g("texts"), g("copied_video_path"),
                   g("images"), g("meta"), g("setting"), g("base_uid"))


class PlainPrediction(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """A line of the common prediction file, exactly {"uid", "prediction"}; any other line (a "model",
    an lmms-eval log) fails to decode as this and is read as plain JSON."""
    uid: str
    prediction: Any
