"""The gallery on other executors: worker processes and a 2-worker Dask LocalCluster paint the same slides,
grid and gallery.json as the command's own process, byte for byte; a bad --address is refused with exit 2."""
from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from viewer.cli import main  # noqa: E402

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"
PREDICTIONS = sorted(str(p) for p in (DEMO / "predictions").glob("*.jsonl"))


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def here(tmp_path_factory) -> dict[str, bytes]:
    """The gallery as `gst-viewer gallery` paints it by default: in its own process."""
    out = tmp_path_factory.mktemp("here") / "gallery"
    assert main(["gallery", str(DEMO), "--out", str(out)]) == 0
    made = files_of(out)
    assert len([n for n in made if n.startswith("slide_")]) == 12 and {"grid.png", "gallery.json"} <= set(made)
    return made


@pytest.mark.slow
def test_worker_processes_paint_the_same_files(tmp_path, here):
    out = tmp_path / "gallery"
    assert main(["gallery", str(DEMO), "--out", str(out), "--workers", "2"]) == 0
    assert files_of(out) == here


@pytest.mark.slow
def test_a_local_dask_cluster_paints_the_same_files(tmp_path, here):
    pytest.importorskip("distributed")
    from viewer.cluster import DaskExecutor
    from viewer.core.session import open_session
    from viewer.figures.canvas import ensure_gui_app
    from viewer.figures.gallery import SessionSource, build_gallery
    from viewer.figures.theme import THEMES
    ensure_gui_app()
    session = open_session(DEMO, PREDICTIONS)
    source = SessionSource(str(DEMO), tuple(PREDICTIONS), None, uuid.uuid4().hex)
    seen = []
    cluster = DaskExecutor(workers=2)
    try:
        assert cluster.workers == 2
        build_gallery(session, tmp_path, theme=THEMES["light"], executor=cluster, source=source,
                      progress=lambda done, total: seen.append((done, total)))
    finally:
        cluster.close()
    made = files_of(tmp_path)
    assert made.keys() == here.keys()
    for name in made:                                   # every slide, the grid and gallery.json
        assert made[name] == here[name], name
    assert [d for d, _ in seen] == list(range(1, 14))    # a step per slide as it came back, then the grid


def test_an_unreachable_address_is_said_with_exit_2(tmp_path, capsys):
    pytest.importorskip("distributed")
    started = time.monotonic()
    code = main(["gallery", str(DEMO), "--out", str(tmp_path / "g"), "--executor", "dask",
                 "--address", "tcp://127.0.0.1:9"])
    assert code == 2 and time.monotonic() - started < 10
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err
    assert not (tmp_path / "g").exists()


def test_an_address_needs_the_dask_executor(tmp_path, capsys):
    code = main(["gallery", str(DEMO), "--out", str(tmp_path / "g"), "--address", "tcp://127.0.0.1:8786"])
    assert code == 2
    assert "--address needs --executor dask" in capsys.readouterr().err
    assert not (tmp_path / "g").exists()


def test_slides_painted_in_two_threads_at_once_are_the_ones_painted_here():
    """A Dask worker with several threads paints slides side by side, off the main thread."""
    from concurrent.futures import ThreadPoolExecutor

    from viewer.core.session import open_session
    from viewer.figures.canvas import ensure_gui_app
    from viewer.figures.gallery import SessionSource, render_slide, slide_images
    from viewer.figures.theme import THEMES
    ensure_gui_app()
    session = open_session(DEMO, PREDICTIONS)
    questions = [0, len(session.release) - 1]
    source = SessionSource(str(DEMO), tuple(PREDICTIONS), None, uuid.uuid4().hex)
    with ThreadPoolExecutor(2) as pool:
        there = list(pool.map(lambda qi: render_slide(source, qi, None, THEMES["light"]), questions))
    for qi, painted in zip(questions, there):
        mine = slide_images(session, qi, None, THEMES["light"])
        assert (painted.png, painted.tile) == (mine.png, mine.tile)
