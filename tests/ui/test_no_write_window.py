"""The window writes into a release only when the user saves a flag or a view (issue 25, point 4).

Browsing creates nothing; a flag set, the window closed and opened again, shows the flag, and the
folder holds `annotations.sqlite` alone (no `-wal`, no `-shm`). A read-only release (`chmod -R a-w`,
in a child process that truly cannot write it, as root too: tests/read_only.py) opens, takes a flag
that survives a restart, says where the flag went, and is left exactly as it was.
"""
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

from PyQt6.QtCore import Qt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import audit_release as ar  # noqa: E402
from read_only import listing, make_read_only, make_writable, run_python  # noqa: E402
from ui_helpers import settle  # noqa: E402

from viewer.core.review.flags import DB_NAME  # noqa: E402

UIDS = [ar.uid("ED_v"), ar.uid("GP_s"), ar.uid("Pos")]


def _walk(qtbot, window, state) -> None:
    """What a reviewer does before flagging anything: every question, sorted, filtered, back again."""
    for uid in UIDS:
        assert state.select_uid(uid)
        settle(qtbot, window)
    state.sort = ("uid", True)
    state.filter = replace(state.filter, verdict="unreviewed")
    settle(qtbot, window)
    assert len(window.browser.model.rows) == len(state.session.release)     # nothing reviewed yet
    window.compare_bar.fill_menu()                        # the saved views menu reads the (absent) file
    state.filter = replace(state.filter, verdict="any")
    assert state.select_uid(UIDS[0])
    settle(qtbot, window)


def test_a_flag_survives_closing_and_the_release_keeps_one_file(qtbot, make_inspector, tmp_path):
    root = ar.build(tmp_path / "release")
    before = listing(root)
    window, state = make_inspector(root, uid=UIDS[0])
    _walk(qtbot, window, state)
    assert "to be saved at the first flag" in window.flags_panel.where.text()
    assert window.flags_where.text() == "flags: beside the release"
    window.close()
    assert listing(root) == before, "opening and browsing wrote into the release"

    window, state = make_inspector(root, uid=UIDS[1])
    panel = window.flags_panel
    qtbot.mouseClick(panel.buttons["bad_gt"], Qt.MouseButton.LeftButton)
    panel.note.setPlainText("the lamp is in the next room")
    assert state.select_uid(UIDS[2])                      # moving on saves the note
    settle(qtbot, window)
    assert window.compare_bar.save_view("bad ones")
    assert str(root / DB_NAME) in panel.where.text() and "Flags and views saved in" in panel.where.text()
    window.close()
    assert set(listing(root)) - set(before) == {DB_NAME}, "a -wal or -shm file was left beside the release"

    window, state = make_inspector(root, uid=UIDS[1])
    panel = window.flags_panel
    assert panel.buttons["bad_gt"].isChecked() and panel.note.toPlainText() == "the lamp is in the next room"
    assert state.verdicts == {UIDS[1]: "bad_gt"}
    assert window.compare_bar.store.names() == ["bad ones"]
    assert state.select_uid(UIDS[0])                      # another question shows no flag, and back
    assert not any(b.isChecked() for b in panel.buttons.values()) and panel.note.toPlainText() == ""
    assert state.select_uid(UIDS[1])
    assert panel.buttons["bad_gt"].isChecked()
    kept = listing(root)
    window.close()
    assert listing(root) == kept                          # reading the flags again wrote nothing


# A window in a child process that cannot write the release: sets a flag and a view, or reads them.
WINDOW = textwrap.dedent("""
    import json, sys
    from PyQt6.QtCore import QEventLoop, QSettings, QTimer
    from viewer.ui.app import make_app
    from viewer.ui.main_window import MainWindow
    release, settings, uid, action = sys.argv[1:5]
    app = make_app()
    window = MainWindow(QSettings(settings, QSettings.Format.IniFormat))
    window.resize(1200, 800)
    window.show()

    def wait(signal=None, seconds=60):
        loop = QEventLoop()
        if signal is not None:
            signal.connect(loop.quit)
        QTimer.singleShot(int(seconds * 1000), loop.quit)
        loop.exec()
    window.open_release(release, [], uid)
    wait(window.sessionLoaded)
    while window.jobs.pending:
        wait(window.jobs.settled, 5)
    panel = window.flags_panel
    if action == "flag":
        panel.buttons["bad_gt"].click()
        panel.note.setPlainText("seen on a read-only copy")
        panel.save_note()
        saved = window.compare_bar.save_view("read-only view")
    flag = panel.store.get(uid)
    said = {"status": window.flags_where.text(), "tooltip": window.flags_where.toolTip(),
            "panel": panel.where.text(), "problem": panel.problem.text(), "path": str(panel.store.path),
            "verdict": flag and flag.verdict, "note": flag and flag.note,
            "checked": panel.buttons["bad_gt"].isChecked(), "views": window.compare_bar.store.names()}
    window.close()
    print(json.dumps(said))
    """)


def test_a_read_only_release_takes_flags_that_survive_a_restart(tmp_path):
    root = ar.build(tmp_path / "release")
    data = tmp_path / "data"
    make_read_only(root)
    before = listing(root)
    env = {"GST_VIEWER_DATA": str(data), "QT_QPA_PLATFORM": "offscreen"}
    try:
        first = run_python(WINDOW, [root], env=env, args=[root, tmp_path / "a.ini", UIDS[0], "flag"])
        second = run_python(WINDOW, [root], env=env, args=[root, tmp_path / "b.ini", UIDS[0], "read"])
    finally:
        make_writable(root)
    assert listing(root) == before, "the read-only release was changed"
    assert first["problem"] == "" and first["verdict"] == "bad_gt"
    for said in (first, second):
        assert said["status"] == "flags: in your data folder (the release folder is read-only)"
        assert said["path"] in said["tooltip"] and said["path"] in said["panel"]
        assert Path(said["path"]).parent == data / "annotations"
    assert (second["verdict"], second["note"], second["checked"]) == ("bad_gt", "seen on a read-only copy", True)
    assert second["views"] == ["read-only view"]
    assert sorted(p.name for p in (data / "annotations").iterdir()) == [Path(first["path"]).name]
