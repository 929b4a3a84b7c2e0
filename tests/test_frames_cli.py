"""`gst-viewer frames` and `score --by target-sampled` on the bundled demo: sampled indices as the policy
says, target frames from the red box (visual) and the metadata (semantic), k, problems one line each."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from viewer.frames_cli import cmd_frames
from viewer.score_cli import cmd_score

DEMO = Path(__file__).resolve().parents[1] / "assets" / "demo"
PREDS = sorted(str(p) for p in (DEMO / "predictions").glob("*.jsonl"))


def run_json(capsys, argv, cmd=cmd_frames):
    rc = cmd(argv + ["--json"])
    out = capsys.readouterr()
    return rc, json.loads(out.out), out.err


def test_frames_of_the_demo(capsys):
    rc, doc, err = run_json(capsys, [str(DEMO), "--frames", "uniform:8@448"])
    assert rc == 0, err
    rows = doc["models"]["policy"]
    assert len(rows) == 84
    by_source = {}
    for r in rows:
        n = r["n_frames"]
        assert r["sampled"] == sorted(set(np.linspace(0, n - 1, 8, dtype=int).tolist()))
        by_source.setdefault(r["target_source"], []).append(r)
        if r["target_frames"] is not None:
            assert r["k"] == len(set(r["sampled"]) & set(r["target_frames"]))
    # the scene metadata comes first (core.timeline.target_frames); the red box found in the visual
    # questions' videos agrees with it
    visual = [r for r in rows if r["visual"]]
    assert len(visual) == 18 and all(r["target_source"] == "metadata" for r in visual)
    assert min(r["red_box_vs_metadata"] for r in visual) >= 0.95
    assert len(by_source["metadata"]) == 36
    seen = [r for r in visual if r["k"]]
    # the box is given at 448 px across (the demo's frames are 400 x 320)
    assert seen and all(r["box_at_model"][0] <= 448 and r["box_at_model"][1] <= 358 for r in seen)
    assert all(r["k"] is None and r["target_frames"] is None for r in by_source["no target"])


def test_without_3d_the_red_box_finds_the_targets(capsys, tmp_path):
    rel = tmp_path / "demo"
    shutil.copytree(DEMO, rel)
    for f in rel.glob("scenes/*/scene.json"):
        f.unlink()
    rc, doc, err = run_json(capsys, [str(rel), "--frames", "uniform:8"])
    rows = doc["models"]["policy"]
    visual = [r for r in rows if r["visual"]]
    assert all(r["target_source"] == "red box" and r["k"] is not None for r in visual)
    semantic = [r for r in rows if r["column"] and r["column"].endswith("_s")]
    assert semantic and all(r["target_source"] == "unknown" and r["k"] is None for r in semantic)
    # the same frames as the metadata said, but the one frame the detector misses (test_redbox.py)
    rc, with_3d, err = run_json(capsys, [str(DEMO), "--frames", "uniform:8"])
    listed = {r["uid"]: set(r["target_frames"]) for r in with_3d["models"]["policy"] if r["visual"]}
    assert sum(len(set(r["target_frames"]) ^ listed[r["uid"]]) for r in visual) == 3       # 3 questions x 1 frame


def test_a_policy_per_model_and_from_records(capsys, tmp_path):
    mine = tmp_path / "mine.jsonl"
    lines = [json.loads(x) for x in Path(PREDS[0]).read_text().splitlines() if x.strip()]
    lines[0]["frames"] = [0, 1, 2]
    lines[1]["frames"] = "fps:1"
    lines[2]["frames"] = "sometimes"
    mine.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    rc, doc, err = run_json(capsys, [str(DEMO), "-p", f"a={mine}", f"b={PREDS[1]}",
                                     "--frames", "uniform:16", "--frames", "b=uniform:4"])
    a, b = doc["models"]["a"], doc["models"]["b"]
    assert a[0]["sampled"] == [0, 1, 2]
    assert len(a[1]["sampled"]) == 32        # 337 frames at 10 fps, 1 fps: 33.7 -> Qwen's pairs: 32
    assert all(len(r["sampled"]) == 16 for r in a[2:] if r["n_frames"] and r["n_frames"] > 16)
    assert all(len(r["sampled"]) == 4 for r in b if r["n_frames"])
    assert any(f"{mine}:3:" in p and "sometimes" in p for p in doc["problems"])
    assert rc == 1


def test_list_files_report_their_lines(capsys, tmp_path):
    uid = json.loads((DEMO / "questions.jsonl").read_text().splitlines()[0])["uid"]
    logged = tmp_path / "logged.jsonl"
    logged.write_text(json.dumps({"uid": uid, "frames": [0, 100, 200]}) + "\n"
                      + json.dumps({"uid": "nobody", "frames": [1]}) + "\n"
                      + json.dumps({"uid": uid.replace("visual", "semantic"), "frames": [5000]}) + "\n")
    rc, doc, err = run_json(capsys, [str(DEMO), "--frames", f"list:{logged}"])
    assert rc == 1
    assert doc["models"]["policy"][0]["sampled"] == [0, 100, 200]
    assert any(p.startswith(f"{logged}:2: uid 'nobody'") for p in doc["problems"])
    others = [r for r in doc["models"]["policy"][1:] if r["n_frames"]]
    assert all("no frame list" in r["problem"] for r in others)


def test_bad_videos_one_message_each_and_the_rest_proceeds(capsys, tmp_path):
    rel = tmp_path / "demo"
    shutil.copytree(DEMO, rel)
    victim = rel / "scenes/scene_1/videos/video0_obj_floor_lamp_aqtzng_0.mp4"
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 3])
    empty = rel / "scenes/scene_2/videos/sub_trajectory_4.mp4"
    empty.write_bytes(b"")
    rc, doc, err = run_json(capsys, [str(rel), "--frames", "uniform:8"])
    assert rc == 1
    named = [p for p in doc["problems"] if "floor_lamp" in p]
    assert len(named) == 1
    assert len([p for p in doc["problems"] if "sub_trajectory_4" in p]) == 1
    rows = doc["models"]["policy"]
    assert sum(1 for r in rows if r["problem"] and "floor_lamp" in r["problem"]) == 3
    assert sum(1 for r in rows if r["visual"] and r["k"] is not None) == 15       # the other five videos


def test_score_split_adds_up(capsys):
    """The issue's acceptance: the demo's three models at uniform:8; the split columns, weighted by their
    counts, give the unsplit ones."""
    rc, board, err = run_json(capsys, [str(DEMO), "-p", *PREDS, "--by", "target-sampled", "--frames", "uniform:8"],
                              cmd=cmd_score)
    assert rc == 0, err
    assert len(board["models"]) == 3
    for name, m in board["models"].items():
        split = m["by_target_sampled"]
        assert set(split) == {"target sampled", "target never sampled"}
        for key, whole in m["columns"].items():
            parts = [(g["columns"][key], g["counts"][key]) for g in split.values() if g["columns"][key] is not None]
            if not parts:
                continue            # a column about no object
            n = sum(c for _, c in parts)
            assert n == m["counts"][key]
            assert sum(v * c for v, c in parts) / n == pytest.approx(whole, abs=1e-9), (name, key)


def test_score_by_needs_frames(capsys):
    with pytest.raises(SystemExit):
        cmd_score([str(DEMO), "-p", PREDS[0], "--by", "target-sampled"])
    assert "--frames" in capsys.readouterr().err


def test_ray_cast_agrees_with_the_metadata_and_stands_in_for_it(capsys, tmp_path):
    """--ray-cast, on the demo's first scene: where the metadata lists the target's frames, how often the
    ray cast agrees; where it lists none (appear_frames removed), the semantic questions' frames come from
    the ray cast (the visual ones' from the red box)."""
    rel = tmp_path / "demo"
    shutil.copytree(DEMO, rel)
    lines = (rel / "questions.jsonl").read_text().splitlines()
    (rel / "questions.jsonl").write_text("\n".join(x for x in lines if '"scene_1"' in x) + "\n")
    rc, doc, err = run_json(capsys, [str(rel), "--frames", "uniform:8", "--ray-cast"])
    assert rc == 0, err
    rows = [r for r in doc["models"]["policy"] if r["target_frames"] is not None]
    assert len(rows) == 12 and all(r["ray_cast_vs_metadata"] is not None for r in rows)
    assert min(r["ray_cast_vs_metadata"] for r in rows) >= 0.9
    for sj in rel.glob("scenes/*/scene.json"):
        scene = json.loads(sj.read_text())
        for track in scene["videos"].values():
            track["instances"] = {}
        sj.write_text(json.dumps(scene))
    rc, doc, err = run_json(capsys, [str(rel), "--frames", "uniform:8", "--ray-cast"])
    semantic = [r for r in doc["models"]["policy"] if r["column"] and r["column"].endswith("_s")]
    assert len(semantic) == 6 and all(r["target_source"] == "ray cast" and r["k"] is not None for r in semantic)
    assert all(r["target_source"] == "red box" for r in doc["models"]["policy"] if r["visual"])


def test_frames_on_a_dask_cluster_as_here(capsys):
    """The video scans as Dask tasks (a LocalCluster of one worker): the same document as run here."""
    rc, here, err = run_json(capsys, [str(DEMO), "--frames", "uniform:8"])
    rc2, dask, err2 = run_json(capsys, [str(DEMO), "--frames", "uniform:8", "--executor", "dask", "--workers", "1"])
    assert rc == rc2 == 0, err2
    assert dask == here


def test_the_window_takes_the_same_frames_arguments(monkeypatch):
    """`gst-viewer RELEASE -p ... --frames uniform:8 --frames NAME=uniform:32@448`: the window is given the
    policies `frames` would use (core.frames.FramePolicies, one answer for both), a bad one is refused."""
    import viewer.ui.app
    from viewer.core.diagnostics import UserError
    from viewer.core.frames import FramePolicies
    from viewer.window_cli import cmd_open
    got = {}
    monkeypatch.setattr(viewer.ui.app, "run_app", lambda release, preds, **kw: got.update(kw) or 0)
    assert cmd_open([str(DEMO), "-p", *PREDS, "--frames", "uniform:8",
                     "--frames", "sign-flipper=uniform:32@448", "--screenshot", "x.png"]) == 0
    p = got["frames"]
    assert p == FramePolicies.parse(["uniform:8", "sign-flipper=uniform:32@448"])
    assert str(p.policy_of("sign-flipper")) == "uniform:32@448" and p.policy_of("sign-flipper").resolution.side == 448
    assert str(p.policy_of("noisy-expert")) == str(p.policy_of(None)) == "uniform:8"
    # one model's changed, the others keep theirs; an equal set compares equal (the state emits nothing)
    q = p.with_policy("noisy-expert", FramePolicies.parse(["uniform:16"]).default)
    assert str(q.policy_of("noisy-expert")) == "uniform:16" and str(q.policy_of("sign-flipper")) == "uniform:32@448"
    assert q.with_policy("sign-flipper", p.policy_of("sign-flipper")) == q
    assert p.unknown_models(["noisy-expert"]) == ["sign-flipper"]
    with pytest.raises(UserError, match="--frames a=uniform:zero"):
        cmd_open([str(DEMO), "-p", *PREDS, "--frames", "a=uniform:zero", "--screenshot", "x.png"])
    # only NAME= policies: the window's default (uniform:8) stays for the others
    got.clear()
    cmd_open([str(DEMO), "--frames", "a=all", "--screenshot", "x.png"])
    assert got["frames"].default is None and str(got["frames"].policy_of("a")) == "all"


def test_the_windows_k_is_the_commands(tmp_path):
    """render.frames_scan.release_target_k (the window's k, built only for the questions about an object
    whose video is there) gives, per model, the k `frames` gives; a question whose video is gone or that
    is about no object has none, and the release keeps no Question it built."""
    from viewer.core.frames import FramePolicies
    from viewer.core.release import load_release
    from viewer.frames_cli import analyse
    from viewer.render.frames_scan import release_target_k, target_rows
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    gone = sorted(root.glob("scenes/*/videos/video0_obj_fridge_*.mp4"))[0]
    gone.unlink()
    release = load_release(root)
    about = np.array([release.benchmark.columns[c].has_target if c >= 0 else False for c in release.column])
    uses_gone = np.array([gone.name in (q.video.declared if q.video else "") for q in release.questions])
    assert uses_gone.any() and about.any() and not about.all()
    assert target_rows(release).tolist() == np.flatnonzero(about & ~uses_gone).tolist()
    args = ["uniform:8", "b=uniform:32"]
    release = load_release(root)                     # nothing built yet
    got = release_target_k(release, FramePolicies.parse(args), {"a": "", "b": ""})
    assert not any(q is not None for q in release.questions._built)
    want = analyse(load_release(root), args, {"a": "", "b": ""})
    for m in ("a", "b"):
        k, sampled = got[m]
        rows = want.models[m]
        expect = np.array([np.nan if r.k is None else r.k for r in rows])
        assert np.array_equal(np.isnan(k), np.isnan(expect)) and (k[~np.isnan(k)] == expect[~np.isnan(k)]).all()
        assert (sampled[about & ~uses_gone] == (8 if m == "a" else 32)).all()
        assert (sampled[~about | uses_gone] == 0).all()
