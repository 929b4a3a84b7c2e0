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
    raise ValueError(defect)




def make_broken(tmp_path, defect: str):
    """(release folder, the name messages must mention, a prediction file) for `defect`."""
    root = tmp_path / "release"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("annotations.sqlite*"))
    name = _plant(root, defect)
    preds = tmp_path / "model.jsonl"
    preds.write_text("\n".join(json.dumps({"uid": u, "prediction": "10"}) for u in (ED_UID, EDIST_UID)) + "\n")
    return root, name, preds
