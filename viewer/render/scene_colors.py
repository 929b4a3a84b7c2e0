"""Which colour an instance gets, and whether it is structure (wall, floor, ceiling).

The one place that turns an instance id or semantic category into a colour,
so the egocentric view, the top-down maps and the 3D window all agree.
Colours depend only on the category, never on the order instances are
loaded, so the same sofa is the same blue in every scene and every run.
"""
from __future__ import annotations

import colorsys
import re
import zlib

import numpy as np

# BEHAVIOR-1K ids end in a 6-letter model id and an index (`armchair_vzhxuf_0`);
# generated structure ids just in an index (`wall_3`, `floor_kitchen_0`).
_TRAILING_INDEX = re.compile(r"_\d+$")
_MODEL_ID = re.compile(r"_[a-z]{6}$")

WALL_COLOR = (205, 205, 200)
FLOOR_COLOR = (196, 170, 132)
CEILING_COLOR = (236, 236, 232)
# Seen from above a wall is only its top edge; dark so the room outline reads.
WALL_TOP_COLOR = (96, 96, 102)
# Hand-picked for the furniture a viewer meets most, so neighbours in a
# room (sofa / table / chair) are clearly apart; others hash to a hue.
_CATEGORY_COLORS: dict[str, tuple[int, int, int]] = {
    "sofa": (66, 110, 178),
    "armchair": (92, 140, 205),
    "bed": (150, 92, 160),
    "table": (160, 104, 52),
    "coffee_table": (178, 122, 66),
    "dining_table": (145, 95, 50),
    "desk": (128, 84, 44),
    "chair": (214, 152, 46),
    "stool": (200, 170, 60),
    "cabinet": (120, 150, 96),
    "bottom_cabinet": (120, 150, 96),
    "top_cabinet": (140, 170, 110),
    "shelf": (104, 132, 84),
    "bookshelf": (104, 132, 84),
    "wardrobe": (110, 120, 140),
    "fridge": (170, 200, 214),
    "refrigerator": (170, 200, 214),
    "oven": (90, 90, 96),
    "stove": (90, 90, 96),
    "sink": (150, 180, 190),
    "tv": (40, 40, 48),
    "television": (40, 40, 48),
    "plant": (52, 150, 64),
    "potted_plant": (52, 150, 64),
    "lamp": (236, 214, 96),
    "floor_lamp": (236, 214, 96),
    "table_lamp": (240, 200, 80),
    "rug": (176, 72, 72),
    "carpet": (176, 72, 72),
    "toilet": (225, 230, 236),
    "bathtub": (210, 220, 230),
    "door": (140, 100, 70),
    "window": (170, 210, 230),
    "nightstand": (150, 110, 70),
    "counter": (180, 170, 150),
}

# Categories that start like structure but are furniture.
_NOT_STRUCTURE = {"floor_lamp", "wall_clock", "wall_lamp", "wall_shelf", "wall_mounted_tv",
                  "ceiling_fan", "ceiling_lamp", "ceiling_light", "wall_socket"}
_KIND_PREFIXES = (("wall", ("wall", "walls")), ("floor", ("floor", "floors")),
                  ("ceiling", ("ceiling", "ceilings")))


def category_of(instance_id: str) -> str:
    """`armchair_vzhxuf_0` -> `armchair`; `floor_kitchen_0` -> `floor_kitchen`; `wall_3` -> `wall`."""
    name = _TRAILING_INDEX.sub("", instance_id.strip().lower())
    stripped = _MODEL_ID.sub("", name)
    # A lone 6-letter word (`window`, `carpet`) is the category, not a model id.
    return stripped if stripped else name


def structure_kind(category: str) -> str | None:
    """"wall", "floor" or "ceiling" for structure, None for furniture and objects."""
    c = category.lower()
    if c in _NOT_STRUCTURE:
        return None
    first = c.split("_", 1)[0]
    for kind, words in _KIND_PREFIXES:
        if first in words:
            return kind
    return None


def category_color(category: str) -> tuple[int, int, int]:
    kind = structure_kind(category)
    if kind == "wall":
        return WALL_COLOR
    if kind == "floor":
        return FLOOR_COLOR
    if kind == "ceiling":
        return CEILING_COLOR
    c = category.lower()
    if c in _CATEGORY_COLORS:
        return _CATEGORY_COLORS[c]
    last = c.rsplit("_", 1)[-1]        # `office_chair` is a chair
    if last in _CATEGORY_COLORS:
        return _CATEGORY_COLORS[last]
    # crc32, not hash(): Python salts str hashes per process.
    h = zlib.crc32(c.encode("utf-8"))
    hue = (h % 360) / 360.0
    sat = 0.45 + ((h >> 9) % 30) / 100.0
    val = 0.62 + ((h >> 17) % 25) / 100.0
    r, g, b = colorsys.hsv_to_rgb(hue, sat, val)
    return int(r * 255), int(g * 255), int(b * 255)


def instance_colors(instance_ids: list[str], semantics: dict[str, str] | None = None) -> np.ndarray:
    """(I, 3) uint8 colours; `semantics` (id -> category, e.g. from scene.json) overrides the id."""
    semantics = semantics or {}
    out = np.zeros((len(instance_ids), 3), np.uint8)
    for i, iid in enumerate(instance_ids):
        out[i] = category_color(semantics.get(iid) or category_of(iid))
    return out


def room_tints(rooms) -> dict[str, tuple[int, int, int]]:
    """A light pastel per room name, hues spread by the golden angle so neighbours differ.

    Depends only on the set of names (sorted), not on their order.
    """
    out = {}
    for k, room in enumerate(sorted(set(rooms))):
        r, g, b = colorsys.hsv_to_rgb((0.08 + k * 0.618034) % 1.0, 0.17, 0.97)
        out[room] = (int(r * 255), int(g * 255), int(b * 255))
    return out
