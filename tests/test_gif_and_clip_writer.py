"""Clip files: H.264 MP4 through PyAV, GIF through Pillow."""
import numpy as np
import pytest

from viewer.core.diagnostics import UserError
from viewer.render import clip_writer
from viewer.render.clip_writer import open_clip_writer
from viewer.render.video import AvVideoReader, VideoReader

av = pytest.importorskip("av")
Image = pytest.importorskip("PIL.Image")


def _moving_square(n, w=96, h=64):
    frames = []
    for k in range(n):
        f = np.full((h, w, 3), 30, np.uint8)
        f[10:30, 4 + 3 * k: 24 + 3 * k] = (230, 40, 40)
        frames.append(f)
    return frames


def _write_clip(path, fps, frames):
    """The clip writer for `path`, closed after writing `frames` (96 x 64)."""
    w = open_clip_writer(path, fps, (96, 64))
    for f in frames:
        w.write(f)
    w.close()
    return w


def test_mp4_is_h264_yuv420p_faststart_with_the_asked_frame_count(tmp_path):
    path = tmp_path / "c.mp4"
    w = _write_clip(path, 12, _moving_square(17))
    assert (w.codec, w.note, w.frames) == ("h264", "", 17)
    with av.open(str(path)) as c:
        s = c.streams.video[0]
        assert (s.codec_context.name, s.codec_context.pix_fmt) == ("h264", "yuv420p")
        assert (s.codec_context.width, s.codec_context.height) == (96, 64)
        assert sum(1 for _ in c.decode(s)) == 17
        assert float(s.average_rate) == 12
    head = path.read_bytes()[:4096]
    assert head.find(b"moov") < head.find(b"mdat") or b"mdat" not in head     # +faststart: index first


@pytest.mark.parametrize("name", ["c.mp4", "c.gif"])
def test_a_clip_replaces_the_file_only_once_complete(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"the clip from before")
    w = open_clip_writer(path, 10, (96, 64))
    for f in _moving_square(3):
        w.write(f)
    assert path.read_bytes() == b"the clip from before"             # the frames go beside it
    w.discard()                                                    # cancelled, or failed half-way
    assert path.read_bytes() == b"the clip from before" and list(tmp_path.iterdir()) == [path]
    _write_clip(path, 10, _moving_square(3))
    head = path.read_bytes()[:8]
    assert (head[:3] == b"GIF" or head[4:] == b"ftyp") and list(tmp_path.iterdir()) == [path]


def test_odd_sizes_are_padded_and_said(tmp_path):
    w = open_clip_writer(tmp_path / "o.mp4", 10, (95, 63))
    w.write(np.zeros((63, 95, 3), np.uint8))
    w.close()
    assert "96x64" in w.note
    with av.open(str(w.path)) as c:
        assert (c.streams.video[0].codec_context.width, c.streams.video[0].codec_context.height) == (96, 64)


def test_same_frames_give_the_same_bytes(tmp_path):
    for name in ("a.mp4", "b.mp4", "c.mp4", "d.mp4"):
        _write_clip(tmp_path / name, 10, _moving_square(12))
    first = (tmp_path / "a.mp4").read_bytes()
    assert all((tmp_path / n).read_bytes() == first for n in ("b.mp4", "c.mp4", "d.mp4"))


def test_gif_round_trip_through_pillow(tmp_path):
    path = tmp_path / "a.gif"
    frames = _moving_square(6)
    frames.insert(3, frames[2].copy())                  # an unchanged frame merges into its predecessor
    _write_clip(path, 10, frames)
    with Image.open(path) as im:
        assert im.format == "GIF" and im.info.get("loop") == 0
        durations, back = [], []
        for k in range(im.n_frames):
            im.seek(k)
            durations.append(im.info["duration"])
            back.append(np.asarray(im.convert("RGB")))
    assert len(back) == 6 and durations == [100, 100, 200, 100, 100, 100]
    distinct = [f for k, f in enumerate(frames) if k != 3]
    for a, b in zip(back, distinct):
        assert a.shape == b.shape and np.abs(a.astype(int) - b).max() <= 8


def test_without_pyav_an_mp4_is_refused_with_the_install_hint(tmp_path, monkeypatch):
    monkeypatch.setattr(clip_writer, "import_av", lambda: None)
    with pytest.raises(UserError, match="needs PyAV"):
        open_clip_writer(tmp_path / "c.mp4", 10, (64, 48))
    w = open_clip_writer(tmp_path / "c.gif", 10, (64, 48))      # GIFs are Pillow's
    w.write(np.zeros((48, 64, 3), np.uint8))
    w.close()
    assert (tmp_path / "c.gif").is_file()


def test_pyav_reader_matches_opencv_and_seeks_exactly(tmp_path):
    path = tmp_path / "r.mp4"
    _write_clip(path, 10, _moving_square(20))
    from viewer.demo.opencv import import_cv2
    pytest.importorskip("cv2")                    # OpenCV is a test dependency only: the reference decoder
    cv2 = import_cv2()
    r = VideoReader(str(path))
    assert isinstance(r, AvVideoReader)
    assert (r.n_frames, r.fps, r.width, r.height) == (20, 10.0, 96, 64)
    assert np.allclose(r.times, np.arange(20) / 10)
    cap = cv2.VideoCapture(str(path))
    for k in (0, 13, 4, 19, 5, 6, 99):
        cap.set(cv2.CAP_PROP_POS_FRAMES, min(k, 19))
        ok, bgr = cap.read()
        assert ok and np.array_equal(r.frame(k), bgr[:, :, ::-1])
    r.close()
    cap.release()


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
