"""render/image_io.py: Pillow reads images to the pixels OpenCV's imread gave (OpenCV only as the reference)."""
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from viewer.render.image_io import encode_png, read_rgb, write_png

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"


def _cv2_rgb(path):
    pytest.importorskip("cv2")
    from viewer.demo.opencv import import_cv2
    cv2 = import_cv2()
    return cv2.cvtColor(cv2.imread(str(path), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


@pytest.mark.skipif(not DEMO.is_dir(), reason="no bundled demo")
def test_the_demo_images_read_as_opencv_read_them():
    files = [sorted(DEMO.glob(p))[0] for p in ("scenes/*/views/*.jpg", "scenes/*/topdown/*.png",
                                                "scenes/*/trajectories/*.png", "scenes/*/options/**/*.*")]
    for f in files:
        assert np.array_equal(read_rgb(f), _cv2_rgb(f)), f.name


def _write(tmp_path, name, image, **save):
    path = tmp_path / name
    image.save(path, **save)
    return path


def test_other_modes_and_exif_orientation_as_opencv(tmp_path):
    rng = np.random.default_rng(0)
    rgb = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    rgba = np.dstack([rgb, rng.integers(0, 256, (30, 40), dtype=np.uint8)])
    exif = Image.Exif()
    exif[0x0112] = 6                                       # orientation: rotate 90 clockwise to show
    paths = [
        _write(tmp_path, "gray.png", Image.fromarray(rgb[:, :, 0])),
        _write(tmp_path, "rgba.png", Image.fromarray(rgba)),
        _write(tmp_path, "palette.png", Image.fromarray(rgb).quantize(16)),
        _write(tmp_path, "deep.png", Image.fromarray(rng.integers(0, 65536, (30, 40)).astype(np.uint16))),
        _write(tmp_path, "turned.jpg", Image.fromarray(rgb), exif=exif.tobytes(), quality=95),
    ]
    for p in paths:
        got = read_rgb(p)
        assert got.shape[2] == 3 and got.dtype == np.uint8, p.name
        assert np.array_equal(got, _cv2_rgb(p)), p.name
    assert read_rgb(paths[-1]).shape == (40, 30, 3)         # turned as the EXIF says


def test_unreadable_files_name_themselves(tmp_path):
    with pytest.raises(OSError, match="missing.png: file not found"):
        read_rgb(tmp_path / "missing.png")
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not an image")
    with pytest.raises(OSError, match="bad.jpg: not a readable image"):
        read_rgb(bad)


def test_png_round_trip(tmp_path):
    rgb = np.random.default_rng(1).integers(0, 256, (20, 24, 3), dtype=np.uint8)
    write_png(tmp_path / "a.png", rgb)
    assert np.array_equal(read_rgb(tmp_path / "a.png"), rgb)
    assert encode_png(rgb).startswith(b"\x89PNG")
