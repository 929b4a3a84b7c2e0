#!/usr/bin/env bash
# usage: tools/snapshot_outputs.sh REPO_DIR OUT_DIR: the demo's CLI outputs (score, audit, render, clip, gallery) and their SHA-256 in OUT_DIR/SUMS,
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
cd $OUT && find . -type f ! -name '*.err' ! -name SUMS | sort | xargs sha256sum > SUMS
echo "snapshot written: $(wc -l < SUMS) files"
