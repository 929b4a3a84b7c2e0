"""Prompt texts and uids of the 12 tasks, worded like the published samples.

The six published samples fix the wording of ED_v, EDist_v, Pos, TDS_E,
TDS_M and Traj (copied verbatim, including the en dash in "–180°" and the
space in "is :"); the other six follow the same phrasing. Media are shown
between consecutive text segments: the video after the first, then the
images in order.
"""
from __future__ import annotations

from ..core.benchmarks.gst.columns import COLUMN_BY_KEY

VIDEO_DOT = "This is the exploration video of you in the entire scene earlier."
VIDEO_COLON = "This is the exploration video of you in the entire scene earlier:"
CURRENT_VIEW = "Your current view is :"
MAP_INTRO = "The top-down image of the scene is:"
MARKED = "the object marked with a red box in the video"

_ANGLE_RULE = ("Taking your current viewing direction as 0°, with left turns being positive, please only "
               "give the angle as an integer between –180° and 180°, without the \"°\" symbol.")
_DISTANCE_RULE = "Answer only with a number rounded to one decimal place, without the \"m\" suffix."
_POINT_RULE = ("Please provide coordinates normalized to the range [0, 999], with the x-axis pointing to the "
               "right of the top-down image and the y-axis pointing to the bottom of the top-down image.\n"
               "Please provide the answer directly in the format <point>x y</point>.")
_HEADING_RULE = ("Taking the upward direction of the top-down image as 0°, with counter-clockwise turns being "
                 "positive, please only give the angle as an integer between –180° and 180°, without the "
                 "\"°\" symbol.")
_OPTIONS = ["\nB.", "\nC.", "\nD."]
_TDS = ("Among the four images below, which one is closest to a top-down view of the entire scene? "
        "Please directly answer with the letter of the correct option.\nA.")
_TRAJ = ("Which of the four red trajectories on the top-down maps best matches the path shown in the "
         "video? Note that the blue dot marks the starting point of each trajectory. Please directly "
         "answer with the letter of the correct option.\nA.")

# Words for a category in a prompt ("the potted plant", "the TV stand").
_NAMES = {"tv_stand": "TV stand", "television": "television", "bottom_cabinet": "kitchen cabinet"}


def object_name(category: str) -> str:
    return _NAMES.get(category, category.replace("_", " "))


def texts(key: str, category: str | None = None) -> list[str]:
    """The prompt segments of a question of Table-1 column `key`."""
    what = MARKED if key.endswith("_v") else f"the {object_name(category or 'object')}"
    if key in ("ED_v", "ED_s"):
        return [VIDEO_DOT, CURRENT_VIEW, f"In which direction relative to you is {what}? {_ANGLE_RULE}"]
    if key in ("EDist_v", "EDist_s"):
        return [VIDEO_DOT, CURRENT_VIEW, f"How far in meters is {what} from you? {_DISTANCE_RULE}"]
    if key in ("GP_v", "GP_s"):
        return [VIDEO_COLON, MAP_INTRO, f"Where on the top-down image is {what}?\n{_POINT_RULE}"]
    if key == "Pos":
        return [VIDEO_COLON, CURRENT_VIEW, MAP_INTRO,
                f"Where on the top-down image does your current location correspond to?\n{_POINT_RULE}"]
    if key == "Ori":
        return [VIDEO_COLON, CURRENT_VIEW, MAP_INTRO,
                f"In which direction on the top-down image are you currently facing? {_HEADING_RULE}"]
    if key in ("TDS_E", "TDS_M", "TDS_H"):
        return [VIDEO_COLON, _TDS, *_OPTIONS]
    if key == "Traj":
        return ["This is the exploration video in a section of the scene earlier:", _TRAJ, *_OPTIONS]
    raise KeyError(key)


def task(key: str) -> str:
    return COLUMN_BY_KEY[key].task


def uid(key: str, scene_number: int, *, target: str | None = None, viewpoint: str | None = None,
        video: int = 0, variant: int = 0, sub: int | None = None) -> str:
    """Uids in the published patterns, e.g.

    scene2_Object_Localization_Egocentric_Direction_visual_armchair_vzhxuf_0_pos_10_orient_4_video_3
    scene4_Egocentric_Localization_Global_Position_pos_25_orient_11_video_4
    scene46_Topdown_Selection_Easy_video_0, scene1_Trajection_Selection_traject_9_4
    """
    head = f"scene{scene_number}"
    if COLUMN_BY_KEY[key].has_target:
        view = f"_{viewpoint}" if viewpoint else ""
        return f"{head}_{task(key)}_{target}{view}_video_{video}"
    if key in ("Pos", "Ori"):
        words = "Global_Position" if key == "Pos" else "Global_Orientation"
        return f"{head}_Egocentric_Localization_{words}_{viewpoint}_video_{video}"
    if key.startswith("TDS_"):
        level = {"TDS_E": "Easy", "TDS_M": "Medium", "TDS_H": "Hard"}[key]
        extra = f"_{variant}" if variant else ""
        return f"{head}_Topdown_Selection_{level}{extra}_video_{video}"
    return f"{head}_Trajection_Selection_traject_{video}_{sub}"
