"""Where the six published GST-Bench samples are, and their uids (shared by the tests).

They ship in tests/data/gst-bench-page (CC BY-SA 4.0, see LICENSE.md there), so a fresh clone runs
every test; GST_FIXTURES points the tests at another copy.
"""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(os.environ.get("GST_FIXTURES") or REPO / "tests" / "data" / "gst-bench-page")

POS_UID = "scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4"
ED_UID = "scene2_Object_Localization_Egocentric_Direction_visual_armchair_vzhxuf_0_pos_10_orient_4_video_3"
EDIST_UID = "scene1_Object_Localization_Egocentric_Distance_visual_armchair_bslhmj_0_pos_2_orient_0_video_5"
TDSE_UID = "scene46_Topdown_Selection_Easy_video_0"
TDSM_UID = "scene16_Topdown_Selection_Medium_video_1"
TRAJ_UID = "scene1_Trajection_Selection_traject_9_4"
