"""Furniture built from trimesh primitives, recognisable by shape alone.

Every builder returns one mesh in a local frame: origin at the centre of the
footprint on the floor, z up, the object's front facing +y and its back at
-y (so that "against a wall" means the wall is on the -y side). Parts carry
flat vertex colours, which the GLB keeps (COLOR_0) and the ray caster shows.
Sizes are jittered a little per instance so that two sofas are not clones.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

Color = tuple[int, int, int]

WOOD = (150, 105, 62)
DARK_WOOD = (96, 62, 38)
LIGHT_WOOD = (196, 160, 112)
WHITE = (236, 236, 230)
BLACK = (28, 28, 30)
METAL = (150, 152, 158)
FABRIC = (72, 84, 110)
LEATHER = (112, 64, 44)
GREEN = (58, 128, 52)
TERRACOTTA = (176, 92, 60)
CREAM = (240, 226, 190)
LINEN = (222, 218, 206)


def _trimesh():
    import trimesh  # heavy; only the generator needs it
    return trimesh


def _paint(mesh, color: Color):
    mesh.visual.vertex_colors = np.array([*color, 255], np.uint8)
    return mesh


def box(size, center, color: Color):
    m = _trimesh().creation.box(extents=size)
    m.apply_translation(center)
    return _paint(m, color)


def cylinder(radius: float, height: float, center, color: Color, sections: int = 16):
    m = _trimesh().creation.cylinder(radius=radius, height=height, sections=sections)
    m.apply_translation(center)
    return _paint(m, color)


def cone(radius: float, height: float, base_center, color: Color, sections: int = 16):
    m = _trimesh().creation.cone(radius=radius, height=height, sections=sections)
    m.apply_translation(base_center)
    return _paint(m, color)


def sphere(radius: float, center, color: Color, subdivisions: int = 1):
    m = _trimesh().creation.icosphere(subdivisions=subdivisions, radius=radius)
    m.apply_translation(center)
    return _paint(m, color)


def _legs(w: float, d: float, h: float, inset: float, t: float, color: Color) -> list:
    xs, ys = (w / 2 - inset, -(w / 2 - inset)), (d / 2 - inset, -(d / 2 - inset))
    return [box((t, t, h), (x, y, h / 2), color) for x in xs for y in ys]


def _join(parts):
    return _trimesh().util.concatenate(parts)


# ------------------------------------------------------------------ builders
# Each takes the footprint (w along x, d along y) and a colour choice.

def sofa(w, d, color=FABRIC, seats=3):
    arm = 0.18
    parts = [box((w, d, 0.22), (0, 0, 0.18), DARK_WOOD),                 # plinth
             box((w, 0.22, 0.80), (0, -d / 2 + 0.11, 0.40), color),      # back
             box((arm, d, 0.62), (-w / 2 + arm / 2, 0, 0.31), color),    # arms
             box((arm, d, 0.62), (w / 2 - arm / 2, 0, 0.31), color)]
    inner = w - 2 * arm
    cw = inner / seats
    for k in range(seats):                                               # seat cushions
        x = -inner / 2 + cw * (k + 0.5)
        parts.append(box((cw - 0.03, d - 0.26, 0.14), (x, 0.1, 0.36), color))
        parts.append(box((cw - 0.05, 0.14, 0.40), (x, -d / 2 + 0.28, 0.60), color))
    return _join(parts)


def armchair(w, d, color=LEATHER):
    return sofa(w, d, color, seats=1)


def bed(w, d, color=LINEN):
    parts = [box((w, d, 0.30), (0, 0, 0.15), WOOD),                      # frame
             box((w - 0.06, d - 0.12, 0.22), (0, 0.04, 0.41), WHITE),    # mattress
             box((w, 0.08, 1.05), (0, -d / 2 + 0.04, 0.525), DARK_WOOD),  # headboard
             box((w - 0.04, d * 0.62, 0.06), (0, d * 0.17, 0.54), color)]  # duvet
    pw = (w - 0.3) / 2 if w > 1.2 else w - 0.3
    for x in ((-w / 4, w / 4) if w > 1.2 else (0,)):
        parts.append(box((pw, 0.36, 0.12), (x, -d / 2 + 0.32, 0.58), WHITE))
    return _join(parts)


def table(w, d, height=0.75, top=LIGHT_WOOD, legs=DARK_WOOD):
    return _join([box((w, d, 0.05), (0, 0, height - 0.025), top),
                  *_legs(w, d, height - 0.05, 0.06, 0.06, legs)])


def coffee_table(w, d):
    return _join([box((w, d, 0.05), (0, 0, 0.40), DARK_WOOD),
                  box((w - 0.1, d - 0.1, 0.03), (0, 0, 0.12), DARK_WOOD),
                  *_legs(w, d, 0.38, 0.05, 0.05, DARK_WOOD)])


def chair(w, d, color=WOOD):
    seat_h = 0.46
    return _join([box((w, d, 0.05), (0, 0, seat_h), color),
                  *_legs(w, d, seat_h - 0.025, 0.03, 0.04, color),
                  box((w, 0.05, 0.45), (0, -d / 2 + 0.025, seat_h + 0.25), color)])


def office_chair(w, d, color=BLACK):
    return _join([cylinder(w / 2, 0.04, (0, 0, 0.06), METAL),            # star base
                  cylinder(0.03, 0.38, (0, 0, 0.27), METAL),
                  box((w, d, 0.08), (0, 0.02, 0.48), color),
                  box((w * 0.9, 0.06, 0.55), (0, -d / 2 + 0.05, 0.82), color)])


def desk(w, d):
    return _join([box((w, d, 0.04), (0, 0, 0.74), WHITE),
                  box((0.04, d, 0.72), (-w / 2 + 0.02, 0, 0.36), METAL),
                  box((0.04, d, 0.72), (w / 2 - 0.02, 0, 0.36), METAL),
                  box((0.4, d - 0.06, 0.6), (w / 2 - 0.26, 0, 0.42), WHITE)])  # drawers


def bookshelf(w, d, height=1.9, color=WOOD):
    t = 0.03
    parts = [box((t, d, height), (-w / 2 + t / 2, 0, height / 2), color),
             box((t, d, height), (w / 2 - t / 2, 0, height / 2), color),
             box((w, 0.02, height), (0, -d / 2 + 0.01, height / 2), color)]
    shelves = 5
    for k in range(shelves + 1):
        parts.append(box((w, d, t), (0, 0, k * (height - t) / shelves + t / 2), color))
    book_colors = [(150, 40, 40), (40, 70, 140), (200, 170, 60), (60, 120, 80), (110, 60, 120)]
    for k in range(shelves):                                             # a row of books per shelf
        z0 = k * (height - t) / shelves + t
        x = -w / 2 + 0.06
        j = k
        while x < w / 2 - 0.12:
            bw = 0.04 + 0.02 * (j % 3)
            bh = 0.22 + 0.04 * (j % 2)
            parts.append(box((bw, d * 0.7, bh), (x + bw / 2, 0, z0 + bh / 2), book_colors[j % 5]))
            x += bw + 0.01
            j += 1
    return _join(parts)


def wardrobe(w, d, color=LIGHT_WOOD):
    h = 2.0
    return _join([box((w, d - 0.02, h), (0, -0.01, h / 2), color),
                  box((w / 2 - 0.015, 0.02, h - 0.1), (-w / 4, d / 2 - 0.01, h / 2), DARK_WOOD),
                  box((w / 2 - 0.015, 0.02, h - 0.1), (w / 4, d / 2 - 0.01, h / 2), DARK_WOOD),
                  box((0.03, 0.04, 0.3), (-0.05, d / 2 + 0.01, 1.05), METAL),
                  box((0.03, 0.04, 0.3), (0.05, d / 2 + 0.01, 1.05), METAL)])


def bottom_cabinet(w, d, color=WHITE, top=(70, 70, 74)):
    return _join([box((w, d - 0.03, 0.86), (0, -0.015, 0.43), color),
                  box((w, d, 0.04), (0, 0, 0.88), top),
                  box((w - 0.04, 0.02, 0.02), (0, d / 2 - 0.01, 0.75), METAL)])


def nightstand(w, d):
    return _join([box((w, d, 0.5), (0, 0, 0.25), DARK_WOOD),
                  box((w - 0.06, 0.02, 0.01), (0, d / 2, 0.35), METAL)])


def fridge(w, d, color=(214, 220, 226)):
    h = 1.85
    return _join([box((w, d, h), (0, 0, h / 2), color),
                  box((w + 0.002, d + 0.002, 0.02), (0, 0, 1.2), (120, 124, 130)),  # door gap
                  box((0.03, 0.05, 0.45), (w / 2 - 0.08, d / 2 + 0.02, 1.45), METAL),
                  box((0.03, 0.05, 0.55), (w / 2 - 0.08, d / 2 + 0.02, 0.75), METAL)])


def tv_stand(w, d):
    return _join([box((w, d, 0.45), (0, 0, 0.225), DARK_WOOD),
                  box((w / 2 - 0.04, 0.02, 0.3), (-w / 4, d / 2, 0.225), WOOD),
                  box((w / 2 - 0.04, 0.02, 0.3), (w / 4, d / 2, 0.225), WOOD)])


def television(w, d, base_z=0.45):
    screen_h = w * 9 / 16
    return _join([box((0.3, 0.2, 0.02), (0, 0, base_z + 0.01), BLACK),     # foot
                  box((0.06, 0.04, 0.12), (0, 0, base_z + 0.08), BLACK),
                  box((w, 0.05, screen_h + 0.04), (0, 0, base_z + 0.14 + screen_h / 2), BLACK),
                  box((w - 0.05, 0.01, screen_h), (0, 0.026, base_z + 0.14 + screen_h / 2),
                      (52, 78, 120))])                                    # dark blue screen


def potted_plant(w, d):
    r = w / 2
    return _join([cylinder(r * 0.6, 0.32, (0, 0, 0.16), TERRACOTTA),
                  cone(r * 0.75, 0.7, (0, 0, 0.3), GREEN),
                  sphere(r * 0.8, (0, 0, 0.62), (70, 146, 60)),
                  sphere(r * 0.55, (r * 0.35, 0, 0.95), GREEN)])


def floor_lamp(w, d):
    return _join([cylinder(w / 2, 0.03, (0, 0, 0.015), BLACK),
                  cylinder(0.015, 1.45, (0, 0, 0.75), METAL, 8),
                  cylinder(w / 2 * 0.9, 0.3, (0, 0, 1.55), CREAM)])


def table_lamp(w, d, base_z=0.5):
    return _join([cylinder(w / 3, 0.03, (0, 0, base_z + 0.015), METAL),
                  cylinder(0.012, 0.3, (0, 0, base_z + 0.17), METAL, 8),
                  cone(w / 2, 0.22, (0, 0, base_z + 0.28), CREAM)])


def toilet(w, d):
    return _join([box((w, 0.2, 0.4), (0, -d / 2 + 0.1, 0.6), WHITE),         # tank
                  cylinder(w * 0.42, 0.42, (0, 0.08, 0.21), WHITE),           # bowl
                  cylinder(w * 0.44, 0.03, (0, 0.08, 0.43), (200, 200, 196))])


def bathtub(w, d):
    wall = 0.08
    return _join([box((w, d, 0.12), (0, 0, 0.06), WHITE),
                  box((w, wall, 0.55), (0, -d / 2 + wall / 2, 0.275), WHITE),
                  box((w, wall, 0.55), (0, d / 2 - wall / 2, 0.275), WHITE),
                  box((wall, d, 0.55), (-w / 2 + wall / 2, 0, 0.275), WHITE),
                  box((wall, d, 0.55), (w / 2 - wall / 2, 0, 0.275), WHITE),
                  box((w - 2 * wall, d - 2 * wall, 0.02), (0, 0, 0.4), (120, 170, 210))])  # water


def sink(w, d):
    return _join([box((w, d, 0.8), (0, 0, 0.4), (180, 180, 186)),
                  box((w, d, 0.08), (0, 0, 0.84), WHITE),
                  box((w - 0.14, d - 0.16, 0.02), (0, 0.02, 0.885), (160, 190, 210)),
                  cylinder(0.015, 0.2, (0, -d / 2 + 0.06, 0.98), METAL, 8)])


@dataclass(frozen=True)
class Kind:
    """A furniture category: its builder and its nominal footprint and height."""
    build: Callable
    width: float
    depth: float
    height: float
    against_wall: bool = True


KINDS: dict[str, Kind] = {
    "sofa": Kind(sofa, 2.1, 0.9, 0.85),
    "armchair": Kind(armchair, 0.9, 0.85, 0.85),
    "bed": Kind(bed, 1.6, 2.05, 1.05),
    "dining_table": Kind(table, 1.5, 0.9, 0.75, against_wall=False),
    "coffee_table": Kind(coffee_table, 1.1, 0.6, 0.45, against_wall=False),
    "chair": Kind(chair, 0.45, 0.45, 0.95, against_wall=False),
    "office_chair": Kind(office_chair, 0.55, 0.55, 1.1, against_wall=False),
    "desk": Kind(desk, 1.3, 0.65, 0.76),
    "bookshelf": Kind(bookshelf, 0.9, 0.35, 1.9),
    "wardrobe": Kind(wardrobe, 1.2, 0.6, 2.0),
    "bottom_cabinet": Kind(bottom_cabinet, 1.8, 0.6, 0.9),
    "nightstand": Kind(nightstand, 0.45, 0.4, 0.5),
    "fridge": Kind(fridge, 0.75, 0.7, 1.85),
    "tv_stand": Kind(tv_stand, 1.5, 0.45, 0.45),
    "television": Kind(television, 1.2, 0.2, 1.3),
    "potted_plant": Kind(potted_plant, 0.5, 0.5, 1.2, against_wall=False),
    "floor_lamp": Kind(floor_lamp, 0.4, 0.4, 1.7, against_wall=False),
    "table_lamp": Kind(table_lamp, 0.3, 0.3, 0.8, against_wall=False),
    "toilet": Kind(toilet, 0.45, 0.7, 0.8),
    "bathtub": Kind(bathtub, 1.6, 0.75, 0.55),
    "sink": Kind(sink, 0.7, 0.5, 1.1),
}


def build(category: str, width: float, depth: float):
    """The mesh of one piece of furniture, footprint width x depth (metres)."""
    return KINDS[category].build(width, depth)
