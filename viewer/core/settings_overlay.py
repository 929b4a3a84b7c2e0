"""One map for a question's settings: the answers given from each setting's view, styled per setting.

Each member of a family (core/settings_table.family_of) has its own overlay
on the same map (the scene's), built as for any question. The merged overlay
keeps the global one whole (path, target, truth, its view and answers) and
adds, from each local variant, its view and its models' answer arrows, their
line set per setting (primitives.Arrow.line) and a label at the view. Renderers
stay generic: they draw Arrow.line, never a setting.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from . import primitives as pr
from .settings_table import GLOBAL, LOCAL_IMAGE, LOCAL_VIDEO, SHORT, TITLES

LINE = {GLOBAL: pr.SOLID, LOCAL_VIDEO: pr.DASHED, LOCAL_IMAGE: pr.DOTTED}
LINE_TEXT = {pr.SOLID: "solid", pr.DASHED: "dashed", pr.DOTTED: "dotted"}


def _restyled(item: pr.Primitive, setting: str) -> pr.Primitive:
    return replace(item, line=LINE[setting]) if isinstance(item, pr.Arrow) and item.role == pr.MODEL else item


def merge_settings_overlays(overlays: dict[str, pr.Overlay | None]) -> pr.Overlay | None:
    """The global overlay plus each local variant's view and model answers (setting -> overlay, same map)."""
    base = overlays.get(GLOBAL)
    if base is None:
        return None
    out = pr.Overlay(base.width, base.height, [_restyled(p, GLOBAL) for p in base.items], list(base.legend),
                     list(base.notes))
    labelled: list[np.ndarray] = []
    for setting in (GLOBAL, LOCAL_VIDEO, LOCAL_IMAGE):
        ov = overlays.get(setting)
        if ov is None:
            continue
        if setting != GLOBAL:
            if (ov.width, ov.height) != (base.width, base.height):
                out.notes.append(f"{TITLES[setting]}: drawn on another map size; left out")
                continue
            out.add(*[_restyled(p, setting) for p in ov.items
                      if (p.role == pr.MODEL and isinstance(p, pr.Arrow))
                      or (p.role == pr.VIEWPOINT and isinstance(p, pr.Marker))])
        view = next((p for p in ov.items if p.role == pr.VIEWPOINT and isinstance(p, pr.Marker)), None)
        if view is not None:
            at = np.asarray(view.at, float)[:2]
            # Local-Video and Local-Image share their view: one label names both.
            if any(np.allclose(at, a) for a in labelled):
                continue
            names = [SHORT[s] for s in (LOCAL_VIDEO, LOCAL_IMAGE) if setting != GLOBAL and s in overlays] \
                if setting != GLOBAL else [SHORT[GLOBAL]]
            out.add(pr.Label(pr.VIEWPOINT, None, (pr.L_VIEWPOINT,), pr.Z_LINK, at=at - [0, 8], text="/".join(names)))
            labelled.append(at)
    out.notes.append("answer arrows: " + ", ".join(f"{TITLES[s]} {LINE_TEXT[LINE[s]]}" for s in LINE
                                                  if s in overlays))
    return out
