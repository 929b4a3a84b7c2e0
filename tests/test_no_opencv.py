"""The app runs without OpenCV (issue 18, footprint): video through PyAV, images through Pillow.

OpenCV is a dependency of the demo generator only (viewer/demo/opencv.py,
`pip install "gst-viewer[demo]"`), and the packaged app leaves it out. Two
guards: no module of the app imports cv2 (read from the source, so a new
`import cv2` fails here even where no test reaches it), and a fresh
interpreter in which `import cv2` raises reads the demo's videos and images,
runs the self-test (tiny release and bundled demo, window included), imports
a scene, audits the demo (its choice checks read option images), writes clips,
and refuses `make-demo` with the install hint.
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
VIEWER = REPO / "viewer"
DEMO_OPENCV = VIEWER / "demo" / "opencv.py"


def _imported_modules(path: Path) -> set[str]:
    """Absolute names of the modules `path` imports, relative imports resolved against its package."""
    package = path.relative_to(REPO).with_suffix("").parts[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names.add(module)
            names.update(f"{module}.{a.name}" for a in node.names)
    return names


def test_only_the_demo_generator_imports_opencv():
    offenders = []
    for path in sorted(VIEWER.rglob("*.py")):
        names = _imported_modules(path)
        if path != DEMO_OPENCV and any(n == "cv2" or n.startswith("cv2.") for n in names):
            offenders.append(f"{path.relative_to(REPO)} imports cv2 (use viewer.render.image_io / PyAV)")
        if "viewer.demo.opencv" in names and VIEWER / "demo" not in path.parents:
            offenders.append(f"{path.relative_to(REPO)} imports viewer.demo.opencv outside the demo generator")
    assert not offenders, "\n".join(offenders)


WITHOUT_CV2 = r'''
import sys
sys.modules["cv2"] = None                  # `import cv2` raises ImportError from here on
import io
from pathlib import Path

import numpy as np

demo, tmp = Path(sys.argv[1]), Path(sys.argv[2])

from viewer.render.video import VideoReader
video = sorted(demo.glob("scenes/*/videos/video_0.mp4"))[0]
reader = VideoReader(str(video))
assert reader.frame(7).shape == (reader.height, reader.width, 3) and reader.frame(7).dtype == np.uint8
reader.close()

from viewer.render.image_io import read_rgb
for pattern in ("scenes/*/views/*.jpg", "scenes/*/topdown/*.png", "scenes/*/trajectories/*.png"):
    image = read_rgb(sorted(demo.glob(pattern))[0])
    assert image.ndim == 3 and image.shape[2] == 3, pattern

from viewer.render.evidence import draw_walk
walked = draw_walk(np.full((64, 80, 3), 235, np.uint8), np.array([[10.0, 10.0], [70.0, 50.0]]))
assert (walked != 235).any()

from viewer.render.clip_writer import open_clip_writer
for name in ("c.mp4", "c.gif"):
    w = open_clip_writer(tmp / name, 10, (64, 48))
    for k in range(5):
        w.write(np.full((48, 64, 3), 40 * k, np.uint8))
    w.close()
    assert (tmp / name).stat().st_size > 0, name

from viewer import selftest
for args in (["--tiny", "--save", str(tmp / "saved")], []):   # the tiny release, then the bundled demo
    out = io.StringIO()
    assert selftest.main(args, out=out) == 0, out.getvalue()
assert read_rgb(tmp / "saved" / "selftest-view.png").shape[2] == 3

import trimesh
from viewer.render.scene_import import ImportRequest, import_scene
room = trimesh.creation.box(extents=(6, 4, 2.5))
room.apply_translation((3, 2, 1.25))
room.export(str(tmp / "room.ply"))
import_scene(ImportRequest(str(tmp / "imported"), mesh=str(tmp / "room.ply")))
assert sorted(p.name for p in (tmp / "imported").rglob("*.png")), "no map written"

from viewer.cli import main
assert main(["audit", str(demo), "--json"]) in (0, 1)
assert main(["make-demo", str(tmp / "demo"), "--scenes", "1"]) == 2

assert sys.modules["cv2"] is None
print("ran without cv2")
'''


@pytest.mark.slow
def test_the_app_runs_where_opencv_cannot_be_imported(tmp_path):
    demo = REPO / "assets" / "demo"
    if not demo.is_dir():
        pytest.skip("no bundled demo in assets/demo")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-c", WITHOUT_CV2, str(demo), str(tmp_path)], cwd=tmp_path,
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "ran without cv2" in r.stdout
    assert 'pip install "gst-viewer[demo]"' in r.stderr          # make-demo's refusal says what to install
