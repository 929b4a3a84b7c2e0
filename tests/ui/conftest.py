import json
import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

PREDICTIONS = {
    "model-a": {
        "scene46_Topdown_Selection_Easy_video_0": "C",
        "scene16_Topdown_Selection_Medium_video_1": "A",
        "scene1_Trajection_Selection_traject_9_4": "The answer is B.",
        "scene2_Object_Localization_Egocentric_Direction_visual_armchair_vzhxuf_0_pos_10_orient_4_video_3": "-150",
        "scene1_Object_Localization_Egocentric_Distance_visual_armchair_bslhmj_0_pos_2_orient_0_video_5": "9.5",
        "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4": "<point>450 640</point>",
    },
    "model-b": {
        "scene46_Topdown_Selection_Easy_video_0": "A",
        "scene16_Topdown_Selection_Medium_video_1": "C",
        "scene1_Trajection_Selection_traject_9_4": "I cannot determine this from the video.",
        "scene2_Object_Localization_Egocentric_Direction_visual_armchair_vzhxuf_0_pos_10_orient_4_video_3": "45",
        "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4": "<point>700 300</point>",
    },
}


@pytest.fixture
def prediction_files(tmp_path):
    out = []
    for model, answers in PREDICTIONS.items():
        p = tmp_path / f"{model}.jsonl"
        p.write_text("\n".join(json.dumps({"uid": u, "prediction": a}) for u, a in answers.items()) + "\n")
        out.append(p)
    return out


@pytest.fixture
def settings(tmp_path):
    from PyQt6.QtCore import QSettings
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def make_inspector(qtbot, settings):
    """make_inspector(release=None, predictions=(), uid=None) -> (window, state).

    A shown inspector window, with `release` open and its background work
    done when one is given. Tests set and assert on the `InspectorState`
    (viewer.core.state) rather than on widget internals.
    """
    from ui_helpers import open_release

    from viewer.ui.app import make_app
    from viewer.ui.main_window import MainWindow
    made = []

    def make(release=None, predictions=(), uid=None, size=(1400, 900)):
        make_app()
        win = MainWindow(settings)
        qtbot.addWidget(win)
        win.resize(*size)
        win.show()
        made.append(win)
        if release is not None:
            open_release(qtbot, win, release, predictions, uid)
        return win, win.state

    yield make
    for win in made:
        win.jobs.wait(10000)


@pytest.fixture
def inspect_demo(make_inspector, tmp_path):
    """inspect_demo(size=None) -> (window, state) on a copy of the bundled demo with its predictions
    (a copy: the window keeps reviewer flags beside the release it opens)."""
    import shutil

    from viewer.assets import assets_dir

    def open_demo(size=None):
        root = tmp_path / "demo"
        shutil.copytree(assets_dir() / "demo", root)
        preds = sorted((root / "predictions").glob("*.jsonl"))
        return make_inspector(root, preds, size=size) if size else make_inspector(root, preds)
    return open_demo
