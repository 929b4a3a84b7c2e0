"""A new audit check is one file plus its registration: this file is that one file.

It defines a check the way viewer/core/audit/checks/ does, registers it (a
fixture, so that it is unregistered afterwards), and shows that the audit
runs it (in worker processes too), counts it, accepts it in `--checks` and
lists it, like the built-in checks.
"""
import json

import audit_release as ar
import numpy as np
import pytest

from viewer.cli import main
from viewer.core.audit import CHECKS, SCENE, Check, parse_checks, register, run_audit, unregister
from viewer.core.audit.types import VIEW_TARGET_COLUMNS
from viewer.core.diagnostics import UserError
from viewer.core.release import load_release

U = ar.uid
REACH = 7.0                      # metres


# ---------------------------------------------------------------- the new check
class TargetBeyondReach(Check):
    """A target farther than REACH from the current view (a stand-in for a project's own check)."""

    def check_question(self, auditor, q, g) -> None:
        if g.viewpoint is None or g.target is None:
            auditor.skip(self, "no current view or no target")
            return
        distance = float(np.linalg.norm(g.target.bbox.center - g.viewpoint.pose[:3, 3]))
        if distance <= REACH:
            auditor.passed(self)
            return
        auditor.flag(self, q, f"target {g.target.id} is {distance:.1f} m from the current view",
                     {"target": g.target.id, "distance_m": distance, "reach_m": REACH})


TARGET_BEYOND_REACH = TargetBeyondReach("target_beyond_reach", "warning", "target over 7 m from the current view",
                                        VIEW_TARGET_COLUMNS, frozenset({SCENE}))


@pytest.fixture
def registered():
    register(TARGET_BEYOND_REACH)
    yield TARGET_BEYOND_REACH
    unregister(TARGET_BEYOND_REACH.id)


# ---------------------------------------------------------------- what registering it gives
@pytest.fixture(scope="module")
def two_scenes(tmp_path_factory):
    root = ar.build(tmp_path_factory.mktemp("extension") / "r")
    return ar.build(root, scene="scene_2")


def test_the_audit_runs_and_counts_a_registered_check(registered, two_scenes):
    report = run_audit(load_release(two_scenes))
    mine = [f for f in report.findings if f.code == "target_beyond_reach"]
    # pos_1 is 7.5 m from the lamp (the semantic questions' target) and 6.1 m from the chair.
    assert [f.uid for f in mine] == [U(k, s) for s in ("scene_1", "scene_2") for k in ("ED_s", "EDist_s")]
    assert all(f.severity == "warning" and f.details["distance_m"] > REACH for f in mine)
    assert report.summary()["target_beyond_reach"] == {"flagged": 4, "checked": 8, "skipped": 0}
    assert report.checks[-1] == list(report.summary())[-1] == "target_beyond_reach"     # registry order


def test_the_check_travels_to_worker_processes(registered, two_scenes):
    serial = run_audit(load_release(two_scenes), checks=["target_beyond_reach"], workers=1)
    parallel = run_audit(load_release(two_scenes), checks=["target_beyond_reach"], workers=2)
    assert [f.to_json() for f in parallel.findings] == [f.to_json() for f in serial.findings]
    assert parallel.summary() == serial.summary() == {"target_beyond_reach": {"flagged": 4, "checked": 8,
                                                                              "skipped": 0}}


def test_the_command_line_accepts_and_lists_it(registered, two_scenes, capsys):
    assert parse_checks("target_beyond_reach,missing_media") == ["missing_media", "target_beyond_reach"]
    assert main(["audit", str(two_scenes), "--json", "--checks", "target_beyond_reach"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["summary"]) == ["target_beyond_reach"] and len(doc["findings"]) == 4
    assert main(["audit", str(two_scenes), "--checks", "target_beyond_reach"]) == 0
    table = capsys.readouterr().out
    assert any(line.split()[:3] == ["target_beyond_reach", "warning", "4"] for line in table.splitlines())
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    assert "target_beyond_reach" in capsys.readouterr().out


def test_unregistered_it_is_gone(two_scenes):
    register(TARGET_BEYOND_REACH)
    unregister(TARGET_BEYOND_REACH.id)
    assert "target_beyond_reach" not in CHECKS
    with pytest.raises(UserError, match="unknown check target_beyond_reach"):
        parse_checks("target_beyond_reach")
    assert "target_beyond_reach" not in run_audit(load_release(two_scenes), checks=None).summary()


def test_register_refuses_an_unsound_check():
    ids_before = CHECKS.ids()
    with pytest.raises(ValueError, match="already registered"):
        register(Check("missing_media", "error", "again", frozenset()))
    with pytest.raises(ValueError, match="check_question runs exactly when"):
        register(TargetBeyondReach("no_scene_declared", "warning", "t", VIEW_TARGET_COLUMNS))
    with pytest.raises(ValueError, match="severity 'fatal'"):
        register(TargetBeyondReach("bad_severity", "fatal", "t", VIEW_TARGET_COLUMNS, frozenset({SCENE})))
    assert CHECKS.ids() == ids_before             # none of the refused ones slipped in
