#!/usr/bin/env bash
# usage: tools/snapshot_outputs.sh REPO_DIR OUT_DIR: the CLI outputs (score, audit, render, clip, gallery) of the demo, VSI-Bench's Gemini study and the six published samples, and their SHA-256 in OUT_DIR/SUMS,
# to diff before and after a refactor that must not change them.
set -u
REPO=$(cd "$1" && pwd); OUT=$2; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-$REPO/.venv/bin/python}
export QT_QPA_PLATFORM=offscreen PYTHONPATH=$REPO
cd "$REPO"
D=assets/demo
P=$(ls $D/predictions/*.jsonl)
G="$PY -m viewer"
$G score $D $P --json > $OUT/score.json 2>$OUT/score.err
$G score $D $P > $OUT/score.txt 2>/dev/null
$G score $D $P --per-sample $OUT/per_sample.jsonl > /dev/null 2>&1
$G audit $D -p $P --json > $OUT/audit.json 2>$OUT/audit.err
# one uid per column
$PY - <<PYEOF > $OUT/uids.txt
import json,glob
seen={}
for f in sorted(glob.glob("$D/**/question.json",recursive=True))+sorted(glob.glob("$D/questions.jsonl")):
    pass
from viewer.core.release import load_release
r=load_release("$D")
for q in r.questions:
    k=q.column.key
    if k not in seen: seen[k]=q.uid
for k,u in seen.items(): print(u)
PYEOF
i=0
while read uid; do
  i=$((i+1))
  for lay in map panel 3d; do
    $G render $D --uid $uid --layout $lay --scale 1 --out $OUT/r${i}_$lay.png >/dev/null 2>>$OUT/render.err
  done
  $G render $D --uid $uid --layout map --out $OUT/r${i}_map.svg >/dev/null 2>>$OUT/render.err
done < $OUT/uids.txt
u1=$(sed -n 1p $OUT/uids.txt)
$G clip $D --uid $u1 --out $OUT/clip.gif --seconds 2 >/dev/null 2>>$OUT/clip.err
$G gallery $D --out $OUT/gallery >/dev/null 2>>$OUT/gallery.err
# VSI-Bench: the Gemini study's questions and responses, with the scan fixture's meta_info
V=tests/data/vsi-gemini; VQ=$V/scannet_questions; VP=$(ls $V/gemini_response/*.json)
$G score $VQ $VP --json > $OUT/vsi_score.json 2>$OUT/vsi_score.err
$G score $VQ $VP > $OUT/vsi_score.txt 2>/dev/null
$G audit $VQ -p $VP --json > $OUT/vsi_audit.json 2>$OUT/vsi_audit.err
for u in "scene0222_01#10" "scene0222_01#14" "scene0207_02#3"; do
  n=$(echo "$u" | tr '#' '_')
  $G render $VQ -p $VP --uid "$u" --layout panel --scale 1 --out $OUT/vsi_$n.png >/dev/null 2>>$OUT/vsi_render.err
done
$G gallery $VQ -p $VP --out $OUT/vsi_gallery >/dev/null 2>>$OUT/vsi_gallery.err
# The six samples published with the paper
S=tests/data/gst-bench-page
$G score $S --json > $OUT/six_score.json 2>$OUT/six_score.err
$G audit $S --json > $OUT/six_audit.json 2>$OUT/six_audit.err
$PY -c "from viewer.core.release import load_release; [print(q.uid) for q in load_release('$S').questions]" > $OUT/six_uids.txt
i=0
while read uid; do
  i=$((i+1))
  for lay in map panel; do
    $G render $S --uid "$uid" --layout $lay --scale 1 --out $OUT/six${i}_$lay.png >/dev/null 2>>$OUT/six_render.err
  done
done < $OUT/six_uids.txt
$G gallery $S --out $OUT/six_gallery >/dev/null 2>>$OUT/six_gallery.err
cd $OUT && find . -type f ! -name '*.err' ! -name SUMS | sort | xargs sha256sum > SUMS
echo "snapshot written: $(wc -l < SUMS) files"
