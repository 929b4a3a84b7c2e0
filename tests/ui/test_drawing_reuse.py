"""The next sample redraws only what changed (issue 30): legend entries and a video path's drawn pieces are
kept and put back, and what is shown is still exactly what the overlay says."""
from __future__ import annotations

import numpy as np
from PyQt6.QtGui import QColor

from viewer.core import primitives as pr


def _texts(plot) -> list[str]:
    return [label.text for _sample, label in plot.legend.items]


def test_legend_entries_are_reused_and_show_exactly_the_entries(qtbot):
    from viewer.ui.plot_items import PlotWithLegend, line_sample
    plot = PlotWithLegend(QColor(0, 0, 0), (255, 255, 255))
    qtbot.addWidget(plot)
    plot.resize(600, 400)
    plot.show()

    def entries(*kinds):
        return [(k, f"text {k}", line_sample(QColor(255, 0, 0))) for k in kinds]
    plot.set_legend(entries("a", "b", "c"))
    first = {label.text: label for _s, label in plot.legend.items}
    plot.set_legend(entries("b", "d"))
    assert _texts(plot) == ["text b", "text d"] and plot.legend.layout.count() == 4
    assert not first["text a"].isVisible() and not first["text c"].isVisible()       # kept, hidden
    plot.set_legend(entries("a", "b", "c"))
    assert _texts(plot) == ["text a", "text b", "text c"] and plot.legend.layout.count() == 6
    assert [label for _s, label in plot.legend.items] == [first[t] for t in _texts(plot)]   # the same items
    assert all(label.isVisible() for _s, label in plot.legend.items)
    plot.set_legend([])
    assert _texts(plot) == [] and plot.legend.layout.count() == 0


def _path_overlay(shift: float) -> pr.Overlay:
    ov = pr.Overlay(200, 100)
    xy = np.stack([np.linspace(-20, 220, 60), 50 + shift + 20 * np.sin(np.linspace(0, 6, 60))], 1)
    ov.add(pr.TimedPath(pr.PATH, None, (pr.L_TRAJECTORY,), pr.Z_PATH, points=xy, heading=None))
    return ov


def _drawn(view) -> list:
    return list(view._layer.childItems())


def test_a_video_path_drawn_again_reuses_its_pieces_in_the_new_layer(qtbot):
    from viewer.ui.map_view import MapView
    view = MapView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    view.set_map(np.zeros((100, 200, 3), np.uint8))
    view.set_overlay(_path_overlay(0), ["m"])
    from PyQt6.QtWidgets import QGraphicsPolygonItem
    first = _drawn(view)
    assert len(first) >= 20 and any(isinstance(it, QGraphicsPolygonItem) for it in first)   # pieces, edge marks
    items_in_scene = len(view.scene().items())
    view.set_overlay(_path_overlay(0), ["m"])        # another question of the same video
    assert _drawn(view) == first and all(it.scene() is view.scene() for it in first)
    view.set_overlay(_path_overlay(10), ["m"])       # another video: its own pieces
    other = _drawn(view)
    assert not set(map(id, other)) & set(map(id, first))
    assert all(it.scene() is None for it in first)   # the first path is off the map
    view.set_overlay(_path_overlay(0), ["m"])        # back again
    assert _drawn(view) == first and len(view.scene().items()) == items_in_scene
    view.set_overlay(None, ["m"])
    assert _drawn(view) == [] and all(it.scene() is None for it in first)


def test_a_scenes_map_is_rendered_once_and_a_new_one_replaces_it(qtbot, monkeypatch):
    from viewer.ui.map_view import MapView
    view = MapView()
    qtbot.addWidget(view)
    calls = []
    real = view.image_item.setImage
    monkeypatch.setattr(view.image_item, "setImage", lambda img, **kw: (calls.append(img), real(img, **kw)))
    a = np.zeros((40, 60, 3), np.uint8)
    view.set_map(a)
    view.set_map(a)                                  # the next question of the scene: the same map
    assert len(calls) == 1
    b = np.full((40, 60, 3), 200, np.uint8)          # another scene's map of the same size
    view.set_map(b)
    assert len(calls) == 2 and view.image_item.image[0, 0, 0] == 200
    view.set_map(None)
    view.set_map(b)                                  # cleared, then shown again: drawn again
    assert len(calls) == 3


def test_maps_taken_in_turns_are_converted_once_each_and_drawn_as_they_are(qtbot, monkeypatch):
    """The questions of a few scenes alternate between their maps: each map array is converted to a QImage once
    (pyqtgraph converted it again at every setImage), in a 32-bit format Qt draws without converting it at each
    paint (pyqtgraph's RGB888 was)."""
    from PyQt6.QtGui import QImage
    from pyqtgraph import functions_qimage

    from viewer.ui.map_view import MapView
    view = MapView()
    qtbot.addWidget(view)
    view.resize(300, 240)
    converted = []
    real = functions_qimage.try_make_qimage
    monkeypatch.setattr(functions_qimage, "try_make_qimage",
                        lambda img, **kw: (converted.append(1), real(img, **kw))[1])
    a = np.full((40, 60, 3), 30, np.uint8)
    b = np.full((40, 60, 3), 200, np.uint8)
    for image in (a, b, a, b, a):
        view.set_map(image)
        view.grab()                                  # painted: the image item draws its QImage
        q = view.image_item.qimage
        assert q.format() in (QImage.Format.Format_RGB32, QImage.Format.Format_ARGB32_Premultiplied)
        assert q.pixelColor(0, 0).red() == image[0, 0, 0]
    assert len(converted) == 2


def test_an_image_pane_shows_each_new_image_and_size(qtbot):
    from PyQt6.QtGui import QImage

    from viewer.ui.image_pane import ImagePane

    def solid(color: str) -> QImage:
        img = QImage(64, 48, QImage.Format.Format_RGB888)
        img.fill(QColor(color))
        return img
    pane = ImagePane()
    qtbot.addWidget(pane)
    pane.resize(320, 240)
    pane.show()
    centre = lambda: pane.grab().toImage().pixelColor(pane.width() // 2, pane.height() // 2).name()  # noqa: E731
    pane.set_image(solid("#ff0000"))
    assert centre() == "#ff0000"
    pane.set_image(solid("#0000ff"))                 # same size, other pixels: not the kept scaling
    assert centre() == "#0000ff"
    pane.resize(500, 300)
    assert centre() == "#0000ff"
    r = pane.image_rect()
    assert abs(r.width() / r.height() - 64 / 48) < 0.02


def test_a_legend_beside_a_tall_plot_keeps_its_entries_one_line_apart(qtbot):
    from viewer.ui.plot_items import PlotWithLegend, line_sample
    plot = PlotWithLegend(QColor(0, 0, 0), (255, 255, 255))
    qtbot.addWidget(plot)
    plot.resize(1100, 700)
    plot.show()
    plot.set_legend([(f"k{i}", f"entry number {i}", line_sample(QColor(255, 0, 0))) for i in range(7)])
    qtbot.wait(50)
    assert plot._legend_beside
    ys = [label.mapToScene(0, 0).y() for _s, label in plot.legend.items]
    line = max(label.item.boundingRect().height() for _s, label in plot.legend.items)
    gaps = np.diff(ys)
    assert (gaps > 0).all() and gaps.max() <= 1.5 * line, (gaps, line)   # not spread down the pane
    assert ys[0] < 0.1 * plot.height()                                      # from the top


def test_the_hidden_axes_of_the_map_and_the_dial_do_no_work_at_a_range_change(qtbot, monkeypatch):
    """A hidden pyqtgraph axis still worked out its ticks and label at every zoom (~3 ms a question): the map's
    and the dial's axes are unlinked from their views; the bars keep their two axes."""
    from PyQt6.QtCore import QRectF
    from pyqtgraph import AxisItem

    from viewer.ui.answer_charts import DirectionDial, DistanceBars
    from viewer.ui.map_view import MapView
    calls = []
    real = AxisItem.linkedViewChanged
    monkeypatch.setattr(AxisItem, "linkedViewChanged", lambda self, *a: (calls.append(self), real(self, *a))[1])
    for cls, shown in ((MapView, ()), (DirectionDial, ()), (DistanceBars, ("left", "bottom"))):
        plot = cls()
        qtbot.addWidget(plot)
        calls.clear()
        plot.vb.setRange(QRectF(0, 0, 10, 5), padding=0)
        plot.vb.setRange(QRectF(2, 1, 10, 5), padding=0)
        worked = {name for name in ("left", "bottom", "top", "right") if plot.item.getAxis(name) in calls}
        assert worked == set(shown), (cls.__name__, worked)


def test_a_long_legend_entry_wraps_to_the_pane_and_is_one_line_again_given_room(qtbot):
    from viewer.ui.plot_items import LEGEND_SAMPLE_ROOM, PlotWithLegend, line_sample
    plot = PlotWithLegend(QColor(0, 0, 0), (255, 255, 255))
    qtbot.addWidget(plot)
    long = "video path, reconstructed from the video (structure from motion), aligned by 16 answers"
    plot.resize(320, 400)
    plot.show()
    plot.set_legend([("path", long, line_sample(QColor(255, 0, 0)))]
                    + [(f"k{i}", f"entry {i}", line_sample(QColor(0, 255, 0))) for i in range(4)])
    qtbot.wait(50)
    labels = [label for _s, label in plot.legend.items]
    path = labels[0]
    assert 0 < path.item.textWidth() <= plot.width() - LEGEND_SAMPLE_ROOM
    line = labels[1].item.boundingRect().height()
    assert path.item.boundingRect().height() >= 2 * line * 0.95          # on more lines, not cut
    right = max(plot.mapFromScene(label.mapRectToScene(label.itemRect())).boundingRect().right() for label in labels)
    assert right <= plot.viewport().width()
    assert all(label.item.textWidth() < 0 for label in labels[1:])        # the short ones stay one line
    # Given the room, one line again; the entries stay one line apart, from the top (as above).
    plot.resize(1400, 700)
    qtbot.wait(50)
    assert path.item.textWidth() < 0 and abs(path.item.boundingRect().height() - line) < 1
    ys = [label.mapToScene(0, 0).y() for label in labels]
    assert (np.diff(ys) > 0).all() and np.diff(ys).max() <= 1.5 * line


def test_an_image_pane_draws_a_mild_downscale_directly_and_averages_a_strong_one(qtbot, monkeypatch):
    """Up to halving, the image is drawn with bilinear filtering (no smooth copy made at every question:
    a quarter of the cost); beyond, from a smooth copy, so fine detail averages instead of aliasing."""
    import numpy as np
    from PyQt6.QtGui import QImage

    from viewer.ui.image_pane import ImagePane
    copies = []
    real = QImage.scaled
    monkeypatch.setattr(QImage, "scaled", lambda self, *a: (copies.append(self.width()), real(self, *a))[1])

    def noise(width: int, height: int) -> QImage:
        grey = np.random.default_rng(0).integers(0, 2, (height, width), dtype=np.uint8) * 255
        rgb = np.ascontiguousarray(np.repeat(grey[:, :, None], 3, axis=2))
        return QImage(rgb.data, width, height, 3 * width, QImage.Format.Format_RGB888).copy()
    pane = ImagePane()
    qtbot.addWidget(pane)
    pane.resize(320, 256)
    pane.show()
    pane.set_image(noise(480, 384))                      # shown at 320: a mild downscale
    pane.grab()
    assert copies == []
    assert pane.image.format() == QImage.Format.Format_RGB32   # converted once, not by Qt at every paint
    pane.set_image(noise(2560, 2048))                    # an eighth: averaged
    shot = pane.grab().toImage()
    assert copies == [2560]
    values = np.array([shot.pixelColor(x, y).red() for x in range(100, 220) for y in range(80, 176)])
    assert values.std() < 30, values.std()              # sampled without averaging: about 60 and more
