"""The browser's table reads the core's columns (issue 30): every cell's text, every sort order and every
filter's rows agree with a plain-Python computation over the questions, one Question at a time, on the
demo and on a generated release with ties, NaN scores (invalid truths, an unknown task), unparsed and
missing answers; choosing another model redraws cells without rebuilding the rows; the table keeps no
Question per row it showed."""
import json
import math

import numpy as np
import pytest
from PyQt6.QtCore import Qt

from viewer.assets import assets_dir
from viewer.core.answers import MISSING, OK, is_scored
from viewer.core.benchmarks.gst.columns import COLUMNS
from viewer.core.browse import STATUS_FILTERS, BrowseFilter
from viewer.core.release import natural_key
from viewer.core.session import open_session
from viewer.core.state import InspectorState
from viewer.ui.browser import BrowserPanel

ANSWERS = {"angle": ["-120", "35", "not sure", "90 degrees", "-120"],
           "distance": ["3.5", "About 2.0 m", "far", "3.5", "0"],
           "point": ["<point>400 600</point>", "<point>10 990</point>", "somewhere", "<point>400 600</point>"],
           "choice": ["A", "B", "The answer is C", "unsure", "D"]}
TRUTHS = {"angle": ["-120", "35", "abc", "170"], "distance": [3.5, 2.0, "n/a", 7.25],
          "point": ["<point>400 600</point>", "<point>500 500</point>", "bad", "<point>0 999</point>"],
          "choice": ["A", "B", "C", "D"]}


def _generated(tmp_path):
    """60 questions over every column (some truths invalid: NaN scores), one of an unknown task; three
    models answering from the same few answers (ties), each leaving some questions out (missing)."""
    recs = []
    for i in range(60):
        col = COLUMNS[i % len(COLUMNS)]
        kind = col.kind_name
        recs.append({"task": col.task, "uid": f"scene{i % 5 + 1}_{col.task}_obj_{i}_pos_{i % 3}_orient_0_video_0",
                     "scene": f"scene_{i % 5 + 1}", "answer": TRUTHS[kind][i % len(TRUTHS[kind])],
                     "texts": ["q"]})
    recs.append({"task": "Some_Unknown_Task", "uid": "scene3_unknown_0", "scene": "scene_3", "answer": "A",
                 "texts": ["q"]})
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    preds = []
    for m in range(3):
        p = tmp_path / f"model{m}.jsonl"
        lines = []
        for i, r in enumerate(recs):
            if (i + m) % 7 == 0:                  # missing
                continue
            col = next((c for c in COLUMNS if c.task == r["task"]), None)
            options = ANSWERS[col.kind_name] if col else ["A"]
            lines.append(json.dumps({"uid": r["uid"], "prediction": options[(i * (m + 1)) % len(options)]}))
        p.write_text("\n".join(lines) + "\n")
        preds.append(p)
    return tmp_path, preds


def _demo(tmp_path):
    demo = assets_dir() / "demo"
    return demo, sorted((demo / "predictions").glob("*.jsonl"))


# ------------------------------------------------------------------ the plain-Python reference
def ref_cells(session, i: int, m: int) -> dict:
    """Question i's cells as the browser showed them before the table read columns: from its Question."""
    rel, r = session.release, session.results[m]
    q = rel.questions[i]
    kind = q.kind
    truth = str(q.answer_raw) if kind is None else f"{q.answer_raw!r} (invalid)" if not q.truth.ok \
        else kind.text(q.truth.value)
    status = r.status[i]
    if is_scored(status):
        answer = kind.text(kind.unpack(r.answer[i]))
    else:
        answer = {MISSING: "(missing)", "unscored": "(unscored)"}.get(status, "(unparsed)")
    e, s = float(r.error[i]), float(r.score[i])
    return {"row": str(i + 1), "uid": rel.benchmark.short_uid(q), "scene": q.scene, "truth": truth,
            ("answer", m): answer, ("error", m): "" if kind is None or math.isnan(e) else kind.error_text(e),
            ("score", m): "" if math.isnan(s) else f"{s:.2f}"}


def ref_status(r, i: int, status: str) -> bool:
    st, s = r.status[i], float(r.score[i])
    scored = is_scored(st)
    return {"any": True, "failed": not math.isnan(s) and s < 1.0, "wrong": s == 0.0, "parsed": scored,
            "flagged": scored and st != OK, "unparsed": not scored and st not in (MISSING, "unscored"),
            "missing": st == MISSING}.get(status, st == status)


def ref_order(values: list[float], descending: bool, tiebreak: list[float] | None = None) -> list[int]:
    """Rows by value (NaN last), ties by `tiebreak` when given, then by row."""
    def key(i):
        v = values[i]
        nan = math.isnan(v)
        t = () if tiebreak is None else (tiebreak[i],)
        return (nan, 0.0 if nan else (-v if descending else v), *t, i)
    return sorted(range(len(values)), key=key)


# ------------------------------------------------------------------ the table against it
def _panel(qtbot, release, preds):
    session = open_session(release, preds)
    state = InspectorState()
    panel = BrowserPanel(state)
    qtbot.addWidget(panel)
    state.open(session, str(release))
    return state, panel


def _cells(panel) -> list[dict]:
    """Every row's texts, keyed by column key, as the table gives them."""
    model = panel.model
    keys = [model.key_of_column(c) for c in range(model.columnCount())]
    return [{k: model.data(model.index(row, c)) for c, k in enumerate(keys)} for row in range(model.rowCount())]


@pytest.mark.parametrize("which", ["generated", "demo"])
def test_cells_sorts_and_filters_match_a_plain_python_reference(qtbot, tmp_path, which):
    release, preds = (_generated if which == "generated" else _demo)(tmp_path)
    state, panel = _panel(qtbot, release, preds)
    session, model = state.session, panel.model
    rel = session.release
    n = len(rel)
    results = session.results
    scores = np.concatenate([r.score for r in results])
    if which == "generated":                 # the cases this test is for are all there
        assert np.isnan(scores).any() and any((r.status == MISSING).any() for r in results)
        assert any((~np.isin(r.status, [OK, MISSING])).any() for r in results)
        assert len(set(results[0].score[~np.isnan(results[0].score)].tolist())) < n // 2      # ties
    state.sort = ("row", False)              # the window opens sorted by score; the cells are compared in row order
    for m in range(len(results)):
        state.filter = BrowseFilter(model=m)
        assert model.key_of_column(5) == ("answer", m)                # the selected model's block first
        cells = _cells(panel)
        assert [int(c["row"]) - 1 for c in cells] == list(range(n))
        for i, got in enumerate(cells):
            want = ref_cells(session, i, m)
            assert {k: got[k] for k in want} == want, rel.uids[i]
        # Filters: the rows each status filter and a score range keep, against the per-row predicate.
        for status in STATUS_FILTERS:
            state.filter = BrowseFilter(model=m, status=status)
            assert model.rows.tolist() == [i for i in range(n) if ref_status(results[m], i, status)], status
        state.filter = BrowseFilter(model=m, score_min=0.25, score_max=0.75)
        assert model.rows.tolist() == [i for i in range(n) if 0.25 <= results[m].score[i] <= 0.75]
    scene = rel.questions[0].scene
    column = int(rel.column[0])
    state.filter = BrowseFilter(model=0, scenes=frozenset({scene}), columns=frozenset({column}))
    assert model.rows.tolist() == [i for i in range(n) if rel.questions[i].scene == scene
                                   and rel.questions[i].column_index == column]
    word = rel.uids[n // 2].split("_")[1].lower()
    state.filter = BrowseFilter(model=0, text=word)
    assert model.rows.tolist() == [i for i in range(n) if word in rel.uids[i].lower()
                                   or word in rel.questions[i].task.lower()
                                   or any(word in str(r.raw[i]).lower() for r in results if r.raw[i] is not None)]

    # Sorts: each key, both ways, against sorted() over the question's own values.
    state.filter = BrowseFilter(model=0)
    uid_rank = {i: k for k, i in enumerate(sorted(range(n), key=lambda i: natural_key(rel.uids[i])))}
    scene_rank = {s: k for k, s in enumerate(sorted({q.scene for q in rel.questions}, key=natural_key))}
    r0 = results[0]
    scale = [c.kind.error_scale or 1.0 for c in rel.benchmark.columns]
    err = [float(r0.error[i]) / (scale[rel.questions[i].column_index] if rel.questions[i].column_index >= 0
                                 else 1.0) for i in range(n)]
    plain = {"uid": [float(uid_rank[i]) for i in range(n)],
             "scene": [float(scene_rank[rel.questions[i].scene]) for i in range(n)],
             "column": [float(c) if (c := rel.questions[i].column_index) >= 0 else math.nan for i in range(n)],
             ("error", 0): err, ("score", 0): [float(x) for x in r0.score]}
    for key, values in plain.items():
        for descending in (False, True):
            order = Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
            model.sort(model.column_of(key), order)
            if key == ("score", 0):
                # Equal scores: the larger error is the worse answer; no error at all the worst.
                e = [math.inf if math.isnan(x) else x for x in err]
                want = ref_order(values, descending, e if descending else [-x for x in e])
            else:
                want = ref_order(values, descending)
            assert model.rows.tolist() == want, (key, descending)
            assert state.order.tolist() == want
    # Sorted by score, the score texts read in order, blanks (NaN) last.
    model.sort(model.column_of(("score", 0)), Qt.SortOrder.DescendingOrder)
    texts = [c[("score", 0)] for c in _cells(panel)]
    shown = [float(t) for t in texts if t]
    assert shown == sorted(shown, reverse=True) and all(not t for t in texts[len(shown):])


def test_choosing_another_model_redraws_cells_without_rebuilding_rows(qtbot, tmp_path):
    release, preds = _generated(tmp_path)
    state, panel = _panel(qtbot, release, preds)
    model, session = panel.model, state.session
    resets, changed = [], []
    model.modelReset.connect(lambda: resets.append(1))
    model.dataChanged.connect(lambda a, b: changed.append((a.row(), b.row())))
    # A sort the user chose stays when the model changes (the default one, by the model's score, follows it).
    state.sort = ("row", False)
    resets.clear()
    rows = model.rows
    for m in (1, 2, 0):
        state.filter = BrowseFilter(model=m)
        assert model.rows is rows and not resets                      # the same rows, not rebuilt
        assert changed and changed[-1] == (0, len(rows) - 1)          # every cell drawn again
        i = 7
        assert model.data(model.index(i, 5)) == ref_cells(session, i, m)[("answer", m)]
    state.filter = BrowseFilter(model=1, status="missing")            # other rows: the table is reset
    assert resets and model.rows.tolist() == np.flatnonzero(session.results[1].status == MISSING).tolist()


def test_a_sort_keeps_the_selected_question_found_in_one_pass(qtbot, tmp_path):
    """Sorting moves the selection and the current row with their question; their rows are found by one pass
    over the table's rows (positions_of), as position_of finds each."""
    release, preds = _generated(tmp_path)
    state, panel = _panel(qtbot, release, preds)
    model = panel.model
    state.question = int(model.rows[5])
    for sort in ((("score", 1), False), ("row", True), (("score", 0), True)):
        state.sort = sort
        current = panel.table.currentIndex()
        assert int(model.rows[current.row()]) == state.question
        assert [int(model.rows[i.row()]) for i in panel.table.selectionModel().selectedRows()] == [state.question]
    asked = [int(model.rows[3]), -1, int(model.rows[0]), int(model.rows[3]), 10**9]
    assert model.positions_of(asked) == {q: model.position_of(q) for q in asked if q >= 0}


def test_the_table_keeps_no_question_per_row_shown(qtbot, tmp_path):
    release, preds = _generated(tmp_path)
    state, panel = _panel(qtbot, release, preds)
    built = state.session.release.questions._built
    before = sum(q is not None for q in built)
    cells = _cells(panel)                          # every cell of every row, as scrolling through all does
    assert len(cells) == len(built) and all(c["uid"] for c in cells)
    assert sum(q is not None for q in built) == before
