"""Turning raw answers (ground truth or model text) into numbers.

Each parse returns a status as well as a value, so that a prediction that
scored 0 can say *why*: no number in the text, a letter that is not an
option, a non-finite number, and so on.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

# Status codes. OK is the only one that is scored on its merits.
OK = "ok"
MISSING = "missing"              # no prediction for this question
EMPTY = "empty"                  # an empty or whitespace-only answer
NO_NUMBER = "no_number"
NO_POINT = "no_point"
NO_LETTER = "no_letter"
AMBIGUOUS_LETTER = "ambiguous_letter"
LETTER_OUT_OF_RANGE = "letter_out_of_range"
NOT_FINITE = "not_finite"
OUT_OF_RANGE = "out_of_range"    # only for ground truth: angle/point outside its domain

STATUS_TEXT = {
    OK: "parsed",
    MISSING: "no prediction for this question",
    EMPTY: "empty answer",
    NO_NUMBER: "no number in the answer",
    NO_POINT: "no <point>x y</point> and fewer than two numbers",
    NO_LETTER: "no option letter standing alone",
    AMBIGUOUS_LETTER: "several different option letters",
    LETTER_OUT_OF_RANGE: "letter is not one of the options",
    NOT_FINITE: "number is NaN or infinite",
    OUT_OF_RANGE: "value outside the answer's range",
}

# A minus is '-', U+2212 or U+2013 directly before the digits (the GST prompt
# itself writes "–180°").
_NUM = r"([-\u2212\u2013]?)(\d+(?:\.\d*)?|\.\d+)"
_NUM_RE = re.compile(_NUM)
_POINT_RE = re.compile(r"<point>\s*" + _NUM + r"\s*[,;\s]\s*" + _NUM + r"\s*</point>", re.I)
_NONFINITE_RE = re.compile(r"^\s*[-+]?(nan|inf|infinity)\s*$", re.I)

# Choice: the letter alone, possibly wrapped or punctuated: "C", "C.", "(C)", "[C]".
_LETTER_ALONE_RE = re.compile(r"^\s*[(\[]?\s*([A-Za-z])\s*[)\].:]?\s*$")
# "C. the kitchen", "(C) the kitchen": a leading option label.
_LETTER_LEAD_RE = re.compile(r"^\s*[(\[]?([A-Z])(?:[)\].:]|\s*$)")
# "Answer: C", "The answer is C", "option (C)".
_LETTER_AFTER_KEY_RE = re.compile(
    r"(?i:answer|option|choice)\s*(?i:is|would be|:)?\s*[:\-]?\s*[(\[]?\s*([A-Z])\s*[)\]]?(?![A-Za-z])")
_LETTER_STANDALONE_RE = re.compile(r"(?<![A-Za-z])[(\[]?([A-Z])[)\]]?(?![A-Za-z'])")


@dataclass(frozen=True)
class Parsed:
    value: float | tuple[float, float] | int | None
    status: str

    @property
    def ok(self) -> bool:
        return self.status == OK


def _finite(value) -> Parsed:
    """A parsed number or point, unless a number in it overflowed (400 nines read as inf)."""
    return Parsed(value, OK) if all(math.isfinite(v) for v in np.atleast_1d(value)) else Parsed(None, NOT_FINITE)


def _to_float(sign: str, digits: str) -> float:
    v = float(digits)
    return -v if sign else v


def _first_numbers(text: str, n: int) -> list[float]:
    out = []
    for m in _NUM_RE.finditer(text):
        out.append(_to_float(m.group(1), m.group(2)))
        if len(out) == n:
            break
    return out


def parse_number(raw: Any) -> Parsed:
    """Angle or distance: the first number in the text."""
    if isinstance(raw, bool) or raw is None:
        return Parsed(None, EMPTY if raw is None else NO_NUMBER)
    if isinstance(raw, (int, float)):
        v = float(raw)
        return Parsed(v, OK) if math.isfinite(v) else Parsed(None, NOT_FINITE)
    text = str(raw)
    if not text.strip():
        return Parsed(None, EMPTY)
    nums = _first_numbers(text, 1)
    if not nums:
        return Parsed(None, NOT_FINITE if _NONFINITE_RE.match(text) else NO_NUMBER)
    return _finite(nums[0])


def parse_point(raw: Any) -> Parsed:
    """`<point>x y</point>`, else the first two numbers in the text."""
    if isinstance(raw, (list, tuple)) and len(raw) == 2:
        try:
            x, y = float(raw[0]), float(raw[1])
        except (TypeError, ValueError):
            return Parsed(None, NO_POINT)
        return Parsed((x, y), OK) if math.isfinite(x) and math.isfinite(y) else Parsed(None, NOT_FINITE)
    if raw is None:
        return Parsed(None, EMPTY)
    text = str(raw)
    if not text.strip():
        return Parsed(None, EMPTY)
    m = _POINT_RE.search(text)
    if m:
        return _finite((_to_float(m.group(1), m.group(2)), _to_float(m.group(3), m.group(4))))
    nums = _first_numbers(text, 2)
    if len(nums) < 2:
        return Parsed(None, NO_POINT)
    return _finite((nums[0], nums[1]))


def parse_choice(raw: Any, n_options: int = 4) -> Parsed:
    """An option letter standing alone; value is the 0-based option index."""
    if raw is None:
        return Parsed(None, EMPTY)
    text = str(raw).strip()
    if not text:
        return Parsed(None, EMPTY)
    letter = None
    for rx in (_LETTER_ALONE_RE, _LETTER_LEAD_RE, _LETTER_AFTER_KEY_RE):
        m = rx.search(text)
        if m:
            letter = m.group(1).upper()
            break
    if letter is None:
        valid = {chr(ord("A") + i) for i in range(n_options)}
        found = {m.group(1) for m in _LETTER_STANDALONE_RE.finditer(text)} & valid
        if len(found) > 1:
            return Parsed(None, AMBIGUOUS_LETTER)
        if not found:
            return Parsed(None, NO_LETTER)
        letter = found.pop()
    index = ord(letter) - ord("A")
    if not 0 <= index < n_options:
        return Parsed(None, LETTER_OUT_OF_RANGE)
    return Parsed(index, OK)


# Bound on remembered parses, so a huge release cannot grow the cache without end.
CACHE_LIMIT = 200_000


def _cached(keys: list, one, cache: dict | None) -> list:
    """one(key) for each key, each distinct key computed once (and kept in `cache` across calls)."""
    if cache is None or len(cache) > CACHE_LIMIT:
        cache = {}
    try:
        todo = set(keys).difference(cache)
    except TypeError:                      # an unhashable answer (a JSON list or object)
        return [one(k) for k in keys]
    for k in todo:
        cache[k] = one(k)
    return [cache[k] for k in keys]


def parse_numbers_many(raws: list, cache: dict | None = None) -> tuple[np.ndarray, list[str]]:
    """parse_number over a list: values (NaN if unparsed) and statuses.

    Same results as calling parse_number on each item; the common case (a bare
    number) takes a fast path because scoring a leaderboard parses tens of
    thousands of answers. `cache` (a dict the caller keeps, e.g. across models)
    remembers parses, which repeat a lot ("90", "2.5").
    """
    # Keys carry the type so that True, 1 and 1.0 (equal as dict keys) stay apart.
    keys = [r if type(r) is str else (type(r), r) for r in raws]
    pairs = _cached(keys, _number_pair, cache)
    return np.array([p[0] for p in pairs], float), [p[1] for p in pairs]


def parse_choices_many(raws: list, n_options: list[int], cache: dict | None = None) -> tuple[np.ndarray, list[str]]:
    """parse_choice over a list (with each question's number of options): indices (NaN if unparsed), statuses."""
    keys = [(r, k) if type(r) is str else (type(r), r, k) for r, k in zip(raws, n_options)]
    pairs = _cached(keys, _choice_pair, cache)
    return np.array([p[0] for p in pairs], float), [p[1] for p in pairs]


def _number_pair(key) -> tuple[float, str]:
    r = key if type(key) is str else key[1]
    if type(r) is str:
        if _bare_number(r):
            # A bare number, as the prompts ask for: float() reads it exactly as the regex would.
            v = float(r)
            return (v, OK) if math.isfinite(v) else (math.nan, NOT_FINITE)
        m = _NUM_RE.search(r)
        if m:
            sign, digits = m.groups()
            v = -float(digits) if sign else float(digits)
            return (v, OK) if math.isfinite(v) else (math.nan, NOT_FINITE)
    p = parse_number(r)
    return (p.value if p.status == OK else math.nan), p.status


def _choice_pair(key) -> tuple[float, str]:
    r, k = (key[0], key[1]) if len(key) == 2 else (key[1], key[2])
    p = parse_choice(r, k)
    return (p.value if p.status == OK else math.nan), p.status


def _bare_number(s: str) -> bool:
    """True when float(s) reads s exactly as _NUM_RE would: digits, one dot, one leading '-'."""
    body = s[1:] if s[:1] == "-" else s
    return body.replace(".", "", 1).isdecimal()


def _tagged_point(r) -> tuple[float, float] | None:
    """The asked-for form `<point>x y</point>` with plain numbers, without a regex; else None."""
    if type(r) is not str or not r.startswith("<point>") or not r.endswith("</point>"):
        return None
    parts = r[7:-8].replace(",", " ").split()
    if len(parts) != 2 or not (_bare_number(parts[0]) and _bare_number(parts[1])):
        return None
    return float(parts[0]), float(parts[1])


def parse_points_many(raws: list) -> tuple[np.ndarray, list[str]]:
    """parse_point over a list: (n, 2) points (NaN if unparsed) and statuses; `<point>` forms skip the regex."""
    search = _POINT_RE.search
    nan = math.nan
    xs, ys = [nan] * len(raws), [nan] * len(raws)
    statuses = [OK] * len(raws)
    for j, r in enumerate(raws):
        xy = _tagged_point(r)
        if xy is not None:
            xs[j], ys[j] = xy
            continue
        m = search(r) if type(r) is str else None
        if m:
            sx, x, sy, y = m.groups()
            xs[j] = -float(x) if sx else float(x)
            ys[j] = -float(y) if sy else float(y)
            continue
        p = parse_point(raws[j])
        statuses[j] = p.status
        if p.status == OK:
            xs[j], ys[j] = p.value
    points = np.column_stack([np.array(xs, float), np.array(ys, float)]).reshape(len(raws), 2)
    overflowed = np.flatnonzero(np.isinf(points).any(axis=1))
    for j in overflowed.tolist():                    # digits beyond float range read as inf: not an answer
        points[j] = np.nan
        statuses[j] = NOT_FINITE
    return points, statuses
