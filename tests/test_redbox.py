"""The red-box detector: drawn outlines found through compression, blur and red scene objects; the demo's
boxed videos agree with their scenes' appear_frames; scans are cached by size and mtime."""
import io
import json
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from viewer.render import redbox
from viewer.render.redbox import CUT, WHOLE, find_red_box, scan_video, variable_rate
from viewer.render.video import VideoError

DEMO = Path(__file__).resolve().parents[1] / "assets" / "demo"
RED = (230, 40, 40)


def scene(h=320, w=400, seed=0):
    """A plausible indoor frame: a grey-beige gradient with some texture."""
    rng = np.random.default_rng(seed)
    y = np.linspace(0, 1, h)[:, None, None]
    x = np.linspace(0, 1, w)[None, :, None]
    img = 110 + 80 * y + 40 * x + rng.normal(0, 6, (h, w, 3))
    img[..., 2] -= 15
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_box(img, x0, y0, x1, y1, t=3, color=RED):
    """An outline as cv2.rectangle draws it: t px centred on the given sides, clipped to the frame."""
    out = img.copy()
    h, w = img.shape[:2]
    a, b = t // 2, t - t // 2
    for ys, ye, xs, xe in ((y0 - a, y0 + b, x0 - a, x1 + b), (y1 - a, y1 + b, x0 - a, x1 + b),
                           (y0 - a, y1 + b, x0 - a, x0 + b), (y0 - a, y1 + b, x1 - a, x1 + b)):
        out[max(ys, 0):min(ye, h), max(xs, 0):min(xe, w)] = color
    return out


def jpeg(img, quality=50):
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "JPEG", quality=quality)
    return np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))


def motion_blur(img, n=5):
    f = img.astype(float)
    out = sum(np.roll(f, k, axis=1) for k in range(n)) / n
    return out.astype(np.uint8)


def near(box, x0, y0, x1, y1, tol=3):
    return box is not None and all(abs(a - b) <= tol for a, b in zip((box.x0, box.y0, box.x1, box.y1),
                                                                        (x0, y0, x1, y1)))


def test_a_drawn_box_is_found_whole():
    b = find_red_box(draw_box(scene(), 120, 80, 220, 200))
    assert near(b, 120, 80, 220, 200) and b.state == WHOLE


def test_no_box_no_red():
    assert find_red_box(scene()) is None


@pytest.mark.parametrize("spoil", [lambda im: jpeg(im, 40), lambda im: motion_blur(im, 5),
                                   lambda im: jpeg(motion_blur(im, 3), 60)], ids=["jpeg40", "blur5", "blur+jpeg"])
def test_robust_to_compression_and_blur(spoil):
    b = find_red_box(spoil(draw_box(scene(seed=1), 60, 150, 140, 300)))
    assert near(b, 60, 150, 140, 300, tol=4)


def test_red_objects_are_not_boxes():
    img = scene(seed=2)
    img[40:120, 250:330] = (200, 30, 35)        # a red cushion: red mass
    img[150:260, 40:46] = (190, 35, 40)         # a red book's spine: a thin red slab
    img[150:260, 60:66] = (190, 35, 40)         # another, side by side
    assert find_red_box(jpeg(img, 70)) is None
    boxed = draw_box(img, 150, 60, 300, 250)    # the box drawn around the cushion, touching it
    assert near(find_red_box(jpeg(boxed, 70)), 150, 60, 300, 250)


def test_a_box_cut_by_the_frame_edge():
    # clipped to the frame, as the demo's boxes (and cv2.rectangle on a clamped box) are
    b = find_red_box(jpeg(draw_box(scene(), 330, 200, 399, 319), 60))
    assert near(b, 330, 200, 399, 319) and b.state == CUT
    # running off the frame: its right and bottom sides are not drawn at all
    b = find_red_box(draw_box(scene(), 300, 220, 430, 360))
    assert b is not None and b.state == CUT and near(b, 300, 220, b.x1, b.y1) and b.x1 >= 396


def test_a_small_box_and_a_red_dot():
    assert near(find_red_box(jpeg(draw_box(scene(), 200, 100, 214, 140), 60)), 200, 100, 214, 140)
    img = scene()
    img[100:106, 200:206] = RED
    assert find_red_box(img) is None


def _demo_visual_videos():
    for sj in sorted(DEMO.glob("scenes/*/scene.json")):
        instances = json.loads(sj.read_text())["videos"]["video_0"]["instances"]
        for video in sorted((sj.parent / "videos").glob("video0_obj_*.mp4")):
            target = video.stem[len("video0_obj_"):]
            yield video, set(instances[target]["appear_frames"])


def test_demo_red_box_frames_agree_with_appear_frames(tmp_path, monkeypatch):
    """The issue's acceptance: >= 95 % of frames of every visual video. Measured: all but one frame agree;
    frame 139 of the fridge's video has a box 10 px wide whose inside is 2 px, which the detector cannot
    tell from a red slab (it needs 3 px of hollow: docs/frames.md, limits)."""
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path))
    videos = list(_demo_visual_videos())
    assert len(videos) == 6
    disagree = set()
    for video, appear in videos:
        vb = scan_video(str(video))
        found = set(vb.frames())
        agree = sum((k in found) == (k in appear) for k in range(vb.n_frames)) / vb.n_frames
        assert agree >= 0.95, (video.name, agree, sorted(found ^ appear))
        disagree |= {(video.name, k) for k in found ^ appear}
    assert disagree == {("video0_obj_fridge_ylxrit_0.mp4", 139)}


def test_demo_videos_without_a_box_show_none(tmp_path, monkeypatch):
    """The semantic questions' video and a sub-trajectory, both with red books on a shelf."""
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path))
    for rel in ("scenes/scene_2/videos/video_0.mp4", "scenes/scene_2/videos/sub_trajectory_3.mp4"):
        assert scan_video(str(DEMO / rel)).frames() == ()


def test_scans_are_cached_by_size_and_mtime(tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    video = tmp_path / "v.mp4"
    video.write_bytes(next(_demo_visual_videos())[0].read_bytes())
    first = scan_video(str(video))
    assert list((tmp_path / "cache" / "redbox").glob("*.npz"))

    def boom(*args):
        raise AssertionError("decoded again although the file did not change")
    monkeypatch.setattr(redbox, "find_red_box", boom)
    again = scan_video(str(video))
    assert again.frames() == first.frames() and (again.boxes == first.boxes).all()
    st = video.stat()
    os.utime(video, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))       # touched: scanned again
    with pytest.raises(AssertionError, match="decoded again"):
        scan_video(str(video))


def test_bad_videos_say_so(tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_CACHE", str(tmp_path / "cache"))
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    with pytest.raises(VideoError, match="empty.mp4"):
        scan_video(str(empty))
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all" * 100)
    with pytest.raises(VideoError, match="junk.mp4"):
        scan_video(str(junk))
    src = next(_demo_visual_videos())[0].read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(src[: len(src) // 2])
    with pytest.raises(VideoError, match="cut.mp4"):
        scan_video(str(cut))


def test_variable_frame_rate():
    assert not variable_rate(np.arange(100) / 30.0)
    t = np.cumsum(np.r_[0, np.full(50, 1 / 30), np.full(50, 1 / 15)])
    assert variable_rate(t)


def test_a_written_video_scanned_through_the_chroma_hint(tmp_path):
    """H.264 (yuv420p): frames without red skip the RGB conversion; boxed ones are found, blurred too."""
    from viewer.render.clip_writer import open_av_writer
    path = tmp_path / "boxed.mp4"
    writer = open_av_writer(path, 10, (400, 320), options={"crf": "30"})
    drawn = {2: (120, 80, 220, 200), 3: (121, 82, 222, 201), 6: (300, 200, 399, 319), 7: (50, 40, 90, 120)}
    try:
        for k in range(10):
            img = scene(seed=k)
            if k in drawn:
                img = draw_box(img, *drawn[k])
                if k == 7:
                    img = motion_blur(img, 4)
            if k == 9:
                img[100:200, 100:200] = (200, 30, 35)       # red mass only
            writer.write(img)
    finally:
        writer.close()
    vb = scan_video(str(path), use_cache=False)
    assert vb.frames() == tuple(sorted(drawn))
    for k, box in drawn.items():
        assert near(vb.box(k), *box, tol=4), (k, vb.box(k))
    assert vb.box(6).state == CUT and vb.box(2).state == WHOLE
