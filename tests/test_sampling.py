"""Frame sampling policies against the harnesses' published formulas, computed here independently.

Sources (read in the harnesses' repositories, quoted in docs/frames.md):
- lmms-eval  EvolvingLMMs-Lab/lmms-eval  lmms_eval/models/model_utils/load_video.py, read_video_pyav:
      num_frm = min(total_frames, num_frm); indices = np.linspace(0, total_frames - 1, num_frm, dtype=int)
- VLMEvalKit open-compass/VLMEvalKit  vlmeval/dataset/video_base.py, VideoBaseDataset.save_video_frames:
      step_size = len(vid) / (num_frames + 1); indices = [int(i * step_size) for i in range(1, num_frames + 1)]
      fps > 0: required_frames = int(total_duration * fps); step_size = video_fps / fps;
               indices = [int(i * step_size) for i in range(required_frames)]
- Qwen-VL    QwenLM/Qwen3-VL  qwen-vl-utils/src/qwen_vl_utils/vision_process.py, smart_nframes + _read_video_decord:
      nframes = floor_by_factor(min(min(max(total / video_fps * fps, ceil(4/2)*2), floor(min(768, total)/2)*2),
                                    total), 2)
      idx = torch.linspace(0, total - 1, nframes).round()
"""
import math

import pytest

from viewer.core.frames.sampling import PolicyError, Resolution, parse_policy, read_frame_lists, sample


def lmms_eval_formula(total, n):
    # np.linspace(0, stop, n) is i * (stop / (n - 1)) with the last value set to stop; dtype=int truncates.
    n = min(total, n)
    if n == 1:
        return [0]
    step = (total - 1) / (n - 1)
    out = [int(i * step) for i in range(n)]
    out[-1] = total - 1
    return out


def vlmevalkit_formula(total, n):
    step = total / (n + 1)
    return [int(i * step) for i in range(1, n + 1)]


def vlmevalkit_fps_formula(total, video_fps, fps):
    required = int(total / video_fps * fps)
    step = video_fps / fps
    return [int(i * step) for i in range(required)]


def qwen_formula(total, video_fps, fps, max_frames=None):
    lo = math.ceil(4 / 2) * 2
    hi = math.floor((max_frames if max_frames is not None else min(768, total)) / 2) * 2
    n = math.floor(min(min(max(total / video_fps * fps, lo), hi), total) / 2) * 2
    step = (total - 1) / (n - 1)
    out = [round(i * step) for i in range(n)]          # Python's round is half to even, as torch's
    out[-1] = total - 1
    return out


@pytest.mark.parametrize("total", [8, 33, 100, 299, 300, 301, 1000, 1799, 4321])
def test_uniform_32_is_lmms_evals_formula(total):
    got = sample(parse_policy("uniform:32"), total, 30.0).indices
    assert list(got) == sorted(set(lmms_eval_formula(total, 32)))


@pytest.mark.parametrize("total", [33, 100, 299, 300, 1000, 4321])
def test_uniform_32_vlmevalkit_is_its_formula(total):
    got = sample(parse_policy("uniform:32,vlmevalkit"), total, 30.0).indices
    assert list(got) == sorted(set(vlmevalkit_formula(total, 32)))


def test_uniform_by_hand():
    # 300 frames, 8 asked: linspace(0, 299, 8) = 0, 42.7, 85.4, 128.1, 170.9, 213.6, 256.3, 299 (truncated)
    assert sample(parse_policy("uniform:8"), 300).indices == (0, 42, 85, 128, 170, 213, 256, 299)
    # VLMEvalKit: 300 / 9 = 33.3 per step, frames 1..8 of 9; 3 * 33.33.. is 100.00000000000001
    assert sample(parse_policy("uniform:8,vlmevalkit"), 300).indices == (33, 66, 100, 133, 166, 200, 233, 266)


@pytest.mark.parametrize("total,video_fps", [(300, 10.0), (301, 10.0), (1799, 29.97), (90, 30.0), (5000, 24.0),
                                             (61, 25.0)])
def test_fps_2_is_qwens_formula(total, video_fps):
    got = sample(parse_policy("fps:2"), total, video_fps).indices
    assert list(got) == qwen_formula(total, video_fps, 2.0)


def test_fps_with_max_and_vlmevalkit():
    assert list(sample(parse_policy("fps:2,max:16"), 1800, 30.0).indices) == qwen_formula(1800, 30.0, 2.0, 16)
    assert len(sample(parse_policy("fps:2,max:16"), 1800, 30.0).indices) == 16
    got = sample(parse_policy("fps:1,vlmevalkit"), 1799, 29.97).indices
    assert list(got) == vlmevalkit_fps_formula(1799, 29.97, 1.0)


def test_fps_2_by_hand():
    # 300 frames at 10 fps = 30 s, 2 fps -> 60 frames, between 4 and 300: kept; linspace(0, 299, 60).round()
    idx = sample(parse_policy("fps:2"), 300, 10.0).indices
    assert len(idx) == 60 and idx[:4] == (0, 5, 10, 15) and idx[-1] == 299


def test_more_frames_than_the_video_uses_all_and_says_so():
    s = sample(parse_policy("uniform:32"), 10)
    assert s.indices == tuple(range(10)) and "has 10" in s.note
    s = sample(parse_policy("fps:30"), 20, 10.0)      # asks 60 frames of 20
    assert s.indices == tuple(range(20)) and "20" in s.note
    # 3 frames: Qwen caps at floor(3 / 2) * 2 = 2 frames, 0 and 2, as its code does
    assert sample(parse_policy("fps:2"), 3, 10.0).indices == (0, 2)
    s = sample(parse_policy("fps:2"), 1, 10.0)        # smart_nframes raises: fewer than 2 frames
    assert s.indices == (0,) and "minimum" in s.note
    assert sample(parse_policy("uniform:8"), 300).note is None


def test_all_and_errors():
    assert sample(parse_policy("all"), 5).indices == (0, 1, 2, 3, 4)
    with pytest.raises(PolicyError, match="no frames"):
        sample(parse_policy("all"), 0)
    with pytest.raises(PolicyError, match="frame rate"):
        sample(parse_policy("fps:2"), 100, None)


@pytest.mark.parametrize("text,msg", [("", "empty"), ("uniform", "value"), ("uniform:0", "above 0"),
                                      ("uniform:x", "whole number"), ("fps:-1", "positive"),
                                      ("fps:2,foo", "unknown option"), ("sometimes:3", "unknown frame policy"),
                                      ("uniform:8@", "resolution"), ("uniform:8,max:4", "max:"),
                                      ("all:3", "no value"), ("list:", "file")])
def test_bad_policies_say_what_is_wrong(text, msg):
    with pytest.raises(PolicyError, match=msg):
        parse_policy(text)


def test_resolution():
    p = parse_policy("uniform:32@448")
    assert p.kind == "uniform" and p.n == 32 and p.resolution == Resolution(side=448)
    assert p.resolution.size_for(640, 512) == (448, 358)
    q = parse_policy("fps:2,max:64@336x336")
    assert q.resolution.size_for(640, 512) == (336, 336) and q.max_frames == 64
    assert parse_policy("list:runs/a@b.jsonl").list_file == "runs/a@b.jsonl"
    assert parse_policy("list:logged.jsonl@448").resolution == Resolution(side=448)


def test_frame_lists_report_lines(tmp_path):
    f = tmp_path / "logged.jsonl"
    f.write_text('{"uid": "q1", "frames": [0, 5, 9]}\n'
                 'not json\n'
                 '{"uid": "ghost", "frames": [1]}\n'
                 '{"uid": "q2", "frames_indices": [3, 50]}\n'
                 '{"uid": "q3", "frames": [-1]}\n'
                 '{"frames": [1]}\n', encoding="utf-8")
    fl = read_frame_lists(f)
    assert fl.lists == {"q1": (0, 5, 9), "ghost": (1,), "q2": (3, 50)}
    assert [p.split(":")[-2] for p in fl.problems] == ["2", "5", "6"]
    problems = fl.check(["q1", "q2", "q3"], {"q1": 10, "q2": 20})
    assert problems == [f"{f}:3: uid 'ghost' is not in the release",
                        f"{f}:4: frames [50] of 'q2' are outside its video (20 frames, 0..19)"]
    assert sample(parse_policy(f"list:{f}"), 10, logged=fl.lists["q1"]).indices == (0, 5, 9)
    with pytest.raises(PolicyError, match="cannot read"):
        read_frame_lists(tmp_path / "missing.jsonl")
