"""Acceptance: wrong letters planted in choice questions are found by their pictures, exactly.

A generated demo release has each choice question's option images copied to
files of their own (so that no path gives the answer away). Wrong letters
are planted at every top-down level (a mirrored distractor at the hard
level) and in trajectory questions; the audit must flag exactly those, with
scene metadata and without it (where only the level the release's own map
shows can be judged), and skip bad inputs with a reason.
"""
import json
import shutil

import pytest

pytest.importorskip("viewer.demo.generate")

from viewer.core.audit import run_audit  # noqa: E402
from viewer.core.audit.choice import NO_IMAGE_READER  # noqa: E402
from viewer.core.release import load_release  # noqa: E402
from viewer.demo.opencv import import_cv2  # noqa: E402
from viewer.render.audit_images import SceneImages  # noqa: E402

pytestmark = pytest.mark.slow
CHECKS = ["choice_answer_mismatch", "choice_options_ambiguous"]
TOPDOWN_KEYS = {"TDS_E", "TDS_M", "TDS_H"}
CHOICE = TOPDOWN_KEYS | {"Traj"}
KEY_OF_TASK = {"Easy": "TDS_E", "Medium": "TDS_M", "Hard": "TDS_H", "Trajection": "Traj"}


def key_of(rec) -> str | None:
    return next((k for word, k in KEY_OF_TASK.items() if "Selection" in rec["task"] and word in rec["task"]), None)


def records(root):
    return [json.loads(x) for x in (root / "questions.jsonl").read_text().splitlines() if x.strip()]


def write_records(root, recs):
    (root / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in recs) + "\n")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """Two generated scenes; every choice question's options copied to files of their own.

    Returns the release and, per choice question, what each option shows
    (the generator's labels, removed from the release: they name the answer)."""
    from viewer.demo.generate import generate_demo
    from viewer.demo.scenebuild import DemoConfig
    out = tmp_path_factory.mktemp("demo") / "demo"
    generate_demo(out, scenes=2, seed=5, config=DemoConfig(width=160, height=128, viewpoints=12, distractors=3),
                  log=lambda msg: None)
    recs, labels = records(out), {}
    for n, rec in enumerate(recs):
        if key_of(rec) is None:
            continue
        for k, im in enumerate(rec["images"]):
            copy = f"choice_options/q{n}_{k}.png"
            (out / copy).parent.mkdir(exist_ok=True)
            shutil.copyfile(out / im["copied_path"], out / copy)
            im["copied_path"] = copy
        labels[rec["uid"]] = rec["meta"].pop("options")
    write_records(out, recs)
    return out, labels


@pytest.fixture
def release(demo, tmp_path):
    return shutil.copytree(demo[0], tmp_path / "release")


@pytest.fixture
def labels(demo):
    return demo[1]


def audit(root, **kw):
    kw.setdefault("images", SceneImages)
    return run_audit(load_release(root), checks=CHECKS, **kw)


def plant(root, pick) -> dict[str, str]:
    """Change the answer of the first question of each choice column to the option `pick(rec, truth)`;
    returns uid -> planted letter."""
    recs, planted, done = records(root), {}, set()
    for rec in recs:
        key = key_of(rec)
        if key is None or key in done:
            continue
        done.add(key)
        letter = pick(rec, key)
        assert letter != rec["answer"]
        rec["answer"] = letter
        planted[rec["uid"]] = letter
    write_records(root, recs)
    assert done == CHOICE
    return planted


def errors(report):
    return {(f.uid, f.check) for f in report.findings if f.severity == "error"}


def test_clean_choice_questions_pass_with_scene_metadata(release):
    report = audit(release)
    assert errors(report) == set()
    n = sum(1 for r in records(release) if key_of(r))
    for check in CHECKS:
        assert report.summary()[check] == {"flagged": 0, "checked": n, "skipped": 0}, check
    assert report.findings == []


def test_planted_letters_are_found_exactly_with_scene_metadata(release, labels):
    planted = plant(release, lambda rec, key: pick_wrong(rec, key, labels))
    report = audit(release)
    assert errors(report) == {(uid, "choice_answer_mismatch") for uid in planted}
    by_uid = {f.uid: f for f in report.findings}
    for uid, letter in planted.items():
        d = by_uid[uid].details
        assert d["truth"] == letter and d["best"] != letter and set(d["scores"]) == set("ABCD")
        assert d["reference"]["source"] in ("render", "poses")


def test_without_scene_metadata_the_release_map_judges_its_level(release, labels):
    for scene in (release / "scenes").iterdir():
        (scene / "scene.json").unlink()
    planted = plant(release, lambda rec, key: pick_wrong(rec, key, labels))
    report = audit(release)
    medium = {uid for uid in planted if "Medium" in uid}
    assert errors(report) == {(uid, "choice_answer_mismatch") for uid in medium}
    f = next(f for f in report.findings if f.uid in medium)
    assert f.details["reference"]["source"] == "release map" and f.details["level"] == "occupancy"
    reasons = report.tally.skip_reasons["choice_answer_mismatch"]
    assert any(r.startswith("no reference map at level photo") for r in reasons)
    assert any(r.startswith("no reference map at level floorplan") for r in reasons)
    assert reasons["no poses: no scene metadata"] == sum(1 for r in records(release) if key_of(r) == "Traj")
    summary = report.summary()["choice_answer_mismatch"]
    assert summary["checked"] == sum(1 for r in records(release) if key_of(r) == "TDS_M")


def test_mirrored_distractors_are_never_the_best_match(release, labels):
    report = audit(release)
    assert report.findings == []
    from viewer.core.audit.choice import judge_release
    judged = judge_release(load_release(release), SceneImages)
    hard = [(uid, j) for uid, j in judged.items() if "Hard" in uid]
    assert hard
    for uid, j in hard:
        mirrored = [k for k, label in enumerate(labels[uid]) if "mirror" in label]
        assert mirrored, uid
        for k in mirrored:
            assert j.scores[j.truth] - j.scores[k] >= j.margin, (uid, j.scores)


def test_resized_shifted_and_recompressed_options_are_still_recognised(release, labels):
    """Every option shrunk to 70 %, padded off-centre and saved as JPEG: the truth still wins."""
    cv2 = import_cv2()
    recs = records(release)
    for rec in recs:
        if key_of(rec) not in TOPDOWN_KEYS:
            continue
        for im in rec["images"]:
            path = release / im["copied_path"]
            img = cv2.imread(str(path))
            small = cv2.resize(img, None, fx=0.7, fy=0.7, interpolation=cv2.INTER_AREA)
            pad = cv2.copyMakeBorder(small, 20, 6, 4, 25, cv2.BORDER_REPLICATE)
            new = path.with_suffix(".jpg")
            cv2.imwrite(str(new), pad, [cv2.IMWRITE_JPEG_QUALITY, 80])
            im["copied_path"] = str(new.relative_to(release))
    write_records(release, recs)
    planted = plant(release, lambda rec, key: pick_wrong(rec, key, labels))
    report = audit(release)
    assert errors(report) == {(uid, "choice_answer_mismatch") for uid in planted}
    assert not any(f.check == "choice_options_ambiguous" for f in report.findings)


def test_bad_inputs_are_skipped_with_a_reason_never_passed(release):
    cv2 = import_cv2()
    recs = records(release)
    by_key: dict[str, list] = {}
    for rec in recs:
        if key_of(rec):
            by_key.setdefault(key_of(rec), []).append(rec)
    unreadable, resized = by_key["TDS_E"][0], by_key["TDS_M"][0]
    (release / unreadable["images"][1]["copied_path"]).write_bytes(b"\x89PNG\r\n\x1a\n but not really")
    p = release / resized["images"][2]["copied_path"]
    cv2.imwrite(str(p), cv2.resize(cv2.imread(str(p)), (320, 256)))
    no_path = by_key["Traj"][0]
    shutil.copyfile(release / "scenes" / no_path["scene"] / "topdown" / "occupancy.png",
                    release / no_path["images"][0]["copied_path"])
    report = audit(release)
    reasons = report.tally.skip_reasons["choice_answer_mismatch"]
    assert reasons["option B cannot be read: q" + unreadable["images"][1]["copied_path"].split("/q")[1]
                   + " is not a readable image"] == 1
    assert reasons["the options differ in size (320x256, 640x512)"] == 1
    assert reasons["no red path found in option A"] == 1
    summary = report.summary()
    n = sum(len(v) for v in by_key.values())
    for check in CHECKS:
        assert summary[check] == {"flagged": 0, "checked": n - 3, "skipped": 3}, check


def test_what_is_kept_per_file_is_measured_again_when_the_file_changes(release):
    """Option facts (size, signature, a trajectory's marks) are kept per process under the file's identity:
    judging again gives the same judgements; an option rewritten in place is read and measured anew."""
    import os

    from viewer.core.audit.choice import ChoiceJudgement, judge_release
    first = judge_release(load_release(release), SceneImages)
    again = judge_release(load_release(release), SceneImages)
    assert {u: j.details() for u, j in first.items()} == {u: j.details() for u, j in again.items()}
    traj = next(r for r in records(release) if key_of(r) == "Traj")
    option = release / traj["images"][0]["copied_path"]
    shutil.copyfile(release / "scenes" / traj["scene"] / "topdown" / "occupancy.png", option)
    st = os.stat(option)
    os.utime(option, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    changed = judge_release(load_release(release), SceneImages)
    assert isinstance(first[traj["uid"]], ChoiceJudgement)
    assert changed[traj["uid"]] == "no red path found in option A"


def test_no_reference_map_and_no_reader_are_skips(release):
    for scene in (release / "scenes").iterdir():
        (scene / "scene.json").unlink()
    recs = [r for r in records(release) if not r["task"].startswith(("Object_Localization_Global",
                                                                       "Self_Localization_Global_Position"))]
    write_records(release, recs)
    report = audit(release)
    reasons = report.tally.skip_reasons["choice_answer_mismatch"]
    tds = sum(1 for r in recs if key_of(r) in TOPDOWN_KEYS)
    assert reasons["no reference map: no scene metadata, and no Pos/GP question shows this scene's map"] == tds
    assert report.summary()["choice_answer_mismatch"]["checked"] == 0
    report = run_audit(load_release(release), checks=CHECKS)
    assert report.tally.skip_reasons["choice_options_ambiguous"][NO_IMAGE_READER] == len(
        [r for r in recs if key_of(r)])


def test_unrenderable_scene_falls_back_to_its_own_map_image(release, labels):
    for scene in (release / "scenes").iterdir():
        (scene / "scene.glb").unlink()
        doc = json.loads((scene / "scene.json").read_text())
        for inst in doc["instances"].values():
            inst.pop("bbox3", None)
        (scene / "scene.json").write_text(json.dumps(doc))
    planted = plant(release, lambda rec, key: pick_wrong(rec, key, labels))
    report = audit(release)
    assert errors(report) == {(uid, "choice_answer_mismatch") for uid in planted}
    sources = {f.details["reference"]["source"] for f in report.findings if f.details["task"] == "topdown"}
    assert sources == {"scene map"}


# ------------------------------------------------------------ helpers
def pick_wrong(rec, key, labels) -> str:
    """At the hard level, a mirrored copy of the right plan; elsewhere the next letter."""
    truth = "ABCD".index(rec["answer"])
    if key == "TDS_H":
        return "ABCD"[next(k for k in range(4) if k != truth and "mirror" in labels[rec["uid"]][k])]
    return "ABCD"[(truth + 1) % 4]
