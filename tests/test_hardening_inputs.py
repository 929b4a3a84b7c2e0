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
from published_samples import ED_UID, EDIST_UID, FIXTURES, REPO

REPO_DATA = REPO / "tests" / "data" / "scene_import"

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


# ------------------------------------------------------------------ class 2: videos, end to end
TDSM = "02_Global_Structure_Understanding_Topdown_Selection_Medium"


def _broken_sample_video(root, kind: str) -> str:
    """The published sample's video1.mp4 (535 frames, its index before its data) broken as `kind`; its path."""
    import broken_media
    video = root / TDSM / "video1.mp4"
    data = video.read_bytes()
    if kind == "cut-40%":
        data = data[:int(len(data) * 0.4)]
    elif kind == "cut-in-index":
        data = data[:2000]
    elif kind == "moov-renamed":
        data = data.replace(b"moov", b"moow", 1)
    elif kind == "garbage-avcC":
        k = data.index(b"avcC") + 4
        data = data[:k + 6] + bytes(range(7, 47)) + data[k + 46:]
    else:
        data = broken_media.broken_video(kind)
    video.write_bytes(data)
    return str(video)


VIDEO_CASES = [("cut-40%", "of 535 decodable; the file is cut"), ("cut-in-index", "cut"),
               ("moov-renamed", "no 'moov' box"), ("garbage-avcC", "no frame can be decoded"),
               ("audio-only", "audio only"), ("zero-frames", "the video holds no frames")]


@pytest.fixture
def sample_copy(tmp_path):
    root = tmp_path / "release"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("annotations.sqlite*"))
    return root


@pytest.mark.parametrize("kind, said", VIDEO_CASES)
def test_render_draws_what_a_broken_video_gives_and_says_what_is_wrong(sample_copy, tmp_path, kind, said):
    from published_samples import TDSM_UID
    video = _broken_sample_video(sample_copy, kind)
    out = tmp_path / "fig.png"
    p = _run(["render", sample_copy, "--uid", TDSM_UID, "--layout", "panel", "--out", out], timeout=180)
    assert "Traceback" not in p.stderr and "VideoError" not in p.stderr, p.stderr
    assert p.returncode == 0, p.stderr            # the figure is drawn: the video's place says why it is not whole
    assert out.stat().st_size > 10_000
    assert video in p.stderr and said in p.stderr, p.stderr


@pytest.mark.parametrize("kind, said", VIDEO_CASES)
def test_audit_missing_media_decodes_the_video_ends(sample_copy, kind, said):
    video = _broken_sample_video(sample_copy, kind)
    p = _run(["audit", sample_copy, "--json", "--checks", "missing_media"], timeout=180)
    assert "Traceback" not in p.stderr, p.stderr
    media = [m for f in json.loads(p.stdout)["findings"] if f["check"] == "missing_media"
             for m in f["details"]["media"]]
    assert any(video.endswith(m["path"].split("/")[-1]) and said in m["problem"] for m in media
               if m["kind"] == "video"), media


@pytest.mark.parametrize("kind", ["cut-40%", "moov-renamed"])
def test_clip_never_substitutes_frames_unsaid(sample_copy, tmp_path, kind):
    from published_samples import TDSM_UID
    video = _broken_sample_video(sample_copy, kind)
    out = tmp_path / "clip.mp4"
    p = _run(["clip", sample_copy, "--uid", TDSM_UID, "--out", out, "--seconds", "1", "--fps", "4",
              "--size", "320x180"], timeout=300)
    assert "Traceback" not in p.stderr, p.stderr
    assert video in p.stderr, p.stderr
    if kind == "cut-40%":                        # the decodable frames are used, and the cut is said
        assert p.returncode == 0 and "the file is cut" in p.stderr, p.stderr
    else:                                        # nothing to show and no scene to render from: a clear failure
        assert p.returncode == 2 and "no exploration video" in p.stderr, p.stderr


# ------------------------------------------------------------------ class 3: meshes, end to end
def _mesh_case(tmp_path, kind: str):
    import broken_media as bm
    import numpy as np
    v, f = bm.tetra()
    v = v * 4.0
    if kind == "glb-self-child":
        data, name = bm.glb(v, f, [{"name": "a", "mesh": 0, "children": [0]}]), "m.glb"
    elif kind == "glb-cycle":
        data, name = bm.glb(v, f, [{"name": "a", "mesh": 0, "children": [1]}, {"name": "b", "children": [0]}]), "m.glb"
    elif kind == "nan-vertex":
        v[2, 1] = np.nan
        data, name = bm.ply_binary(v, f), "m.ply"
    elif kind == "index-minus-1":
        f = f.copy()
        f[1, 2] = -1
        data, name = bm.ply_binary(v, f), "m.ply"
    elif kind == "index-50000":
        f = f.copy()
        f[0, 0] = 50_000
        data, name = bm.obj_text(v, f), "m.obj"
    elif kind == "obj-0-based":
        data, name = bm.obj_text(v, f, base=0), "m.obj"
    elif kind == "ply-cut":
        data, name = bm.ply_ascii(v, f)[:-12], "m.ply"
    else:
        raise ValueError(kind)
    path = tmp_path / name
    path.write_bytes(data)
    return path


MESH_CASES = [("glb-self-child", "its own child"), ("glb-cycle", "its own ancestor"),
              ("nan-vertex", "NaN or infinite"), ("index-minus-1", "outside 0..3 (e.g. -1)"),
              ("index-50000", "face index 50001"), ("obj-0-based", "OBJ indices start at 1"),
              ("ply-cut", "the file is cut short")]


@pytest.mark.parametrize("kind, said", MESH_CASES)
def test_import_scene_refuses_a_broken_mesh_with_its_reason(tmp_path, kind, said):
    mesh = _mesh_case(tmp_path, kind)
    p = _run(["import-scene", tmp_path / "scene", "--mesh", mesh], timeout=60)     # a cycle hung here
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2 and str(mesh) in p.stderr and said in p.stderr, p.stderr
    assert not (tmp_path / "scene" / "scene.json").exists()


def test_import_scene_writes_the_checked_mesh_not_the_source(tmp_path):
    import broken_media as bm

    from viewer.render.scene_mesh import load_scene_mesh
    v, f = bm.tetra()
    src = tmp_path / "m.glb"
    src.write_bytes(bm.glb(v * 4.0, f, [{"name": "table_0", "mesh": 0}]))
    p = _run(["import-scene", tmp_path / "scene", "--mesh", src, "--up", "z"], timeout=60)
    assert p.returncode == 0, p.stderr
    written = tmp_path / "scene" / "mesh.glb"
    assert written.read_bytes() != src.read_bytes()
    mesh = load_scene_mesh(written)
    assert mesh.instance_ids == ["table_0"] and len(mesh.triangles) == 4


@pytest.mark.parametrize("kind", ["glb-self-child", "index-50000"])
def test_a_broken_mesh_in_a_release_is_said_by_render_and_audit(tmp_path, kind):
    import audit_release as ar
    import broken_media as bm
    import numpy as np
    root = ar.build(tmp_path / "rel", mesh=True)
    scene_glb = root / "scenes" / ar.SCENE / "scene.glb"
    v, f = bm.tetra()
    f = f.copy()
    if kind == "index-50000":
        f[0, 0] = 50_000
    nodes = [{"name": "a", "mesh": 0, "children": [0]}] if kind == "glb-self-child" else None
    scene_glb.write_bytes(bm.glb(v * np.float64(4.0), f, nodes))
    p = _run(["render", root, "--uid", ar.uid("ED_v"), "--layout", "3d", "--out", tmp_path / "3d.png"], timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    assert "scene.glb" in p.stderr and "boxes instead" in p.stderr, p.stderr
    p = _run(["audit", root, "--json"], timeout=180)
    assert "Traceback" not in p.stderr, p.stderr
    assert json.loads(p.stdout)["findings"] is not None
    said = "its own child" if kind == "glb-self-child" else "outside 0..3 (e.g. 50000)"
    assert "scene.glb" in p.stderr and said in p.stderr, p.stderr       # the audit's problems, on stderr


# ------------------------------------------------------------------ class 4: trajectories, end to end
def _cube_mesh(tmp_path):
    import broken_media as bm
    v, f = bm.tetra()
    path = tmp_path / "room.ply"
    path.write_bytes(bm.ply_binary(v * 8.0 - 1.0, f))
    return path


TRAJ_CASES = [
    ("traj.txt", "tum", "".join(f"{t} {x} 1 1 0 0 0 1\n" for t, x in [(0.3, 3), (0.1, 1), (0.2, 2), (0.0, 0)]),
     "poses are sorted by time"),
    ("traj.txt", "tum", "".join(f"{t} {x} 1 1 0 0 0 1\n" for t, x in [(0.0, 0), (0.1, 1), (0.1, 2), (0.2, 3)]),
     "1 poses repeat the timestamp"),
    ("traj.txt", "tum", "0.0 1 1 1 0 0 0 1e-12\n0.1 2 1 1 0 0 0 1e200\n0.2 3 1 1 0 0 0 1\n",
     "degenerate quaternion"),
    ("lowres_wide.traj", "arkitscenes", "0.0 1e300 0 0 -1 -1 -1\n0.1 0 0 0 -2 -1 -1\n", "not a usable rotation"),
]


@pytest.mark.parametrize("name, fmt, text, said", TRAJ_CASES)
def test_import_scene_says_what_it_did_to_a_trajectory(tmp_path, name, fmt, text, said):
    traj = tmp_path / name
    traj.write_text(text)
    p = _run(["import-scene", tmp_path / "scene", "--mesh", _cube_mesh(tmp_path), "--up", "z",
              "--trajectory", traj, "--trajectory-format", fmt], timeout=60)
    assert "Traceback" not in p.stderr and "math domain error" not in p.stderr, p.stderr
    assert p.returncode in (0, 1) and str(traj) in p.stderr and said in p.stderr, p.stderr
    assert "NaN or infinity" not in p.stderr, p.stderr


def test_colmap_without_point_lines_keeps_every_pose(tmp_path):
    from viewer.core.scene.formats.trajectories import read_trajectory
    src = (REPO_DATA / "colmap" / "images.txt").read_text().splitlines()
    images = [ln for ln in src if ln.startswith(("1 ", "2 "))]
    d = tmp_path / "colmap"
    d.mkdir()
    shutil.copy(REPO_DATA / "colmap" / "cameras.txt", d)
    (d / "images.txt").write_text("\n".join(src[:4] + images) + "\n")
    traj = read_trajectory(d, "colmap")
    assert traj.valid.sum() == 2 and traj.names == ["frame_0001.jpg", "frame_0002.jpg"]
    (w,) = traj.diagnostics.with_code("import.colmap_no_points_lines")
    assert "without point lines" in w.message


def test_an_omnigibson_box_of_1e300_names_the_object(tmp_path):
    doc = json.loads((REPO_DATA / "omnigibson" / "Fixture_int_best.json").read_text())
    name = next(iter(doc["objects_info"]["init_info"]))
    doc["objects_info"]["init_info"][name]["args"]["bounding_box"] = [1e300, 1, 1]
    src = tmp_path / "scene_best.json"
    src.write_text(json.dumps(doc))
    p = _run(["import-scene", tmp_path / "scene", "--omnigibson", src], timeout=120)
    assert "Traceback" not in p.stderr and "leaves no room" not in p.stderr, p.stderr
    assert p.returncode in (0, 1) and name in p.stderr and "bounding_box" in p.stderr, p.stderr
