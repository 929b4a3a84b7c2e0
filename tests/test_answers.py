import numpy as np
import pytest

from viewer.core import answers as A
from viewer.core.kinds import ANGLE, CHOICE, DISTANCE, POINT, kinds


@pytest.mark.parametrize("raw, value", [
    ("-134", -134.0),
    ("\u2212120", -120.0),            # U+2212 minus
    ("\u2013180\u00b0", -180.0),      # en dash, as the GST prompt writes it
    ("about 45 deg to the left", 45.0),
    ("13.2m", 13.2),
    ("The distance is 2.5 meters", 2.5),
    (7, 7.0),
    ("-0.5", -0.5),
])
def test_parse_number(raw, value):
    p = A.parse_number(raw)
    assert p.ok and p.value == pytest.approx(value)


@pytest.mark.parametrize("raw, status", [
    ("", A.EMPTY), ("   ", A.EMPTY), (None, A.EMPTY),
    ("left", A.NO_NUMBER), ("nan", A.NOT_FINITE), (float("nan"), A.NOT_FINITE),
    (float("inf"), A.NOT_FINITE), ("Infinity", A.NOT_FINITE),
])
def test_parse_number_failures(raw, status):
    assert A.parse_number(raw).status == status


@pytest.mark.parametrize("raw, value", [
    ("<point>391 698</point>", (391, 698)),
    ("<point>450, 780</point>", (450, 780)),
    ("The point is <POINT> 12 34 </POINT>.", (12, 34)),
    ("x=450, y=780", (450, 780)),
    ("(100.5, 200)", (100.5, 200)),
])
def test_parse_point(raw, value):
    p = A.parse_point(raw)
    assert p.ok and p.value == pytest.approx(value)


def test_parse_point_needs_two_numbers():
    assert A.parse_point("somewhere near 450").status == A.NO_POINT


@pytest.mark.parametrize("raw, index", [
    ("C", 2), ("C.", 2), ("(C)", 2), ("c", 2), ("[B]", 1),
    ("Answer: C", 2), ("The answer is C", 2), ("The answer is (D).", 3),
    ("B. The one with the long corridor", 1),
    ("I think the correct option is A", 0),
    ("Looking at the maps, D matches best", 3),
])
def test_parse_choice(raw, index):
    p = A.parse_choice(raw, 4)
    assert p.ok and p.value == index


@pytest.mark.parametrize("raw, status", [
    ("E", A.LETTER_OUT_OF_RANGE),
    ("Answer: F", A.LETTER_OUT_OF_RANGE),
    ("either B or C", A.AMBIGUOUS_LETTER),
    ("the second one", A.NO_LETTER),
    ("", A.EMPTY),
])
def test_parse_choice_failures(raw, status):
    assert A.parse_choice(raw, 4).status == status


def test_ground_truth_domain_checks():
    assert ANGLE.parse_truth("-190").status == A.OUT_OF_RANGE
    assert POINT.parse_truth("<point>1000 5</point>").status == A.OUT_OF_RANGE
    assert CHOICE.parse_truth("E").status == A.LETTER_OUT_OF_RANGE
    assert DISTANCE.parse_truth(13.2).value == 13.2
    assert DISTANCE.parse_truth("-1").status == A.OUT_OF_RANGE


def test_format_value_round_trips_published_formats():
    assert CHOICE.format(2) == "C"
    assert POINT.format((391.0, 698.0)) == "<point>391 698</point>"
    assert DISTANCE.format(13.2) == "13.2"
    assert ANGLE.format(-134.0) == "-134"
    for kind, text in ((CHOICE, "C"), (POINT, "<point>391 698</point>"), (DISTANCE, "13.2"), (ANGLE, "-134")):
        assert kind.format(kind.parse_truth(text).value) == text


def test_every_status_has_an_explanation():
    codes = {A.OK, A.MISSING, A.EMPTY, A.NO_NUMBER, A.NO_POINT, A.NO_LETTER, A.AMBIGUOUS_LETTER,
             A.LETTER_OUT_OF_RANGE, A.NOT_FINITE, A.OUT_OF_RANGE, A.SEVERAL_NUMBERS, A.DECIMAL_COMMA,
             A.SIGN_FROM_WORDS, A.UNIT_INTERVAL_POINT, A.UNIT_CONVERTED}
    assert codes == set(A.STATUS_TEXT)
    assert len(set(A.STATUS_TEXT.values())) == len(codes)


@pytest.mark.parametrize("kind", kinds(), ids=lambda k: k.name)
def test_parse_many_agrees_with_parse(kind):
    raws = ["-134", "\u2212120\u00b0", "about 3.5 m", "", None, "left", "nan", 12, float("nan"),
            "<point>391 698</point>", "x=450, y=780", "C", "(B)", "Answer: D", "E", "either B or C",
            "The answer is A", ["a", "list"], "--5", "-.5", "5.", "1.2.3", "\u00b2", "1e5", "-0",
            "<point>1e5 3</point>", "<point>391,698</point>", "<point> -5 .5 </point>", "<point>1;2</point>",
            "<point>\u22125 7</point>", "<point>--5 7</point>", "<point>1 2 3</point>", "<point>5. 6</point>"]
    opts = [4] * len(raws)
    values, statuses = kind.parse_many(raws, opts, {})
    assert values.shape == (len(raws), 2)
    for j, r in enumerate(raws):
        p = kind.parse(r, 4)
        assert statuses[j] == p.status, r
        if p.scored:
            assert kind.unpack(values[j]) == pytest.approx(p.value), r
        else:
            assert np.isnan(values[j]).all() and kind.unpack(values[j]) is None, r
