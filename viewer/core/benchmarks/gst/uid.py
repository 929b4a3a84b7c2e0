"""What a GST-Bench uid says about its question.

Published uids follow `scene<N>_<task words>[_<target>]_pos_<P>_orient_<O>_video_<K>`:

    scene2_Object_Localization_Egocentric_Direction_visual_armchair_vzhxuf_0_pos_10_orient_4_video_3
    scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4

The task words in a uid are not always the task name (the second example is
task `Self_Localization_Global_Position`), so the target is what remains
after the task name when the uid starts with it, and otherwise the trailing
BEHAVIOR-1K instance id (`<category words>_<6 letters>_<n>`) if the task is
about an object.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

_VIEW_RE = re.compile(r"^(?P<head>.*?)_?pos_(?P<pos>\d+)_orient_(?P<orient>\d+)_video_(?P<video>\d+)$")
_VIDEO_RE = re.compile(r"_video_(?P<video>\d+)$")
_SCENE_RE = re.compile(r"^scene_?(\d+)_", re.I)
# BEHAVIOR-1K instance ids: category words, a 6-letter model id, an index.
_INSTANCE_RE = re.compile(r"((?:[a-z0-9]+_)*?[a-z0-9]+_[a-z]{6}_\d+)$")


@dataclass(frozen=True)
class UidParts:
    scene: str | None = None       # "scene_2"
    target: str | None = None      # "armchair_vzhxuf_0"
    viewpoint: str | None = None   # "pos_10_orient_4"
    video: str | None = None       # "video_3"


# One line of many joined uids: the optional scene, then the words and the viewpoint, or only words.
# Every line matches, so findall over the joined text keeps one tuple per uid (one pass, no lazy scan).
_LINE_RE = re.compile(r"^(?:[Ss][Cc][Ee][Nn][Ee]_?(\d+)_)?(?:(?:(.*)_)?pos_(\d+)_orient_(\d+)_video_\d+|(.*))$", re.M)
_TRAILING_VIDEO = re.compile(r"_video_\d+$")


@dataclass(frozen=True)
class UidColumns:
    """The linking parts of many uids, as arrays; -1 where a part is absent."""
    scene: np.ndarray      # int64, the N of scene<N>
    head: list[str]        # the words between the scene and the viewpoint (task words, then the target)
    pos: np.ndarray        # int64
    orient: np.ndarray     # int64


def _ints(texts: tuple[str, ...]) -> np.ndarray:
    return np.fromiter((int(t) if t else -1 for t in texts), np.int64, len(texts))


def split_uids(uids: list[str]) -> UidColumns:
    """`parse_uid`'s scene and viewpoint for many uids at once (one regex pass over the joined text)."""
    if not uids:
        e = np.zeros(0, np.int64)
        return UidColumns(e, [], e, e)
    rows = _LINE_RE.findall("\n".join(uids)) if not any("\n" in u for u in uids) else []
    if len(rows) != len(uids):                # a uid holding a line break: one at a time
        rows = [_LINE_RE.match(u.replace("\n", " ")).groups("") for u in uids]
    scene, head, pos, orient, words = zip(*rows)
    head = [h or w for h, w in zip(head, words)]
    return UidColumns(_ints(scene), head, _ints(pos), _ints(orient))


def target_from_head(head: str, task: str) -> str | None:
    """The target instance in a uid's words (as `parse_uid`): after the task name, else a trailing instance id."""
    if "_video_" in head:
        head = _TRAILING_VIDEO.sub("", head)
    if head[:len(task) + 1].lower() == task.lower() + "_":
        return head[len(task) + 1:] or None
    m = _INSTANCE_RE.search(head)
    return m.group(1) if m else None


def parse_uid(uid: str, task: str | None = None, has_target: bool = False) -> UidParts:
    scene = None
    rest = uid
    m = _SCENE_RE.match(uid)
    if m:
        scene = f"scene_{int(m.group(1))}"
        rest = uid[m.end():]
    mv = _VIEW_RE.match(rest)
    if not mv:
        video = _VIDEO_RE.search(rest)
        return UidParts(scene, None, None, f"video_{int(video.group('video'))}" if video else None)
    viewpoint = f"pos_{int(mv.group('pos'))}_orient_{int(mv.group('orient'))}"
    video = f"video_{int(mv.group('video'))}"
    head = mv.group("head")
    target = None
    if has_target and head:
        if task and head.lower().startswith(task.lower() + "_"):
            target = head[len(task) + 1:] or None
        else:
            mi = _INSTANCE_RE.search(head)
            target = mi.group(1) if mi else None
    return UidParts(scene, target, viewpoint, video)


def uid_tail(uid: str, target: str | None = None) -> str:
    """The part of a uid that tells it from its neighbours: the question's target, viewpoint and video
    (`armchair_vzhxuf_0 p10/4 v3`); the words after the scene when the uid has none of them."""
    parts = replace(parse_uid(uid), target=target)
    bits = [parts.target] if parts.target else []
    if parts.viewpoint is not None:
        pos, orient = parts.viewpoint.split("_")[1::2]
        bits.append(f"p{pos}/{orient}")
    if parts.video is not None and bits:
        bits.append(f"v{parts.video.split('_')[1]}")
    if bits:
        return " ".join(bits)
    m = _SCENE_RE.match(uid)
    return uid[m.end():] if m else uid
