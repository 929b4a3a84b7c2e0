"""Issue 19's acceptance: a named pipe, a link out of the release, a NUL in a path and 100,000 levels of
nesting each give a message naming the file, and the rest of the release loads: in `score`, `audit`,
`render` and the window (`--screenshot`). Every command runs as a user would run it, with a time limit,
so a hang fails the test instead of stalling the suite.
"""
import json
import os
import subprocess
import sys

import pytest
from broken_release import make_broken
from published_samples import ED_UID, EDIST_UID, POS_UID, TDSM_UID

EXE = [sys.executable, "-m", "viewer"]
@pytest.fixture(params=["fifo", "symlink", "nul", "nesting"])
def broken(request, tmp_path):
    return (request.param, *make_broken(tmp_path, request.param))


def _run(args, timeout=120, **kw):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(EXE + [str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=env,
                          **kw)


def test_score(broken):
    defect, root, name, preds = broken
    p = _run(["score", root, preds, "--json"])
    assert p.returncode == 0, p.stderr
    assert name in p.stderr
    models = json.loads(p.stdout)["models"]
    assert models["model"]["counts"]["ED_v"] == 1 and models["model"]["counts"]["EDist_v"] == 1


def test_audit(broken):
    defect, root, name, preds = broken
    p = _run(["audit", root, "-p", preds, "--json"])
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    said = p.stderr + json.dumps(doc["findings"], ensure_ascii=False)
    assert name in said or (defect == "nul" and "NUL" in said)
    assert doc["summary"]["invalid_answer"]["checked"] >= 6      # every sample still audited


def test_render(broken, tmp_path):
    defect, root, name, preds = broken
    out = tmp_path / "fig.png"
    uid = {"fifo": POS_UID, "symlink": ED_UID, "nul": EDIST_UID, "nesting": TDSM_UID}[defect]
    p = _run(["render", root, "--uid", uid, "--layout", "panel", "--out", out, "-p", preds])
    assert p.returncode == 0, p.stderr
    assert out.stat().st_size > 10_000
    if defect != "nesting":                          # the broken file belongs to this very question
        assert name in p.stderr


@pytest.mark.slow
def test_window_screenshot(broken, tmp_path):
    defect, root, name, preds = broken
    out = tmp_path / "shot.png"
    uid = {"fifo": POS_UID, "symlink": ED_UID, "nul": EDIST_UID, "nesting": TDSM_UID}[defect]
    p = _run([root, "-p", preds, "--uid", uid, "--screenshot", out, "--size", "1200x800"], timeout=180)
    assert p.returncode == 0, p.stderr
    assert out.stat().st_size > 20_000

