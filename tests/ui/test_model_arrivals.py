"""The window shows a release before its models are scored, and each model joins as its file is scored
(ui/model_arrivals.py); once all are in, the window is as opening the whole session at once left it: the same
models, names, selection, sort, first question, order and messages."""
import multiprocessing
import shutil

import numpy as np
import pytest

from viewer.core.session import open_session


@pytest.fixture(autouse=True)
def arriving(monkeypatch):
    """The demo's files are small enough to be scored with the release; here they arrive as a large one's."""
    from viewer.ui import main_window
    monkeypatch.setattr(main_window, "ARRIVE_BYTES", 0)


@pytest.fixture
def demo_files(tmp_path):
    from viewer.assets import assets_dir
    root = tmp_path / "demo"
    shutil.copytree(assets_dir() / "demo", root)
    preds = sorted((root / "predictions").glob("*.jsonl"))
    # The same file's name twice (names made unique), a file none of whose answers matches, an unreadable one.
    other = tmp_path / "other"
    other.mkdir()
    twin = other / preds[0].name
    shutil.copy(preds[0], twin)
    stranger = tmp_path / "stranger.jsonl"
    stranger.write_text('{"uid": "no_such_question", "prediction": "A"}\n')
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    return root, [*preds, twin, stranger, empty]


def _kept_pools(monkeypatch) -> list:
    """The worker pools the window starts, as they are made."""
    from viewer.core import scoring_pool
    pools = []
    start = scoring_pool.ScoringPool.__init__

    def kept(self, *a, **k):
        start(self, *a, **k)
        pools.append(self)
    monkeypatch.setattr(scoring_pool.ScoringPool, "__init__", kept)
    return pools


@pytest.fixture(params=["workers", "thread"])
def scoring(request, monkeypatch):
    """Files scored in worker processes (core/scoring_pool.py, what a GST-Bench release gets), or on a job
    thread (a benchmark that merges files, or one defined outside viewer.core)."""
    from viewer.core import scoring_pool
    if request.param == "thread":
        monkeypatch.setattr(scoring_pool, "suits", lambda release: False)
    return request.param, _kept_pools(monkeypatch)


def _no_worker_left() -> bool:
    return not [p for p in multiprocessing.active_children() if "SpawnProcess" in p.name]


def _state_of(state):
    f = state.filter
    return (state.models, state.visible_models, f.model, f.model_b, f.compare, state.sort, state.question,
            state.order.tolist())


def test_models_arrive_after_the_release_and_end_as_one_open(make_inspector, demo_files, monkeypatch, qtbot,
                                                             scoring):
    from ui_helpers import open_release

    from viewer.ui import model_arrivals
    monkeypatch.setattr(model_arrivals, "FLUSH_S", 0.0)      # one join per file, to see each arrive
    monkeypatch.setattr(model_arrivals, "JOIN_SHARE", 0.0)
    root, preds = demo_files
    win, state = make_inspector()
    seen_at_open, joined = [], []
    state.events.session.connect(lambda s: seen_at_open.append((len(s.release), state.models)))
    state.events.models.connect(lambda models: joined.append(models))
    labels, submit = [], win.jobs.submit
    monkeypatch.setattr(win.jobs, "submit", lambda *a, **k: labels.append(k.get("label")) or submit(*a, **k))
    open_release(qtbot, win, root, preds)
    # Work over every model waits for the last: the k column is found once, as when all came at once.
    assert labels.count("finding the target in the sampled frames") == 1 and not state.models_arriving
    assert sum(str(x).startswith("scoring ") for x in labels) == len(preds)
    # The release was shown with no model; then the models came one file at a time, in file order.
    assert seen_at_open == [(84, ())]
    names = [r.model for r in win.session.results]
    assert joined == [tuple(names[:k]) for k in range(1, len(names) + 1)]
    # The end is what opening the whole session at once gives.
    ref_win, ref_state = make_inspector()
    reference = open_session(root, preds)
    ref_state.open(reference, str(root))
    assert names == reference.models == ["noisy-expert", "random-guesser", "sign-flipper", "noisy-expert (2)"]
    assert _state_of(state) == _state_of(ref_state)
    assert sorted((d.level, d.code, d.message) for d in win.session.diagnostics) == \
        sorted((d.level, d.code, d.message) for d in reference.diagnostics)
    for a, b in zip(win.session.results, reference.results):
        assert a.status.tolist() == b.status.tolist() and np.array_equal(a.score, b.score, equal_nan=True)
    problems = [win.problems.item(i).text() for i in range(win.problems.count())]
    assert any("stranger.jsonl" in p and "left out" in p for p in problems)
    assert any("empty.jsonl" in p and "empty" in p for p in problems)
    assert "4 models" in win.status_label.text()
    how, pools = scoring
    if how == "workers":                        # every readable file went to the workers, which are gone now
        (pool,) = pools
        assert [pool.sent(str(p)) for p in preds] == [True] * len(preds)
    assert not pools[1:] and _no_worker_left()


def test_a_question_chosen_while_models_arrive_is_kept(make_inspector, demo_files, qtbot):
    root, preds = demo_files
    win, state = make_inspector()
    chosen = []

    def choose(session):                          # the user picks a question before any model is in
        state.question = 40
        chosen.append(state.question)
    state.events.session.connect(choose)
    with qtbot.waitSignal(win.sessionLoaded, timeout=60000):
        win.open_release(root, preds[:3])
    qtbot.waitUntil(lambda: win.jobs.pending == 0, timeout=30000)
    assert chosen == [40] and state.question == 40
    assert state.filter.model == 0 and state.sort == (("score", 0), False)    # the sort followed the model


def test_a_question_asked_for_by_uid_stays_when_the_models_come(make_inspector, demo_files, qtbot):
    from ui_helpers import open_release
    root, preds = demo_files
    first_row = open_session(root).release.uids[0]          # the first listed before any model is in
    win, state = make_inspector()
    open_release(qtbot, win, root, preds[:3], uid=first_row)
    assert win.session.release.uids[state.question] == first_row
    assert state.sort == (("score", 0), False) and int(state.order[0]) != state.question


def test_cancelling_the_scoring_keeps_the_release_and_says_so(make_inspector, demo_files, qtbot):
    from PyQt6.QtCore import QTimer
    root, preds = demo_files
    win, state = make_inspector()
    # Cancel (the status bar's Cancel button) as soon as the release is shown, the first file being scored.
    state.events.session.connect(lambda s: QTimer.singleShot(0, win.jobs.cancel_all))
    with qtbot.waitSignal(win.sessionLoaded, timeout=60000):
        win.open_release(root, preds[:3])
    qtbot.waitUntil(lambda: win.jobs.pending == 0, timeout=30000)
    assert win.session is state.session and len(win.session.release) == 84     # the release stays shown
    assert "scoring cancelled" in win.status_label.text() and not state.models_arriving
    assert state.models == tuple(win.session.models) and len(state.models) < 3
    assert _no_worker_left()


def test_the_workers_stop_when_another_release_is_opened_or_the_window_closes(make_inspector, demo_files, qtbot,
                                                                               monkeypatch):
    from PyQt6.QtCore import QTimer
    root, preds = demo_files
    pools = _kept_pools(monkeypatch)
    for end in ("another release", "close"):
        win, state = make_inspector()
        opened = []
        state.events.session.connect(opened.append)
        n = len(pools) + 1
        with qtbot.waitSignal(state.events.session, timeout=60000):
            win.open_release(root, preds * 40)
        # Once the workers are started (by the first file's job), the user opens another release, or quits.
        qtbot.waitUntil(lambda n=n: len(pools) == n, timeout=30000)
        workers = pools[-1].processes
        assert workers and len(win.session.results) < len(preds) * 40          # still arriving
        if end == "close":
            win.close()
        else:
            QTimer.singleShot(0, lambda win=win: win.open_release(root, []))
            qtbot.waitUntil(lambda opened=opened: len(opened) == 2, timeout=30000)
        qtbot.waitUntil(lambda workers=workers: not any(p.is_alive() for p in workers), timeout=10000)
        assert _no_worker_left()


def test_small_prediction_files_are_scored_with_the_release_and_shown_once(make_inspector, demo_files,
                                                                          monkeypatch, qtbot):
    """Below ARRIVE_BYTES the files are scored in the opening job: the release is never shown without its
    models (a flash of empty columns and a second redraw of every view, for ~0.1 s of scoring)."""
    from ui_helpers import open_release

    from viewer.ui import main_window
    monkeypatch.setattr(main_window, "ARRIVE_BYTES", 16 * 2**20)
    root, preds = demo_files
    win, state = make_inspector()
    seen_at_open = []
    state.events.session.connect(lambda s: seen_at_open.append(state.models))
    labels, submit = [], win.jobs.submit
    monkeypatch.setattr(win.jobs, "submit", lambda *a, **k: labels.append(k.get("label")) or submit(*a, **k))
    open_release(qtbot, win, root, preds)
    assert not any(str(x).startswith("scoring ") for x in labels)
    assert seen_at_open == [("noisy-expert", "random-guesser", "sign-flipper", "noisy-expert (2)")]
    ref_win, ref_state = make_inspector()
    ref_state.open(open_session(root, preds), str(root))
    assert _state_of(state) == _state_of(ref_state)
    assert "4 models" in win.status_label.text()


def test_the_leaderboard_rows_are_made_off_the_gui_thread(make_inspector, demo_files, monkeypatch, qtbot):
    """Each model's leaderboard row (every answer's status counted) is made on the scoring job's thread, not at
    the redraw that adds the model; the board is the one opening everything at once shows."""
    import threading

    from ui_helpers import open_release

    from viewer.core.evaluate import ModelResult
    root, preds = demo_files
    threads = []
    counts = ModelResult.parse_counts
    monkeypatch.setattr(ModelResult, "parse_counts",
                        lambda self: threads.append(threading.current_thread()) or counts(self))
    win, state = make_inspector()
    open_release(qtbot, win, root, preds)
    assert len(threads) == len(win.session.results) and threading.main_thread() not in threads
    board, reference = win.session.leaderboard(), open_session(root, preds).leaderboard()
    assert board["models"] == reference["models"] and board["random"] == reference["random"]


def test_the_workers_start_while_the_release_is_read(make_inspector, demo_files, monkeypatch, qtbot):
    """The worker processes start with the release's reading (their start and imports overlap it), and get
    the release once it is read."""
    from ui_helpers import open_release

    from viewer.ui import main_window
    root, preds = demo_files
    pools = _kept_pools(monkeypatch)
    seen = []
    read = main_window.open_session
    monkeypatch.setattr(main_window, "open_session", lambda *a, **k: seen.append(
        ([p.is_alive() for p in pools[0].processes], pools[0].ready)) or read(*a, **k))
    win, state = make_inspector()
    open_release(qtbot, win, root, preds)
    assert seen == [([True, True], False)] and len(pools) == 1 and len(state.models) == 4
    assert _no_worker_left()
