"""GST-Bench's question records, decoded straight from JSON Lines by msgspec (textio.stream_json_lines).

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


class ImageEntry(msgspec.Struct, gc=False):
    """One entry of a question's `images` as release.py reads it (an absent path reads as "", as
    `dict.get("copied_path", "")` did). A file whose image entries are not all objects fails to decode as
    QuestionRecord and is read as plain JSON: its records' `images` are then the lists as written."""
    index: Any = None
    copied_path: Any = ""


class QuestionRecord(msgspec.Struct, gc=False):
    """One question of a GST-Bench release file, as release.py reads it."""
    uid: str
    task: str
    scene: Any = None
    answer: Any = None
    texts: Any = None
    copied_video_path: Any = None
    images: list[ImageEntry] | None = None     # typed: decoded as structs, a third faster than dicts
    meta: Any = None
    setting: Any = None          # Table 2's settings (core/settings_table.py); None: global
    base_uid: Any = None

    @classmethod
    def from_dict(cls, rec: dict) -> QuestionRecord:
        """The record of a question read as a plain dict (a file msgspec refused); uid and task already checked."""
        g = rec.get
        return cls(rec["uid"], rec["task"], g("scene"), g("answer"), g("texts"), g("copied_video_path"),
                   g("images"), g("meta"), g("setting"), g("base_uid"))


def image_entries(images: Any) -> list[tuple[Any, Any]]:
    """(index, copied_path) of each entry of a record's `images` that is an object, in its order."""
    if not isinstance(images, list):
        return []
    return [(im.index, im.copied_path) if type(im) is ImageEntry else (im.get("index"), im.get("copied_path", ""))
            for im in images if type(im) is ImageEntry or isinstance(im, dict)]


def image_path(entry: Any) -> Any:
    """An image entry's copied_path ("" when it has none or is not an object)."""
    if type(entry) is ImageEntry:
        return entry.copied_path
    return entry.get("copied_path", "") if type(entry) is dict else ""
