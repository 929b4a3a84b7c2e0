"""The demo generator and the bundled demo: format, ground truth, promises, scoring.

A reduced release (2 small scenes, one question per scene and column) is
generated once per module; the committed `assets/demo` is checked too.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from published_samples import ED_UID, EDIST_UID, FIXTURES, POS_UID, TDSM_UID, TRAJ_UID

from viewer.core.benchmarks.gst.columns import COLUMN_KEYS
from viewer.core.diagnostics import UserError
from viewer.core.geometry import recompute_ground_truth
from viewer.core.kinds import CHOICE
from viewer.core.release import load_release
from viewer.core.scene.model import link_question
from viewer.core.scene.sources import SceneLibrary
from viewer.core.session import open_session
from viewer.demo.generate import generate_demo
from viewer.demo.scenebuild import DemoConfig

REPO = Path(__file__).resolve().parent.parent
BUNDLED = REPO / "assets" / "demo"
SMALL = DemoConfig(width=160, height=128, map_width=200, map_height=160, per_column=1,
                   viewpoints=16, distractors=2)
ANGLE_KEYS = ("ED_v", "ED_s", "Ori")


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "release"
    generate_demo(out, scenes=2, seed=3, config=SMALL, log=lambda m: None)
    return out


def _records(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "questions.jsonl").read_text().splitlines()]


def _geometric(q) -> bool:
    return q.column is not None and q.column.kind is not CHOICE


# ------------------------------------------------------------------ structure
@pytest.mark.slow
def test_release_has_all_columns_media_and_scene_files(demo):
    release = load_release(demo)
    assert not release.diagnostics.of_level("error"), list(release.diagnostics)
    assert not release.missing_media()
    per_column = {k: 0 for k in COLUMN_KEYS}
    for q in release.questions:
        per_column[q.column.key] += 1
    assert all(n >= 2 for n in per_column.values()), per_column
    assert len({q.uid for q in release.questions}) == len(release.questions)

    library = SceneLibrary(demo)
    assert library.available() == ["scene_1", "scene_2"]
    conventions = set()
    for sid in library.available():
        scene = library.get(sid)
        assert not scene.diagnostics.of_level("error"), list(scene.diagnostics)
        conventions.add(scene.camera_convention)
        assert {"photo", "occupancy", "floorplan"} <= set(scene.topdown)
        assert scene.mesh and Path(scene.mesh).is_file()
        assert len(scene.videos["video_0"].poses) > 100
    assert conventions == {"opencv", "opengl"}


@pytest.mark.slow
def test_mesh_nodes_are_instance_ids_in_behavior_style(demo):
    import re

    from viewer.render.scene_mesh import load_scene_mesh
    doc = json.loads((demo / "scenes/scene_1/scene.json").read_text())
    mesh = load_scene_mesh(demo / "scenes/scene_1/scene.glb")
    assert set(mesh.instance_ids) == set(doc["instances"])
    pattern = re.compile(r"^[a-z_]+_[a-z]{6}_\d+$")
    assert all(pattern.match(i) for i in doc["instances"])
    categories = {v["semantic"] for v in doc["instances"].values()}
    assert {"sofa", "bed", "fridge", "television", "potted_plant"} <= categories


@pytest.mark.slow
def test_prompts_and_uids_follow_the_published_samples(demo):
    if not FIXTURES.is_dir():
        pytest.skip("published samples not available")
    published = {}
    for uid in (ED_UID, EDIST_UID, POS_UID, TDSM_UID, TRAJ_UID):
        for f in FIXTURES.glob("*/question.json"):
            rec = json.loads(f.read_text())
            if rec["uid"] == uid:
                published[rec["task"]] = rec
    ours = {}
    for rec in _records(demo):
        ours.setdefault(rec["task"], rec)
    for task, pub in published.items():
        assert ours[task]["texts"] == pub["texts"], task
        assert type(ours[task]["answer"]) is type(pub["answer"]), task
    ed = ours["Object_Localization_Egocentric_Direction_visual"]
    assert ed["uid"].startswith("scene1_Object_Localization_Egocentric_Direction_visual_")
    assert "_obj_" in ed["copied_video_path"] and ed["meta"]["target"] in ed["copied_video_path"]
    pos = ours["Self_Localization_Global_Position"]
    assert pos["uid"].startswith("scene1_Egocentric_Localization_Global_Position_pos_")


# ------------------------------------------------------------------ ground truth
def _check_answers_match_geometry(root: Path) -> int:
    release = load_release(root)
    library = SceneLibrary(root)
    checked = 0
    for q in release.questions:
        if not _geometric(q):
            continue
        geo = link_question(q, library.get(q.scene))
        assert not geo.problems, (q.uid, geo.problems)
        r = recompute_ground_truth(q, geo)
        assert r.value is not None, (q.uid, r.reason)
        stored = q.truth.value
        expected = tuple(float(v) for v in r.value) if isinstance(r.value, tuple) else float(r.value)
        assert stored == expected, (q.uid, stored, r.value)
        checked += 1
    return checked


@pytest.mark.slow
def test_every_answer_equals_the_geometry_recomputed_by_the_core(demo):
    assert _check_answers_match_geometry(demo) >= 16


@pytest.mark.slow
def test_opengl_scene_answers_match_hand_computed_direction(demo):
    """Independent of the core: OpenGL cameras look along their -z column."""
    doc = json.loads((demo / "scenes/scene_2/scene.json").read_text())
    assert doc["camera_convention"] == "opengl"
    n = 0
    for rec in _records(demo):
        if rec["scene"] != "scene_2" or not rec["task"].startswith("Object_Localization_Egocentric_Direction"):
            continue
        pose = np.array(doc["viewpoints"][rec["meta"]["viewpoint"]]["pose"]).reshape(4, 4)
        forward = -pose[:3, 2]
        target = np.array(doc["instances"][rec["meta"]["target"]]["bbox3"]["translation"])
        to = target - pose[:3, 3]
        angle = math.degrees(math.atan2(to[1], to[0]) - math.atan2(forward[1], forward[0]))
        angle = (angle + 180) % 360 - 180
        assert abs((angle - int(rec["answer"]) + 180) % 360 - 180) <= 0.5 + 1e-9, rec["uid"]
        n += 1
    assert n >= 2


# ------------------------------------------------------------------ promises
@pytest.mark.slow
def test_promises_hold_by_ray_casting(demo):
    from viewer.render.raycast import Raycaster
    from viewer.render.scene_mesh import load_scene_mesh
    release = load_release(demo)
    library = SceneLibrary(demo)
    casters = {}
    checked = 0
    for q in release.questions:
        if q.column is None or not q.column.has_target:
            continue
        scene = library.get(q.scene)
        if q.scene not in casters:
            casters[q.scene] = Raycaster(load_scene_mesh(scene.mesh))
        caster = casters[q.scene]
        target = caster.mesh.index_of(q.target)
        video = scene.videos["video_0"]
        seen = caster.visible_pixel_counts_batch(video.poses, video.intrinsics)[:, target]
        n_pixels = video.intrinsics.width * video.intrinsics.height
        info = video.instances[q.target]
        assert seen[info["best_frame_idx"]] >= 0.02 * n_pixels, q.uid
        assert seen[info["best_frame_idx"]] == seen[info["appear_frames"]].max(), q.uid
        assert (seen[info["appear_frames"]] >= SMALL.appear_fraction * n_pixels).all(), q.uid
        if q.viewpoint:                                 # GP questions have no current view
            vp = scene.viewpoints[q.viewpoint]
            counts = caster.visible_pixel_counts(vp.pose, vp.intrinsics)
            assert counts.get(target, 0) == 0, f"{q.uid}: target visible from the current view"
            gap = np.linalg.norm(video.poses[:, :3, 3] - vp.pose[:3, 3], axis=1)
            assert gap.min() > 0.3, q.uid
        if q.column.key.endswith("_s"):
            category = scene.instances[q.target].semantic
            assert sum(i.semantic == category for i in scene.instances.values()) == 1, q.uid
        checked += 1
    assert checked >= 12


@pytest.mark.slow
def test_visual_videos_show_a_red_box_around_the_target(demo):
    import cv2
    library = SceneLibrary(demo)
    rec = next(r for r in _records(demo) if r["task"] == "Object_Localization_Egocentric_Distance_visual")
    info = library.get(rec["scene"]).videos["video_0"].instances[rec["meta"]["target"]]
    cap = cv2.VideoCapture(str(demo / rec["copied_video_path"]))
    cap.set(cv2.CAP_PROP_POS_FRAMES, info["best_frame_idx"])
    ok, bgr = cap.read()
    cap.release()
    assert ok
    x0, y0, x1, y1 = info["best_bbox"]
    edge = np.concatenate([bgr[y0, x0:x1 + 1], bgr[y1, x0:x1 + 1], bgr[y0:y1 + 1, x0], bgr[y0:y1 + 1, x1]])
    red = (edge[:, 2].astype(int) > edge[:, 1].astype(int) + 60) & (edge[:, 2] > 150)
    assert red.mean() > 0.6
    plain = cv2.VideoCapture(str(demo / "scenes" / rec["scene"] / "videos/video_0.mp4"))
    plain.set(cv2.CAP_PROP_POS_FRAMES, info["best_frame_idx"])
    ok, bgr = plain.read()
    plain.release()
    edge = np.concatenate([bgr[y0, x0:x1 + 1], bgr[y1, x0:x1 + 1]])
    assert ((edge[:, 2].astype(int) > edge[:, 1].astype(int) + 60) & (edge[:, 2] > 150)).mean() < 0.3


# ------------------------------------------------------------------ models
@pytest.mark.slow
def test_simulated_models_score_as_their_profiles_say(demo):
    preds = sorted((demo / "predictions").glob("*.jsonl"))
    assert [p.stem for p in preds] == ["noisy-expert", "random-guesser", "sign-flipper"]
    session = open_session(demo, preds)
    board = session.leaderboard()["models"]
    for name, row in board.items():
        assert all(row["columns"][k] is not None for k in COLUMN_KEYS), name

    def mean(name, keys):
        return np.mean([board[name]["columns"][k] for k in keys])

    assert mean("sign-flipper", ANGLE_KEYS) < mean("noisy-expert", ANGLE_KEYS) - 30
    assert mean("sign-flipper", ("EDist_v", "EDist_s")) > 50
    assert board["random-guesser"]["avg"] < board["noisy-expert"]["avg"] - 30
    raw = [json.loads(line)["prediction"] for p in preds for line in p.read_text().splitlines()]
    assert any("°" in r or "Answer:" in r or "<point>" in r for r in raw)


def test_score_cli_reads_the_bundled_demo(capsys):
    from viewer.cli import main
    preds = sorted((BUNDLED / "predictions").glob("*.jsonl"))
    assert main(["score", str(BUNDLED), *map(str, preds), "--quiet"]) == 0
    out = capsys.readouterr().out
    for p in preds:
        assert p.stem in out
    assert "unparsed answers" in out


# ------------------------------------------------------------------ determinism and safety
@pytest.mark.slow
def test_same_seed_gives_the_same_release(tmp_path):
    tiny = DemoConfig(width=96, height=80, map_width=120, map_height=96, per_column=1,
                      viewpoints=12, distractors=3)
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        generate_demo(out, scenes=1, seed=11, config=tiny, log=lambda m: None)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


@pytest.mark.slow
def test_scenes_built_in_worker_processes_give_the_same_release(tmp_path):
    """make-demo --workers 2 (issue 18): each scene a job in its own process, the release byte-identical."""
    from viewer.core.executors import LocalExecutor
    tiny = DemoConfig(width=96, height=80, map_width=120, map_height=96, per_column=1,
                      viewpoints=12, distractors=3)
    a, b = tmp_path / "here", tmp_path / "workers"
    generate_demo(a, scenes=2, seed=11, config=tiny, log=lambda m: None)
    generate_demo(b, scenes=2, seed=11, config=tiny, log=lambda m: None, executor=LocalExecutor(2))
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_refuses_to_overwrite_a_folder_that_is_not_a_demo(tmp_path):
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "notes.txt").write_text("precious")
    with pytest.raises(UserError, match="not an earlier generated demo"):
        generate_demo(keep, scenes=1, seed=0, config=SMALL, log=lambda m: None)
    assert (keep / "notes.txt").read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_make_demo_command_reports_bad_scene_count(tmp_path, capsys):
    from viewer.cli import main
    assert main(["make-demo", str(tmp_path / "d"), "--scenes", "0"]) == 2
    assert "--scenes" in capsys.readouterr().err


# ------------------------------------------------------------------ the bundled demo
def test_bundled_demo_is_complete_small_and_consistent():
    assert (BUNDLED / "questions.jsonl").is_file(), "run `make demo` and commit assets/demo"
    release = load_release(BUNDLED)
    assert not release.diagnostics.of_level("error"), list(release.diagnostics)[:5]
    assert not release.missing_media()
    assert len(release.scenes) >= 3
    for key in COLUMN_KEYS:
        assert sum(q.column.key == key for q in release.questions) >= 5, key
    assert len(list((BUNDLED / "predictions").glob("*.jsonl"))) >= 3
    size = sum(p.stat().st_size for p in BUNDLED.rglob("*") if p.is_file())
    assert size < 25 * 2 ** 20, f"assets/demo is {size / 2 ** 20:.1f} MB"


@pytest.mark.slow
def test_bundled_demo_answers_match_the_geometry():
    assert _check_answers_match_geometry(BUNDLED) >= 40


def test_choice_answers_are_letters_of_the_options(demo):
    for rec in _records(demo):
        if rec["task"].startswith("Global_Structure"):
            assert CHOICE.parse_truth(rec["answer"], len(rec["images"])).ok
            assert len(rec["images"]) == 4
            assert len({im["copied_path"] for im in rec["images"]}) == 4, rec["uid"]


def test_demo_package_imports_no_qt_and_no_heavy_libs_up_front():
    import subprocess
    import sys
    code = ("import sys, viewer.demo.generate\n"
            "print(sorted(m for m in ('PyQt6', 'pyqtgraph', 'open3d', 'cv2', 'trimesh') if m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


def test_unwritable_output_is_a_clear_message(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UserError, match="cannot write the demo"):
        generate_demo(blocker / "demo", scenes=1, seed=0, config=SMALL, log=lambda m: None)
