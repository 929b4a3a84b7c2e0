"""Answers as real models write them, read under both parse profiles (docs/data-format.md).

Each row: the kind, the raw answer, then (value, status) under strict and under lenient. The
phrasings follow GPT-4o, Gemini, Qwen-VL and InternVL answers, with and without reasoning
(<think> blocks, \\boxed{}, "Answer:" lines).
"""
import math

import numpy as np
import pytest

from viewer.core import answers as A
from viewer.core.kinds import ANGLE, CHOICE, DISTANCE, POINT

OK, SEV, OOR = A.OK, A.SEVERAL_NUMBERS, A.OUT_OF_RANGE
SAME = "same"          # lenient reads it as strict does

CASES = [
    # ---------------------------------------------------------------- angles (egocentric directions)
    ("gpt4o", ANGLE, "-45", (-45, OK), SAME),
    ("gpt4o", ANGLE, "The object is at approximately -30 degrees.", (-30, OK), SAME),
    ("gpt4o", ANGLE, "The chair is about 60° to my left, so the answer is 60.", (60, OK), SAME),
    ("gpt4o", ANGLE, "10 degrees to the right", (10, OK), (-10, A.SIGN_FROM_WORDS)),
    ("gpt4o", ANGLE, "It is roughly 90 degrees to the right of my current view.", (90, OK),
     (-90, A.SIGN_FROM_WORDS)),
    ("gpt4o", ANGLE, "About 45 degrees to the left.", (45, OK), SAME),
    ("gpt4o", ANGLE, "-20 degrees (to the right)", (-20, OK), SAME),
    ("gemini", ANGLE, "**Answer:** 135", (135, OK), SAME),
    ("gemini", ANGLE, "Based on the video, the sofa is behind me and slightly to the left. **Answer:** 150",
     (150, OK), SAME),
    ("gemini", ANGLE, "The target lies 30 degrees clockwise from straight ahead.", (30, OK),
     (-30, A.SIGN_FROM_WORDS)),
    ("gemini", ANGLE, "Between 30 and 45 degrees to the left", (30, SEV), (30, SEV)),
    ("gemini", ANGLE, "I cannot determine the direction from the video.", (None, A.NO_NUMBER), SAME),
    ("qwen", ANGLE, "\u221290", (-90, OK), SAME),
    ("qwen", ANGLE, "\u2013120\u00b0", (-120, OK), SAME),
    ("qwen", ANGLE, "200", (200, OOR), SAME),
    ("qwen", ANGLE, "-270 degrees", (-270, OOR), SAME),
    ("qwen", ANGLE, "12,5\u00b0", (12, SEV), (12.5, A.DECIMAL_COMMA)),
    ("internvl", ANGLE, "<think>In frame 3 I see the fridge; turning 131 degrees left.</think> Answer: 131",
     (131, OK), SAME),
    ("internvl", ANGLE, "<think>The lamp was seen in frame 12, to the right.</think>\n-75", (-75, OK), SAME),
    ("internvl", ANGLE, "<think>Frame 7 shows the bed; frame 9 the door.</think>The answer is 45 degrees to "
     "the right.", (45, OK), (-45, A.SIGN_FROM_WORDS)),
    ("internvl", ANGLE, "<think>I need to estimate. Angle about 2 radians", (None, A.EMPTY), SAME),
    ("deepseek", ANGLE, "Let me think step by step. In frame 4 the sofa is visible.\nFinal answer: -60",
     (-60, OK), SAME),
    ("deepseek", ANGLE, "The rotation is 3 steps of 30 degrees, so \\boxed{90}", (90, OK), SAME),
    ("deepseek", ANGLE, "Thus the angle is $\\boxed{-135^\\circ}$.", (-135, OK), SAME),
    ("deepseek", ANGLE, "reasoning...</think>\n\nThe answer is -15", (-15, OK), SAME),
    ("gpt4o", ANGLE, "", (None, A.EMPTY), SAME),
    ("gpt4o", ANGLE, "0 degrees, straight ahead", (0, OK), SAME),
    ("gpt4o", ANGLE, "nan", (None, A.NOT_FINITE), SAME),

    # ---------------------------------------------------------------- distances
    ("gpt4o", DISTANCE, "2.5", (2.5, OK), SAME),
    ("gpt4o", DISTANCE, "The armchair is approximately 3.2 meters away from me.", (3.2, OK), SAME),
    ("gpt4o", DISTANCE, "About 2.5 m (roughly 8 feet).", (2.5, SEV), (2.5, SEV)),
    ("gemini", DISTANCE, "3,5 m", (3, SEV), (3.5, A.DECIMAL_COMMA)),
    ("gemini", DISTANCE, "Die Entfernung beträgt ca. 4,25 Meter", (4, SEV), (4.25, A.DECIMAL_COMMA)),
    ("gemini", DISTANCE, "250 cm", (250, OK), (2.5, A.UNIT_CONVERTED)),
    ("gemini", DISTANCE, "Roughly 1500 mm from the camera.", (1500, OK), (1.5, A.UNIT_CONVERTED)),
    ("gemini", DISTANCE, "About 10 ft", (10, OK), (3.048, A.UNIT_CONVERTED)),
    ("gemini", DISTANCE, "1,500 mm", (1, SEV), (1, SEV)),
    ("qwen", DISTANCE, "4.7", (4.7, OK), SAME),
    ("qwen", DISTANCE, "Answer: 1.8m", (1.8, OK), SAME),
    ("qwen", DISTANCE, "-2.0", (-2.0, OOR), SAME),
    ("qwen", DISTANCE, "The object is 2 to 3 meters away.", (2, SEV), (2, SEV)),
    ("internvl", DISTANCE, "<think>In frame 5 the table is 3 steps away, each 0.7 m.</think> 2.1",
     (2.1, OK), SAME),
    ("internvl", DISTANCE, "<think>frame 2</think>The answer is 6,0 m", (6, SEV), (6.0, A.DECIMAL_COMMA)),
    ("deepseek", DISTANCE, "Each tile is 0.6 m and there are 5 tiles, so the distance is \\boxed{3.0}",
     (3.0, OK), SAME),
    ("deepseek", DISTANCE, "**Final Answer**\n\n2.4 meters", (2.4, OK), SAME),
    ("gpt4o", DISTANCE, "I'm not able to measure distances from images.", (None, A.NO_NUMBER), SAME),
    ("gpt4o", DISTANCE, "12 m is my final answer", (12, OK), SAME),

    # ---------------------------------------------------------------- map points
    ("qwen", POINT, "<point>391 698</point>", ((391, 698), OK), SAME),
    ("qwen", POINT, "<point>450, 780</point>", ((450, 780), OK), SAME),
    ("qwen", POINT, "<point>1200 -5</point>", ((1200, -5), OOR), SAME),
    ("qwen", POINT, "The location is <point>495 578</point>.", ((495, 578), OK), SAME),
    ("gpt4o", POINT, "x=0.059, y=0.587", ((0.059, 0.587), OK), ((58.941, 586.413), A.UNIT_INTERVAL_POINT)),
    ("gpt4o", POINT, "(860, 230)", ((860, 230), OK), SAME),
    ("gpt4o", POINT, "I estimate my position at approximately (512, 300) on the 1000x1000 map.",
     ((512, 300), SEV), SAME),
    ("gemini", POINT, "[0.42, 0.77]", ((0.42, 0.77), OK), ((419.58, 769.23), A.UNIT_INTERVAL_POINT)),
    ("gemini", POINT, "Near the kitchen, close to the wall.", (None, A.NO_POINT), SAME),
    ("gemini", POINT, "<point>0 1</point>", ((0, 1), OK), SAME),
    ("internvl", POINT, "<think>The camera in frame 14 is near the sofa at <point>100 100</point>?</think>"
     "<point>620 410</point>", ((620, 410), OK), SAME),
    ("internvl", POINT, "<point>300 400</point> or maybe <point>320 420</point>", ((300, 400), SEV), SAME),
    ("deepseek", POINT, "Final answer: \\boxed{(250, 750)}", ((250, 750), OK), SAME),
    ("deepseek", POINT, "Answer: 700", (None, A.NO_POINT), SAME),

    # ---------------------------------------------------------------- option letters
    ("gpt4o", CHOICE, "C", (2, OK), SAME),
    ("gpt4o", CHOICE, "The answer is (B).", (1, OK), SAME),
    ("gpt4o", CHOICE, "B. The one with the long corridor", (1, OK), SAME),
    ("gemini", CHOICE, "**Answer:** D", (3, OK), SAME),
    ("gemini", CHOICE, "Either B or C could be right.", (None, A.AMBIGUOUS_LETTER), SAME),
    ("qwen", CHOICE, "E", (None, A.LETTER_OUT_OF_RANGE), SAME),
    ("internvl", CHOICE, "<think>Option A shows two bedrooms, B only one. C matches the video.</think>C",
     (2, OK), SAME),
    ("internvl", CHOICE, "<think>A? no. D? no.</think>\nThe answer is B", (1, OK), SAME),
    ("deepseek", CHOICE, "Comparing the layouts, A and D are mirrored. \\boxed{A}", (0, OK), SAME),
    ("deepseek", CHOICE, "The correct answer is B, not C", (1, OK), SAME),
    ("gpt4o", CHOICE, "the second one", (None, A.NO_LETTER), SAME),
]


def _check(kind, raw, profile, expected):
    value, status = expected
    p = kind.parse(raw, 4, profile)
    assert p.status == status, (raw, profile, p)
    if value is None:
        assert p.value is None or not A.is_scored(p.status), (raw, profile, p)
    elif isinstance(value, tuple):
        assert p.value == pytest.approx(value, abs=1e-6), (raw, profile, p)
    else:
        assert p.value == pytest.approx(value, abs=1e-6), (raw, profile, p)
    # The many-answer path gives the same reading.
    values, statuses = kind.parse_many([raw], [4], {}, profile)
    assert statuses == [status], (raw, profile)
    if A.is_scored(status):
        assert kind.unpack(values[0]) == pytest.approx(p.value), (raw, profile)
    else:
        assert all(math.isnan(v) for v in values[0]), (raw, profile)


@pytest.mark.parametrize("style, kind, raw, strict, lenient", CASES,
                         ids=[f"{c[0]}-{c[1].name}-{k}" for k, c in enumerate(CASES)])
def test_answer_under_both_profiles(style, kind, raw, strict, lenient):
    _check(kind, raw, A.STRICT, strict)
    _check(kind, raw, A.LENIENT, strict if lenient == SAME else lenient)


def test_the_table_is_big_and_covers_every_style_kind_and_new_status():
    assert len(CASES) >= 60
    assert {c[0] for c in CASES} >= {"gpt4o", "gemini", "qwen", "internvl"}
    seen = {c[3][1] for c in CASES} | {c[4][1] for c in CASES if c[4] != SAME}
    assert seen >= {A.SEVERAL_NUMBERS, A.OUT_OF_RANGE} | A.RESCUES


def test_rescues_happen_only_under_lenient():
    for _, kind, raw, _strict, _ in CASES:
        assert kind.parse(raw, 4, A.STRICT).status not in A.RESCUES, raw


def test_scored_statuses():
    assert A.SCORED == {A.OK, A.SEVERAL_NUMBERS, A.OUT_OF_RANGE} | A.RESCUES
    for s in A.STATUS_TEXT:
        assert A.is_scored(s) == (s in A.SCORED)
    assert not A.is_scored(A.MISSING) and not A.is_scored(A.LETTER_OUT_OF_RANGE)


def test_final_answer_extraction():
    assert A.final_answer("<think>frame 3</think> Answer: 131").strip() == "Answer: 131"
    assert A.final_answer("so \\boxed{\\frac{1}{2}} and \\boxed{7}") == "7"
    assert A.final_answer("plain 42") == "plain 42"
    assert A.final_answer("<think>unfinished reasoning 3 4 5").strip() == ""


def test_unknown_profile_is_refused():
    with pytest.raises(ValueError, match="lenient"):
        A.check_profile("loose")


def test_lenient_on_the_demo_changes_no_score_strict_already_parses():
    from pathlib import Path

    from viewer.core.session import open_session
    demo = Path(__file__).resolve().parent.parent / "assets" / "demo"
    preds = sorted((demo / "predictions").glob("*.jsonl"))
    strict = open_session(demo, preds)
    lenient = open_session(demo, preds, profile=A.LENIENT)
    for s, l in zip(strict.results, lenient.results):
        both = s.scored & ~np.isnan(s.score)
        assert (s.score[both] == l.score[both]).all(), s.model
        assert (l.status[~s.scored] != A.OK).all()          # what strict refuses, lenient only rescues


def test_compare_profiles_says_what_each_rescue_was_worth(real_samples, tmp_path):
    import json

    from published_samples import ED_UID, EDIST_UID

    from viewer.core.session import open_session
    preds = tmp_path / "m.jsonl"
    # Truths: ED -134 (egocentric), EDist 13.2 m.
    preds.write_text(json.dumps({"uid": ED_UID, "prediction": "134 degrees to the right"}) + "\n"
                     + json.dumps({"uid": EDIST_UID, "prediction": "1320 cm"}) + "\n")
    session = open_session(real_samples, [preds])
    c = session.compare_profiles("m")
    assert c.lenient > c.strict
    assert set(c.rescues) == {A.SIGN_FROM_WORDS, A.UNIT_CONVERTED}
    assert all(n == 1 and worth > 0 for n, worth in c.rescues.values())
