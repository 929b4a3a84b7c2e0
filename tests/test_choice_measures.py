"""The choice measures' fast paths give the numbers their plain numpy forms give, to the bit.

The audit's JSON must not change when the measures get faster: each fast
path here is compared with the straightforward formula it replaces, on
random inputs chosen to reach its corner cases.
"""
from __future__ import annotations

import numpy as np
import pytest

from viewer.core.audit import choice_measures as m


@pytest.mark.parametrize("channels", [1, 3])
def test_block_mean_is_numpys_mean_to_the_bit(channels):
    rng = np.random.default_rng(channels)
    for _ in range(60):
        f = int(rng.integers(2, 11))            # f >= 8 falls back to numpy's own mean
        h, w = int(rng.integers(3, 40)) * f, int(rng.integers(3, 40)) * f
        v = (rng.random((h + 3, w + 2, channels)) * rng.choice([1.0, 255.0, 1e-3, 1e5])).astype(np.float32)
        v = v[2:h + 2, 1:w + 1]                 # not contiguous, as a crop is
        blocks = v.reshape(h // f, f, w // f, f, channels)
        expected = blocks.mean(axis=(1, 3))
        got = m._block_mean(blocks)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert got.tobytes() == expected.tobytes(), (f, h, w)


@pytest.mark.parametrize("channels", [1, 3])
def test_block_mean_of_whole_numbers_is_the_float32_mean_to_the_bit(channels):
    rng = np.random.default_rng(10 + channels)
    for f in (2, 3, 4, 7, 8, 16, 17):                     # up to 17: past a uint16 sum of 255s
        h, w = int(rng.integers(2, 9)) * f, int(rng.integers(2, 9)) * f
        v = rng.integers(0, 256, (h, w, channels), dtype=np.uint8)
        if f == 3:
            v[:] = rng.integers(0, 2, v.shape)              # occupancy: 0 or 1
        blocks = v.reshape(h // f, f, w // f, f, channels)
        expected = blocks.astype(np.float32).mean(axis=(1, 3))
        got = m._block_mean(blocks)
        assert got.dtype == np.float32 and got.tobytes() == expected.tobytes(), f


def test_signature_of_a_map_as_uint8_or_float_is_the_same():
    rng = np.random.default_rng(3)
    rgb = np.full((300, 420, 3), 255, np.uint8)
    rgb[40:260, 30:390] = rng.integers(0, 256, (220, 360, 3), dtype=np.uint8)
    for level in m.LEVELS:
        channels = m.level_channels(rgb[40:260, 30:390], level)
        as_float = m.area_resample(channels.astype(np.float32), m.GRID, m.GRID)
        assert m.area_resample(channels, m.GRID, m.GRID).tobytes() == as_float.tobytes(), level


def test_background_test_on_uint8_matches_the_float_comparison():
    rng = np.random.default_rng(0)
    for _ in range(200):
        rgb = rng.integers(0, 256, (12, 17, 3), dtype=np.uint8)
        color = rng.random(3) * 340 - 40                   # thresholds below 0 and above 255 too
        tolerance = float(rng.choice([0.0, 12.5, 40.0, 40.0000001, 300.0]))
        expected = np.zeros(rgb.shape[:2], bool)
        for k in range(3):
            c = rgb[..., k].astype(np.float64)
            expected |= (c < color[k] - tolerance) | (c > color[k] + tolerance)
        assert np.array_equal(m._differs_from(rgb, color, tolerance), expected)


def test_trajectory_marks_match_the_signed_colour_formulas():
    rng = np.random.default_rng(1)
    rgb = rng.integers(0, 256, (64, 80, 3), dtype=np.uint8)
    rgb[10:14, 5:60] = (230, 20, 30)                       # a red stroke
    rgb[40:46, 40:46] = (20, 40, 240)                      # a blue dot
    r, g, b = (rgb[..., k].astype(np.int16) for k in range(3))
    ys, xs = np.nonzero((r > 150) & (r - g > 70) & (r - b > 70))
    drawn, start = m.trajectory_marks(rgb)
    assert np.array_equal(drawn, np.stack([xs, ys], axis=1) + 0.5)
    ys, xs = np.nonzero((b > 150) & (b - r > 70) & (b - g > 50))
    assert start.tobytes() == (np.array([xs.mean(), ys.mean()]) + 0.5).tobytes()
    assert m.trajectory_marks(np.full((20, 20, 3), 255, np.uint8))[1] is None


def test_path_distance_is_the_symmetric_chamfer_of_the_brute_force_distances():
    rng = np.random.default_rng(2)
    drawn, walked = rng.random((900, 2)) * 300, np.cumsum(rng.random((40, 2)) * 9, axis=0)
    start = rng.random(2) * 300
    got = m.path_distance(drawn, start, walked)
    walk = m.walk_points(walked)
    sample = drawn[np.linspace(0, len(drawn) - 1, 800).astype(int)]

    def nearest(a, b):
        return np.sqrt(((a[:, None, 0] - b[None, :, 0]) ** 2 + (a[:, None, 1] - b[None, :, 1]) ** 2).min(axis=1))

    chamfer = 0.5 * (nearest(sample, walk).mean() + nearest(walk, sample).mean())
    assert got.chamfer == float(chamfer)
    assert got.start_offset == float(np.linalg.norm(start - walk[0]))


def test_vertical_rays_follow_each_affine_when_maps_alternate():
    """The pixel centres' world xy are kept for the last affine: another map must not get them."""
    from viewer.core.geometry import pixel_to_world
    from viewer.render.topdown import _vertical_rays

    a = np.array([[20.0, 0.0, 10.0], [0.0, -20.0, 90.0]])
    b = np.array([[12.0, 0.0, -3.0], [0.0, -12.0, 70.0]])
    for W, size in ((a, (8, 6)), (b, (8, 6)), (a, (8, 6)), (a, (5, 7)), (b, (8, 6))):
        rays = _vertical_rays(W, *size, 2.5, -1.0)
        u, v = np.meshgrid(np.arange(size[0]) + 0.5, np.arange(size[1]) + 0.5)
        xy = pixel_to_world(W, np.stack([u, v], axis=-1).reshape(-1, 2)).astype(np.float32)
        assert np.array_equal(rays[:, :2], xy)
        assert (rays[:, 2] == 2.5).all() and (rays[:, 5] == -1.0).all() and not rays[:, 3:5].any()
    rays[:, :2] = 0                                       # a caller may write into its rays
    assert _vertical_rays(b, 8, 6, 0.0, 1.0)[:, :2].any()
