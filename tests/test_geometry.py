"""Hand-worked geometry cases, each in both camera conventions where a pose is involved."""
from types import SimpleNamespace

import numpy as np
import pytest

from viewer.core import geometry as g


def cv_pose(x_axis, y_axis, z_axis, center=(0.0, 0.0, 0.0)) -> np.ndarray:
    """OpenCV camera-to-world from the camera's x (right), y (down), z (forward) axes in world."""
    T = np.eye(4)
    T[:3, :3] = np.column_stack([x_axis, y_axis, z_axis])
    T[:3, 3] = center
    return T


def gl_pose(x_axis, y_axis, z_axis, center=(0.0, 0.0, 0.0)) -> np.ndarray:
    """OpenGL camera-to-world from the camera's x (right), y (up), z (backward) axes in world."""
    return cv_pose(x_axis, y_axis, z_axis, center)


# A camera at eye height looking along world +x, written by hand in each convention.
LOOK_X_CV = cv_pose((0, -1, 0), (0, 0, -1), (1, 0, 0), (0, 0, 1.5))
LOOK_X_GL = gl_pose((0, -1, 0), (0, 0, 1), (-1, 0, 0), (0, 0, 1.5))
# Looking along world +y from (2, 3, 1.5).
LOOK_Y_CV = cv_pose((1, 0, 0), (0, 0, -1), (0, 1, 0), (2, 3, 1.5))
LOOK_Y_GL = gl_pose((1, 0, 0), (0, 0, 1), (0, -1, 0), (2, 3, 1.5))

INTR = SimpleNamespace(width=640, height=480, fx=320.0, fy=320.0, cx=320.0, cy=240.0)


def test_convention_conversion_matches_hand_written_poses_and_is_an_involution():
    np.testing.assert_allclose(g.opengl_to_opencv(LOOK_X_GL), LOOK_X_CV)
    np.testing.assert_allclose(g.opencv_to_opengl(LOOK_X_CV), LOOK_X_GL)
    np.testing.assert_allclose(g.opengl_to_opencv(np.stack([LOOK_X_GL, LOOK_Y_GL])),
                               np.stack([LOOK_X_CV, LOOK_Y_CV]))
    np.testing.assert_allclose(g.opencv_to_opengl(g.opengl_to_opencv(LOOK_Y_GL)), LOOK_Y_GL)


@pytest.mark.parametrize("pose", [LOOK_X_CV, g.opengl_to_opencv(LOOK_X_GL)])
@pytest.mark.parametrize("target, expected", [
    ((0, 1, 0.0), 90.0),       # to the left
    ((0, -1, 3.0), -90.0),     # to the right, height does not matter
    ((1, 1, 0.0), 45.0),
    ((1, -1, 9.0), -45.0),
    ((5, 0, 0.0), 0.0),        # straight ahead
])
def test_direction_camera_looking_along_x(pose, target, expected):
    assert g.egocentric_direction(pose, target) == pytest.approx(expected)


@pytest.mark.parametrize("pose", [LOOK_X_CV, g.opengl_to_opencv(LOOK_X_GL)])
def test_target_behind_is_plus_or_minus_180(pose):
    assert g.egocentric_direction(pose, (-3, 0, 1.5)) == 180.0      # exactly behind: one value
    assert g.egocentric_direction(pose, (-3, 1e-6, 0)) == pytest.approx(180.0, abs=1e-4)
    assert g.egocentric_direction(pose, (-3, -1e-6, 0)) == pytest.approx(-180.0, abs=1e-4)


@pytest.mark.parametrize("pose", [LOOK_Y_CV, g.opengl_to_opencv(LOOK_Y_GL)])
def test_direction_from_offset_camera_looking_along_y(pose):
    # Facing +y, the left is -x.
    assert g.egocentric_direction(pose, (1, 3, 0)) == pytest.approx(90.0)
    assert g.egocentric_direction(pose, (3, 3, 0)) == pytest.approx(-90.0)
    assert g.egocentric_direction(pose, (2, 0, 0)) == pytest.approx(180.0)
    assert g.egocentric_direction(pose, (1, 4, 0)) == pytest.approx(45.0)


def test_pitched_camera_keeps_its_ground_heading():
    c, s = np.cos(np.radians(30)), np.sin(np.radians(30))
    # Looking along +x, tilted 30 degrees down: forward (c, 0, -s), down (-s, 0, -c).
    tilted = cv_pose((0, -1, 0), (-s, 0, -c), (c, 0, -s), (0, 0, 1.5))
    np.testing.assert_allclose(g.forward_on_ground(tilted), [1, 0], atol=1e-12)
    assert g.egocentric_direction(tilted, (0, 2, 0)) == pytest.approx(90.0)


def test_camera_looking_straight_down_uses_image_up_as_heading():
    # Image up (-y_cam) points to world +y.
    down = cv_pose((1, 0, 0), (0, -1, 0), (0, 0, -1), (0, 0, 3))
    np.testing.assert_allclose(g.forward_on_ground(down), [0, 1], atol=1e-12)


def test_distance_is_euclidean_from_camera_centre():
    assert g.egocentric_distance(LOOK_X_CV, (3, 4, 1.5)) == pytest.approx(5.0)
    assert g.egocentric_distance(g.opengl_to_opencv(LOOK_X_GL), (0, 3, 5.5)) == pytest.approx(5.0)
    np.testing.assert_allclose(g.camera_center(LOOK_Y_GL), [2, 3, 1.5])


def test_vectorised_over_poses_and_targets_equals_one_at_a_time():
    rng = np.random.default_rng(0)
    yaw = rng.uniform(-np.pi, np.pi, 50)
    poses = np.stack([cv_pose((np.sin(a), -np.cos(a), 0), (0, 0, -1), (np.cos(a), np.sin(a), 0),
                              rng.uniform(-5, 5, 3)) for a in yaw])
    targets = rng.uniform(-5, 5, (50, 3))
    batch = g.egocentric_direction(poses, targets)
    single = [float(g.egocentric_direction(p, t)) for p, t in zip(poses, targets)]
    np.testing.assert_allclose(batch, single)
    assert batch.shape == (50,)
    assert ((batch >= -180) & (batch <= 180)).all()
    # One pose against many targets broadcasts too.
    assert g.egocentric_distance(poses[0], targets).shape == (50,)
    # Direction equals the yaw difference when the target is along a known bearing.
    bearing = yaw + 0.5
    ahead = g.camera_center(poses) + np.stack([np.cos(bearing), np.sin(bearing), np.zeros(50)], -1)
    np.testing.assert_allclose(g.egocentric_direction(poses, ahead), np.degrees(0.5) * np.ones(50))


def test_quaternion_rotation_about_z():
    q = [0, 0, np.sin(np.pi / 4), np.cos(np.pi / 4)]      # +90 degrees about z
    np.testing.assert_allclose(g.quaternion_to_matrix(q) @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    np.testing.assert_allclose(g.quaternion_to_matrix([0, 0, 0, 2]), np.eye(3))  # normalised
    assert g.quaternion_to_matrix(np.tile(q, (5, 1))).shape == (5, 3, 3)


def test_rigid_problems_names_what_is_wrong():
    scaled = LOOK_X_CV.copy()
    scaled[:3, :3] *= 2
    mirrored = LOOK_X_CV @ np.diag([-1.0, 1, 1, 1])
    nan = LOOK_X_CV.copy()
    nan[0, 3] = np.nan
    row = LOOK_X_CV.copy()
    row[3, 0] = 1
    out = g.rigid_problems(np.stack([LOOK_X_CV, scaled, mirrored, nan, row, LOOK_Y_GL]))
    assert out[0] is None and out[5] is None
    assert "orthonormal" in out[1]
    assert "determinant" in out[2]
    assert "NaN" in out[3]
    assert "last row" in out[4]


# A map 50 px per metre, world y up drawn as image y down, origin at pixel (100, 400).
W = np.array([[50.0, 0.0, 100.0], [0.0, -50.0, 400.0]])


def test_world_to_pixel_and_back():
    np.testing.assert_allclose(g.world_to_pixel(W, [1, 5]), [150, 150])
    np.testing.assert_allclose(g.world_to_pixel(W, [[1, 5, 9], [0, 0, 0]]), [[150, 150], [100, 400]])
    a = np.radians(30)
    rotated = np.array([[40 * np.cos(a), -40 * np.sin(a), 7], [-40 * np.sin(a), -40 * np.cos(a), 300]])
    xy = np.random.default_rng(1).uniform(-10, 10, (20, 2))
    for M in (W, rotated):
        np.testing.assert_allclose(g.pixel_to_world(M, g.world_to_pixel(M, xy)), xy, atol=1e-9)


def test_normalisation_floors_and_clamps():
    px = np.array([[0, 0], [320, 256], [1, 1], [639.99, 511.99], [640, 512], [-3, 900], [1e6, -1]])
    out = g.pixel_to_normalised(px, 640, 512)
    np.testing.assert_array_equal(out, [[0, 0], [500, 500], [1, 1], [999, 999], [999, 999],
                                        [0, 999], [999, 0]])
    assert out.dtype.kind == "i"


def test_normalised_to_pixel_is_the_cell_centre_and_round_trips():
    np.testing.assert_allclose(g.normalised_to_pixel([0, 999], 1000, 2000), [0.5, 1999.0])
    pts = np.array([[0, 0], [391, 698], [999, 999], [500, 1]])
    back = g.pixel_to_normalised(g.normalised_to_pixel(pts, 640, 512), 640, 512)
    np.testing.assert_array_equal(back, pts)


# Facing world -x and -y, by hand in each convention.
MINUS_X_CV = cv_pose((0, 1, 0), (0, 0, -1), (-1, 0, 0))
MINUS_X_GL = gl_pose((0, 1, 0), (0, 0, 1), (1, 0, 0))
MINUS_Y_CV = cv_pose((-1, 0, 0), (0, 0, -1), (0, -1, 0))
MINUS_Y_GL = gl_pose((-1, 0, 0), (0, 0, 1), (0, 1, 0))


@pytest.mark.parametrize("convention", ["opencv", "opengl"])
def test_map_heading_north_up_map(convention):
    """0 = image up, left on the image positive; W draws world +y as image up."""
    poses = ([LOOK_Y_CV, LOOK_X_CV, MINUS_X_CV, MINUS_Y_CV] if convention == "opencv" else
             [g.opengl_to_opencv(p) for p in (LOOK_Y_GL, LOOK_X_GL, MINUS_X_GL, MINUS_Y_GL)])
    h = g.map_heading(np.stack(poses), W)
    np.testing.assert_allclose(h[:3], [0.0, -90.0, 90.0], atol=1e-9)   # up, image right, image left
    assert abs(h[3]) == pytest.approx(180.0)


def test_map_heading_with_y_down_map_and_diagonal():
    # This map draws world +y downward (no mirroring of the image).
    W_down = np.array([[10.0, 0.0, 0.0], [0.0, 10.0, 0.0]])
    r = 1 / np.sqrt(2)
    diag = cv_pose((-r, r, 0), (0, 0, -1), (r, r, 0))           # facing world (1, 1)
    assert g.map_heading(diag, W_down) == pytest.approx(-135.0)  # image down-right
    assert g.map_heading(diag, W) == pytest.approx(-45.0)        # image up-right
    assert g.map_heading(np.stack([diag, LOOK_Y_CV]), W).shape == (2,)


@pytest.mark.parametrize("pose", [LOOK_X_CV, g.opengl_to_opencv(LOOK_X_GL)])
def test_frustum_corners_and_projection(pose):
    corners = g.frustum_corners(pose, INTR, 2.0)
    # Looking along +x from (0, 0, 1.5): image left is world +y, image top is world +z.
    np.testing.assert_allclose(corners, [[2, 2, 3.0], [2, -2, 3.0], [2, -2, 0.0], [2, 2, 0.0]])
    uv, depth = g.project(pose, INTR, corners)
    np.testing.assert_allclose(uv, [[0, 0], [640, 0], [640, 480], [0, 480]], atol=1e-9)
    np.testing.assert_allclose(depth, 2.0)
    uv, depth = g.project(pose, INTR, (5, 0, 1.5))
    np.testing.assert_allclose(uv, [320, 240])
    assert depth == pytest.approx(5.0)
    _, behind = g.project(pose, INTR, (-1, 0, 1.5))
    assert behind < 0
    assert g.frustum_corners(np.stack([pose, pose, pose]), INTR, 1.0).shape == (3, 4, 3)
