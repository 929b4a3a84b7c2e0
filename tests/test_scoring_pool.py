"""Prediction files scored in worker processes (core/scoring_pool.py) give what scoring them in this process
gives: the same models, names, raw answers, statuses, values, scores, errors, unknown uids and messages (bad
lines with their file and line), file by file in file order; a file a worker must not read is scored here;
closing the pool ends its processes."""
import json
import multiprocessing
import shutil
from pathlib import Path

import numpy as np
import pytest

from viewer.core import scoring_pool
from viewer.core.release import load_release
from viewer.core.session import Session


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from viewer.assets import assets_dir
    tmp = tmp_path_factory.mktemp("pool")
    root = tmp / "demo"
    shutil.copytree(assets_dir() / "demo", root)
    preds = sorted((root / "predictions").glob("*.jsonl"))
    uids = load_release(root).uids
    other = tmp / "other"
    other.mkdir()
    twin = other / preds[0].name                                   # the same model name twice: made unique
    shutil.copy(preds[0], twin)
    lines = [json.dumps({"uid": u, "prediction": a}) for u, a in
             zip(uids, ["A", "-120", "<point>412 87</point>", "2.5 m", "unsure", "", "(B)"] * 20)]
    bad = tmp / "bad.jsonl"                                        # malformed lines, NaN (msgspec refuses it)
    bad.write_text("\n".join([*lines[:10], '{"uid": oops}', *lines[10:20], '{"uid": "x", "prediction": NaN}',
                              *lines[20:40], '{"uid": "' + uids[41] + '", "predic']) + "\n")
    shuffled = tmp / "shuffled.jsonl"                              # another order, a duplicate, an unknown uid
    shuffled.write_text("\n".join([*lines[::-1][:50], lines[3], json.dumps({"uid": "nope", "prediction": "A"})])
                        + "\n")
    stranger = tmp / "stranger.jsonl"                              # matches no question: left out
    stranger.write_text('{"uid": "no_such_question", "prediction": "A"}\n')
    empty = tmp / "empty.jsonl"
    empty.write_text("")
    named = f"renamed={preds[1]}"
    return root, [*map(str, preds), str(twin), str(bad), str(shuffled), str(stranger), str(empty), named]


def _same(a, b) -> None:
    ra, ea = a
    rb, eb = b
    assert ea == eb
    assert [(r.model, r.source, r.model_id, r.aliases, r.unmatched, r.profile) for r in ra] == \
           [(r.model, r.source, r.model_id, r.aliases, r.unmatched, r.profile) for r in rb]
    for x, y in zip(ra, rb):
        assert x.raw.tolist() == y.raw.tolist() and x.status.tolist() == y.status.tolist()
        for u, v in ((x.answer, y.answer), (x.score, y.score), (x.error, y.error)):
            assert np.array_equal(u, v, equal_nan=True)
        assert x.unknown_uids == y.unknown_uids
        assert [(d.level, d.code, d.message, d.file, d.line) for d in x.diagnostics] == \
               [(d.level, d.code, d.message, d.file, d.line) for d in y.diagnostics]


def test_files_scored_in_workers_as_here(files):
    root, paths = files
    here = Session(load_release(root))
    expected = here.score_files(paths, taken=["noisy-expert (2)"])
    there = Session(load_release(root))
    pool = scoring_pool.ScoringPool.started(there.release, there.profile, paths)
    try:
        sent = [p for p in paths if pool.sent(p)]
        # Every JSON Lines file went to the workers (the missing and empty ones too: their errors come back).
        assert len(sent) == len(paths) and len(pool.processes) == 2
        given_back = []
        taken_from = pool.scored
        pool.scored = lambda p, progress=None: given_back.append(p) if (x := taken_from(p, progress)) is None else x
        got = there.score_files(paths, taken=["noisy-expert (2)"], pool=pool)
        assert not given_back                      # every file's results came from a worker
    finally:
        pool.close()
    _same(got, expected)
    bad = next(r for r in got[0] if r.source.endswith("bad.jsonl"))
    # Each bad line said with its file and line, as here.
    assert sorted((d.line, d.code) for d in bad.diagnostics if d.line) == \
        [(11, "json.malformed"), (43, "json.malformed")]
    assert bad.unknown_uids == ["x"]               # the NaN line, read by the plain json path
    assert all(d.file.endswith("bad.jsonl") for d in bad.diagnostics)


def test_a_file_another_format_claims_is_scored_here(files, tmp_path):
    """A format registered in this process only (a plug-in) reads the file here; the workers never see it."""
    from viewer.core.predictions import PredictionSet
    from viewer.core.predictions.formats import PredictionFormat, register_format, unregister_format
    root, paths = files

    def read(path, head, diags):
        s = PredictionSet("plugged", str(path))
        s.raw = {json.loads(ln)["uid"]: "A" for ln in Path(path).read_text().splitlines() if ln.strip()}
        return [s]
    plug = register_format(PredictionFormat("plug", lambda path, head: path.name.startswith("sign"), read, 99))
    try:
        session = Session(load_release(root))
        pool = scoring_pool.ScoringPool.started(session.release, session.profile, paths[:3])
        try:
            assert [pool.sent(p) for p in paths[:3]] == [True, True, False]
            got = session.score_files(paths[:3], pool=pool)
        finally:
            pool.close()
        assert [r.model for r in got[0]] == ["noisy-expert", "random-guesser", "plugged"]
        assert set(got[0][2].raw.tolist()) == {"A"}
        _same(got, Session(load_release(root)).score_files(paths[:3]))
    finally:
        unregister_format(plug)


def test_closing_the_pool_ends_its_processes(files):
    root, paths = files
    session = Session(load_release(root))
    pool = scoring_pool.ScoringPool.started(session.release, session.profile, paths * 20)
    processes = pool.processes
    assert processes and all(p.is_alive() for p in processes)
    pool.close()
    assert not any(p.is_alive() for p in processes)
    assert not [p for p in multiprocessing.active_children() if p in processes]
    with pytest.raises(scoring_pool.PoolClosed):
        session.score_files(paths[-3:], pool=pool)     # a file still queued when the pool closed: not scored


def test_a_file_given_twice_is_scored_twice(files):
    """Each time a path is given it is a model of its own (named apart), with arrays of its own."""
    root, paths = files
    session = Session(load_release(root))
    pool = scoring_pool.ScoringPool.started(session.release, session.profile, paths[:1] * 3)
    try:
        got = session.score_files(paths[:1] * 3, pool=pool)
    finally:
        pool.close()
    _same(got, Session(load_release(root)).score_files(paths[:1] * 3))
    assert len({id(r.raw) for r in got[0]}) == 3


def test_a_release_of_a_benchmark_defined_elsewhere_is_scored_here(tmp_path):
    """A worker imports only viewer.core: a plug-in's benchmark (the tests' Toy-Bench) is never sent."""
    import toy_bench
    toy_bench.registered()
    try:
        release = load_release(toy_bench.write_release(tmp_path / "toy"))
        assert release.benchmark is toy_bench.TOY and not scoring_pool.suits(release)
    finally:
        toy_bench.unregister_all()
    assert scoring_pool.suits(load_release(Path(__file__).parent / "data" / "gst-bench-page"))


def test_a_file_of_the_expected_uids_is_read_as_without_them(files, tmp_path):
    """A worker reads with the release's uids expected (json_records.EXPECTED_UIDS): the same sets and
    messages, and a file giving exactly those uids keeps the release's list rather than a copy."""
    from viewer.core.predictions import load_predictions
    from viewer.core.predictions.json_records import EXPECTED_UIDS
    root, paths = files
    uids = load_release(root).uids
    rows = [json.dumps({"uid": u, "prediction": "A"}) for u in uids]
    cases = {"in order": rows, "short": rows[:-5], "long": [*rows, json.dumps({"uid": "extra", "prediction": "B"})],
             "twice": [*rows, rows[7]], "swapped": [rows[1], rows[0], *rows[2:]], "blank uid":
             [*rows[:3], json.dumps({"uid": "", "prediction": "B"})]}
    for name, lines in cases.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        plain = load_predictions(path)
        token = EXPECTED_UIDS.set(uids)
        try:
            hinted = load_predictions(path)
        finally:
            EXPECTED_UIDS.reset(token)
        assert [(type(s.raw), dict(s.raw), [(d.code, d.message, d.line) for d in s.diagnostics]) for s in hinted] \
            == [(type(s.raw), dict(s.raw), [(d.code, d.message, d.line) for d in s.diagnostics]) for s in plain], name
        assert (getattr(hinted[0].raw, "uids", None) is uids) == (name == "in order"), name
    for p in paths[:3]:
        token = EXPECTED_UIDS.set(uids)
        try:
            hinted = load_predictions(p)
        finally:
            EXPECTED_UIDS.reset(token)
        assert [dict(s.raw) for s in hinted] == [dict(s.raw) for s in load_predictions(p)]
