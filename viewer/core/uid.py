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
from dataclasses import dataclass

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
