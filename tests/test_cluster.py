"""The Dask executor (viewer/cluster.py): a LocalCluster of 2 workers gives the local executor's audit, byte for
byte; a worker killed mid-task has its task run again; an unreachable scheduler is said within 10 s."""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")
pytest.importorskip("open3d")

from viewer.cluster import DaskExecutor, executor_for  # noqa: E402
from viewer.core.audit import run_audit  # noqa: E402
from viewer.core.diagnostics import UserError  # noqa: E402
from viewer.core.release import load_release  # noqa: E402
from viewer.render.audit_images import SceneImages  # noqa: E402
from viewer.render.visibility import SceneVisibility  # noqa: E402

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"
SCENES = 3


def replicated_demo(root: Path, copies: int) -> Path:
    """The demo's scene and questions under `copies` scene ids (files hard-linked, scene.json and uids renamed)."""
    lines = [json.loads(x) for x in (DEMO / "questions.jsonl").read_text().splitlines() if x.strip()]
    out = []
    for k in range(1, copies + 1):
        dst = root / "scenes" / f"scene_{k}"
        shutil.copytree(DEMO / "scenes" / "scene_1", dst, copy_function=_link_or_copy)
        doc = json.loads((dst / "scene.json").read_text())
        doc["scene"] = dst.name
        (dst / "scene.json").unlink()
        (dst / "scene.json").write_text(json.dumps(doc))
        for r in lines:
            r = json.loads(json.dumps(r).replace("scenes/scene_1/", f"scenes/scene_{k}/"))
            r["scene"], r["uid"] = dst.name, r["uid"].replace("scene1_", f"scene{k}_", 1)
            out.append(json.dumps(r))
    (root / "questions.jsonl").write_text("\n".join(out) + "\n")
    return root


def _link_or_copy(src, dst):
    try:
        Path(dst).hardlink_to(src)
    except OSError:
        shutil.copy2(src, dst)


@pytest.fixture(scope="module")
def cluster():
    ex = DaskExecutor(workers=2)
    yield ex
    ex.close()


@pytest.mark.slow
def test_local_cluster_audit_is_the_local_audit(tmp_path, cluster):
    release = load_release(replicated_demo(tmp_path, SCENES))
    local = run_audit(release, visibility=SceneVisibility, images=SceneImages, workers=1)
    assert cluster.workers == 2
    seen = []
    dask = run_audit(release, visibility=SceneVisibility, images=SceneImages, executor=cluster,
                     progress=lambda d, n: seen.append(d))
    assert json.dumps(dask.to_json(), sort_keys=True) == json.dumps(local.to_json(), sort_keys=True)
    assert dask.rays_cast == local.rays_cast > 0
    assert local.summary()["choice_answer_mismatch"]["checked"] > 0     # the choice judgements ran on the workers
    # Each scene's video split into frame chunks of 16 sampled frames, cast by tasks of their own: the same JSON.
    split = run_audit(release, visibility=SceneVisibility, images=SceneImages, executor=cluster, frame_chunk=16)
    assert json.dumps(split.to_json(), sort_keys=True) == json.dumps(local.to_json(), sort_keys=True)
    assert seen[-1] == len(release) and len(seen) >= SCENES      # progress moved as scenes came back


@pytest.mark.slow
def test_a_killed_worker_has_its_task_run_again(tmp_path, cluster):
    marker = tmp_path / "killed-once"

    def job(x):                          # nested: cloudpickle ships it by value to the workers
        import os
        from pathlib import Path
        if x == 2 and not Path(marker).exists():
            Path(marker).write_text("killed")
            os._exit(1)                  # the worker process dies mid-task
        return x * 10

    got = dict(cluster.map_unordered(job, [(x,) for x in range(4)], [f"job{x}" for x in range(4)]))
    assert marker.exists()
    assert got == {"job0": 0, "job1": 10, "job2": 20, "job3": 30}


def test_an_unreachable_scheduler_is_said_within_ten_seconds():
    started = time.monotonic()
    with pytest.raises(UserError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        executor_for("dask", "tcp://127.0.0.1:9")
    assert time.monotonic() - started < 10


def _tenfold(x):
    return x * 10


def test_a_running_scheduler_is_used_by_its_address():
    from distributed import LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as running:
        executor = executor_for("dask", running.scheduler_address)
        try:
            assert dict(executor.map_unordered(_tenfold, [(1,), (2,)], ["a", "b"])) == {"a": 10, "b": 20}
        finally:
            executor.close()


def test_an_address_that_answers_in_another_protocol_is_said_and_given_up(tmp_path):
    """A web server (or the dashboard's port) at --address: Dask's own timeout would wait for ever."""
    import socket
    import subprocess
    import sys
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted = []

    def serve():                          # accepts, reads, answers nothing Dask understands
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted.append(conn)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n")

    threading.Thread(target=serve, daemon=True).start()
    try:
        release = Path(__file__).resolve().parent.parent / "assets" / "demo"
        done = subprocess.run([sys.executable, "-m", "viewer", "audit", str(release), "--executor", "dask",
                               "--address", f"tcp://127.0.0.1:{port}"],
                              capture_output=True, text=True, timeout=120)
    finally:
        server.close()
    assert accepted, "the command never connected"
    assert done.returncode == 2
    assert f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_address_needs_the_dask_executor():
    with pytest.raises(UserError, match="--address needs --executor dask"):
        executor_for("local", "tcp://127.0.0.1:8786")
