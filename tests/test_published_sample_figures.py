"""Figures of the six published samples (no scene data, no video): no empty box, the layout closes up."""
import os

import pytest
from published_samples import ED_UID, EDIST_UID, FIXTURES, POS_UID, TDSE_UID, TDSM_UID, TRAJ_UID

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from viewer.core.session import Session  # noqa: E402
from viewer.figures.canvas import ensure_gui_app  # noqa: E402
from viewer.figures.layouts import export_figure, panel_parts, prepare  # noqa: E402

EXPECTED_MIDDLE = {ED_UID: "chart:dial", EDIST_UID: "chart:bars", POS_UID: "map",
                   TDSE_UID: "options", TDSM_UID: "options", TRAJ_UID: "options"}


@pytest.mark.parametrize("uid", sorted(EXPECTED_MIDDLE))
def test_panel_of_each_published_sample_has_no_placeholder(uid, tmp_path):
    from viewer.core.release import load_release
    ensure_gui_app()
    release = load_release(FIXTURES)
    s = prepare(Session(release, []), release.index[uid])
    try:
        parts = panel_parts(s)
        assert parts.get("middle") == EXPECTED_MIDDLE[uid]
        # Every slot shown has something in it: no frames, no strip; no image, no view box.
        assert ("strip" in parts) == (s.media.frames is not None)     # real frames only when a video ships
        if "view" in parts:
            assert s.view_q is not None
        if parts["middle"] == "map":
            assert s.map_q is not None
        if parts["middle"] == "options":
            assert all(o is not None for o in s.options_q)
        for layout in ("panel", "map"):
            out = export_figure(s, layout, tmp_path / f"{layout}.png", 0.5)
            assert out.stat().st_size > 5000
    finally:
        s.close()
