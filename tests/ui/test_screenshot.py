"""`gst-viewer --screenshot`, headless: offscreen, and under Xvfb where the 3D view has OpenGL."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import scene_release as sr  # noqa: E402

POS_UID = "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4"
EXE = [sys.executable, "-m", "viewer"]


def _env(**extra):
    env = dict(os.environ, **extra)
    env.pop("QT_QPA_PLATFORM_PLUGIN_PATH", None)
    return env


def _pixels(path: Path) -> np.ndarray:
    from PyQt6.QtGui import QImage

    from viewer.ui.images import qimage_to_array
    img = QImage(str(path))
    assert not img.isNull(), f"{path} is not an image"
    return qimage_to_array(img)


def _count_color(rgb: np.ndarray, color, tol=12) -> int:
    return int(np.all(np.abs(rgb.astype(int) - np.array(color)) <= tol, axis=-1).sum())


def test_screenshot_of_a_real_sample_shows_the_truth_point(tmp_path, real_samples):
    out = tmp_path / "pos.png"
    r = subprocess.run(EXE + [str(real_samples), "--uid", POS_UID, "--screenshot", str(out),
                              "--size", "1400x900"],
                       env=_env(QT_QPA_PLATFORM="offscreen"), capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    rgb = _pixels(out)
    assert rgb.shape == (900, 1400, 3)
    # The ground-truth star (0, 170, 80) is drawn on the map: a blob of its green,
    # and the map's black/white pixels around it.
    assert _count_color(rgb, (0, 170, 80)) > 80
    assert _count_color(rgb, (0, 0, 0), 2) > 20000 and _count_color(rgb, (255, 255, 255), 2) > 20000


def test_screenshot_unknown_uid_is_a_user_error(tmp_path, real_samples):
    out = tmp_path / "x.png"
    r = subprocess.run(EXE + [str(real_samples), "--uid", "nope", "--screenshot", str(out)],
                       env=_env(QT_QPA_PLATFORM="offscreen"), capture_output=True, text=True, timeout=180)
    assert r.returncode == 2
    assert "--uid nope" in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def test_screenshot_bad_size_is_a_user_error(tmp_path, real_samples):
    r = subprocess.run(EXE + [str(real_samples), "--screenshot", str(tmp_path / "x.png"), "--size", "huge"],
                       env=_env(QT_QPA_PLATFORM="offscreen"), capture_output=True, text=True, timeout=180)
    assert r.returncode == 2 and "--size 'huge'" in r.stderr


_XVFB_3D = """
import sys, time
sys.path.insert(0, {tests!r})
from PyQt6.QtCore import QSettings
from viewer.ui.app import make_app
app = make_app()
from viewer.ui.main_window import MainWindow
from viewer.ui.view3d import opengl_problem
w = MainWindow(QSettings({ini!r}, QSettings.Format.IniFormat)); w.resize(1400, 900); w.show()
w.open_release({root!r}, [{preds!r}], {uid!r})
def pump(cond, limit=60):
    t = time.time()
    while not cond() and time.time() - t < limit:
        app.processEvents(); time.sleep(0.01)
pump(lambda: w.state.geometry is not None)
assert opengl_problem() is None, opengl_problem()
w.sample_view.tabs.setCurrentIndex(1)
pump(lambda: w.jobs.pending == 0 and 'triangles' in w.sample_view.view3d.info.text())
for _ in range(20): app.processEvents()
img = w.sample_view.view3d.view.grabFramebuffer()
img.save({out!r})
print(w.sample_view.view3d.info.text())
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run not installed")
def test_3d_view_draws_under_xvfb(tmp_path):
    root = sr.build(tmp_path / "release")
    out = tmp_path / "3d.png"
    script = _XVFB_3D.format(tests=str(Path(__file__).resolve().parent.parent), ini=str(tmp_path / "s.ini"),
                             root=str(root), preds=str(root / "m1.jsonl"), uid=sr.UIDS["ED_v"], out=str(out))
    env = _env()
    env.pop("QT_QPA_PLATFORM", None)
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", sys.executable, "-c", script],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "triangles" in r.stdout
    rgb = _pixels(out)
    # The target's box is drawn in red over the scene, the ground-truth ray in green.
    assert _count_color(rgb, (230, 30, 30), 40) > 30
    assert _count_color(rgb, (0, 170, 80), 40) > 30


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run not installed")
def test_screenshot_under_xvfb(tmp_path, real_samples):
    out = tmp_path / "pos.png"
    env = _env()
    env.pop("QT_QPA_PLATFORM", None)
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24"] + EXE
                       + [str(real_samples), "--uid", POS_UID, "--screenshot", str(out)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    rgb = _pixels(out)
    assert rgb.shape == (1000, 1600, 3)
    assert _count_color(rgb, (0, 170, 80)) > 80


_XVFB_CLOUD = """
import numpy as np
from PyQt6.QtWidgets import QApplication
from viewer.ui.app import make_app
app = make_app()
import pyqtgraph.opengl as gl
from viewer.core import primitives as pr
from types import SimpleNamespace
from PyQt6.QtGui import QColor
from viewer.ui.view3d import BACKGROUND, View3DPanel
view = gl.GLViewWidget()
view.setBackgroundColor(QColor(*BACKGROUND))
view.resize(400, 400)
view.show()
panel = SimpleNamespace(view=view, _overlay_items=[])        # what View3DPanel._cloud draws into
pts = np.random.default_rng(0).uniform(-5, 5, (4000, 3))
colors = np.tile(np.array([[230, 40, 40]], np.uint8), (4000, 1))
View3DPanel._cloud(panel, gl, pr.PointCloud(pr.PATH, None, (), 0, points=pts, colors=colors))
view.setCameraPosition(distance=25)
for _ in range(10):
    app.processEvents()
view.grabFramebuffer().save({out!r})
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run not installed")
def test_a_point_cloud_is_drawn_in_its_colours_on_the_light_background(tmp_path):
    """pyqtgraph adds points to what is behind them by default: on the 3D view's light background a red
    cloud came out white. Drawn blended, its points keep their (darkened) colour."""
    out = tmp_path / "cloud.png"
    env = _env()
    env.pop("QT_QPA_PLATFORM", None)
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", sys.executable, "-c",
                        _XVFB_CLOUD.format(out=str(out))], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    rgb = _pixels(out)
    assert _count_color(rgb, (138, 24, 24), 30) > 200                  # 230, 40, 40 darkened by CLOUD_SHADE
    assert _count_color(rgb, (255, 255, 255), 10) < 20
