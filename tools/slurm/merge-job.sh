#!/usr/bin/env bash
# tools/slurm/merge-job.sh OUT_DIR DB REPO -- the job verify-slurm.sh submits after the shards.
#
# Checks that every shard 0..N-1 of OUT_DIR/params left its OUT_DIR/shard-K.done marker with
# these same settings (else lists the missing ones and their logs, exit 1), then
#     OUT_DIR/lemmata merge DB OUT_DIR/shard-0.db ... OUT_DIR/shard-<N-1>.db
#     OUT_DIR/lemmata report --db DB --out-dir REPO
# so the merged run is appended to DB and the PDF lands in REPO/report/, where a local
# `make verify` puts it.  On success it leaves OUT_DIR/merge.done.
set -u

me="merge-job.sh"
[ $# -eq 3 ] || { echo "$me: usage: merge-job.sh OUT_DIR DB REPO" >&2; exit 2; }
OUT_DIR=$1
DB=$2
REPO=$3

[ -f "$OUT_DIR/params" ] || { echo "$me: $OUT_DIR/params is missing (submit with tools/slurm/verify-slurm.sh)" >&2; exit 2; }
params=$(head -1 "$OUT_DIR/params")
N=""
for w in $params; do
  case "$w" in shards=*) N=${w#shards=} ;; esac
done
[[ $N =~ ^[1-9][0-9]*$ ]] || { echo "$me: no shard count in $OUT_DIR/params ('$params')" >&2; exit 2; }
lemmata="$OUT_DIR/lemmata"

rm -f "$OUT_DIR/merge.done"
missing=0
shards=()
for ((k = 0; k < N; k++)); do
  done_file="$OUT_DIR/shard-$k.done"
  # a marker of other settings would be a leftover: verify-slurm.sh refuses to mix them
  if [ ! -f "$done_file" ] || [ "$(cut -d' ' -f1-5 "$done_file")" != "$params" ]; then
    echo "$me: shard $k/$N is not done: see $OUT_DIR/logs/shard-$k.out and $OUT_DIR/logs/shard-$k.err" >&2
    missing=$((missing + 1))
  elif [ ! -f "$OUT_DIR/shard-$k.db" ]; then
    echo "$me: shard $k/$N has its marker but no database $OUT_DIR/shard-$k.db" >&2
    missing=$((missing + 1))
  fi
  shards+=("$OUT_DIR/shard-$k.db")
done
if [ "$missing" -gt 0 ]; then
  echo "$me: $missing of $N shards are not done; nothing merged (re-submit to run them)" >&2
  exit 1
fi

mkdir -p "$(dirname "$DB")" || { echo "$me: cannot create the directory of $DB" >&2; exit 1; }
cd "$REPO" || { echo "$me: cannot enter $REPO" >&2; exit 1; }
t0=$(date +%s)
echo "merging $N shards into $DB"
"$lemmata" merge "$DB" "${shards[@]}"
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "$me: lemmata merge refused or failed (exit $rc); log: $OUT_DIR/logs/merge.err" >&2
  exit "$rc"
fi
t1=$(date +%s)
echo "weaving the report from $DB into $REPO/report/"
"$lemmata" report --db "$DB" --out-dir "$REPO"
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "$me: lemmata report failed (exit $rc); the merged run is in $DB; log: $OUT_DIR/logs/merge.err" >&2
  exit "$rc"
fi
t2=$(date +%s)
printf '%s db=%s merge_seconds=%s report_seconds=%s finished=%s\n' "$params" "$DB" $((t1 - t0)) \
  $((t2 - t1)) "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$OUT_DIR/merge.done"
echo "merged $N shards into $DB in $((t1 - t0)) s; report in $REPO/report/lemmata.pdf ($((t2 - t1)) s)"
exit 0
