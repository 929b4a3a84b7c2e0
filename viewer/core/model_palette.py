"""The one table of model colours and marker shapes, and the UI colours they must never reuse.

Every view (the window's map, charts, 3D view, browser and leaderboard; figures,
clips and slides) takes a model's look from here, so model k is the same colour
and shape everywhere. Colours are hex strings: core has no Qt.

The six colours are picked so that each stays apart from the others and from
the UI's truth green, current-view blue and target red for people with
protanopia, deuteranopia or tritanopia as well (`cvd_distance`, checked by
tests/test_compare.py). Shapes are a second channel: with six colours and four
shapes, the first twelve models differ in colour or shape, in grey-scale too.
"""
from __future__ import annotations

import numpy as np

# The UI's own meanings (viewer/ui/style.py turns them into QColors).
TRUTH = "#00aa50"
VIEWPOINT = "#1e78ff"
TARGET = "#e61e1e"
RESERVED = {"truth": TRUTH, "current view": VIEWPOINT, "target": TARGET}

# Okabe-Ito orange and reddish purple, Tol's indigo and wine, a brown, near-black.
MODEL_COLORS = ("#E69F00", "#332288", "#CC79A7", "#882255", "#8C564B", "#222222")
MODEL_SHAPES = ("circle", "square", "triangle", "diamond")


def model_color(index: int) -> str:
    return MODEL_COLORS[index % len(MODEL_COLORS)]


def model_shape(index: int) -> str:
    return MODEL_SHAPES[index % len(MODEL_SHAPES)]


# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
_CVD = {
    "normal": np.eye(3),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
VISIONS = tuple(_CVD)


def _lab(hex_color: str, vision: str) -> np.ndarray:
    rgb = np.array([int(hex_color[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    lin = np.clip(_CVD[vision] @ lin, 0.0, 1.0)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ lin
    xyz /= np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def cvd_distance(a: str, b: str) -> float:
    """The smallest CIE76 ΔE between two colours as seen with normal vision or any of three dichromacies."""
    return float(min(np.linalg.norm(_lab(a, v) - _lab(b, v)) for v in VISIONS))
