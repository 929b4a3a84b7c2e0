"""The release is written only when the user saves something (issue 25, point 4).

Opening, reading flags and views, `--screenshot`, `score`, `render`, `clip`, `gallery`, `audit` and
`flags export` leave a release folder exactly as it was (listed with sizes and modification times,
folders included). The first flag or saved view creates `annotations.sqlite`; closing leaves it
alone, without `-wal` or `-shm`. A release folder that cannot be written keeps its flags and views in
the user data folder, keyed by the release.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from read_only import listing, make_read_only, make_writable, run_python

from viewer.assets import assets_dir
from viewer.cli import main
from viewer.core.review.flags import DB_NAME, FlagStore, annotation_location, user_data_dir
from viewer.core.review.views import ViewStore

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def release(tmp_path):
    root = tmp_path / "release"
    root.mkdir()
    return root


def test_reading_creates_nothing_and_the_first_save_creates_one_file(release, tmp_path, monkeypatch):
    monkeypatch.setenv("GST_VIEWER_DATA", str(tmp_path / "data"))
    before = listing(release)
    flags, views = FlagStore.for_release(release), ViewStore.for_release(release)
    assert flags.all() == {} and flags.history() == [] and flags.verdicts() == {} and flags.get("q1") is None
    assert views.names() == [] and views.documents() == {}
    assert not flags.readonly and not views.readonly and flags.readable
    flags.close()
    views.close()
    assert listing(release) == before and not user_data_dir().exists()

    flags, views = FlagStore.for_release(release), ViewStore.for_release(release)
    views.save("mine", {"filter": {}})                     # a view alone creates the file
    assert (release / DB_NAME).is_file() and views.names() == ["mine"]
    assert flags.all() == {}                               # the flags table does not exist yet: no flags
    flags.set_verdict("q1", "bad_gt")
    assert {p.name for p in release.iterdir()} >= {DB_NAME, DB_NAME + "-wal"}   # WAL while in use
    views.close()
    assert (release / (DB_NAME + "-wal")).exists()        # the flags store is still open on it
    flags.close()
    assert sorted(p.name for p in release.iterdir()) == [DB_NAME]
    con = sqlite3.connect(release / DB_NAME)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"       # read later without a WAL
    con.close()

    kept = listing(release)
    flags, views = FlagStore.for_release(release), ViewStore.for_release(release)
    assert flags.get("q1").verdict == "bad_gt" and views.names() == ["mine"]
    flags.close()
    views.close()
    assert listing(release) == kept                        # reading an existing file writes nothing either


def test_a_store_opened_before_the_file_existed_reads_what_another_window_saved(release):
    late = FlagStore.for_release(release)
    early = FlagStore.for_release(release, author="ben")
    early.set_note("q1", "seen")
    assert late.get("q1").note == "seen"
    late.set_verdict("q1", "ok")
    assert early.get("q1").verdict == "ok"
    early.close()
    late.close()
    assert sorted(p.name for p in release.iterdir()) == [DB_NAME]


def test_flags_cli_writes_only_when_it_saves(tmp_path, capsys):
    import audit_release as ar
    root = ar.build(tmp_path / "rel")
    before = listing(root)
    assert main(["flags", "export", str(root), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"flags": []}
    assert listing(root) == before
    assert main(["flags", "set", str(root), ar.uid("ED_v"), "--verdict", "ok"]) == 0
    assert set(listing(root)) - set(before) == {DB_NAME}   # the database alone: no -wal, no -shm


def test_a_read_only_release_keeps_flags_and_views_in_the_user_data_folder(tmp_path, monkeypatch):
    release = tmp_path / "release"
    release.mkdir()
    (release / "questions.jsonl").write_text("")
    data = tmp_path / "data"
    make_read_only(release)
    before = listing(release)
    try:
        out = run_python(textwrap.dedent("""
            import json, sys
            from viewer.core.review.flags import FlagStore
            from viewer.core.review.views import ViewStore
            flags, views = FlagStore.for_release(sys.argv[1]), ViewStore.for_release(sys.argv[1])
            said = [flags.where, views.where, flags.readonly]
            flags.set_verdict("q1", "bad_gt")
            views.save("mine", {"filter": {}})
            flags.close(); views.close()
            again, views = FlagStore.for_release(sys.argv[1]), ViewStore.for_release(sys.argv[1])
            print(json.dumps(said + [str(again.path), again.get("q1").verdict, views.names()]))
            """), [release], env={"GST_VIEWER_DATA": str(data)}, args=[release])
    finally:
        make_writable(release)
    flags_where, views_where, readonly, path, verdict, views = out
    assert listing(release) == before
    assert not readonly and verdict == "bad_gt" and views == ["mine"]
    assert flags_where == views_where and "in your data folder: the release folder is read-only" in flags_where
    assert Path(path).parent == data / "annotations" and Path(path).name.startswith("release-")
    assert sorted(p.name for p in (data / "annotations").iterdir()) == [Path(path).name]   # no -wal, no -shm
    # Keyed by the release: made writable again, it still finds them there and does not start afresh.
    monkeypatch.setenv("GST_VIEWER_DATA", str(data))
    assert annotation_location(release).path == Path(path)
    assert FlagStore.for_release(release).get("q1").verdict == "bad_gt"


def test_a_folder_that_only_looks_writable_falls_back_to_the_user_data_folder(tmp_path):
    """access(2) can be wrong (ACLs, network folders): creating the file is what decides."""
    release = tmp_path / "release"
    release.mkdir()
    data = tmp_path / "data"
    make_read_only(release)
    try:
        where, path = run_python(textwrap.dedent("""
            import json, sys
            from viewer.core.review import annotations
            annotations._folder_writable = lambda folder: True
            from viewer.core.review.flags import FlagStore
            flags = FlagStore.for_release(sys.argv[1])
            assert flags.path.parent.name == "release", flags.path
            flags.set_verdict("q1", "ok")
            flags.close()
            print(json.dumps([flags.where, str(flags.path)]))
            """), [release], env={"GST_VIEWER_DATA": str(data)}, args=[release])
    finally:
        make_writable(release)
    assert "the release folder could not be written" in where and Path(path).parent == data / "annotations"
    assert list(release.iterdir()) == []
    assert FlagStore(path).get("q1").verdict == "ok"


# ------------------------------------------------------------------ every command on a copy of the demo
@pytest.fixture(scope="module")
def demo_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("no-write") / "demo"
    shutil.copytree(assets_dir() / "demo", root)
    return root


def _first_uid(root: Path) -> str:
    with open(root / "questions.jsonl", encoding="utf-8") as f:
        return json.loads(f.readline())["uid"]


def _commands(root: Path, out: Path) -> dict[str, list[str]]:
    uid = _first_uid(root)
    preds = sorted(str(p) for p in (root / "predictions").glob("*.jsonl"))
    return {
        "score": ["score", str(root), *preds, "--per-sample", str(out / "per-sample.csv")],
        "audit": ["audit", str(root), "--predictions", *preds, "--json"],
        "render": ["render", str(root), "--uid", uid, "--out", str(out / "figure.png")],
        "clip": ["clip", str(root), "--uid", uid, "--out", str(out / "clip.gif"), "--seconds", "1", "--fps", "4"],
        "gallery": ["gallery", str(root), "--out", str(out / "gallery")],
        "flags export": ["flags", "export", str(root), "--format", "csv"],
    }


@pytest.mark.slow
@pytest.mark.parametrize("saved_before", [False, True], ids=["fresh", "with-flags"])
def test_no_command_writes_into_the_release(demo_copy, tmp_path, saved_before, capsys):
    """Also once a flag was saved: reading annotations.sqlite leaves it and its folder as they were."""
    if saved_before and not (demo_copy / DB_NAME).exists():
        assert main(["flags", "set", str(demo_copy), _first_uid(demo_copy), "--verdict", "bad_gt"]) == 0
    before = listing(demo_copy)
    for name, argv in _commands(demo_copy, tmp_path).items():
        code = main(argv)
        capsys.readouterr()
        assert code == 0, name
        assert listing(demo_copy) == before, f"{name} wrote into the release"
    screenshot = tmp_path / "window.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, "-m", "viewer.cli", str(demo_copy), "--screenshot", str(screenshot)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and screenshot.stat().st_size > 0, r.stderr[-2000:]
    assert listing(demo_copy) == before, "--screenshot wrote into the release"
