"""VSI-Bench's figures, slides and gallery say what the window says: numbers in the question's unit, the
answer hint in that unit, the option texts, the benchmark's labels, whole questions; a slide without some
medium draws the chart `render` draws, never an empty placeholder box (the six GST-Bench samples too);
`gallery --uid` and `--filter` choose the questions.

The drawn text is what the figure code hands the painter (`QPainter.drawText`, recorded), and for one
figure what the SVG file holds."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PyQt6.QtCore import QRectF  # noqa: E402
from PyQt6.QtGui import QImage, QPainter  # noqa: E402

from viewer.cli import main  # noqa: E402
from viewer.core.session import open_session  # noqa: E402
from viewer.core.talk.storyboard import ANSWER, QUESTION, TRUTH  # noqa: E402
from viewer.figures import parts, story_frame  # noqa: E402
from viewer.figures.canvas import ensure_gui_app  # noqa: E402
from viewer.figures.layouts import map_figure, panel_figure, prepare  # noqa: E402
from viewer.figures.story_frame import StoryPainter  # noqa: E402
from viewer.figures.theme import PAPER, TALK_LIGHT  # noqa: E402

DATA = Path(__file__).parent / "data"
GEMINI = DATA / "vsi-gemini"
META = DATA / "vsi-meta-info" / "meta_info"          # the real thinking-in-space excerpt (Apache-2.0)
PREDS = sorted(str(p) for p in (GEMINI / "gemini_response").glob("*.json"))
GST_SAMPLES = DATA / "gst-bench-page"

# What each numeric type's numbers are written with, and the hint's example (Benchmark.scale).
UNITS = {"object_counting": ("", '"3"'), "object_abs_distance": (" m", '"3.5 m"'),
         "object_size_estimation": (" cm", '"3.5 cm"'), "room_size_estimation": (" m²", '"3.5 m²"')}


class TextRecorder(QPainter):
    """A painter that keeps every string drawn through it (the figure code calls `drawText` on it)."""

    def __init__(self, device):
        super().__init__(device)
        self.texts: list[str] = []

    def drawText(self, *args):          # noqa: N802  (Qt's name)
        self.texts += [a for a in args if isinstance(a, str)]
        return super().drawText(*args)


def drawn(paint, size) -> list[str]:
    img = QImage(int(size[0]), int(size[1]), QImage.Format.Format_RGB888)
    p = TextRecorder(img)
    paint(p)
    p.end()
    return p.texts


def slide_texts(painter: StoryPainter, stage: str) -> list[str]:
    return drawn(lambda p: painter.paint(p, QRectF(0, 0, 1920, 1080), stage, None, TALK_LIGHT), (1920, 1080))


def vsi_release(tmp_path: Path, meta_info: bool = True) -> Path:
    root = tmp_path / "vsi"
    shutil.copytree(GEMINI / "scannet_questions", root)
    if meta_info:
        shutil.copytree(META, root / "meta_info")
    return root


@pytest.fixture(scope="module")
def vsi_session(tmp_path_factory):
    ensure_gui_app(offscreen=True)
    return open_session(vsi_release(tmp_path_factory.mktemp("vsi")), PREDS)


def first_of_each_type(session) -> dict[str, int]:
    out = {}
    for i, q in enumerate(session.release.questions):
        out.setdefault(q.column.key, i)
    assert len(out) == 10
    return out


def option_bodies(q) -> list[str]:
    return [o.split(". ", 1)[1] for o in q.options]


def assert_says_its_unit(texts: list[str], q, key: str, story) -> None:
    unit, example = UNITS[key]
    truth = q.truth.value
    written = f"{truth:.2f}".rstrip("0").rstrip(".") + unit
    assert any(written in t for t in texts), (key, written, texts)
    assert story.truth == written
    if unit:
        assert not any(t.endswith(f"{written} m") for t in texts)      # not metres for everything
    else:                                                               # a count has no unit at all
        assert not any(t.strip() in (f"{written} m", f"{truth:.1f} m") for t in texts)


# ------------------------------------------------------------------ figures
@pytest.mark.parametrize("layout", ["map", "panel"])
def test_one_figure_per_question_type_says_its_unit_and_options(vsi_session, layout):
    for key, qi in first_of_each_type(vsi_session).items():
        q = vsi_session.release.questions[qi]
        s = prepare(vsi_session, qi, frames=False)
        try:
            size, paint = (map_figure if layout == "map" else panel_figure)(s, PAPER)
            texts = drawn(paint, size)
        finally:
            s.close()
        joined = "\n".join(texts)
        assert "VSI-Bench" in joined and vsi_session.release.benchmark.label(key) in joined
        # The whole question, not its first sentence nor lmms-eval's "These are frames of a video."
        assert q.meta["question"].strip() in joined, key
        assert "These are frames of a video." not in joined
        if key in UNITS:
            assert_says_its_unit(texts, q, key, s.story)
            assert any(UNITS[key][1] in t for t in texts), (key, texts)       # the hint in the question's unit
            assert "meters" not in s.story.convention
        else:
            for body in option_bodies(q):                                     # every option's text is drawn
                assert body in texts, (key, body)
            assert "✓ ground truth" in texts
        # The question's objects from the real meta_info, drawn on the top-down beside the chart.
        assert s.map_q is not None and s.chart_beside_map, key


def test_an_svg_figure_holds_the_unit_and_the_options(vsi_session, tmp_path):
    from viewer.figures.layouts import export_figure
    kinds = first_of_each_type(vsi_session)
    size_q = vsi_session.release.questions[kinds["object_size_estimation"]]
    for key in ("object_size_estimation", "object_rel_distance"):
        s = prepare(vsi_session, kinds[key], frames=False)
        try:
            out = export_figure(s, "map", tmp_path / f"{key}.svg")
        finally:
            s.close()
        svg = out.read_text(encoding="utf-8")
        if key == "object_size_estimation":
            assert f"{size_q.truth.value:g} cm" in svg and "size (cm)" in svg
        else:
            for body in option_bodies(vsi_session.release.questions[kinds[key]]):
                assert body in svg


def test_without_meta_info_the_chart_takes_the_maps_place(tmp_path):
    ensure_gui_app(offscreen=True)
    session = open_session(vsi_release(tmp_path, meta_info=False), PREDS)
    for key, qi in first_of_each_type(session).items():
        s = prepare(session, qi, frames=False)
        try:
            assert s.map_q is None and s.chart is not None
            size, paint = map_figure(s, PAPER)
            texts = drawn(paint, size)
            if key in UNITS:
                assert_says_its_unit(texts, session.release.questions[qi], key, s.story)
            else:
                assert all(b in texts for b in option_bodies(session.release.questions[qi]))
        finally:
            s.close()


# ------------------------------------------------------------------ slides and the gallery
@pytest.fixture
def placeholders(monkeypatch):
    """Every image the slides asked to draw that was not there (draw_image then paints a grey box)."""
    missing: list[str] = []
    for module in (story_frame, parts):
        real = module.draw_image

        def spy(p, outer, image, theme, message="", *args, _real=real, **kw):
            if image is None or image.isNull():
                missing.append(message)
            return _real(p, outer, image, theme, message, *args, **kw)
        monkeypatch.setattr(module, "draw_image", spy)
    return missing


def test_slides_reveal_units_and_options_stage_by_stage_with_no_placeholder(vsi_session, placeholders):
    for key, qi in first_of_each_type(vsi_session).items():
        q = vsi_session.release.questions[qi]
        s = prepare(vsi_session, qi)
        try:
            painter = StoryPainter(s)
            assert painter.panes(TRUTH, False) == ["map", "chart"]            # no video, no view: no empty pane
            truth_texts, question_texts = slide_texts(painter, TRUTH), slide_texts(painter, QUESTION)
            answer_texts = slide_texts(painter, ANSWER)
        finally:
            s.close()
        assert q.meta["question"].strip() in truth_texts
        if key in UNITS:
            assert_says_its_unit(truth_texts, q, key, s.story)
            assert not any(s.story.truth == t.split("  ")[0] for t in question_texts)   # not before the reveal
        else:
            assert all(b in truth_texts and b in question_texts for b in option_bodies(q))
            assert "✓ ground truth" in truth_texts and "✓ ground truth" not in question_texts + answer_texts
            assert "gemini" in answer_texts                                   # the model's pick, at its stage
    assert placeholders == []


def test_the_vsi_gallery_is_titled_labelled_and_complete(vsi_session, tmp_path, placeholders):
    from viewer.figures.gallery import build_gallery
    result = build_gallery(vsi_session, tmp_path / "g")
    assert len(result.slides) == 10 and all(uid is not None for uid in result.picks.values())
    assert placeholders == []
    assert json.loads((tmp_path / "g" / "gallery.json").read_text()).keys() == result.picks.keys()


def test_the_six_gst_samples_gallery_draws_no_placeholder(tmp_path, placeholders):
    from viewer.figures.gallery import build_gallery
    ensure_gui_app(offscreen=True)
    release = tmp_path / "gst"
    shutil.copytree(GST_SAMPLES, release)
    session = open_session(release, [])
    result = build_gallery(session, tmp_path / "g")
    assert len(result.slides) == 6
    assert placeholders == []
    # ED_v and EDist_v have no map: their slides draw the dial and the bars render draws.
    for key, chart in (("ED_v", "dial"), ("EDist_v", "bars")):
        qi = session.release.index[result.picks[key]]
        s = prepare(session, qi)
        try:
            assert StoryPainter(s).panes(TRUTH, s.view_q is not None) == ["image", "chart"]
            assert s.story.kind.chart == chart
        finally:
            s.close()


# ------------------------------------------------------------------ gallery --uid / --filter
def test_gallery_uid_and_filter_choose_the_questions(tmp_path, capsys):
    root = vsi_release(tmp_path)
    out = tmp_path / "uids"
    uids = ["scene0207_02#13", "scene0207_02#14", "scene0222_01#0"]
    assert main(["gallery", str(root), "--uid", *uids, "--out", str(out)]) == 0
    index = json.loads((out / "gallery.json").read_text())
    assert [v["uid"] for v in index.values()] == uids                   # these, in this order
    assert list(index)[:2] == ["object_size_estimation", "object_size_estimation-2"]
    assert len(list(out.glob("slide_*.png"))) == 3

    assert main(["gallery", str(root), "--uid", "scene0207_02#13", "scene9999_00#1", "--out",
                 str(tmp_path / "bad")]) != 0
    assert "scene9999_00#1" in capsys.readouterr().err
    assert not (tmp_path / "bad" / "gallery.json").exists()

    out = tmp_path / "filtered"
    assert main(["gallery", str(root), "--filter", "scene0593_00", "--out", str(out)]) == 0
    index = json.loads((out / "gallery.json").read_text())
    assert index and all(v["uid"].startswith("scene0593_00#") for v in index.values())
    assert main(["gallery", str(root), "--filter", "no-such-word", "--out", str(tmp_path / "none")]) != 0
    assert "no-such-word" in capsys.readouterr().err
