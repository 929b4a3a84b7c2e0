"""`gst-viewer --selftest`: its report, its exit status, and that it catches what it claims to."""
import io
import os
import shutil
import subprocess
import sys

import pytest

from viewer import selftest
from viewer.assets import assets_dir

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args, capsys=None):
    out = io.StringIO()
    code = selftest.main(args, out=out)
    return code, out.getvalue()


def status(report: str) -> dict:
    """step name -> PASS/FAIL/SKIP, from the report lines."""
    steps = {}
    for line in report.splitlines():
        parts = line.split()
        if parts and parts[0] in ("PASS", "FAIL", "SKIP"):
            steps[parts[1]] = parts[0]
    return steps


def test_tiny_release_passes_every_step_but_the_skipped_window():
    code, report = run(["--tiny", "--no-window"])
    assert code == 0, report
    assert status(report) == {"release": "PASS", "scoring": "PASS", "render": "PASS",
                              "video": "PASS", "processes": "PASS", "window": "SKIP"}
    assert "2 prediction files scored in spawned worker processes" in report and "the same scores" in report
    assert report.startswith("gst-viewer ")
    assert "tiny release generated in" in report and "(--tiny)" in report
    assert "tiny release scores as expected" in report
    assert "5 questions, 1 scenes, 5 columns, 2 prediction files" in report
    assert "versions: numpy" in report and "open3d" in report
    assert report.rstrip().splitlines()[-1].startswith("self-test passed in")


def test_window_step_opens_the_release_offscreen(qapp):
    code, report = run(["--tiny"])
    assert code == 0, report
    assert status(report)["window"] == "PASS"
    assert "5 questions, 2 models" in report
    assert "3D view (OpenGL) drew 84 triangles" in report or "3D view not checked" in report
    assert "PyQt6" in report


def test_saves_the_rendered_images(tmp_path):
    code, report = run(["--tiny", "--no-window", "--save", str(tmp_path)])
    assert code == 0, report
    from viewer.render.image_io import read_rgb
    view = read_rgb(tmp_path / "selftest-view.png")
    top = read_rgb(tmp_path / "selftest-map.png")
    assert view.shape == (120, 160, 3) and top.shape == (512, 640, 3)


def test_a_failing_step_fails_the_run_with_its_reason(monkeypatch, capsys):
    def broken(session, save):
        raise selftest.SelftestFailure("the view shows almost nothing (0% of pixels hit)")
    monkeypatch.setattr(selftest, "_render", broken)
    code, report = run(["--tiny", "--no-window"])
    assert code == selftest.EXIT_FAILED
    assert status(report)["render"] == "FAIL" and status(report)["video"] == "PASS"
    assert "self-test FAILED (render)" in report
    err = capsys.readouterr().err
    assert "self-test: render failed: the view shows almost nothing" in err


def test_an_unexpected_exception_is_a_failure_not_a_traceback(monkeypatch, capsys):
    def broken(session, save):
        raise RuntimeError("libOpen3D.so: cannot open shared object file")
    monkeypatch.setattr(selftest, "_render", broken)
    code, report = run(["--tiny", "--no-window"])
    assert code == 1
    assert "RuntimeError: libOpen3D.so" in report
    assert "Traceback" not in capsys.readouterr().err


def test_wrong_scores_are_caught(monkeypatch):
    monkeypatch.setitem(selftest.ROUGH_EXPECTED, "Ori", 50.0)
    code, report = run(["--tiny", "--no-window"])
    assert code == 1
    assert status(report)["scoring"] == "FAIL"
    assert "rough answers score 33.3" in report and "on Ori, expected 50.0" in report


def test_unreadable_release_fails_and_skips_what_needs_it(tmp_path):
    code, report = run(["--release", str(tmp_path / "nowhere"), "--no-window"])
    assert code == 1
    assert status(report) == {"release": "FAIL", "scoring": "SKIP", "render": "SKIP",
                              "video": "SKIP", "processes": "SKIP", "window": "SKIP"}
    assert "no such file or folder" in report


def test_without_a_bundled_demo_it_says_so_and_uses_the_tiny_release(tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_ASSETS", str(tmp_path / "empty-assets"))
    code, report = run(["--no-window"])
    assert code == 0, report
    assert f"no bundled demo at {tmp_path / 'empty-assets' / 'demo'}" in report


@pytest.mark.skipif(not (assets_dir() / "demo").is_dir(), reason="no bundled demo in assets/demo yet")
def test_bundled_demo_passes():
    code, report = run(["--no-window"])
    assert code == 0, report
    assert "bundled demo at" in report
    assert status(report)["render"] == "PASS"


def test_command_line_entry_python_m_viewer():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    p = subprocess.run([sys.executable, "-m", "viewer", "--selftest", "--tiny", "--no-window"],
                       capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "self-test passed" in p.stdout


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run not installed")
def test_on_a_virtual_x_screen_the_3d_view_is_drawn_with_opengl():
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    p = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", sys.executable, "-m", "viewer",
                        "--selftest", "--tiny"], capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "on platform 'xcb'" in p.stdout
    assert "3D view (OpenGL) drew 84 triangles" in p.stdout


def test_the_processes_step_fails_when_the_workers_score_otherwise(monkeypatch):
    """Scores from the worker processes that differ from those made here are caught and named."""
    from viewer.core import session as core_session
    real = core_session.result_of          # what makes a result of a worker's payload

    def off(*a, **k):
        r = real(*a, **k)
        r.score = r.score.copy()
        r.score[0] = 0.5 if r.score[0] != 0.5 else 0.25
        return r
    monkeypatch.setattr(core_session, "result_of", off)
    code, report = run(["--tiny", "--no-window"])
    assert code == 1
    assert status(report)["processes"] == "FAIL" and "differ from the scores made here" in report


def test_the_processes_step_fails_when_no_worker_starts(monkeypatch):
    """A packaged build without freeze_support starts the app in each worker, and no file is scored: said."""
    from viewer.core import scoring_pool
    monkeypatch.setattr(scoring_pool.ScoringPool, "start", lambda self, release, profile: False)
    code, report = run(["--tiny", "--no-window"])
    assert code == 1
    assert status(report)["processes"] == "FAIL" and "no scoring worker could be started" in report
