import os
import subprocess
import sys

import numpy as np
import pytest
import scene_release as sr

from viewer.render.lod import cluster_decimate, decimate_to
from viewer.render.video import VideoError, VideoReader


def test_demo_import_cv2_leaves_qt_environment_alone():
    pytest.importorskip("cv2")
    code = (
        "import os\n"
        "before = {k: os.environ.get(k) for k in ('QT_QPA_PLATFORM_PLUGIN_PATH', 'QT_QPA_FONTDIR', "
        "'LD_LIBRARY_PATH')}\n"
        "from viewer.demo.opencv import import_cv2\n"
        "import_cv2()\n"
        "after = {k: os.environ.get(k) for k in before}\n"
        "assert before == after, (before, after)\n"
        # cv2 already imported: a PyQt6 window must still start with Qt's own plugins.
        "from PyQt6.QtWidgets import QApplication, QLabel\n"
        "app = QApplication([])\n"
        "w = QLabel('x'); w.show(); app.processEvents()\n"
        "print('ok', app.platformName())\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env.pop("QT_QPA_PLATFORM_PLUGIN_PATH", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok offscreen")


def test_reader_random_access_and_sequential(tmp_path):
    path = tmp_path / "v.mp4"
    if not sr.write_video(path, 12):
        pytest.skip("no H.264 encoder in this PyAV build")
    r = VideoReader(str(path))
    assert (r.n_frames, r.width, r.height) == (12, 64, 48)
    levels = [int(r.frame(k).mean()) for k in range(12)]
    assert all(abs(a - 20 * k) <= 6 for k, a in enumerate(levels))   # lossy codec, small drift
    assert abs(int(r.frame(3).mean()) - 60) <= 6                    # seek back
    assert r.frame(99).shape == (48, 64, 3)                          # clamped to the last frame
    r.close()


def test_reader_explains_bad_files(tmp_path):
    with pytest.raises(VideoError, match="file not found"):
        VideoReader(str(tmp_path / "missing.mp4"))
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"junk" * 500)
    with pytest.raises(VideoError, match="bad.mp4"):
        VideoReader(str(bad))


def _grid(n):
    """An n x n grid of squares, 2 n^2 triangles, on [0, 1]^2."""
    u = np.linspace(0, 1, n + 1)
    x, y = np.meshgrid(u, u)
    v = np.stack([x.ravel(), y.ravel(), np.zeros(x.size)], axis=1)
    i = np.arange(n)
    a = (i[:, None] * (n + 1) + i[None, :]).ravel()
    t = np.concatenate([np.stack([a, a + 1, a + n + 2], 1), np.stack([a, a + n + 2, a + n + 1], 1)])
    return v, t


def test_cluster_decimate_merges_and_drops_collapsed_triangles():
    v, t = _grid(100)
    nv, nt, kept = cluster_decimate(v, t, 0.1)
    assert len(nt) < len(t) / 50 and len(nt) > 0
    assert nt.max() < len(nv)
    assert np.all((nt[:, 0] != nt[:, 1]) & (nt[:, 1] != nt[:, 2]) & (nt[:, 0] != nt[:, 2]))
    assert kept.shape == (len(nt),) and kept.max() < len(t)
    # The coarse surface still covers the square.
    assert nv[:, 0].min() < 0.06 and nv[:, 0].max() > 0.94


def test_decimate_to_respects_the_budget_and_leaves_small_meshes():
    v, t = _grid(200)                                            # 80,000 triangles
    nv, nt, kept = decimate_to(v, t, 5000)
    assert 0 < len(nt) <= 5000
    small_v, small_t, small_kept = decimate_to(v[:10], t[:3], 5000)
    assert len(small_t) == 3 and list(small_kept) == [0, 1, 2]
