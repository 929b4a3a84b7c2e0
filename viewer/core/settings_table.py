"""Global vs Local-Video vs Local-Image: the settings of a question and the paper's Table 2 (§4.3).

A local variant asks an object question again from a view in which the
target is visible (Local-Video, the video still in the prompt) or from that
view alone (Local-Image). A model that gains much locally perceives the
target but cannot integrate the video into a map; one that stays poor
everywhere cannot perceive it. The format (docs/data-format.md, "Settings"):
`setting` per question (`global` when absent) and `base_uid`, the global
question it derives from (when absent: the uid without its `_local_video` /
`_local_image` suffix).

The verdict per model reads the Table-2 averages over the object columns
(0-100); the thresholds are GAIN and GOOD below, documented in the same
section of docs/data-format.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .diagnostics import Diagnostics

SETTINGS = ("global", "local_video", "local_image")
GLOBAL, LOCAL_VIDEO, LOCAL_IMAGE = SETTINGS
LOCAL = (LOCAL_VIDEO, LOCAL_IMAGE)
GLOBAL_CODE, UNKNOWN_SETTING = 0, -1
TITLES = {GLOBAL: "Global", LOCAL_VIDEO: "Local-Video", LOCAL_IMAGE: "Local-Image"}
SHORT = {GLOBAL: "G", LOCAL_VIDEO: "LV", LOCAL_IMAGE: "LI"}


def object_keys(benchmark) -> tuple[str, ...]:
    """Table 2's columns, in column order: the tasks with a target, the only ones with a target to bring
    into view."""
    return tuple(c.key for c in benchmark.columns if c.has_target)


# Verdict thresholds, in Table-2 points (0-100, averaged over the object columns).
GAIN = 10.0    # Local-Image − Global at least this: the model does better once the target is in view
GOOD = 40.0    # a setting's average at least this: the model answers it reasonably (chance is ~15-25)

INTEGRATION, PERCEPTION, MIXED = "integration-limited", "perception-limited", "mixed"
REPORT_LIMIT = 50


def suffix_base(uid: str, setting: str) -> str | None:
    """The global uid a variant's uid names by the suffix rule, or None when it carries no suffix."""
    end = "_" + setting
    return uid[:-len(end)] if uid.endswith(end) and len(uid) > len(end) else None


def setting_of(rec) -> dict:
    """A record's `setting` (its name as written; `global` when absent) and `base_uid` (written or by suffix)."""
    raw = rec.setting
    setting = GLOBAL if raw is None else str(raw)
    base = rec.base_uid
    if not (isinstance(base, str) and base):
        base = suffix_base(rec.uid, setting) if setting in LOCAL else None
    return {"setting": setting, "base_uid": base}


def link_variants(records: list, where: list, index: dict[str, int], column: np.ndarray, columns,
                  diags: Diagnostics) -> tuple[np.ndarray, np.ndarray]:
    """Per question its setting code (index in SETTINGS, -1 unknown) and the row of its global question.

    A global question is its own base. A variant whose base is unknown or not global, whose task has no
    target or differs from its base's, or which shares its setting and base with another variant, is
    reported and gets base -1: it stays out of Table 2, and (not being global) out of the leaderboard
    (`Release.in_leaderboard`).
    """
    n = len(records)
    code = np.zeros(n, np.int8)
    base = np.arange(n, dtype=np.int64)
    reported: dict[str, int] = {}

    def report(c: str, i: int, text: str) -> None:
        reported[c] = reported.get(c, 0) + 1
        if reported[c] <= REPORT_LIMIT:
            source, line = where[i]
            diags.warning(f"question {records[i].uid!r}: {text}; left out of Table 2 (and of Table 1)",
                          source, line, code=c)

    seen: dict[tuple[int, int], int] = {}
    duplicates: set[int] = set()
    for i, rec in enumerate(records):
        if rec.setting is None and rec.base_uid is None:
            continue
        s = setting_of(rec)
        if s["setting"] not in SETTINGS:
            code[i], base[i] = UNKNOWN_SETTING, -1
            report("setting.unknown", i, f"setting {rec.setting!r} is not one of {', '.join(SETTINGS)}")
            continue
        code[i] = SETTINGS.index(s["setting"])
        if code[i] == GLOBAL_CODE:
            continue
        base[i] = -1
        c = int(column[i])
        if c < 0 or not columns[c].has_target:
            report("setting.no_target", i, f"a {s['setting']} variant of a task without a target")
            continue
        b = index.get(s["base_uid"]) if s["base_uid"] else None
        if b is None or (records[b].setting or GLOBAL) != GLOBAL:
            why = "names no base_uid and its uid has no setting suffix" if not s["base_uid"] else (
                f"base_uid {s['base_uid']!r} is not a global question of this release")
            report("setting.unknown_base", i, why)
            continue
        if int(column[b]) != c:
            report("setting.unknown_base", i, f"base_uid {s['base_uid']!r} asks another task")
            continue
        other = seen.setdefault((b, int(code[i])), i)
        if other != i:
            duplicates.update((other, i))
            report("setting.duplicate", i, f"a second {s['setting']} variant of {s['base_uid']!r} "
                                           f"(the first is {records[other].uid!r})")
            continue
        base[i] = b
    for i in duplicates:
        base[i] = -1
    for c, k in reported.items():
        if k > REPORT_LIMIT:
            diags.warning(f"... and {k - REPORT_LIMIT} more ({c})", code=c + "_summary")
    return code, base


# ------------------------------------------------------------------ families
def families(release) -> dict[int, dict[str, int]]:
    """Global row -> {setting: row} for every global question with at least one valid variant."""
    out: dict[int, dict[str, int]] = {}
    if release.setting is None:
        return out
    for i in np.flatnonzero((release.setting > GLOBAL_CODE) & (release.base >= 0)).tolist():
        b = int(release.base[i])
        out.setdefault(b, {GLOBAL: b})[SETTINGS[release.setting[i]]] = i
    return out


def family_of(release, i: int) -> dict[str, int] | None:
    """The settings of question i's family ({setting: row}, global first), or None when it has no variants."""
    if release.setting is None or i < 0 or release.base[i] < 0:
        return None
    fam = families(release).get(int(release.base[i]))
    return None if fam is None else {s: fam[s] for s in SETTINGS if s in fam}


def setting_rows(release) -> dict[str, np.ndarray]:
    """The rows Table 2 averages per setting: the family members (globals only when they have a variant)."""
    fams = families(release)
    return {s: np.array(sorted(f[s] for f in fams.values() if s in f), np.int64) for s in SETTINGS}


# ------------------------------------------------------------------ Table 2
@dataclass
class SettingsRow:
    """One model's Table 2: per setting the object columns and their average, the deltas and the verdict."""
    settings: dict[str, dict]                 # setting -> {"columns": {key: v|None}, "avg": v|None, "count": n}
    deltas: dict[str, dict]                   # local setting -> {"columns": ..., "avg": ...}: local − global
    verdict: str | None                       # INTEGRATION, PERCEPTION, MIXED; None without local scores
    reason: str = ""
    extra: dict = field(default_factory=dict)

    def json(self) -> dict:
        return {"settings": self.settings,
                "settings_verdict": {"verdict": self.verdict, "reason": self.reason, "deltas": self.deltas}}


def _mean(score: np.ndarray, rows: np.ndarray) -> float | None:
    s = score[rows]
    s = s[~np.isnan(s)]
    return float(100.0 * s.mean()) if len(s) else None


def _avg(values) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def model_row(release, score: np.ndarray, rows: dict[str, np.ndarray] | None = None) -> SettingsRow:
    rows = setting_rows(release) if rows is None else rows
    settings = {}
    keys = object_keys(release.benchmark)
    for s in SETTINGS:
        cols = {}
        for key in keys:
            cols[key] = _mean(score, rows[s][release.column[rows[s]] == release.benchmark.keys.index(key)])
        n = int(np.sum(~np.isnan(score[rows[s]]))) if len(rows[s]) else 0
        settings[s] = {"columns": cols, "avg": _avg(cols.values()), "count": n}
    deltas = {s: {"columns": {k: _delta(settings[s]["columns"][k], settings[GLOBAL]["columns"][k])
                              for k in keys},
                  "avg": _delta(settings[s]["avg"], settings[GLOBAL]["avg"])} for s in (LOCAL_IMAGE, LOCAL_VIDEO)}
    verdict, reason = verdict_of(settings[GLOBAL]["avg"], settings[LOCAL_VIDEO]["avg"], settings[LOCAL_IMAGE]["avg"])
    return SettingsRow(settings, deltas, verdict, reason)


def settings_table(release, results) -> dict[str, SettingsRow]:
    """Per model its Table 2 row; empty when the release has no valid variant."""
    rows = setting_rows(release)
    if not len(rows[GLOBAL]):
        return {}
    return {r.model: model_row(release, r.score, rows) for r in results}


def verdict_of(g: float | None, lv: float | None, li: float | None) -> tuple[str | None, str]:
    """Integration-limited, perception-limited or mixed, from the Table-2 averages, with the sentence saying why.

    - integration-limited: Local-Image − Global ≥ GAIN and the best local setting ≥ GOOD
      (it answers when it sees the target, not from the video's map);
    - perception-limited: every setting below GOOD (it fails even with the target in view);
    - mixed: anything else; the sentence says when the model does worse in an easier setting.
    Local-Video stands in for Local-Image when a release has no Local-Image variants.
    """
    local = li if li is not None else lv
    if g is None or local is None:
        return None, "no local variants scored"
    name = TITLES[LOCAL_IMAGE] if li is not None else TITLES[LOCAL_VIDEO]
    d = local - g
    best = max(v for v in (lv, li) if v is not None)
    shown = ", ".join(f"{TITLES[s]} {v:.1f}" for s, v in ((GLOBAL, g), (LOCAL_VIDEO, lv), (LOCAL_IMAGE, li))
                      if v is not None)
    if d >= GAIN and best >= GOOD:
        return INTEGRATION, (f"integration-limited: {name} − Global = {d:+.1f} ({shown}); it locates the target "
                             "once it sees it, but not from the video")
    if max(g, best) < GOOD:
        return PERCEPTION, (f"perception-limited: below {GOOD:.0f} in every setting ({shown}); it fails even "
                            "with the target in view")
    worse = [s for s, v in ((LOCAL_VIDEO, lv), (LOCAL_IMAGE, li)) if v is not None and v - g <= -GAIN]
    if worse:
        return MIXED, (f"mixed: worse when easier, {' and '.join(TITLES[s] for s in worse)} below Global "
                       f"({shown})")
    return MIXED, f"mixed: no setting changes it by {GAIN:.0f} points or more ({shown})"


# ------------------------------------------------------------------ browser patterns
PATTERNS = {
    "any": "every question",
    "right_locally": "right locally, wrong globally: a local variant scores ≥ 0.5, its global question < 0.5",
    "worse_when_easier": "worse when easier: a local variant scores below its global question",
}
RIGHT = 0.5


def pattern_mask(release, score: np.ndarray, pattern: str) -> np.ndarray:
    """Global questions (one row per family) that show `pattern` in one model's scores."""
    n = len(release.uids)
    if pattern == "any":
        return np.ones(n, bool)
    if pattern not in PATTERNS:
        raise ValueError(f"unknown settings pattern {pattern!r}")
    m = np.zeros(n, bool)
    for b, fam in families(release).items():
        g = score[b]
        local = [score[i] for s, i in fam.items() if s != GLOBAL and not np.isnan(score[i])]
        if np.isnan(g) or not local:
            continue
        if pattern == "right_locally":
            m[b] = g < RIGHT and max(local) >= RIGHT
        else:
            m[b] = min(local) < g - 1e-9
    return m
