"""A small release with Global / Local-Video / Local-Image variants and bad variants, for the settings tests."""
from __future__ import annotations

import json
from pathlib import Path

from viewer.core.benchmarks.gst.columns import COLUMN_BY_KEY

ED, EDIST, POS = (COLUMN_BY_KEY[k].task for k in ("ED_v", "EDist_v", "Pos"))


def q(uid, task, answer, **extra):
    return {"uid": uid, "task": task, "scene": "scene_1", "answer": answer, "texts": ["a", "b"], **extra}


def write_settings_release(root: Path, bad: bool = True) -> Path:
    """Two families (ED, EDist) with both variants, a lone global, and (bad=True) one of each bad variant."""
    recs = [q("ed1", ED, "30"), q("ed1_local_video", ED, "60", setting="local_video"),
            q("ed1_li", ED, "60", setting="local_image", base_uid="ed1"),
            q("ed2", ED, "-90"), q("ed2_local_image", ED, "10", setting="local_image"),
            q("d1", EDIST, 2.0, setting="global"), q("d1_local_video", EDIST, 3.0, setting="local_video"),
            q("d1_local_image", EDIST, 3.0, setting="local_image"),
            q("pos1", POS, "<point>500 500</point>")]
    if bad:
        recs += [q("orphan_local_video", ED, "0", setting="local_video"),               # unknown base
                 q("ed2_again", ED, "10", setting="local_image", base_uid="ed2"),       # duplicate
                 q("ed1_local_map", ED, "0", setting="local_map"),                      # unknown setting
                 q("pos1_local_image", POS, "<point>500 500</point>", setting="local_image")]  # no target
    root.mkdir(parents=True, exist_ok=True)
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return root


def write_predictions(path: Path, model: str, answers: dict[str, str]) -> Path:
    path.write_text("".join(json.dumps({"uid": u, "model": model, "prediction": a}) + "\n"
                            for u, a in answers.items()))
    return path
