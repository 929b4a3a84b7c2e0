"""Reviewer flags: history and undo, export round trip, and the faults (corrupt, locked, killed, two writers)."""
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from viewer.cli import main
from viewer.core.diagnostics import UserError
from viewer.core.review import annotations as annotations_mod
from viewer.core.review import flags as flags_mod
from viewer.core.review.flags import DB_NAME, FlagConflict, FlagStore, annotations_path
from viewer.core.review.flags_io import export_flags, import_flags


@pytest.fixture
def store(tmp_path):
    s = FlagStore(tmp_path / DB_NAME, author="ana")
    yield s
    s.close()


def test_verdicts_and_notes_with_who_and_when(store):
    store.set_verdict("q1", "bad_gt")
    store.set_note("q1", "target is behind the sofa")
    store.set_verdict("q2", "ok")
    f = store.get("q1")
    assert (f.verdict, f.note, f.author) == ("bad_gt", "target is behind the sofa", "ana")
    assert f.at.endswith("Z") and f.at[:4].isdigit()
    assert set(store.all()) == {"q1", "q2"} and store.verdicts() == {"q1": "bad_gt", "q2": "ok"}
    assert store.set_verdict("q2", "ok") is None                 # unchanged: no history row
    assert [(c.field, c.value, c.previous) for c in store.history("q1")] == [
        ("verdict", "bad_gt", None), ("note", "target is behind the sofa", None)]
    with pytest.raises(UserError, match="unknown verdict 'wrong'"):
        store.set_verdict("q1", "wrong")


def test_undo_restores_and_keeps_history(store):
    store.set_verdict("q1", "ok")
    store.set_verdict("q1", "ambiguous")
    store.set_note("q1", "two lamps")
    store.undo()
    assert store.get("q1").note == ""
    store.undo()
    assert store.get("q1").verdict == "ok"
    store.undo()
    assert store.get("q1") is None and not store.can_undo and store.undo() is None
    rows = store.history("q1")
    assert len(rows) == 6 and [r.undoes for r in rows[3:]] == [rows[2].id, rows[1].id, rows[0].id]


def test_undo_never_overwrites_a_later_change_from_another_window(tmp_path):
    a, b = FlagStore(tmp_path / DB_NAME, author="ana"), FlagStore(tmp_path / DB_NAME, author="ben")
    a.set_verdict("q1", "ok")
    b.set_verdict("q1", "bad_media")
    with pytest.raises(FlagConflict, match="changed again by ben"):
        a.undo()
    assert a.get("q1").verdict == "bad_media" and not a.can_undo


def test_note_edited_from_a_stale_copy_is_refused(tmp_path):
    a, b = FlagStore(tmp_path / DB_NAME, author="ana"), FlagStore(tmp_path / DB_NAME, author="ben")
    a.set_note("q1", "first")
    seen_by_b = b.get("q1").note
    a.set_note("q1", "second", expected="first")
    with pytest.raises(FlagConflict, match="changed by ana"):
        b.set_note("q1", "overwrite", expected=seen_by_b)
    assert b.get("q1").note == "second"


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_export_import_round_trip(store, tmp_path, fmt):
    store.set_verdict("q1", "bad_gt")
    store.set_note("q1", 'quotes " commas, and\na new line — ünïcode')
    store.set_verdict("q2", "bad_media")
    store.set_note("q3", "only a note")
    store.set_verdict("q4", "ok")
    store.set_verdict("q4", None)                                # cleared: not exported
    text = export_flags(store, fmt)
    path = tmp_path / f"flags.{fmt}"
    path.write_text(text, encoding="utf-8")
    other = FlagStore(tmp_path / "other.sqlite", author="importer")
    changed, diags = import_flags(other, path)
    assert changed == 4 and not diags.items
    assert export_flags(other, fmt) == text
    assert other.get("q1") == store.get("q1")


def test_import_reports_bad_rows_with_their_line(store, tmp_path):
    path = tmp_path / "flags.csv"
    path.write_text("uid,verdict,note\nq1,ok,fine\nq2,great,?\n,ok,\n")
    changed, diags = import_flags(store, path)
    assert changed == 2 and set(store.all()) == {"q1"}
    assert [(d.line, d.code) for d in diags] == [(3, "flags.unknown_verdict"), (4, "flags.no_uid")]


def test_corrupt_database_leaves_the_store_read_only(tmp_path):
    path = tmp_path / DB_NAME
    path.write_bytes(b"this is not a database" * 100)
    s = FlagStore(path)
    assert s.readonly and "damaged" in s.problem and str(path) in s.problem
    assert s.all() == {} and s.get("q1") is None
    with pytest.raises(UserError, match="damaged"):
        s.set_verdict("q1", "ok")


def test_locked_database_write_fails_clearly_then_works(tmp_path, monkeypatch):
    monkeypatch.setattr(flags_mod, "BUSY_SECONDS", 0.2)
    s = FlagStore(tmp_path / DB_NAME)
    s.set_verdict("q1", "ok")
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    with pytest.raises(UserError, match="locked by another program"):
        s.set_verdict("q1", "bad_gt")
    assert s.get("q1").verdict == "ok"                           # readers are not blocked (WAL)
    other.execute("ROLLBACK")
    s.set_verdict("q1", "bad_gt")                                # a passing lock is not damage
    assert s.get("q1").verdict == "bad_gt" and not s.readonly


def test_database_locked_when_opening_is_read_only_until_reopened(tmp_path, monkeypatch):
    monkeypatch.setattr(flags_mod, "BUSY_SECONDS", 0.2)
    path = tmp_path / DB_NAME
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("CREATE TABLE x(a)")                          # takes and keeps the exclusive lock
    s = FlagStore(path)
    assert s.readonly and "locked" in s.problem
    with pytest.raises(UserError, match="locked"):
        s.set_note("q1", "hello")
    holder.close()
    s.reopen()
    assert not s.readonly
    s.set_note("q1", "hello")
    assert s.get("q1").note == "hello"


def test_read_only_release_keeps_flags_in_the_user_data_folder(tmp_path, monkeypatch):
    release = tmp_path / "release"
    release.mkdir()
    assert annotations_path(release) == release.resolve() / DB_NAME
    monkeypatch.setenv("GST_VIEWER_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(annotations_mod, "_folder_writable", lambda folder: False)
    path = annotations_path(release)
    assert path.parent == tmp_path / "data" / "annotations" and path.name.startswith("release-")
    s = FlagStore.for_release(release)
    s.set_verdict("q1", "ok")
    assert path.is_file() and not (release / DB_NAME).exists()


WRITER = textwrap.dedent("""
    import sys
    from viewer.core.review.flags import FlagStore
    store = FlagStore(sys.argv[1], author=sys.argv[2])
    for k in range(int(sys.argv[3])):
        if k % 2:
            store.set_note(f"q{k % 7}", f"{sys.argv[2]} note {k}")
        else:
            store.set_verdict(f"q{k % 7}", ("ok", "bad_gt", "ambiguous", "bad_media")[k % 4])
        print(k, flush=True)
""")


def test_killed_process_loses_no_committed_flag(tmp_path):
    path = tmp_path / DB_NAME
    p = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "w", "100000"], stdout=subprocess.PIPE, text=True)
    reported = -1
    for line in p.stdout:
        reported = int(line)
        if reported >= 150:
            break
    p.send_signal(signal.SIGKILL)
    p.wait()
    s = FlagStore(path)
    assert not s.readonly
    notes = {c.value for c in s.history() if c.field == "note"}
    assert all(f"w note {k}" in notes for k in range(1, reported + 1, 2))
    assert len(s.history()) >= reported + 1
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_two_writers_lose_no_update(tmp_path):
    path = tmp_path / DB_NAME
    FlagStore(path).close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), who, "150"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for who in ("a", "b")]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    history = FlagStore(path).history()
    assert len(history) <= 300
    # Each change saw the value the previous change of that field left: nothing overwritten unseen.
    last: dict = {}
    for c in history:
        assert c.previous == last.get((c.uid, c.field)), c
        last[(c.uid, c.field)] = c.value
    notes = {c.value for c in history if c.field == "note"}
    assert all(f"{who} note {k}" in notes for who in "ab" for k in range(1, 150, 2))


def test_flags_cli_set_export_import(tmp_path, capsys):
    import audit_release as ar
    root = ar.build(tmp_path / "rel")
    uid = ar.uid("ED_v")
    assert main(["flags", "set", str(root), uid, "--verdict", "bad_gt", "--note", "angle off by 40"]) == 0
    assert main(["flags", "export", str(root), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(f["uid"], f["verdict"], f["note"]) for f in doc["flags"]] == [(uid, "bad_gt", "angle off by 40")]
    out = tmp_path / "flags.csv"
    assert main(["flags", "export", str(root), "--format", "csv", "-o", str(out)]) == 0
    (root / DB_NAME).unlink()
    assert main(["flags", "import", str(root), str(out)]) == 0
    assert FlagStore(root / DB_NAME).get(uid).note == "angle off by 40"
    assert main(["flags", "set", str(root), "no_such_uid", "--verdict", "ok"]) == 2
    assert "no_such_uid: no such question" in capsys.readouterr().err


def test_bundled_demo_flags_go_to_the_user_data_folder(tmp_path, monkeypatch):
    from viewer.assets import assets_dir
    from viewer.core.review.flags import annotations_path
    monkeypatch.setenv("GST_VIEWER_DATA", str(tmp_path))
    path = annotations_path(assets_dir() / "demo")
    assert tmp_path in path.parents
    (tmp_path / "release").mkdir()
    assert annotations_path(tmp_path / "release").parent == tmp_path / "release"


def test_import_checks_every_row_then_saves_all_in_one_transaction(store, tmp_path):
    """A list as a verdict raised TypeError; an object as a note stopped the import halfway and then
    called the intact database damaged. Now bad rows are named and left out, the rest saved together."""
    path = tmp_path / "flags.json"
    path.write_text(json.dumps({"flags": [
        {"uid": "q1", "verdict": "ok", "note": "fine"},
        {"uid": "q2", "verdict": ["ok"]},
        {"uid": "q3", "verdict": "bad_gt", "note": {"text": "an object"}},
        {"uid": "q4", "verdict": "ambiguous"}]}))
    changed, diags = import_flags(store, path)
    assert changed == 3 and set(store.all()) == {"q1", "q4"}
    assert [(d.line, d.code) for d in diags] == [(2, "flags.not_text"), (3, "flags.not_text")]
    assert not store.readonly                        # the database is fine, and says so


def test_import_is_all_or_nothing_when_saving_fails(store, tmp_path, monkeypatch):
    path = tmp_path / "flags.csv"
    path.write_text("uid,verdict,note\nq1,ok,fine\nq2,bad_gt,off\n")
    real_insert = store._insert
    calls = []

    def failing_insert(con, *a, **kw):
        calls.append(a)
        if len(calls) == 3:
            raise sqlite3.OperationalError("disk I/O error")
        return real_insert(con, *a, **kw)
    monkeypatch.setattr(store, "_insert", failing_insert)
    with pytest.raises(UserError):
        import_flags(store, path)
    monkeypatch.undo()
    assert store.all() == {}                         # the two changes before the failure were rolled back


@pytest.mark.parametrize("name, text, why", [
    ("deep.json", "[" * 100_000, "nested too deeply"),
    ("big.csv", "uid,verdict,note\nq1,ok," + "x" * 200_000 + "\n", "not a readable CSV row"),
])
def test_import_of_an_unreadable_file_says_why(store, tmp_path, name, text, why):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UserError, match=why):
        import_flags(store, path)
    assert store.all() == {}


def test_export_of_an_unreadable_database_fails_and_keeps_the_old_export(tmp_path, capsys):
    import audit_release as ar
    root = ar.build(tmp_path / "rel")
    out = tmp_path / "backup.csv"
    out.write_text("uid,verdict,note,author,at\nq1,ok,,ana,2026-01-01\n")
    (root / DB_NAME).write_bytes(b"this is not a database" * 100)
    assert main(["flags", "export", str(root), "--format", "csv", "-o", str(out)]) == 2
    assert "damaged" in capsys.readouterr().err
    assert out.read_text().count("\n") == 2          # the good export is untouched


def test_a_newer_schema_is_read_only_and_not_called_damaged(tmp_path):
    path = tmp_path / DB_NAME
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE changes(id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL, "
                      "field TEXT NOT NULL, value TEXT, previous TEXT, author TEXT NOT NULL, at TEXT NOT NULL, "
                      "undoes INTEGER, reviewer_role TEXT NOT NULL DEFAULT 'x', confidence REAL NOT NULL);"
                      "INSERT INTO changes(uid, field, value, author, at, confidence) "
                      "VALUES ('q1', 'verdict', 'ok', 'ana', '2026-01-01', 0.9);")
    con.commit()
    con.close()
    s = FlagStore(path)
    assert s.readonly and "newer gst-viewer" in s.problem and "confidence" in s.problem
    assert "damaged" not in s.problem and "move it away" not in s.problem
    assert s.get("q1").verdict == "ok"                # still read
    s.close()


def test_a_read_only_database_is_said_when_opened(tmp_path):
    """Run where the file mode truly stops writing (as root too: tests/read_only.py)."""
    from read_only import run_python
    path = tmp_path / DB_NAME
    s = FlagStore(path)
    s.set_verdict("q1", "ok")
    s.close()
    path.chmod(0o444)
    readonly, problem, verdict = run_python(textwrap.dedent("""
        import json, sys
        from viewer.core.review.flags import FlagStore
        s = FlagStore(sys.argv[1])
        print(json.dumps([s.readonly, s.problem, s.get("q1").verdict]))
        """), [], args=[str(path)])
    assert readonly and "read-only" in problem and str(path) in problem
    assert verdict == "ok"                            # still shown


def test_import_skips_a_row_with_a_lone_surrogate(store, tmp_path):
    """JSON may escape a lone surrogate ("\\ud800"); SQLite cannot store it (found by tests/test_fuzz.py)."""
    path = tmp_path / "flags.json"
    path.write_text('{"flags": [{"uid": "q1", "verdict": "ok", "note": "a\\ud800b"}, {"uid": "q2", "verdict": "ok"}]}')
    changed, diags = import_flags(store, path)
    assert set(store.all()) == {"q2"} and [d.code for d in diags] == ["flags.not_text"]


def _first_saves_at_once(tmp_path, rounds=120, writers=3, until_an_error=False):
    """Rounds of `writers` stores saving their first flag in a new file at the same moment; the errors."""
    import threading
    errors = []
    for k in range(rounds):
        path = tmp_path / f"r{k}" / DB_NAME
        path.parent.mkdir()
        stores = [FlagStore(path, author=f"w{i}") for i in range(writers)]
        start = threading.Barrier(writers)

        def save(store, start=start):
            start.wait()
            try:
                store.set_verdict("q1", "ok")
            except Exception as e:                     # noqa: BLE001 - collected and asserted below
                errors.append(str(e))
        threads = [threading.Thread(target=save, args=(s,)) for s in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for s in stores:
            s.close()
        if errors and until_an_error:
            break
    return errors


def test_windows_saving_their_first_flag_together_both_save(tmp_path):
    """Two windows creating the file at once raced on the switch to WAL, where SQLite answers "locked"
    without waiting; one of them lost its flag ("database is locked; nothing saved")."""
    assert _first_saves_at_once(tmp_path) == []


def test_the_race_is_real_without_the_retry(tmp_path, monkeypatch):
    """The test above can fail: with a plain PRAGMA the same rounds lose saves."""
    import viewer.core.review.annotations as annotations
    monkeypatch.setattr(annotations, "enter_wal", lambda con: con.execute("PRAGMA journal_mode=WAL"))
    assert any("locked" in e for e in _first_saves_at_once(tmp_path, rounds=1000, until_an_error=True))
