import numpy as np
import pytest

from viewer.core.scoring import (
    angle_error,
    random_angle_score,
    random_choice_score,
    random_distance_score,
    random_point_score,
    score_angle,
    score_choice,
    score_distance,
    score_point,
)


@pytest.mark.parametrize("pred, truth, expected", [
    (-120, -134, 1.0),      # error 14 <= 15
    (-170, -134, 1 / 3),    # error 36: only the 45 tolerance
    (170, -134, 0.0),       # error 56 the short way round
    (179, -177, 1.0),       # wraps across +-180: error 4
    (-149, -134, 1.0),      # exactly 15: thresholds are inclusive
    (-164, -134, 2 / 3),    # exactly 30
    (-179, -134, 1 / 3),    # exactly 45
    (-180, 0, 0.0),
])
def test_score_angle_worked_cases(pred, truth, expected):
    s, _ = score_angle(np.array([pred]), np.array([truth]))
    assert s[0] == pytest.approx(expected)


def test_angle_error_is_circular_and_symmetric():
    assert angle_error(179, -177) == pytest.approx(4)
    assert angle_error(-177, 179) == pytest.approx(4)
    assert angle_error(540, 0) == pytest.approx(180)
    assert angle_error(10, 370) == pytest.approx(0)


@pytest.mark.parametrize("pred, truth, expected", [
    (1.08, 1.0, 0.9),
    (10.0, 13.2, 0.6),
    (0.9, 2.0, 0.0),
    (13.2, 13.2, 1.0),
    (1.5, 1.0, 0.1),        # relative error 0.5 passes theta = 0.50 only, inclusively
    (1.05, 1.0, 1.0),       # 0.05 passes theta = 0.95 within the 1e-9 tolerance
])
def test_score_distance_mra(pred, truth, expected):
    s, _ = score_distance(np.array([pred]), np.array([truth]))
    assert s[0] == pytest.approx(expected)


def test_distance_zero_truth_only_met_by_zero():
    s, _ = score_distance(np.array([0.0, 0.1]), np.array([0.0, 0.0]))
    assert list(s) == [1.0, 0.0]


def test_score_point_worked_case():
    s, e = score_point(np.array([[450, 780]]), np.array([[391, 698]]))
    assert e[0] == pytest.approx(np.hypot(59, 82))
    assert s[0] == pytest.approx(0.8)


def test_score_point_inclusive_thresholds():
    s, _ = score_point(np.array([[100, 0], [300, 0], [301, 0]]), np.zeros((3, 2)))
    assert list(s) == pytest.approx([1.0, 0.2, 0.0])


def test_nan_prediction_scores_zero():
    s, _ = score_angle(np.array([np.nan]), np.array([10.0]))
    assert s[0] == 0
    s, _ = score_point(np.array([[np.nan, np.nan]]), np.array([[1.0, 1.0]]))
    assert s[0] == 0
    s, _ = score_choice(np.array([np.nan]), np.array([2.0]))
    assert s[0] == 0


def test_choice():
    s, _ = score_choice(np.array([2, 1]), np.array([2, 2]))
    assert list(s) == [1, 0]


def test_random_baselines():
    assert 100 * random_angle_score() == pytest.approx(16.6667, abs=1e-3)
    assert random_choice_score(4) == 0.25
    # A truth far from the map's border: pure disc area, pi * mean(tau^2) / 999^2.
    inside = random_point_score([[500, 500]])[0]
    expected = np.pi * np.mean(np.array([100, 150, 200, 250, 300.0]) ** 2) / 999**2
    assert inside == pytest.approx(expected, rel=1e-4)
    # In a corner only a quarter of each disc lies on the map.
    assert random_point_score([[0, 0]])[0] == pytest.approx(expected / 4, rel=1e-3)
    # Distance: a truth in the middle of the domain keeps both sides of its interval.
    d = random_distance_score([5.0], 20.0)[0]
    assert d == pytest.approx(np.mean(2 * 5.0 * (1 - np.arange(0.5, 0.96, 0.05)) / 20.0))
