"""The wheel, built from this checkout, installed into a fresh venv (dependencies
resolved by pip, nothing shared with the dev venv), passes `gst-viewer --selftest`
headless and finds its demo inside the package. About a minute on the CI
machine, mostly pip installing open3d, PyQt6 and PyAV."""
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

import viewer

REPO = Path(__file__).resolve().parent.parent
# What the wheel is built from (what an sdist would carry, see MANIFEST.in).
SOURCES = ("viewer", "assets", "docs", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "CHANGELOG.md")


def _run(cmd, timeout, **kw):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p, time.perf_counter() - t0


def _clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME",
                                                              "DISPLAY", "WAYLAND_DISPLAY", "GST_VIEWER_ASSETS")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_passes_the_selftest(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".*"))
        elif path.is_file():
            shutil.copy2(path, src / name)
    env = _clean_env()
    timings = {}

    _, timings["build wheel"] = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                                      "-w", str(tmp_path / "dist"), str(src)], 600, env=env)
    wheel = next((tmp_path / "dist").glob("gst_viewer-*.whl"))
    assert wheel.name.startswith(f"gst_viewer-{viewer.__version__}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {str(p.relative_to(REPO).as_posix()) for p in (REPO / "viewer").rglob("__init__.py")}
    assert packages <= names, f"packages missing from the wheel: {sorted(packages - names)}"
    assert "viewer/_assets/README.md" in names
    demo = REPO / "assets" / "demo"
    if demo.is_dir():
        shipped = {f"viewer/_assets/demo/{p.relative_to(demo).as_posix()}" for p in demo.rglob("*")
                   if p.is_file() and not any(part.startswith(".") for part in p.relative_to(demo).parts)}
        assert shipped <= names, f"demo files missing from the wheel: {sorted(shipped - names)[:5]}"
    assert not any(n.startswith(("tests/", "packaging/", "assets/")) for n in names)

    venv = tmp_path / "venv"
    # No pip of its own (ensurepip takes ~10 s): this pip installs into it (pip >= 22.3).
    _, timings["venv"] = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], 300, env=env)
    py, exe = venv / "bin" / "python", venv / "bin" / "gst-viewer"
    _, timings["pip install"] = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q",
                                      str(wheel)], 1800, env=env)

    work = tmp_path / "elsewhere"          # not the checkout: nothing may come from it
    work.mkdir()
    p, timings["selftest"] = _run([str(exe), "--selftest"], 600, env=env, cwd=work)
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    where = site / "viewer" / "_assets" / "demo"
    if demo.is_dir():
        assert f"bundled demo at {where}" in p.stdout, p.stdout
    else:
        assert f"no bundled demo at {where}" in p.stdout, p.stdout
    assert "self-test passed" in p.stdout
    assert "PASS  window" in p.stdout and "PASS  render" in p.stdout

    p, _ = _run([str(py), "-m", "viewer", "--version"], 120, env=env, cwd=work)
    assert p.stdout.strip() == f"gst-viewer {viewer.__version__}"
    print("wheel test timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
