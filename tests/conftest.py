import os
import shutil
from pathlib import Path

import pytest

# GUI tests run headless; set before any Qt import.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import scene_release  # noqa: E402
from published_samples import FIXTURES  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def isolated_user_data(tmp_path_factory):
    """Flags, settings and caches written during tests never reach the real home folder."""
    folder = tmp_path_factory.mktemp("user-data")
    old = {k: os.environ.get(k) for k in ("GST_VIEWER_DATA", "GST_VIEWER_CACHE", "XDG_CONFIG_HOME",
                                          "XDG_DATA_HOME")}
    os.environ["GST_VIEWER_DATA"] = str(folder / "gst-viewer")
    os.environ["GST_VIEWER_CACHE"] = str(folder / "cache")         # red-box scans (render/redbox.py)
    os.environ["XDG_CONFIG_HOME"] = str(folder / "config")
    os.environ["XDG_DATA_HOME"] = str(folder / "data")
    yield folder
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture
def real_samples(tmp_path) -> Path:
    """A writable copy of the six published samples (the originals stay untouched)."""
    if not FIXTURES.is_dir():
        pytest.skip(f"fixtures not found at {FIXTURES}")
    dst = tmp_path / "gst-bench-page"
    shutil.copytree(FIXTURES, dst)
    for p in dst.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return dst


@pytest.fixture
def make_scene():
    """Factory: make_scene(root, scene, edit=None, text=None, placeholders=False) writes a Scene
    (typed values) as root/scenes/<id>/scene.json through the one gst-scene/1 writer; returns the folder."""
    return scene_release.write_scene_folder


@pytest.fixture
def make_release_with_scene():
    """Factory: make_release_with_scene(root, scene, records, **make_scene options) writes the scene
    and questions.jsonl; returns root."""
    return scene_release.write_release_with_scene


@pytest.fixture(scope="session")
def settings_demo(tmp_path_factory) -> Path:
    """A small generated release with the Global/Local setting variants (2 scenes), made once per run."""
    from viewer.demo.generate import generate_demo
    from viewer.demo.scenebuild import DemoConfig
    out = tmp_path_factory.mktemp("settings") / "release"
    generate_demo(out, scenes=2, seed=3, with_settings=True, log=lambda m: None,
                  config=DemoConfig(width=160, height=128, map_width=200, map_height=160, per_column=2,
                                    viewpoints=24, distractors=2))
    return out
