"""A copy of the six published samples with one thing broken, as the fuzzing pass found them (issue 19)."""
import json
import os
import shutil

from published_samples import ED_UID, EDIST_UID, FIXTURES

POS = "06_Self_Localization_Global_Position"
ED = "04_Object_Localization_Egocentric_Direction_visual"
EDIST = "05_Object_Localization_Egocentric_Distance_visual"


def _question(folder):
    return json.loads((folder / "question.json").read_text())


def _plant(root, defect: str) -> str:
    """Break one thing in a copy of the six samples; return the name the messages must mention."""
    if defect == "fifo":
        target = root / POS / "image_02_topdown_2.png"
        target.unlink()
        os.mkfifo(target)
        return "image_02_topdown_2.png"
    if defect == "symlink":
        target = root / ED / "image_01_19_14.jpg"
        target.unlink()
        target.symlink_to("/etc/passwd")
        return "image_01_19_14.jpg"
    if defect == "nul":
        q = _question(root / EDIST)
        q["images"][0]["copied_path"] = "image\u0000.jpg"
        (root / EDIST / "question.json").write_text(json.dumps(q))
        return "NUL"
    if defect == "nesting":
        (root / "07_broken").mkdir()
        (root / "07_broken" / "question.json").write_text("[" * 100_000)
        return "07_broken"
    if defect == "lfs-image":            # checked out without `git lfs pull`
        target = root / ED / "image_01_19_14.jpg"
        target.write_text(LFS_POINTER_TEXT)
        return "image_01_19_14.jpg"
    if defect == "lfs-json":
        (root / EDIST / "question.json").write_text(LFS_POINTER_TEXT)
        return EDIST
    raise ValueError(defect)


# What `git lfs` leaves in place of a file it has not pulled (the spec's pointer format).
LFS_POINTER_TEXT = ("version https://git-lfs.github.com/spec/v1\n"
                    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
                    "size 12345\n")




def make_broken(tmp_path, defect: str):
    """(release folder, the name messages must mention, a prediction file) for `defect`."""
    root = tmp_path / "release"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("annotations.sqlite*"))
    name = _plant(root, defect)
    preds = tmp_path / "model.jsonl"
    preds.write_text("\n".join(json.dumps({"uid": u, "prediction": "10"}) for u in (ED_UID, EDIST_UID)) + "\n")
    return root, name, preds
