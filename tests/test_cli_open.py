"""Starting the window from the command line: what happens without a screen or a release."""
import os
import subprocess
import sys

import pytest


def _run(args, env_drop=(), **env_set):
    env = {k: v for k, v in os.environ.items() if k not in env_drop}
    env.update(env_set)
    return subprocess.run([sys.executable, "-m", "viewer", *args], capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland display variables")
def test_no_display_is_a_clear_message_not_a_qt_abort():
    p = _run([], env_drop=("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))
    assert p.returncode == 2
    assert p.stderr.startswith("gst-viewer: no display") and "Traceback" not in p.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland display variables")
def test_screenshot_without_a_display_draws_offscreen(tmp_path, real_samples):
    out = tmp_path / "shot.png"
    p = _run([str(real_samples), "--screenshot", str(out), "--size", "800x500"],
             env_drop=("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_release_is_one_line_before_any_window(tmp_path):
    p = _run([str(tmp_path / "nope"), "--screenshot", str(tmp_path / "x.png")])
    assert p.returncode == 2
    assert p.stderr.strip() == f"gst-viewer: {tmp_path / 'nope'}: no such file or folder"
