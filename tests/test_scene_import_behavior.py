"""`import-scene --omnigibson` on newer BEHAVIOR-1K files: objects with a `scale` and no `bounding_box`.

The fixture `omnigibson/Fixture_garden_best.json` is written for these tests in the layout of the
real files (tests/data/scene_import/SOURCES.md): five scale-only objects of known categories (one
unknown), one wall with no size, rooms as lists and as comma-separated strings.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from viewer.core.scene.formats.omnigibson import DEFAULT_SIZE, DEFAULT_SIZES, first_room, read_omnigibson
from viewer.core.scene.reader import read_scene_file
from viewer.render.image_io import read_rgb
from viewer.render.scene_import import ImportRequest, import_scene

GARDEN = Path(__file__).parent / "data" / "scene_import" / "omnigibson" / "Fixture_garden_best.json"
# name -> (footprint along world x, along world y) = scale x the category's typical size, yaw applied
FOOTPRINTS = {"bench_aaaaaa_0": (1.5, 0.5), "pot_plant_bbbbbb_0": (0.8, 0.8), "tree_cccccc_0": (1.0, 1.0),
              "garden_gnome_dddddd_0": (0.5, 0.5), "sofa_eeeeee_0": (0.9, 2.0)}


def imported(tmp_path, name="garden", path=GARDEN):
    result = import_scene(ImportRequest(str(tmp_path / name), omnigibson=str(path)))
    return result, read_scene_file(result.folder / "scene.json", result.folder.name)


def test_scale_only_objects_get_estimated_boxes_at_their_positions(tmp_path):
    result, scene = imported(tmp_path)
    for name, (fx, fy) in FOOTPRINTS.items():
        inst = scene.instances[name]
        assert inst.size_estimated, name
        corners = inst.bbox.corners()
        assert np.ptp(corners[:, 0]) == pytest.approx(fx) and np.ptp(corners[:, 1]) == pytest.approx(fy), name
    assert scene.instances["bench_aaaaaa_0"].bbox.translation == pytest.approx([2.0, 2.0, 0.25])
    assert scene.instances["pot_plant_bbbbbb_0"].bbox.size == pytest.approx(2 * np.array(DEFAULT_SIZES["pot_plant"]))
    assert scene.instances["garden_gnome_dddddd_0"].bbox.size == pytest.approx(DEFAULT_SIZE)   # unknown category
    assert scene.instances["walls_ffffff_0"].bbox is None              # a wall's size cannot be guessed
    doc = json.loads((result.folder / "scene.json").read_text())
    assert doc["instances"]["bench_aaaaaa_0"]["size_estimated"] is True
    assert "size_estimated" not in doc["instances"]["walls_ffffff_0"]


def test_the_estimate_is_said_once_with_a_count(tmp_path):
    result, _ = imported(tmp_path)
    (d,) = result.diagnostics.with_code("import.size_estimated")
    assert d.message.startswith("5 objects have no bounding_box") and "estimated size" in d.message
    (w,) = result.diagnostics.with_code("import.no_box")
    assert "walls_ffffff_0" in w.message


def test_the_maps_are_drawn_from_the_footprints(tmp_path):
    _, scene = imported(tmp_path)
    for level in ("floorplan", "occupancy"):
        m = scene.topdown[level]
        image = read_rgb(m.image)
        px_per_m = float(np.sqrt(abs(np.linalg.det(m.world_to_pixel[:, :2]))))
        # The objects' bounds, in pixels: x 0.75..6.5, y 0.6..5.5.
        from viewer.core.geometry import world_to_pixel
        (u0, v1), (u1, v0) = world_to_pixel(m.world_to_pixel, np.array([[0.75, 0.6], [6.5, 5.5]]))
        inside = image[int(round(v0)):int(round(v1)), int(round(u0)):int(round(u1)), 0]
        blocked = float((inside < 128).sum()) / px_per_m ** 2
        assert blocked == pytest.approx(sum(a * b for a, b in FOOTPRINTS.values()), rel=0.05), level


def test_rooms_take_the_first_room(tmp_path):
    _, scene = imported(tmp_path)
    assert scene.instances["pot_plant_bbbbbb_0"].room == "garden_0"          # "garden_0,kitchen_0"
    assert scene.instances["sofa_eeeeee_0"].room == "living_room_0"          # ["living_room_0,garden_0"]
    assert scene.instances["bench_aaaaaa_0"].room == "garden_0"
    assert [first_room(r) for r in (None, "", [], ["a_0", "b_0"], " a_0 , b_0")] == [None, None, None, "a_0", "a_0"]


def test_an_import_with_no_geometry_exits_1_and_says_so(tmp_path, capsys):
    from viewer.cli import main
    doc = json.loads(GARDEN.read_text())
    walls_only = {k: v for k, v in doc["objects_info"]["init_info"].items() if k.startswith("walls")}
    doc["objects_info"]["init_info"] = walls_only
    path = tmp_path / "Walls_best.json"
    path.write_text(json.dumps(doc))
    assert main(["import-scene", str(tmp_path / "out"), "--omnigibson", str(path)]) == 1
    err = capsys.readouterr().err
    assert "wrote no geometry at all" in err and str(path) in err


def test_identical_diagnostics_are_printed_once_with_a_count():
    from viewer.core.diagnostics import Diagnostics, collapsed
    d = Diagnostics()
    for _ in range(161):
        d.warning("no bounding_box", "Rs_garden_best.json", code="import.no_box")
    d.info("up axis z", "Rs_garden_best.json", code="import.up_axis")
    lines = collapsed(d)
    assert len(lines) == 2 and lines[0].endswith("no bounding_box (x161)") and lines[1].endswith("up axis z")


def test_the_reader_keeps_the_older_files_as_they_were():
    """Objects with a bounding_box are not estimated, and say nothing about it."""
    og = read_omnigibson(GARDEN.parent / "Fixture_int_best.json")
    assert not og.estimated and not og.diagnostics.with_code("import.size_estimated")
    assert all(not i.size_estimated for i in og.instances.values())


def test_the_legend_and_the_scene_line_say_size_estimated(tmp_path):
    from viewer.core.overlays import scene_map_overlay
    from viewer.core.scene.alone import scene_info
    from viewer.core.scene.model import QuestionGeometry
    _, scene = imported(tmp_path)
    W = scene.topdown["occupancy"].world_to_pixel
    for name, said in (("bench_aaaaaa_0", "target (size estimated)"), ("walls_ffffff_0", None)):
        g = QuestionGeometry(scene, None, None, scene.instances[name], None)
        legend = [e.text for e in scene_map_overlay(None, None, [], g, 640, 512, W).legend]
        assert legend == ([said] if said else []), name                     # a wall without a box is not drawn
    assert "6 objects (5 of them size estimated)" in scene_info(scene)
    _, sized = imported(tmp_path, "int", GARDEN.parent / "Fixture_int_best.json")
    some = next(i for i in sized.instances.values() if i.bbox is not None)
    g = QuestionGeometry(sized, None, None, some, None)
    assert [e.text for e in scene_map_overlay(None, None, [], g, 640, 512, W).legend] == ["target"]
    assert "size estimated" not in scene_info(sized)


def test_an_object_without_a_category_is_an_object(tmp_path):
    """OmniGibson's BaseObject defaults `category` to "object" (USDObject and ThreeD_FRONTObject entries often
    have none, as in public scene files built with them); a category that is not a string is still refused."""
    doc = json.loads(GARDEN.read_text())
    init = doc["objects_info"]["init_info"]
    registry = doc["state"]["registry"]["object_registry"]
    init["furn_7"] = {"class_module": "omnigibson.objects.usd_object", "class_name": "USDObject",
                      "args": {"name": "furn_7", "usd_path": "/usd_objects/furn_7/raw_model.usd",
                               "scale": 2.0, "fixed_base": True}}
    init["odd_0"] = {"class_module": "omnigibson.objects.dataset_object", "class_name": "DatasetObject",
                     "args": {"name": "odd_0", "category": 7, "model": "x"}}
    for name in ("furn_7", "odd_0"):
        registry[name] = {"root_link": {"pos": [3.0, 3.0, 0.5], "ori": [0.0, 0.0, 0.0, 1.0]}}
    path = tmp_path / "Mixed_best.json"
    path.write_text(json.dumps(doc))
    og = read_omnigibson(path)
    furn = og.instances["furn_7"]
    assert furn.semantic == "object" and furn.size_estimated
    assert furn.bbox.size == pytest.approx(2.0 * np.array(DEFAULT_SIZE))       # a scalar scale, uniform
    assert "odd_0" not in og.instances
    (bad,) = [d for d in og.diagnostics.with_code("import.bad_object") if "odd_0" in d.message]
    assert "category must be a string" in bad.message


def test_the_command_says_each_thing_once(tmp_path, capsys):
    """The garden import through the command: every line of its output is said once (the real Rs_garden
    file gave 161 identical warnings), the estimate with its count, and the import succeeds."""
    from viewer.cli import main
    assert main(["import-scene", str(tmp_path / "garden"), "--omnigibson", str(GARDEN)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err and len(err) == len(set(err)), err
    assert sum("5 objects have no bounding_box" in line for line in err) == 1
