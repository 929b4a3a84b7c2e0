import os
import shutil
from pathlib import Path

import pytest

# GUI tests run headless; set before any Qt import.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(os.environ.get("GST_FIXTURES", REPO.parent / "shared" / "fixtures" / "gst-bench-page"))

POS_UID = "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4"
ED_UID = "scene2_Object_Localization_Egocentric_Direction_visual_armchair_vzhxuf_0_pos_10_orient_4_video_3"
EDIST_UID = "scene1_Object_Localization_Egocentric_Distance_visual_armchair_bslhmj_0_pos_2_orient_0_video_5"
TDSE_UID = "scene46_Topdown_Selection_Easy_video_0"
TDSM_UID = "scene16_Topdown_Selection_Medium_video_1"
TRAJ_UID = "scene1_Trajection_Selection_traject_9_4"


@pytest.fixture(autouse=True, scope="session")
def isolated_user_data(tmp_path_factory):
    """Flags and settings written during tests never reach the real home folder."""
    folder = tmp_path_factory.mktemp("user-data")
    old = {k: os.environ.get(k) for k in ("GST_VIEWER_DATA", "XDG_CONFIG_HOME", "XDG_DATA_HOME")}
    os.environ["GST_VIEWER_DATA"] = str(folder / "gst-viewer")
    os.environ["XDG_CONFIG_HOME"] = str(folder / "config")
    os.environ["XDG_DATA_HOME"] = str(folder / "data")
    yield folder
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture
def real_samples(tmp_path) -> Path:
    """A writable copy of the six published samples (the originals stay untouched)."""
    if not FIXTURES.is_dir():
        pytest.skip(f"fixtures not found at {FIXTURES}")
    dst = tmp_path / "gst-bench-page"
    shutil.copytree(FIXTURES, dst)
    for p in dst.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return dst
