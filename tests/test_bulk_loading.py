"""Loading in bulk (issue 18): the column-wise paths give what reading record by record gives."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from viewer.core import textio
from viewer.core.benchmarks.gst.columns import COLUMNS, column_index
from viewer.core.benchmarks.gst.loader import _truths
from viewer.core.benchmarks.gst.records import ImageEntry, QuestionRecord
from viewer.core.column import UNKNOWN_COLUMN
from viewer.core.diagnostics import Diagnostics
from viewer.core.media import MediaIndex
from viewer.core.release import load_release
from viewer.core.textio import stream_json_lines

ROOT = Path(__file__).resolve().parent.parent


def _streamed(path, chunk):
    kept = textio.JSON_LINES_CHUNK
    textio.JSON_LINES_CHUNK = chunk
    try:
        d = Diagnostics()
        out = [(n, v) for numbers, values in stream_json_lines(path, d, (QuestionRecord,))
               for n, v in zip(numbers, values)]
        return out, [str(x) for x in d]
    finally:
        textio.JSON_LINES_CHUNK = kept


@pytest.mark.parametrize("chunk", [1, 5, 33, 97, 1 << 20])
def test_a_valid_file_reads_the_same_in_any_chunks_and_typed(tmp_path, chunk):
    """Blocks cut lines anywhere (a line longer than a block, a tail joined to the next block's first line):
    every chunk still takes the typed fast path, with the same records and line numbers."""
    recs = [{"uid": f"u{i}", "task": "t", "answer": "x" * (i % 7), "images": [{"index": 1, "copied_path": "a"}]}
            for i in range(12)]
    lines = [json.dumps(r) for r in recs]
    lines[3:3] = ["", "  \t"]                                   # blank lines: skipped, numbers kept
    lines[7] = lines[7] + "\r"                                  # a CRLF line end
    path = tmp_path / "q.jsonl"
    path.write_bytes("\n".join(lines).encode())                 # no newline after the last line
    got, diags = _streamed(path, chunk)
    want, _ = _streamed(path, 1 << 20)
    assert diags == [] and got == want
    assert [n for n, _ in got] == [1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    assert all(type(v) is QuestionRecord and type(v.images[0]) is ImageEntry for _, v in got)


def _release(tmp_path, records: list[dict]) -> Path:
    root = tmp_path / "rel"
    (root / "img").mkdir(parents=True)
    (root / "img" / "there.png").write_bytes(b"png")
    (root / "v.mp4").write_bytes(b"mp4")
    (root / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return root


TDS = next(c.task for c in COLUMNS if c.kind_name == "choice")


def test_image_entries_that_are_not_objects_read_as_before(tmp_path):
    """One image entry that is not an object makes the file plain JSON: option counts, images and
    missing media are what the typed records give for the same content."""
    images = [{"index": 2, "copied_path": "img/there.png"}, {"index": 1, "copied_path": "img/gone.png"},
              {"index": 3}]
    typed = [{"uid": "a", "task": TDS, "answer": "B", "copied_video_path": "v.mp4", "images": images},
             {"uid": "b", "task": TDS, "answer": "A", "copied_video_path": "gone.mp4", "images": []}]
    odd = typed + [{"uid": "c", "task": TDS, "answer": "A", "images": ["img/there.png", images[0]]}]
    r_typed, r_odd = load_release(_release(tmp_path / "1", typed)), load_release(_release(tmp_path / "2", odd))
    assert type(r_typed.questions._records[0].images[0]) is ImageEntry
    assert type(r_odd.questions._records[0].images[0]) is dict
    for r in (r_typed, r_odd):
        assert r.n_options[:2].tolist() == [3, 4]
        assert [m.declared for m in r.get("a").images] == ["img/gone.png", "img/there.png", ""]
        assert r.missing[:3] == [(0, "image", "img/gone.png", "file not found"),
                                 (0, "image", "", "empty media path"),
                                 (1, "video", "gone.mp4", "file not found")]
    # The odd entry counts as an option and as a media reference with no path, as it always did.
    assert r_odd.n_options[2] == 2 and r_odd.missing[3:] == [(2, "image", "", "empty media path")]
    assert [m.declared for m in r_odd.get("c").images] == ["img/there.png"]


def test_missing_media_are_in_release_order_video_first(tmp_path):
    recs = [{"uid": f"q{i}", "task": TDS, "answer": "A", "copied_video_path": f"v{i}.mp4",
             "images": [{"index": k, "copied_path": f"i{i}_{k}.png"} for k in range(2)]} for i in range(3)]
    r = load_release(_release(tmp_path, recs))
    want = [(i, kind, path, "file not found") for i in range(3)
            for kind, path in [("video", f"v{i}.mp4"), ("image", f"i{i}_0.png"), ("image", f"i{i}_1.png")]]
    assert len(r.missing) == 9 and list(r.missing) == want and r.missing[-2:] == want[-2:]
    assert r.missing[4] == want[4] and [m.declared for _, m in r.missing_media()] == [w[2] for w in want]


PATHS = ["img/there.png", "img/gone.png", "./img/there.png", "../out.png", "/abs.png", "a//b.png", "a/./b.png",
         "c:x.png", "a\\b.png", "img/../img/there.png", ".hidden.png", "a/.b.png", "nul\0.png", "line\n.png",
         "v.mp4", "img", "ok/deep/x.png", "img//there.png", "img/./there.png", ".\\v.mp4"]


# Each unusual path among plain ones (the bulk test must see it), and all of them together.
@pytest.mark.parametrize("paths", [["img/gone.png", p, "more/gone.png"] for p in PATHS] + [PATHS, ["img/there.png"]])
def test_media_problems_in_bulk_match_one_by_one(tmp_path, paths):
    root = _release(tmp_path, [])
    media = MediaIndex(str(root))
    base = media.root
    bulk = media.problems(paths, [base] * len(paths))
    assert bulk == media.problems(paths, base)
    one_by_one = media._problems_one_by_one(range(len(paths)), paths, lambda _: base, media.all_files())
    assert bulk == one_by_one
    # And what check(), path by path, says.
    assert list(zip(*bulk)) == [(j, w) for j, p in enumerate(paths) if (w := media.check(p, base))]
    # Paths relative to several folders (question-folders layout): joined to their folder each.
    folders = [base, os.path.join(base, "img")] * len(paths)
    twice = paths + paths
    assert media.problems(twice, folders[:len(twice)]) == media._problems_one_by_one(
        range(len(twice)), twice, folders.__getitem__, media.all_files())


ODD_TRUTHS = ["A", "B", "e", "C.", "(D)", "the answer is B", "90", "-180", "181", "12.5", "0", "-3", "3 m",
              "1e999", "NaN", "<point>10 20</point>", "<point>1000 5</point>", "<point>1.5, 2</point>",
              "5 6 7", "<point>\u0661 2</point>", "", None, True, 1, 2.5, [1, 2], {"x": 1}, 10**400]


def test_truths_read_in_bulk_match_parse_truth():
    n = len(ODD_TRUTHS)
    cols, answers, options = [], [], []
    for c in [*range(len(COLUMNS)), UNKNOWN_COLUMN]:
        cols += [c] * n
        answers += ODD_TRUTHS
        options += [4 if c % 2 else 3] * n
    truth, bad = _truths(cols, options, answers)
    for i, (c, a, k) in enumerate(zip(cols, answers, options)):
        if c == UNKNOWN_COLUMN:
            assert np.isnan(truth[i]).all() and i not in bad
            continue
        kind = COLUMNS[c].kind
        p = kind.parse_truth(a, k)
        assert (i in bad) == (p.status != "ok"), (COLUMNS[c].key, a, p)
        want = np.full(2, np.nan)
        if p.status == "ok":
            want[:kind.width] = p.value
        np.testing.assert_array_equal(truth[i], want)
    assert bad == sorted(bad) and column_index("no such task") == UNKNOWN_COLUMN


def test_score_imports_no_window_scene_or_geometry_library():
    """`gst-viewer score` in a fresh interpreter loads neither Qt nor open3d, scipy or the render layer, nor
    the drawing primitives the answer kinds draw with: at paper size a whole run is mostly interpreter start
    and imports."""
    demo = ROOT / "assets" / "demo"
    preds = sorted((demo / "predictions").glob("*.jsonl"))
    heavy_roots = ("PyQt6", "pyqtgraph", "open3d", "scipy", "cv2", "trimesh", "matplotlib", "PIL")
    code = ("import sys\nfrom viewer.cli import main\n"
            f"code = main(['score', {str(demo)!r}, *{[str(p) for p in preds]!r}, '--json', '--quiet'])\n"
            f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {heavy_roots!r}\n"
            "    or m.startswith(('viewer.ui', 'viewer.render', 'viewer.figures'))\n"
            "    or m in ('viewer.core.primitives', 'viewer.core.overlays', 'viewer.core.geometry'))\n"
            "print('HEAVY', heavy, code, file=sys.stderr)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "HEAVY [] 0" in done.stderr, done.stderr[-2000:]
