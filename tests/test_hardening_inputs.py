"""Issue 26, end to end: inputs of the fuzzing classes given to the commands as a user gives them, each run
with a time limit so that a hang fails the test. Every one must end in a message naming the file: no
traceback, no hang, and a non-zero exit when the command could not do its work.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

import pytest
from published_samples import ED_UID, EDIST_UID, FIXTURES

EXE = [sys.executable, "-m", "viewer"]
ED = "04_Object_Localization_Egocentric_Direction_visual"
EDIST = "05_Object_Localization_Egocentric_Distance_visual"


def _run(args, timeout=120):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(EXE + [str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=env)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def big_png(width: int, height: int, with_data: bool) -> bytes:
    """A PNG declaring width x height RGB pixels; with its (all black, deflated) rows or with none."""
    out = [b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))]
    if with_data:
        z = zlib.compressobj(9)
        row = bytes(1 + 3 * width)
        out.append(_chunk(b"IDAT", b"".join(z.compress(row) for _ in range(height)) + z.flush()))
    out.append(_chunk(b"IEND", b""))
    return b"".join(out)


def big_jpeg(source: bytes, width: int, height: int, with_data: bool) -> bytes:
    """The JPEG `source` declaring width x height pixels in its frame header; its scan kept or cut."""
    k = next(i for i in range(2, len(source) - 1) if source[i] == 0xFF and source[i + 1] in (0xC0, 0xC2))
    data = source[:k + 5] + struct.pack(">HH", height, width) + source[k + 9:]
    return data if with_data else data[:data.index(b"\xff\xda")] + b"\xff\xd9"


@pytest.fixture(params=["png-header", "png-data", "jpeg-header", "jpeg-data"])
def bomb_release(request, tmp_path):
    """A copy of the six samples whose one view image declares 50,000 x 50,000 pixels; (root, uid, name)."""
    root = tmp_path / "release"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("annotations.sqlite*"))
    fmt, kind = request.param.split("-")
    if fmt == "png":
        target, uid = root / EDIST / "image_01_orientation_0.png", EDIST_UID
        target.write_bytes(big_png(50_000, 50_000 if kind == "header" else 2_000, kind == "data"))
        if kind == "data":      # rows for 2,000 lines, a declared height of 50,000: IHDR is rewritten
            data = target.read_bytes()
            body = struct.pack(">IIBBBBB", 50_000, 50_000, 8, 2, 0, 0, 0)
            target.write_bytes(data[:8] + _chunk(b"IHDR", body) + data[33:])
    else:
        target, uid = root / ED / "image_01_19_14.jpg", ED_UID
        target.write_bytes(big_jpeg(target.read_bytes(), 50_000, 50_000, kind == "data"))
    return root, uid, target.name


def test_render_names_an_image_over_the_pixel_budget(bomb_release, tmp_path):
    root, uid, name = bomb_release
    out = tmp_path / "fig.png"
    p = _run(["render", root, "--uid", uid, "--layout", "panel", "--out", out])
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 0, p.stderr
    assert out.stat().st_size > 10_000             # the panel drawn, the image's place saying why it is not


def test_the_image_reader_names_the_file_and_its_declared_size(bomb_release):
    from viewer.render.image_io import read_rgb
    root, uid, name = bomb_release
    target = next(root.rglob(name))
    with pytest.raises(OSError, match=rf"{name}: declares .*over the budget of 50,000,000 pixels"):
        read_rgb(target)


def test_audit_names_an_image_over_the_pixel_budget(bomb_release):
    root, uid, name = bomb_release
    p = _run(["audit", root, "--json"])
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode in (0, 1), p.stderr
    media = [m for f in json.loads(p.stdout)["findings"] if f["check"] == "missing_media"
             for m in f["details"]["media"]]
    assert any(m["path"].endswith(name) and "over the budget" in m["problem"] for m in media), media


# ------------------------------------------------------------------ class 6: named pipes and deep JSON
def _plant_prediction(tmp_path, kind: str):
    path = tmp_path / ("model.json" if kind.endswith("json-doc") else "model.jsonl")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "deep-array":
        path.write_text("[" * 100_000)
    elif kind == "deep-object":
        path.write_text('{"uid": ' * 100_000)
    elif kind == "deep-json-doc":
        path.write_text('[{"uid": "x", "prediction": ' + "[" * 100_000 + "]" * 100_000 + "}]")
    return path


@pytest.mark.parametrize("kind", ["fifo", "deep-array", "deep-object", "deep-json-doc"])
@pytest.mark.parametrize("command", ["score", "render"])
def test_a_prediction_file_that_is_a_pipe_or_deep_json_is_refused(tmp_path, command, kind):
    preds = _plant_prediction(tmp_path, kind)
    args = [command, FIXTURES, preds] if command == "score" else \
        ["render", FIXTURES, "--uid", ED_UID, "-p", preds, "--out", tmp_path / "fig.png"]
    p = _run(args, timeout=60)                       # a hang fails here (TimeoutExpired)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2, p.stderr
    assert str(preds) in p.stderr, p.stderr


# ------------------------------------------------------------------ class 7: the flags database in a release
_SHIPPED = {
    "trigger": "CREATE TRIGGER burn BEFORE INSERT ON changes BEGIN SELECT count(*) FROM (WITH RECURSIVE "
               "r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r); END",
    "forging-trigger": "CREATE TRIGGER forge AFTER INSERT ON changes BEGIN UPDATE changes SET value = 'ok' "
                       "WHERE id = new.id; END",
    "view": "CREATE VIEW endless AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
}


@pytest.fixture
def shipped_release(tmp_path):
    import shutil as _shutil
    root = tmp_path / "release"
    _shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("annotations.sqlite*"))
    return root


@pytest.mark.parametrize("kind", sorted(_SHIPPED))
def test_flags_refuse_a_shipped_database_with_triggers_or_views(shipped_release, tmp_path, kind):
    import sqlite3

    from viewer.core.review.flags import _SCHEMA
    db = shipped_release / "annotations.sqlite"
    con = sqlite3.connect(db)
    con.executescript(_SCHEMA)
    con.execute("INSERT INTO changes(uid, field, value, author, at) VALUES ('q0', 'note', 'shipped', 'a', 't')")
    con.execute(_SHIPPED[kind])
    con.commit()
    con.close()
    before = db.read_bytes()
    env = {"GST_VIEWER_DATA": str(tmp_path / "data")}
    os.environ.update(env)
    try:
        p = _run(["flags", "set", shipped_release, ED_UID, "--verdict", "bad_gt"], timeout=60)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        assert str(db) in p.stderr and ("trigger" in p.stderr or "view" in p.stderr), p.stderr
        p = _run(["flags", "export", shipped_release, "--format", "csv"], timeout=60)
        assert "Traceback" not in p.stderr, p.stderr
        assert p.returncode == 0 and "q0,,shipped" in p.stdout, (p.stdout, p.stderr)
    finally:
        for k in env:
            os.environ.pop(k)
    assert db.read_bytes() == before


def test_flags_never_follow_a_link_out_of_the_release(shipped_release, tmp_path):
    elsewhere = tmp_path / "elsewhere.sqlite"
    (shipped_release / "annotations.sqlite").symlink_to(elsewhere)           # dangling
    os.environ["GST_VIEWER_DATA"] = str(tmp_path / "data")
    try:
        p = _run(["flags", "set", shipped_release, ED_UID, "--verdict", "bad_gt"], timeout=60)
    finally:
        os.environ.pop("GST_VIEWER_DATA")
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert not elsewhere.exists()
    assert list((tmp_path / "data").rglob("*.sqlite"))


# ------------------------------------------------------------------ class 2: the frame cache, bounded in bytes
def test_the_frame_cache_is_bounded_in_bytes(monkeypatch):
    import numpy as np

    from viewer.render import video
    monkeypatch.setattr(video, "CACHE_BYTES", 10 * 1024**2)
    cache = video._FrameCache(48)
    frame = np.zeros((1000, 1000, 3), np.uint8)                  # 3 MB a frame: three fit, not four
    for k in range(20):
        cache._put(k, frame.copy())
        assert cache._cache_bytes == sum(f.nbytes for f in cache._cache.values()) <= 10 * 1024**2
    assert list(cache._cache) == [17, 18, 19]
    huge = np.zeros((2000, 2000, 3), np.uint8)                   # one frame over the bound: kept alone
    cache._put(20, huge)
    assert list(cache._cache) == [20] and cache._cached(20) is huge
