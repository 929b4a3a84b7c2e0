"""Fuzzing the readers of user files (issue 19): whatever the bytes, a reader returns what it can and
reports the rest, or raises the app's own UserError; nothing else escapes.

Bounded (500 examples per reader, no deadline), so `make test` stays fast; set
GST_FUZZ_EXAMPLES for a longer hunt.
"""
import json
import math
import os
import string
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.core.diagnostics import UserError
from viewer.core.predictions import load_predictions
from viewer.core.release import load_release
from viewer.core.review.flags import FlagStore
from viewer.core.review.flags_io import import_flags
from viewer.core.scene.reader import read_scene_file
from viewer.core.session import open_session

EXAMPLES = int(os.environ.get("GST_FUZZ_EXAMPLES", 500))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

TASKS = ["Object_Localization_Egocentric_Direction_visual", "Object_Localization_Egocentric_Distance_visual",
         "Object_Localization_Global_Position_visual", "Self_Localization_Global_Orientation",
         "Global_Structure_Understanding_Topdown_Selection_Easy", "no_such_task"]

# JSON values, including the ones that broke readers: huge integers, deep nesting, NaN, odd strings.
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30), st.just(10**400),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
    st.sampled_from(["<point>12 900</point>", "<point>1200 -5</point>", "C", "Answer: B", "-161", "4.7 m", "nan",
                     "9" * 400, "\x00", "\ud800", "../../etc/passwd", "/abs/path.png", "a.png"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                      max_leaves=12)


def _record(draw_uid, task, answer, extra):
    rec = {"uid": draw_uid, "task": task, "scene": "scene_1", "answer": answer, "texts": ["q", "view:"],
           "images": [{"index": 0, "copied_path": "a.png"}]}
    rec.update(extra)
    return rec


records = st.builds(_record, st.text(alphabet=string.ascii_letters + "_0123456789", min_size=1, max_size=12),
                    st.sampled_from(TASKS), values,
                    st.dictionaries(st.sampled_from(["uid", "task", "scene", "answer", "texts", "images", "meta",
                                                     "copied_video_path"]), values, max_size=3))


def _line(rec) -> str:
    return json.dumps(rec, allow_nan=True)


lines = st.one_of(records.map(_line), st.text(max_size=40), st.just("[" * 3000),
                  st.just('{"uid": "x", "n": ' + "9" * 5000 + "}"))


@pytest.fixture
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def _fresh(folder: Path, name: str) -> Path:
    d = folder / name
    d.mkdir(exist_ok=True)
    for p in d.iterdir():
        p.unlink()
    return d


@FUZZ
@given(st.lists(lines, min_size=1, max_size=8))
def test_question_loader(folder, body):
    d = _fresh(folder, "release")
    (d / "a.png").write_bytes(b"png")
    text = "\n".join(body) + "\n"
    (d / "questions.jsonl").write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        r = load_release(d)
    except UserError:
        return
    # Only finite truths; every non-blank line is a question, or reported.
    assert all(math.isfinite(v) for row in r.truth for v in row if not math.isnan(v))
    reported = {x.line for x in r.diagnostics if x.line}
    # A duplicate uid is reported on its later line, naming the earlier one ("first at FILE:LINE").
    reported |= {int(x.message.split(":")[-1].split(")")[0]) for x in r.diagnostics.with_code("release.duplicate_uid")
                 if x.message.split(":")[-1].split(")")[0].isdigit()}
    non_blank = [k for k, ln in enumerate(text.split("\n"), 1) if ln.strip()]
    loaded = {r.questions._where[i][1] for i in range(len(r))}
    for k in non_blank:
        assert k in loaded or k in reported or any(x.line is None for x in r.diagnostics), k
    for i in range(len(r)):                          # building a question never raises
        r.questions[i].prompt_segments()


PRED_FORMATS = {
    "jsonl": lambda recs: "\n".join(json.dumps({"uid": u, "prediction": p}, allow_nan=True) for u, p in recs),
    "lmms.jsonl": lambda recs: "\n".join(json.dumps({"doc_id": k, "doc": {"uid": u}, "resps": [[p]],
                                                     "filtered_resps": [p]}, allow_nan=True)
                                         for k, (u, p) in enumerate(recs)),
    "tsv": lambda recs: "index\tprediction\n" + "\n".join(f"{u}\t{p}" for u, p in recs),
    "csv": lambda recs: "uid,prediction\n" + "\n".join(f"{u},{p}" for u, p in recs),
}


@pytest.fixture(scope="module")
def tiny_release(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiny")
    recs = [_record(f"q{k}", TASKS[k % 5], a, {}) for k, a in enumerate(["-161", "4.7", "<point>490 664</point>",
                                                                         "90", "C"])]
    (d / "a.png").write_bytes(b"png")
    (d / "questions.jsonl").write_text("\n".join(map(json.dumps, recs)) + "\n")
    return d


@FUZZ
@given(st.sampled_from(sorted(PRED_FORMATS)),
       st.lists(st.tuples(st.sampled_from(["q0", "q1", "q2", "q3", "q4", "zz", ""]), values), max_size=6),
       st.sampled_from(["", "\r", "\x00", "\t\t", '"']))
def test_prediction_loaders_and_scoring(folder, tiny_release, fmt, recs, noise):
    d = _fresh(folder, "preds")
    path = d / f"model.{fmt}"
    text = PRED_FORMATS[fmt](recs) + noise
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        load_predictions(path)
    except UserError:
        pass
    session = open_session(tiny_release, [path])     # never raises: unreadable files are reported
    for r in session.results:
        assert all(0.0 <= s <= 1.0 for s in r.score if not math.isnan(s))
    session.leaderboard()


@FUZZ
@given(st.dictionaries(st.sampled_from(["format", "scene", "camera_convention", "instances", "topdown", "videos",
                                        "viewpoints", "geometry"]), values, max_size=8),
       st.sampled_from(["", "[" * 3000, "{", "null"]))
def test_scene_reader(folder, doc, tail):
    d = _fresh(folder, "scene_1")
    path = d / "scene.json"
    text = json.dumps(doc, allow_nan=True) if not tail else tail
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    scene = read_scene_file(path, "scene_1")
    assert scene is not None and scene.id == "scene_1"


@FUZZ
@given(st.one_of(
    st.lists(st.dictionaries(st.sampled_from(["uid", "verdict", "note", "author", "at"]), values, max_size=5),
             max_size=5).map(lambda rows: ("flags.json", json.dumps({"flags": rows}, allow_nan=True))),
    st.lists(st.lists(st.text(max_size=12), min_size=1, max_size=5), max_size=5).map(
        lambda rows: ("flags.csv", "uid,verdict,note\n" + "\n".join(",".join(r) for r in rows))),
    st.just(("flags.json", "[" * 3000))))
def test_flags_import(folder, named):
    name, text = named
    d = _fresh(folder, "flags")
    path = d / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    store = FlagStore(d / "annotations.sqlite", author="fuzz")
    try:
        import_flags(store, path)
    except UserError:
        pass
    finally:
        assert not store.readonly                    # a bad file never makes the database look damaged
        store.close()


# ------------------------------------------------------------------ issue 26: classes of input, each a generator
# Every case is judged "clean" (read, or refused with a message naming the file), "silent" (a bad file passed
# unmentioned) or "traceback" (another exception escaped); hangs are caught by the subprocess tests
# (tests/test_hardening_inputs.py). GST_FUZZ_TALLY=FILE appends the tally per class to FILE.
CLASS_EXAMPLES = max(200, int(os.environ.get("GST_FUZZ_EXAMPLES", 200)))
CLASS_FUZZ = settings(FUZZ, max_examples=CLASS_EXAMPLES)
TALLY: dict[str, dict[str, int]] = {}


def _count(cls: str, outcome: str) -> None:
    TALLY.setdefault(cls, {}).setdefault(outcome, 0)
    TALLY[cls][outcome] += 1


@pytest.fixture(scope="module", autouse=True)
def _write_tally():
    yield
    if os.environ.get("GST_FUZZ_TALLY") and TALLY:
        with open(os.environ["GST_FUZZ_TALLY"], "a") as f:
            f.write(json.dumps(TALLY) + "\n")


def _small_images() -> dict[str, bytes]:
    import io

    import numpy as np
    from PIL import Image
    rgb = np.random.default_rng(7).integers(0, 256, (24, 32, 3), dtype=np.uint8)
    out = {}
    for name, image, save in [("rgb.png", Image.fromarray(rgb), {"format": "PNG"}),
                              ("palette.png", Image.fromarray(rgb).quantize(8), {"format": "PNG"}),
                              ("gray.png", Image.fromarray(rgb[:, :, 0]), {"format": "PNG"}),
                              ("base.jpg", Image.fromarray(rgb), {"format": "JPEG", "quality": 90}),
                              ("prog.jpg", Image.fromarray(rgb), {"format": "JPEG", "progressive": True})]:
        buf = io.BytesIO()
        image.save(buf, **save)
        out[name] = buf.getvalue()
    return out


SMALL_IMAGES = _small_images()


def _declare_size(name: str, data: bytes, width: int, height: int, header_only: bool) -> bytes:
    """`data` with its declared size replaced (the PNG's IHDR CRC fixed), keeping the pixels or not."""
    import struct
    import zlib
    if name.endswith(".png"):
        ihdr = data[8:33]
        body = struct.pack(">II", width, height) + ihdr[16:21]
        chunk = ihdr[:8] + body + struct.pack(">I", zlib.crc32(b"IHDR" + body) & 0xFFFFFFFF)
        rest = data[33:]
        if header_only:
            rest = rest[rest.index(b"IEND") - 4:]
        return data[:8] + chunk + rest
    k = next(i for i in range(2, len(data) - 1) if data[i] == 0xFF and data[i + 1] in (0xC0, 0xC2))
    patched = data[:k + 5] + struct.pack(">HH", height, width) + data[k + 9:]
    if header_only:
        sos = patched.index(b"\xff\xda")
        patched = patched[:sos] + b"\xff\xd9"
    return patched


# (name, bytes, what the file is: "whole", "cut", "bomb" or "damaged" (a flipped byte: may go unnoticed))
image_cases = st.one_of(
    st.sampled_from(sorted(SMALL_IMAGES)).map(lambda n: (n, SMALL_IMAGES[n], "whole")),
    st.tuples(st.sampled_from(sorted(SMALL_IMAGES)), st.floats(0, 1, exclude_max=True)).map(
        lambda t: (t[0], SMALL_IMAGES[t[0]][:max(1, int(len(SMALL_IMAGES[t[0]]) * t[1]))], "cut")),
    st.tuples(st.sampled_from(sorted(SMALL_IMAGES)), st.integers(0, 10**6), st.integers(1, 255)).map(
        lambda t: (t[0], (lambda b, i: b[:i] + bytes([b[i] ^ t[2]]) + b[i + 1:])(
            SMALL_IMAGES[t[0]], t[1] % len(SMALL_IMAGES[t[0]])), "damaged")),
    st.tuples(st.sampled_from(sorted(SMALL_IMAGES)), st.sampled_from([(50_000, 50_000), (12_000, 12_000),
                                                                      (65_535, 1_000)]), st.booleans()).map(
        lambda t: (t[0], _declare_size(t[0], SMALL_IMAGES[t[0]], *t[1], t[2]), "bomb")),
)


@CLASS_FUZZ
@given(image_cases)
def test_images_class(folder, case):
    from viewer.core.audit.checks.missing_media import media_problem
    from viewer.render.image_io import read_rgb
    name, data, kind = case
    path = _fresh(folder, "images") / name
    path.write_bytes(data)
    outcome = "clean"
    try:
        image = read_rgb(path)
        assert image.ndim == 3 and image.shape[2] == 3
        if kind == "bomb":
            outcome = "silent"
    except OSError as e:
        assert str(path) in str(e)
        if kind == "bomb":
            assert "over the budget" in str(e), e
    except Exception:
        _count("images", "traceback")
        raise
    problem = media_problem(str(path))               # the audit's check: never raises
    if kind == "whole":
        assert problem is None, problem
    elif kind in ("cut", "bomb") and problem is None:
        outcome = "silent"
    if kind == "bomb" and problem is not None:
        assert "over the budget" in problem or "truncated" in problem, problem
    _count("images", outcome)
    assert outcome == "clean", (name, kind, len(data))


# Class 6: what `path_role` is given; a FIFO must never be opened (the open would block: an alarm fails it).
def _nesting(opens: str, depth: int, close: bool) -> str:
    body = "".join({"[": "[", "{": '{"k": '}[c] for c in (opens * depth)[:depth])
    return body + ("0" + "".join({"[": "]", "{": "}"}[c] for c in reversed((opens * depth)[:depth])) if close else "")


path_cases = st.one_of(
    st.tuples(st.just("file"), st.sampled_from(["[", "{", "[{", "{["]), st.integers(1, 150_000), st.booleans(),
              st.sampled_from([".jsonl", ".json", ".txt", ""])),
    st.tuples(st.sampled_from(["fifo", "link-to-fifo", "dir", "dangling-link"]), st.just("["), st.just(1),
              st.just(False), st.sampled_from([".jsonl", ".json"])))


@CLASS_FUZZ
@given(path_cases)
def test_pipes_and_deep_json_class(folder, case):
    import signal

    from viewer.cli_args import path_role
    kind, opens, depth, close, suffix = case
    import shutil
    shutil.rmtree(folder / "roles", ignore_errors=True)
    d = _fresh(folder, "roles")
    path = d / f"model{suffix}"
    if kind == "file":
        path.write_text(_nesting(opens, depth, close))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-to-fifo":
        os.mkfifo(d / "pipe")
        path.symlink_to(d / "pipe")
    elif kind == "dir":
        path.mkdir()
    else:
        path.symlink_to(d / "nowhere")
    signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(TimeoutError(f"{kind} blocked")))
    signal.alarm(10)
    try:
        role = path_role(path)
    except TimeoutError:
        _count("pipes_and_deep_json", "hang")
        raise
    except Exception:
        _count("pipes_and_deep_json", "traceback")
        raise
    finally:
        signal.alarm(0)
    assert role in ("other", "missing", "predictions"), role
    _count("pipes_and_deep_json", "clean")


# Class 5: prediction tables. Each case is (file name, bytes, what must be said: a regex that a UserError or one
# of the file's diagnostics matches; None for a good file).
def _xlsx(rows, sheet_xml_edit=None, workbook_xml_edit=None, extra_member=None) -> bytes:
    import io
    import zipfile

    import openpyxl
    wb = openpyxl.Workbook()
    for r in rows:
        wb.active.append(r)
    buf = io.BytesIO()
    wb.save(buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml" and sheet_xml_edit:
                data = sheet_xml_edit(data)
            if info.filename == "xl/workbook.xml" and workbook_xml_edit:
                data = workbook_xml_edit(data)
            z.writestr(info.filename, data)
        if extra_member:
            z.writestr(*extra_member)
    return out.getvalue()


def _no_sheet(xml: bytes) -> bytes:
    import re
    return re.sub(rb"<sheets>.*</sheets>", b"<sheets/>", xml, flags=re.S)


def _nan_cell(xml: bytes) -> bytes:
    import re
    return re.sub(rb'<c r="B2"[^>]*>.*?</c>', b'<c r="B2" t="n"><v>NaN</v></c>', xml, count=1, flags=re.S)


ROWS = [["index", "prediction"], ["q0", "-161"], ["q1", "4.7"], ["q2", "C"]]
_CACHE: dict = {}


def _cached(key, make):
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def _bomb(megabytes: int) -> bytes:
    return _cached(("bomb", megabytes), lambda: _xlsx(ROWS, extra_member=("xl/sharedStrings.xml",
                                                                             b" " * (megabytes * 1024**2))))


def _lmms(values) -> bytes:
    return "\n".join(json.dumps({"doc_id": k, "doc": {"uid": f"q{k}"}, "resps": [[v]], "filtered_resps": [v]})
                     for k, v in enumerate(values)).encode()


def _csv_text(rows) -> str:
    return "\n".join(",".join(r) for r in rows) + "\n"


table_cases = st.one_of(
    st.just(("good.xlsx", None, None)).map(lambda t: (t[0], _cached("good", lambda: _xlsx(ROWS)), None)),
    st.just(("nosheet.xlsx", None, None)).map(
        lambda t: (t[0], _cached("nosheet", lambda: _xlsx(ROWS, workbook_xml_edit=_no_sheet)), "no sheet")),
    st.just(("nan.xlsx", None, None)).map(
        lambda t: (t[0], _cached("nan", lambda: _xlsx(ROWS, sheet_xml_edit=_nan_cell)), "row 2: a cell")),
    st.sampled_from([2, 8, 24]).map(lambda mb: ("bomb.xlsx", _bomb(mb), "zip bomb")),
    st.tuples(st.integers(131_073, 400_000), st.integers(1, 2000), st.sampled_from([",", "\t"])).map(
        lambda t: ("open_quote." + ("csv" if t[2] == "," else "tsv"),
                   (f"index{t[2]}prediction\nq0{t[2]}\"" + "x" * 60 + ("\n" + "y" * (t[0] // t[1])) * t[1]
                    + f"\nq1{t[2]}C\n").encode(), "runs over")),
    st.lists(st.one_of(st.dictionaries(st.text(max_size=3), st.integers(), min_size=1, max_size=2),
                       st.integers(), st.floats(allow_nan=False), st.booleans(),
                       st.lists(st.dictionaries(st.just("a"), st.integers(), min_size=1), min_size=1, max_size=1)),
             min_size=1, max_size=4).map(lambda vs: ("lmms.jsonl", _lmms(vs + ["C"]), "not text")),
    st.tuples(st.sampled_from(["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"]),
              st.sampled_from(["csv", "tsv"])).map(
        lambda t: (f"wide.{t[1]}", _csv_text(ROWS).replace(",", "," if t[1] == "csv" else "\t").encode(t[0]),
                   "UTF-(16|32)")),
)


@CLASS_FUZZ
@given(table_cases)
def test_prediction_tables_class(folder, case):
    import re
    name, data, said = case
    path = _fresh(folder, "tables") / name
    path.write_bytes(data)
    messages = []
    try:
        sets = load_predictions(path)
        messages = [str(d) for s in sets for d in s.diagnostics]
    except UserError as e:
        assert str(path) in str(e), e
        messages = [str(e)]
        sets = []
    except Exception:
        _count("prediction_tables", "traceback")
        raise
    if said is None:
        assert sets and not messages, messages
    elif not any(re.search(said, m) for m in messages):
        _count("prediction_tables", "silent")
        raise AssertionError((name, said, messages[:3]))
    if name.startswith("open_quote"):                # one error, not one per line the cell spans
        assert sum("runs over" in m or "unreadable row" in m for m in messages) == 1, messages[:5]
    if name == "lmms.jsonl":                         # refused record by record, never scored
        last = f"q{data.count(b'doc_id') - 1}"
        assert [dict(s.raw) for s in sets] == [{last: "C"}], sets
        assert sum("not text; not scored" in m for m in messages) == data.count(b"\n"), messages
    _count("prediction_tables", "clean")


# Class 7: the flags database shipped in a release. (kind, detail): a database with a trigger or a view, one
# whose `changes` is not ours, one whose cells hold anything, or annotations.sqlite as a link out of it.
def _flag_schema() -> str:
    from viewer.core.review.flags import _SCHEMA
    return _SCHEMA


_TRIGGERS = [
    "CREATE TRIGGER t AFTER INSERT ON changes BEGIN DELETE FROM changes; END",
    "CREATE TRIGGER t AFTER INSERT ON changes BEGIN UPDATE changes SET value = 'ok' WHERE id = new.id; END",
    "CREATE TRIGGER t BEFORE INSERT ON changes BEGIN SELECT count(*) FROM (WITH RECURSIVE r(n) AS "
    "(SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r); END",
]
_VIEWS = [
    ("CREATE VIEW changes AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n AS id, "
     "'u' AS uid, 'note' AS field, 'x' AS value, NULL AS previous, 'a' AS author, 't' AS at, NULL AS undoes "
     "FROM r", False),
    ("CREATE VIEW endless AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r", True),
]
_FOREIGN = ["CREATE TABLE changes(id INTEGER PRIMARY KEY, uid TEXT, verdict TEXT)",
            "CREATE TABLE changes(uid, field, value)"]
cell_values = st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False),
                        st.binary(max_size=40), st.text(max_size=20), st.just(b"\xff\xfe\x00bad utf-8"),
                        st.just("x" * 200_000))
flag_db_cases = st.one_of(
    st.sampled_from(_TRIGGERS).map(lambda sql: ("trigger", sql)),
    st.sampled_from(_VIEWS).map(lambda v: ("view", v)),
    st.sampled_from(_FOREIGN).map(lambda sql: ("foreign", sql)),
    st.lists(st.tuples(cell_values.filter(lambda v: v is not None), st.sampled_from(["verdict", "note"]),
                       cell_values, cell_values, *[cell_values.filter(lambda v: v is not None)] * 2),
             min_size=1, max_size=5).map(lambda rows: ("cells", rows)),
    st.sampled_from(["outside", "dangling", "folder"]).map(lambda t: ("link", t)),
)


@CLASS_FUZZ
@given(flag_db_cases)
def test_flags_database_class(folder, case):
    import hashlib
    import shutil
    import signal
    import sqlite3

    from viewer.core.review.flags_io import export_flags
    kind, detail = case
    shutil.rmtree(folder / "shipped", ignore_errors=True)
    root = _fresh(folder, "shipped")
    outside = _fresh(folder, "outside")
    db = root / "annotations.sqlite"
    if kind == "link":
        target = {"outside": outside / "theirs.sqlite", "dangling": outside / "nowhere.sqlite",
                  "folder": outside}[detail]
        if detail == "outside":
            sqlite3.connect(target).executescript(_flag_schema()).close()
        db.symlink_to(target)
    else:
        con = sqlite3.connect(db)
        if kind == "foreign" or (kind == "view" and not detail[1]):
            con.execute(detail if kind == "foreign" else detail[0])
        else:
            con.executescript(_flag_schema())
            if kind == "trigger":
                con.execute(detail)
            elif kind == "view":
                con.execute(detail[0])
            else:
                con.executemany("INSERT INTO changes(uid, field, value, previous, author, at) "
                                "VALUES (?, ?, ?, ?, ?, ?)", detail)
        con.commit()
        con.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest() if kind != "link" else None
    old_data = os.environ.get("GST_VIEWER_DATA")
    os.environ["GST_VIEWER_DATA"] = str(folder / "userdata")
    signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(TimeoutError(f"{kind} ran for ever")))
    signal.alarm(20)
    store = None
    try:
        store = FlagStore.for_release(root, author="fuzz")
        for fmt in ("csv", "json"):
            export_flags(store, fmt, history=fmt == "json")
        try:
            store.set_verdict("q1", "bad_gt")
            saved = True
        except UserError as e:
            assert str(db) in str(e), e
            saved = False
        outcome = "clean"
        if kind in ("trigger", "view", "foreign"):
            if saved or not store.readonly:
                outcome = "silent"
            assert hashlib.sha256(db.read_bytes()).hexdigest() == before     # never written
        elif kind == "cells":
            assert saved and store.get("q1").verdict == "bad_gt"
            assert all(isinstance(v, str) for f in store.all().values() for v in (f.uid, f.note, f.author, f.at))
        else:
            assert saved and store.get("q1").verdict == "bad_gt"
            assert "userdata" in str(store.path), store.path               # the user data folder instead
            assert not (outside / "nowhere.sqlite").exists()
            if detail == "outside":
                assert not sqlite3.connect(target).execute("SELECT count(*) FROM changes").fetchone()[0]
    except TimeoutError:
        _count("flags_database", "hang")
        raise
    except Exception:
        _count("flags_database", "traceback")
        raise
    finally:
        signal.alarm(0)
        if store is not None:
            store.close()
        if old_data is None:
            os.environ.pop("GST_VIEWER_DATA", None)
        else:
            os.environ["GST_VIEWER_DATA"] = old_data
    _count("flags_database", outcome)
    assert outcome == "clean", (kind, detail)


# ------------------------------------------------------------------ classes 2-4: videos, meshes, trajectories
# Each case is judged by a function returning its outcome, so that tools can tally the same cases on another
# checkout (GST_FUZZ_TALLY): "clean" (read whole, or refused or read in part with a message naming the file),
# "silent" (a broken file read as if whole), "wrong" (a result that is not the file's), "traceback", "hang".
def _alarm(seconds: int, what: str):
    import signal
    signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(TimeoutError(what)))
    signal.alarm(seconds)


# GST_FUZZ_COUNT_ONLY=1: every case is counted and none fails the test (to tally a checkout, e.g. an older one).
COUNT_ONLY = bool(os.environ.get("GST_FUZZ_COUNT_ONLY"))


def _judged(cls: str, judge, *args) -> str:
    import signal
    _alarm(30, cls)
    try:
        outcome = judge(*args)
    except TimeoutError:
        outcome = "hang"
    except Exception:
        _count(cls, "traceback")
        if COUNT_ONLY:
            return "clean"
        raise
    finally:
        signal.alarm(0)
    _count(cls, outcome)
    return "clean" if COUNT_ONLY and outcome != "clean" else outcome


def _probe(path: str) -> str | None:
    """render.video.probe_video; on a checkout without it (tallying an older one), what its reader said of the
    first and last frames."""
    from viewer.render import video
    if hasattr(video, "probe_video"):
        return video.probe_video(path)
    try:
        reader = video.VideoReader(path)
        try:
            reader.frame(reader.n_frames - 1)
        finally:
            reader.close()
    except video.VideoError as e:
        return str(e)
    return None


def _media_problem(path: str) -> str | None:
    from viewer.core.audit.checks.missing_media import media_problem
    try:
        return media_problem(path, _probe)
    except TypeError:                # an older checkout: the header alone
        return media_problem(path)


# Class 2: videos. A whole video must read whole; any broken one must be named by the reader (VideoError naming
# the file, or `problem`), by the probe the audit and the exports use, and by `missing_media`; every frame the
# reader says it has must decode.
video_cases = st.one_of(
    st.tuples(st.sampled_from(["whole", "cut", "cut-moov-last", "moov-renamed", "garbage-avcC", "audio-only",
                               "zero-frames", "empty"]), st.floats(0.0, 0.999), st.integers(0, 2**16)),
    st.tuples(st.just("flip"), st.floats(0.0, 0.999), st.integers(1, 255)),
)


def judge_video(folder: Path, case) -> str:
    import broken_media

    from viewer.render.video import VideoError, VideoReader
    kind, where, seed = case
    if kind == "flip":           # one byte changed anywhere: may go unnoticed, must never mislead
        data = bytearray(broken_media.small_mp4())
        data[int(len(data) * where)] ^= seed
        data = bytes(data)
    else:
        data = broken_media.broken_video(kind, where, seed)
    path = _fresh(folder, "videos") / "video_0.mp4"
    path.write_bytes(data)
    probe = _probe(str(path))
    audit = _media_problem(str(path))
    try:
        reader = VideoReader(str(path))
    except VideoError as e:
        if str(path) not in str(e):
            return "silent"
        reader = None
    if reader is not None:
        try:
            for k in range(reader.n_frames):
                image = reader.frame(k)
                if kind == "whole" and abs(int(image.mean()) - 20 * k) > 12:
                    return "wrong"
        except VideoError as e:
            if str(path) not in str(e) or getattr(reader, "problem", None) is None:
                return "wrong"               # it said it had this frame
        finally:
            reader.close()
    if kind == "whole":
        return "clean" if probe is None and audit is None and reader.n_frames == 12 else "wrong"
    if kind == "flip":
        return "clean"
    return "clean" if probe and audit else "silent"


@CLASS_FUZZ
@given(video_cases)
def test_videos_class(folder, case):
    assert _judged("videos", judge_video, folder, case) == "clean", case


# Class 3: meshes. Whole meshes read with their 4 triangles; every defect is a UserError naming the file. An OBJ
# cut exactly at the end of a line (before or after its newline) is a shorter OBJ: nothing in the file can tell
# (counted as "undetectable").
MESH_FORMATS = ("ply-ascii", "ply-binary", "obj", "glb")
MESH_DEFECTS = ("none", "nan", "inf", "index-minus-1", "index-V", "index-50000", "cut", "obj-0-based",
                "glb-self-child", "glb-cycle", "glb-two-parents", "glb-child-out-of-range")
mesh_cases = st.tuples(st.sampled_from(MESH_FORMATS), st.sampled_from(MESH_DEFECTS), st.floats(0.0, 0.999),
                       st.integers(0, 3))


def _mesh_bytes(fmt: str, defect: str, where: float, which: int) -> tuple[str, bytes, str]:
    """(file name, bytes, the defect actually planted: "none" when it does not apply to the format)."""
    import broken_media as bm
    v, f = bm.tetra()
    f = f.copy()
    if defect in ("nan", "inf"):
        v[which % 4, which % 3] = np.nan if defect == "nan" else -np.inf
    elif defect.startswith("index-"):
        if fmt == "glb" and defect == "index-minus-1":
            defect = "none"          # glTF indices are unsigned: -1 cannot be written
        else:
            f[which % 4, which % 3] = {"index-minus-1": -1, "index-V": 4, "index-50000": 50_000}[defect]
    write = {"ply-ascii": bm.ply_ascii, "ply-binary": bm.ply_binary, "obj": bm.obj_text, "glb": bm.glb}[fmt]
    name = "mesh." + fmt.split("-")[0]
    if defect == "obj-0-based":
        return (name, bm.obj_text(v, f, base=0), defect) if fmt == "obj" else (name, write(v, f), "none")
    if defect.startswith("glb-"):
        if fmt != "glb":
            return name, write(v, f), "none"
        nodes = {"glb-self-child": [{"name": "a", "mesh": 0, "children": [0]}],
                 "glb-cycle": [{"name": "a", "mesh": 0, "children": [1]}, {"name": "b", "children": [0]}],
                 "glb-two-parents": [{"name": "a", "children": [2]}, {"name": "b", "children": [2]},
                                     {"name": "c", "mesh": 0}],
                 "glb-child-out-of-range": [{"name": "a", "mesh": 0, "children": [7]}]}[defect]
        return name, bm.glb(v, f, nodes, [0, 1] if defect == "glb-two-parents" else [0]), defect
    data = write(v, f)
    if defect == "cut":
        return name, data[:max(1, int(len(data) * where))], defect
    return name, data, defect


def judge_mesh(folder: Path, case) -> str:
    from viewer.render.scene_mesh import load_scene_mesh
    name, data, defect = _mesh_bytes(*case)
    path = _fresh(folder, "meshes") / name
    path.write_bytes(data)
    try:
        mesh = load_scene_mesh(path)
    except UserError as e:
        if str(path) not in str(e):
            return "silent"
        return "clean" if defect != "none" else "wrong"
    if not np.isfinite(mesh.vertices).all() or len(mesh.triangles) and (
            mesh.triangles.min() < 0 or mesh.triangles.max() >= len(mesh.vertices)):
        return "wrong"
    if defect == "none":
        return "clean" if len(mesh.triangles) == 4 else "wrong"
    whole = _mesh_bytes(case[0], "none", 0.0, 0)[1]
    if defect == "cut" and case[0] == "obj" and whole.startswith(data) and \
            whole.splitlines()[:len(data.splitlines())] == data.splitlines():
        return "undetectable" if len(mesh.triangles) < 4 else "clean"      # cut at a line's end
    if defect == "cut" and len(mesh.triangles) == 4 and np.allclose(np.sort(mesh.vertices, axis=0),
                                                                    np.sort(__import__("broken_media").tetra()[0],
                                                                            axis=0)):
        return "clean"               # cut where nothing was lost (a trailing newline)
    return "silent"


@CLASS_FUZZ
@given(mesh_cases)
def test_meshes_class(folder, case):
    assert _judged("meshes", judge_mesh, folder, case) in ("clean", "undetectable"), (case, _mesh_bytes(*case)[2])


# Class 4: trajectories. Poses k = 0..n-1 at x = k (so that the order can be checked), written in a format with
# defects; read back, the poses must be the distinct valid ones in time order, and every defect said.
TRAJ_DEFECTS = ("none", "shuffled", "descending", "duplicate-times", "degenerate-quaternion-small",
                "degenerate-quaternion-huge", "nan-quaternion", "duplicate-image-ids", "no-points-lines",
                "axis-angle-1e300")
traj_cases = st.tuples(st.sampled_from(["tum", "colmap", "arkitscenes"]), st.sampled_from(TRAJ_DEFECTS),
                       st.integers(2, 9), st.integers(0, 2**16))

_SAID = {"shuffled": "import.timestamps_unsorted", "descending": "import.timestamps_unsorted",
         "duplicate-times": "import.duplicate_timestamps", "degenerate-quaternion-small": "import.bad_quaternion",
         "degenerate-quaternion-huge": "import.bad_quaternion", "nan-quaternion": "import.bad_quaternion",
         "duplicate-image-ids": "import.duplicate_image_id", "no-points-lines": "import.colmap_no_points_lines",
         "axis-angle-1e300": "import.bad_pose"}


def _trajectory_file(folder: Path, fmt: str, defect: str, n: int, seed: int) -> tuple[Path, list[int], str]:
    """(path, the x of each pose that must be read, in order, the defect planted)."""
    rng = np.random.default_rng(seed)
    order = list(range(n))
    times = [0.1 * k for k in range(n)]
    bad = int(rng.integers(0, n))
    applies = {"tum": TRAJ_DEFECTS[:7], "arkitscenes": ("none", "shuffled", "descending", "duplicate-times",
                                                       "axis-angle-1e300"),
               "colmap": ("none", "shuffled", "degenerate-quaternion-small", "degenerate-quaternion-huge",
                          "nan-quaternion", "duplicate-image-ids", "no-points-lines")}[fmt]
    if defect not in applies:
        defect = "none"
    if defect == "shuffled":
        rng.shuffle(order)
        if order == sorted(order):
            order = order[::-1]
    elif defect == "descending":
        order = order[::-1]
    expect = sorted(order)
    if defect == "duplicate-times":
        dup = max(1, bad)
        times[dup] = times[dup - 1]                 # pose dup shares pose dup-1's time: the first is kept
        expect = [k for k in expect if k != dup]
    d = _fresh(folder, "traj")
    for p in d.iterdir():
        p.unlink()
    quats = {k: [0.0, 0.0, 0.0, 1.0] for k in range(n)}        # x y z w
    if defect.startswith("degenerate") or defect == "nan-quaternion":
        scale = {"degenerate-quaternion-small": 1e-12, "degenerate-quaternion-huge": 1e200}.get(defect)
        quats[bad] = [0.0, 0.0, 0.0, scale] if scale else [float("nan")] * 4
        expect = [k for k in expect if k != bad] if defect != "none" else expect
    if fmt == "tum":
        path = d / "traj.txt"
        path.write_text("# timestamp tx ty tz qx qy qz qw\n" + "".join(
            f"{times[k]!r} {k} 0 0 {' '.join(map(repr, quats[k]))}\n" for k in order))
    elif fmt == "arkitscenes":
        path = d / "lowres_wide.traj"
        # world-to-camera: identity rotation and translation -x (the camera at x = k)
        rot = {k: "0 0 0" for k in range(n)}
        if defect == "axis-angle-1e300":
            rot[bad] = "1e300 0 0"
            expect = [k for k in expect if k != bad]
        path.write_text("".join(f"{times[k]!r} {rot[k]} {-k} 0 0\n" for k in order))
    else:
        path = d / "images.txt"
        lines = ["# Image list with two lines of data per image:",
                 "#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME", "#   POINTS2D[] as (X, Y, POINT3D_ID)"]
        ids = {k: k + 1 for k in range(n)}
        if defect == "duplicate-image-ids" and n > 1:
            ids[max(1, bad)] = ids[max(1, bad) - 1]
            dropped = max(1, bad) if order.index(max(1, bad)) > order.index(max(1, bad) - 1) else max(1, bad) - 1
            expect = [k for k in expect if k != dropped]
        for k in order:
            qx, qy, qz, qw = quats[k]
            lines.append(f"{ids[k]} {qw!r} {qx!r} {qy!r} {qz!r} {-k} 0 0 1 frame_{k:04d}.jpg")
            if defect != "no-points-lines":
                lines.append("320.5 240.5 -1" if k % 2 else "")
        path.write_text("\n".join(lines) + "\n")
        (d / "cameras.txt").write_text("1 PINHOLE 640 480 500 500 320 240\n")
    return path, expect, defect


def judge_trajectory(folder: Path, case) -> str:
    from viewer.core.scene.formats import tie_to_video
    from viewer.core.scene.formats.trajectories import read_trajectory
    fmt, defect, n, seed = case
    path, expect, defect = _trajectory_file(folder, fmt, defect, n, seed)
    try:
        traj = read_trajectory(path, fmt)
    except UserError as e:
        return "clean" if str(path) in str(e) and not expect else ("silent" if str(path) not in str(e) else "wrong")
    said = {x.code for x in traj.diagnostics}
    if defect != "none" and not (fmt == "colmap" and defect == "shuffled") and _SAID[defect] not in said:
        return "silent"
    if defect in ("degenerate-quaternion-small", "degenerate-quaternion-huge") and not any(
            "degenerate" in x.message for x in traj.diagnostics.with_code("import.bad_quaternion")):
        return "silent"              # said, but as the wrong thing ("NaN or infinity")
    got = [int(round(x)) for x in traj.poses[traj.valid, :3, 3][:, 0]]
    if got != expect:
        return "wrong"
    if traj.timestamps is not None:
        if not (np.diff(traj.timestamps) > 0).all():
            return "wrong"
        from viewer.core.diagnostics import Diagnostics
        tied = tie_to_video(traj, n, 10.0, "timestamp", Diagnostics(), "video.mp4")     # frame k at 0.1 k s
        if np.isfinite(tied).all(axis=(1, 2)).sum() < len(expect):
            return "wrong"           # poses lost on the way to the video's frames
    return "clean"


@CLASS_FUZZ
@given(traj_cases)
def test_trajectories_class(folder, case):
    assert _judged("trajectories", judge_trajectory, folder, case) == "clean", case
