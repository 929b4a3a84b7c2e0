"""The audit's scene jobs do all of a scene's work, the choice judgements included (they read option images and
render maps), so more workers or a cluster scale the whole audit; the release-wide stage reads no image.

The jobs are run by an executor that records them and sends each through a pickle round trip, as a worker
process or a Dask worker receives it (the image reader's factory travels with the job)."""
from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest

pytest.importorskip("cv2")

from viewer.core.audit import IMAGES, Check, register, run_audit  # noqa: E402
from viewer.core.audit.choice import CHOICE_COLUMNS  # noqa: E402
from viewer.core.audit.run import audit_scene  # noqa: E402
from viewer.core.release import load_release  # noqa: E402
from viewer.render.audit_images import SceneImages  # noqa: E402

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"
CHOICE_CHECKS = ["choice_answer_mismatch", "choice_options_ambiguous"]
READS: list[str] = []                  # what CountingImages did, in order, in this process


class CountingImages(SceneImages):
    """SceneImages that notes each read and render (module level, so it pickles by reference)."""

    def read(self, path):
        READS.append("read")
        return super().read(path)

    def topdown(self, scene, level, width):
        READS.append("topdown")
        return super().topdown(scene, level, width)


class RecordingExecutor:
    """An Executor that runs each job here after a pickle round trip, and notes what it ran and when it finished."""

    def __init__(self):
        self.ran: list[tuple[str, str, object]] = []
        self.reads_when_done: int | None = None

    def map_unordered(self, fn, jobs, keys):
        for key, job in zip(keys, jobs):
            shipped_fn, shipped_job = pickle.loads(pickle.dumps((fn, job)))
            result = shipped_fn(*shipped_job)
            self.ran.append((fn.__name__, key, result))
            yield key, result
        self.reads_when_done = len(READS)

    def close(self):
        pass


def choice_count(release) -> int:
    return sum(1 for q in release.questions if CHOICE_COLUMNS.matches(q.column))


@pytest.fixture(autouse=True)
def _fresh_reads():
    READS.clear()


def test_choice_judgements_are_made_in_the_scene_jobs():
    release = load_release(DEMO)
    executor = RecordingExecutor()
    report = run_audit(release, images=CountingImages, executor=executor)
    assert {fn for fn, _, _ in executor.ran} == {audit_scene.__name__}
    assert sorted(key for _, key, _ in executor.ran) == sorted(release.scenes)
    n = choice_count(release)
    assert n > 0
    for check in CHOICE_CHECKS:
        in_jobs = sum(sum(part.tally.counts[check].values()) for _, _, part in executor.ran)
        assert in_jobs == n, check                       # every choice question was counted in its scene's job
        summary = report.summary()[check]
        assert summary["checked"] + summary["skipped"] == n
    # The options were read and the reference maps rendered in the jobs; nothing after them.
    assert "read" in READS and "topdown" in READS
    assert executor.reads_when_done == len(READS)


def test_a_scene_without_metadata_has_its_choice_questions_judged_in_its_job(tmp_path):
    root = shutil.copytree(DEMO, tmp_path / "demo")
    for doc in (root / "scenes").glob("*/scene.json"):
        doc.unlink()
    release = load_release(root)
    executor = RecordingExecutor()
    report = run_audit(release, checks=CHOICE_CHECKS, images=CountingImages, executor=executor)
    assert executor.ran, "the scene stage ran for the choice checks alone, without scene metadata"
    n = choice_count(release)
    summary = report.summary()["choice_answer_mismatch"]
    assert summary["checked"] + summary["skipped"] == n
    assert "topdown" not in READS                         # nothing to render: judged from the release's own maps
    assert executor.reads_when_done == len(READS)


def test_the_same_report_through_the_recording_executor_and_in_process():
    release = load_release(DEMO)
    here = run_audit(release, images=SceneImages, workers=1)
    shipped = run_audit(release, images=SceneImages, executor=RecordingExecutor())
    assert shipped.to_json() == here.to_json()
    assert here.summary()["choice_answer_mismatch"]["checked"] > 0


def test_a_check_needing_images_must_run_in_the_scene_stage():
    class ReleaseOnly(Check):
        def check_release(self, audit):
            return []

    with pytest.raises(ValueError, match="'images' are read in the scene stage"):
        register(ReleaseOnly("release_only_images", "info", "t", frozenset({"Traj"}), needs=frozenset({IMAGES})))


@pytest.mark.parametrize("min_fraction", [None, 1.0], ids=["as-shipped", "every-target-flagged"])
def test_a_long_video_is_cast_in_frame_chunks_with_the_unsplit_findings(monkeypatch, min_fraction):
    """Split into chunks of 8 sampled frames, the audit gives the unsplit JSON. With a share no frame can reach,
    every target is flagged unseen with the numbers of its cast over every frame (best frame and fraction)."""
    pytest.importorskip("open3d")
    from viewer.core.audit.checks import ray_cast
    from viewer.render.visibility import SceneVisibility
    if min_fraction is not None:
        monkeypatch.setattr(ray_cast, "VIDEO_MIN_FRACTION", min_fraction)
    release = load_release(DEMO)
    whole_executor, split_executor = RecordingExecutor(), RecordingExecutor()
    whole = run_audit(release, visibility=SceneVisibility, images=SceneImages, executor=whole_executor,
                      frame_chunk=None)
    split = run_audit(release, visibility=SceneVisibility, images=SceneImages, executor=split_executor,
                      frame_chunk=8)
    assert json.dumps(split.to_json()) == json.dumps(whole.to_json())
    assert split.rays_covered == whole.rays_covered
    unseen = [f for f in whole.findings if f.check == "target_unseen_in_video"]
    if min_fraction is not None:
        assert unseen and all(f.details["frames_sampled"] > 8 for f in unseen)
        assert len({f.details["best_frame"] for f in unseen}) > 1
    assert [key for _, key, _ in whole_executor.ran] == release.scenes
    chunk_jobs = [key for _, key, _ in split_executor.ran if "#" in key]
    split_scenes = {key.split("#")[0] for key in chunk_jobs}
    assert split_scenes and split_scenes <= set(release.scenes) and len(chunk_jobs) >= 2 * len(split_scenes)
    assert len(split_executor.ran) == len(release.scenes) + len(chunk_jobs) + len(split_scenes)  # first, chunks, last
