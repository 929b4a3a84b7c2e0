"""Figures of one question per answer type, in each layout: files that are what they claim to be."""
import os
import re
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from viewer.cli import main  # noqa: E402
from viewer.core import model_palette

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"
UIDS = {
    "angle": "scene1_Object_Localization_Egocentric_Direction_visual_potted_plant_yzwbdf_2_pos_15_orient_0_video_0",
    "distance": "scene1_Object_Localization_Egocentric_Distance_visual_potted_plant_yzwbdf_2_pos_15_orient_0_video_0",
    "point": "scene1_Egocentric_Localization_Global_Position_pos_15_orient_0_video_0",
    "choice": "scene1_Topdown_Selection_Easy_video_0",
}
TRUTH_RGB = (0, 170, 80)                      # viewer.ui.style.TRUTH
# The demo's models in load order take the palette's first three colours (viewer.core.model_palette).
MODEL_RGB = {name: tuple(int(model_palette.model_color(k)[i:i + 2], 16) for i in (1, 3, 5))
             for k, name in enumerate(("noisy-expert", "random-guesser", "sign-flipper"))}


@pytest.fixture(scope="module")
def subjects():
    from viewer.core.session import open_session
    from viewer.figures.canvas import ensure_gui_app
    from viewer.figures.layouts import prepare
    ensure_gui_app()
    session = open_session(DEMO, sorted((DEMO / "predictions").glob("*.jsonl")))
    out = {k: prepare(session, session.release.index[u]) for k, u in UIDS.items()}
    yield out
    for s in out.values():
        s.close()


def _read_png(path):
    from viewer.render.image_io import read_rgb
    return read_rgb(path)


def _count(img, rgb, tol=2):
    return int(np.sum(np.all(np.abs(img.astype(int) - rgb) <= tol, axis=-1)))


@pytest.mark.parametrize("kind", list(UIDS))
@pytest.mark.parametrize("layout", ["map", "panel", "3d"])
def test_png_layouts(subjects, tmp_path, kind, layout):
    from viewer.figures.layouts import export_figure
    out = export_figure(subjects[kind], layout, tmp_path / f"{kind}_{layout}.png", scale=1.0)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = _read_png(out)
    h, w = img.shape[:2]
    assert w >= 1000 and h >= 500
    assert img.std() > 25 and len(np.unique(img.reshape(-1, 3), axis=0)) > 500      # not blank
    # The legend (or answers table) shows the truth's green and each model's own colour.
    region = img[int(h * 0.55):] if layout != "panel" else img
    assert _count(region, TRUTH_RGB) > 30
    for name, rgb in MODEL_RGB.items():
        assert _count(region, rgb) > 20, name


def test_png_scale_multiplies_pixels(subjects, tmp_path):
    from viewer.figures.layouts import export_figure
    one = _read_png(export_figure(subjects["point"], "map", tmp_path / "a.png", scale=1.0))
    two = _read_png(export_figure(subjects["point"], "map", tmp_path / "b.png", scale=2.0))
    assert two.shape[0] == 2 * one.shape[0] and two.shape[1] == 2 * one.shape[1]


def test_svg_has_vector_text_and_legend(subjects, tmp_path):
    from viewer.figures.layouts import export_figure
    svg = export_figure(subjects["angle"], "map", tmp_path / "m.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    text = re.sub(r"<[^>]+>", "", svg)
    for label in ("ground truth: -161°", "noisy-expert", "sign-flipper", "current view", "target"):
        assert label in text
    assert re.search(r'viewBox="0 0 1000 \d+"', svg)
    assert "<image" in svg                                          # the map bitmap is embedded


def test_pdf_is_one_page_of_the_figure_size(subjects, tmp_path):
    from viewer.figures.layouts import export_figure
    data = export_figure(subjects["choice"], "panel", tmp_path / "p.pdf").read_bytes()
    assert data[:5] == b"%PDF-" and data.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert box and (round(float(box.group(1))), round(float(box.group(2)))) == (1600, 900)
    assert data.count(b"/Type /Page\n") + data.count(b"/Type/Page\n") + data.count(b"/Type /Page ") >= 1


def test_render_command_and_bad_input(tmp_path, capsys):
    out = tmp_path / "f.png"
    assert main(["render", str(DEMO), "--uid", UIDS["distance"], "--out", str(out), "--layout", "map",
                 "--scale", "1", "--models", "noisy-expert"]) == 0
    assert out.stat().st_size > 10_000
    img = _read_png(out)
    assert _count(img, MODEL_RGB["noisy-expert"]) > 20 and _count(img, MODEL_RGB["sign-flipper"]) == 0
    capsys.readouterr()
    assert main(["render", str(DEMO), "--uid", UIDS["angle"][:-2] + "_9", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gst-viewer: --uid") and UIDS["angle"] in err and "Traceback" not in err
    assert main(["render", str(DEMO), "--uid", UIDS["angle"], "--out", str(tmp_path / "no" / "f.png")]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert main(["render", str(DEMO), "--uid", UIDS["angle"], "--out", str(tmp_path / "f.bmp")]) == 2
    assert "use .png, .svg or .pdf" in capsys.readouterr().err
    assert main(["render", str(DEMO), "--uid", UIDS["angle"], "--out", str(out), "--layout", "3d",
                 "--camera", "frame:99999"]) == 2
    assert "no usable pose" in capsys.readouterr().err


def test_a_figure_fits_every_circle_and_a_dark_map_has_no_white_sheet():
    """issue 17: distance circles were cut at the map's edge; the dark theme kept the map's white margin."""
    import numpy as np
    from PyQt6.QtCore import QRectF
    from PyQt6.QtGui import QImage, QPainter

    from viewer.core import primitives as pr
    from viewer.figures.canvas import qimage_to_rgb, rgb_to_qimage
    from viewer.figures.map_painter import paint_map, shown_box
    from viewer.figures.theme import PAPER, TALK_DARK
    ov = pr.Overlay(200, 100)
    t = np.linspace(0, 2 * np.pi, 90)
    ov.add(pr.Polyline(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_TRUTH_LINE,
                       points=np.stack([100 + 80 * np.cos(t), 50 + 80 * np.sin(t)], axis=1)))
    assert shown_box(ov) == pytest.approx((0.0, -30.0, 200.0, 130.0), abs=0.05)   # grown, by 30 % at most
    rgb = np.full((100, 200, 3), 255, np.uint8)
    rgb[20:80, 40:160] = (150, 110, 70)                       # the rooms; white around them
    for theme in (PAPER, TALK_DARK):
        out = QImage(400, 400, QImage.Format.Format_RGB32)
        out.fill(theme.background)
        p = QPainter(out)
        where = paint_map(p, QRectF(0, 0, 400, 400), rgb_to_qimage(rgb), ov, theme)
        p.end()
        assert where.height() > 200 * 1.5                     # 160 map rows shown instead of 100
        pixels = qimage_to_rgb(out)
        top = int(where.top())
        assert (pixels[top + 1:top + 40] != pixels[top + 1:top + 40][0, 0]).any()   # the circle's top
        if theme is TALK_DARK:
            corner = pixels[int(where.center().y()), int(where.left()) + 3]
            assert tuple(corner) == (TALK_DARK.panel.red(), TALK_DARK.panel.green(), TALK_DARK.panel.blue())
            room = pixels[int(where.center().y()), int(where.center().x()) - 50]
            assert tuple(room) == (150, 110, 70)              # the rooms keep their colours


def test_3d_stills_read_like_the_map_and_lay_the_path_on_the_floor():
    import numpy as np

    from viewer.core import primitives as pr
    from viewer.render.still_camera import choose_pose, map_up_direction, on_the_floor
    # A map whose up is world +x (rotated a quarter turn): the overview looks along +x.
    W = np.array([[0.0, -20.0, 100.0], [-20.0, 0.0, 300.0]])
    up = map_up_direction(W)
    np.testing.assert_allclose(up / np.linalg.norm(up), [1.0, 0.0], atol=1e-12)
    pose = choose_pose("overview", pr.Overlay(), ([0, 0, 0], [10, 6, 3]), map_up=up)
    forward = pose[:3, 2]
    assert forward[0] > 0.4 and abs(forward[1]) < 1e-9           # looking north, as the map shows it
    path = pr.Polyline(pr.PATH, None, (pr.L_TRAJECTORY,), pr.Z_PATH, points=np.array([[0, 0, 1.5], [1, 1, 1.5]]))
    ray = pr.Arrow(pr.TRUTH, None, (pr.L_TRUTH,), pr.Z_TRUTH_ARROW, points=np.array([[0, 0, 1.5], [1, 0, 1.5]]))
    ov = pr.Overlay(items=[path, ray])
    low = on_the_floor(ov, floor_z=0.0)
    assert np.allclose(low.items[0].points[:, 2], 0.02) and np.allclose(low.items[1].points[:, 2], 1.5)
    assert np.allclose(path.points[:, 2], 1.5)                   # the overlay given is left as it was


def test_3d_still_draws_the_video_path_with_the_time_gradient():
    """issue 28: the still's path was flat yellow, near a model's orange; the window colours it by time."""
    from types import SimpleNamespace

    import numpy as np
    from PyQt6.QtCore import QRectF
    from PyQt6.QtGui import QImage, QPainter

    from viewer.core import primitives as pr
    from viewer.figures import theme as th
    from viewer.figures.canvas import ensure_gui_app, qimage_to_rgb, rgb_to_qimage
    from viewer.figures.parts import paint_still, still_legend
    from viewer.render.still_camera import look_at, render_still

    ensure_gui_app()

    class Grey:                      # the ray-cast image only: a plain grey room seen from anywhere
        def render_view(self, pose, intr):
            w, h = int(intr[0]), int(intr[1])
            return SimpleNamespace(color=np.full((h, w, 3), 128, np.uint8), depth=np.full((h, w), 3.0))

    xs = np.linspace(-2.0, 2.0, 41)
    path = pr.Polyline(pr.PATH, None, (pr.L_TRAJECTORY,), pr.Z_PATH,
                       points=np.stack([xs, np.zeros_like(xs), np.zeros_like(xs)], axis=1))
    pose = look_at([0.0, -5.0, 3.0], [0.0, 0.0, 0.0])
    still = render_still(Grey(), pr.Overlay(items=[path]), pose, 320, 180)
    assert len(still.path_times) == 40 and still.path_times[0] == 0.0 and still.path_times[-1] == 1.0
    assert np.all(np.diff(still.path_times) > 0)
    img = QImage(320, 180, QImage.Format.Format_RGB888)
    p = QPainter(img)
    where = paint_still(p, QRectF(0, 0, 320, 180), still, rgb_to_qimage(still.image), th.PAPER)
    p.end()
    rgb = qimage_to_rgb(img).astype(int)
    # Along the path (left = start, right = end): dark viridis at the start, light at its end, no yellow-orange.
    start, end = still.lines[0][1][0][0], still.lines[0][1][-1][1]
    s = where.width() / 320

    def colour_at(pt):
        x, y = int(round(pt[0] * s)), int(round(pt[1] * s))
        return rgb[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).mean(axis=0)

    first, last = (np.array([c.red(), c.green(), c.blue()]) for c in (th.viridis(0.0), th.viridis(1.0)))
    a, b = colour_at(start + (3, 0)), colour_at(end - (3, 0))

    def nearer(c, x, y) -> bool:
        return np.abs(c - x).sum() < np.abs(c - y).sum()
    assert nearer(a, first, last) and nearer(b, last, first)      # dark at the start, light at the end
    assert np.abs(a - b).sum() > 200                              # a gradient, not one flat colour
    assert [e.kind for e in still_legend(still, None, {})] == ["path"]


def test_an_overview_still_is_cropped_to_the_scene_and_its_lines():
    """A wide apartment seen from above is a band across a 16:9 frame: the figure keeps the band."""
    import numpy as np

    from viewer.render.still_camera import Still, crop_to_content
    hit = np.zeros((90, 160), bool)
    hit[30:60, 10:150] = True                          # the scene: a band
    image = np.zeros((90, 160, 3), np.uint8)
    image[hit] = 200
    line = np.array([[20.0, 25.0], [100.0, 40.0]])     # a line reaching above the band
    still = Still(image, np.eye(4), (160, 90, 100.0, 100.0, 80.0, 45.0), [("trajectory", [line])],
                  [("query", np.array([50.0, 45.0]))], [0.0], hit)
    out = crop_to_content(still)
    h, w = out.image.shape[:2]
    # Content x 10..150, y 25 (the line) ..60, grown by 4 % of 140 px = 5.6 px: x 4..156, y 19..66.
    assert (w, h) == (152, 47)
    assert out.intrinsics[:2] == (152, 47) and out.intrinsics[4:] == (76.0, 26.0)
    np.testing.assert_allclose(out.lines[0][1][0], line - [4, 19])
    np.testing.assert_allclose(out.points[0][1], [46.0, 26.0])
    assert (out.image[out.hit] == 200).all() and out.hit.sum() == hit.sum()     # nothing of the scene lost


GP_OCCUPANCY = "scene1_Object_Localization_Global_Position_visual_potted_plant_yzwbdf_2_video_0"


@pytest.fixture(scope="module")
def gp_subject(subjects):
    from viewer.figures.layouts import prepare
    session = subjects["angle"].session
    s = prepare(session, session.release.index[GP_OCCUPANCY], frames=False)
    yield s
    s.close()


@pytest.mark.parametrize("kind", ["angle", "distance", "point", "gp"])
def test_a_map_figure_is_cropped_to_the_map_content(subjects, gp_subject, kind):
    """issue 28: a wide apartment on a square map image left a quarter of the figure empty. The figure
    now shows the part of the map image that is not its empty surroundings, and all that is drawn."""
    from viewer.figures.canvas import qimage_to_rgb
    from viewer.figures.map_painter import content_box, shown_box
    s = gp_subject if kind == "gp" else subjects[kind]
    ov = s.media.overlay
    rgb = qimage_to_rgb(s.map_q)
    # The demo's maps: the apartment is wider than tall on its image, with empty bands around it.
    content = content_box(s.map_q, ov.width, ov.height)
    background = rgb[0, 0]
    rows = np.flatnonzero((np.abs(rgb.astype(int) - background) > 12).any(axis=(1, 2)))
    assert content[1] == pytest.approx(rows[0] * ov.height / rgb.shape[0])
    box = shown_box(ov, s.map_q)
    drawn = ov.drawn_box()
    clip = (max(drawn[0], 0), max(drawn[1], 0), min(drawn[2], ov.width), min(drawn[3], ov.height))
    assert box[0] <= clip[0] and box[1] <= clip[1] and box[2] >= clip[2] and box[3] >= clip[3]
    assert box[0] <= content[0] and box[1] <= content[1] and box[2] >= content[2] and box[3] >= content[3]
    if kind == "gp":
        # An occupancy image with black bands above and below a wide apartment: the bands are gone.
        assert (box[3] - box[1]) / (box[2] - box[0]) < 0.75 * ov.height / ov.width
