"""The GIF writer (our own LZW) decodes exactly in OpenCV; the clip writer falls back when codecs lack."""
import numpy as np
import pytest

from viewer.core.diagnostics import UserError
from viewer.render.clip_writer import open_clip_writer
from viewer.render.gif_writer import GifWriter, lzw_encode, median_cut
from viewer.render.video import import_cv2


def _read_gif(path):
    cv2 = import_cv2()
    if hasattr(cv2, "imreadanimation"):
        ok, anim = cv2.imreadanimation(str(path))
        assert ok
        return [cv2.cvtColor(f[..., :3], cv2.COLOR_BGR2RGB) for f in anim.frames]
    cap = cv2.VideoCapture(str(path))
    out = []
    while True:
        ok, f = cap.read()
        if not ok:
            return out
        out.append(cv2.cvtColor(f, cv2.COLOR_BGR2RGB))


def _palette_frames(n_colors, shape, n_frames, seed=0):
    """Frames of n_colors distinct colours at the centres of the writer's 5-bit colour cells, so
    quantisation is exact and the decoded frames must equal the written ones."""
    rng = np.random.default_rng(seed)
    cells = rng.choice(32 ** 3, n_colors, replace=False)
    colors = (np.stack([cells // 1024, cells // 32 % 32, cells % 32], axis=1) * 8 + 4).astype(np.uint8)
    return [colors[rng.integers(0, n_colors, shape)] for _ in range(n_frames)], colors


def test_gif_round_trip_is_exact_with_table_resets(tmp_path):
    # 300x200 random pixels of 64 colours: the LZW table fills (4096 codes) and resets many times.
    frames, colors = _palette_frames(64, (200, 300), 3)
    frames[1] = frames[0].copy()                       # an unchanged frame
    frames[2][50:60, 100:140] = colors[0]              # a small change: a sub-rectangle frame
    path = tmp_path / "a.gif"
    w = GifWriter(str(path), (300, 200), fps=10, samples=frames)
    for f in frames:
        w.write(f)
    w.close()
    back = _read_gif(path)
    assert len(back) == 3
    for a, b in zip(back, frames):
        assert a.shape == b.shape and np.array_equal(a, b)
    data = path.read_bytes()
    assert data[:6] == b"GIF89a" and data[-1:] == b";" and b"NETSCAPE2.0" in data


def test_lzw_code_widths_grow_and_stay_in_bounds():
    # A run long enough to pass 512, 1024 and 2048 codes; the encoding must be shorter than raw bytes.
    flat = bytes([7]) * 100_000
    enc = lzw_encode(flat)
    assert 0 < len(enc) < 2000
    assert lzw_encode(b"") and lzw_encode(b"\x01")


def test_median_cut_palette_holds_few_colours_exactly():
    px = np.repeat(np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255]], np.uint8), 100, axis=0)
    pal = median_cut(px, 256)
    for c in px[::100]:
        assert (pal == c).all(axis=1).any()


def test_mp4_falls_back_to_a_codec_that_opens(tmp_path):
    tried = []

    class Fake:
        def __init__(self, path):
            self.path = path

        def write(self, frame):
            pass

        def release(self):
            self.path.write_bytes(b"x")

    def opener(path, fourcc, fps, size):
        tried.append((path.suffix, fourcc))
        return Fake(path) if fourcc == "MJPG" else None   # an OpenCV without FFmpeg

    w = open_clip_writer(tmp_path / "c.mp4", 10, (64, 48), opener=opener)
    w.write(np.zeros((48, 64, 3), np.uint8))
    w.close()
    assert tried == [(".mp4", "mp4v"), (".mp4", "avc1"), (".avi", "MJPG")]
    assert w.path == tmp_path / "c.avi" and w.codec == "MJPG"
    assert "mp4v/avc1 not available" in w.note and "c.avi" in w.note

    with pytest.raises(UserError, match="can write no video codec"):
        open_clip_writer(tmp_path / "d.mp4", 10, (64, 48), opener=lambda *a: None)


def test_clip_paths_that_cannot_be_written(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        open_clip_writer(tmp_path / "no" / "c.mp4", 10, (64, 48))
    with pytest.raises(UserError, match="unknown clip format"):
        open_clip_writer(tmp_path / "c.mov", 10, (64, 48))
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        import os
        if os.access(ro, os.W_OK):                 # root ignores permissions
            pytest.skip("running as root: permissions are not enforced")
        with pytest.raises(UserError, match="permission denied"):
            open_clip_writer(ro / "c.gif", 10, (64, 48))
    finally:
        ro.chmod(0o755)
