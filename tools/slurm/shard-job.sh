#!/usr/bin/env bash
# tools/slurm/shard-job.sh OUT_DIR JOBS [K] -- one task of the array verify-slurm.sh submits.
#
# Runs shard K (default $SLURM_ARRAY_TASK_ID) of the N in OUT_DIR/params:
#     OUT_DIR/lemmata verify --shard K/N --db OUT_DIR/shard-K.db --no-report [--quick]
#                             [--seed S] [--budget B] [--weights OUT_DIR/weights.db] -j JOBS
# On success it leaves OUT_DIR/shard-K.done (the params line, the host, the seconds), which
# the merge job requires and a re-submission skips.  On failure it says so in one line that
# names the logs, and exits non-zero so the merge (afterok) does not run.  An unfinished
# shard database is kept: verify resumes its own unfinished run when the shard runs again.
set -u

me="shard-job.sh"
[ $# -ge 2 ] || { echo "$me: usage: shard-job.sh OUT_DIR JOBS [K]" >&2; exit 2; }
OUT_DIR=$1
JOBS=$2
K=${3:-${SLURM_ARRAY_TASK_ID:-}}

[ -f "$OUT_DIR/params" ] || { echo "$me: $OUT_DIR/params is missing (submit with tools/slurm/verify-slurm.sh)" >&2; exit 2; }
params=$(head -1 "$OUT_DIR/params")
N="" seed="" budget="" quick=""
for w in $params; do
  case "$w" in
    shards=*) N=${w#shards=} ;;
    seed=*)   seed=${w#seed=} ;;
    budget=*) budget=${w#budget=} ;;
    quick=*)  quick=${w#quick=} ;;
  esac
done
[[ $N =~ ^[1-9][0-9]*$ ]] || { echo "$me: no shard count in $OUT_DIR/params ('$params')" >&2; exit 2; }
[[ $K =~ ^(0|[1-9][0-9]*)$ ]] && [ "$K" -lt "$N" ] ||
  { echo "$me: shard index '$K' is not in 0..$((N - 1)) (SLURM_ARRAY_TASK_ID or the third argument)" >&2; exit 2; }
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "$me: JOBS must be a positive integer, not '$JOBS'" >&2; exit 2; }

out="$OUT_DIR/logs/shard-$K.out"
err="$OUT_DIR/logs/shard-$K.err"
lemmata="$OUT_DIR/lemmata"
args=(verify --shard "$K/$N" --db "$OUT_DIR/shard-$K.db" --no-report)
[ "$quick" = 1 ] && args+=(--quick)
[ "$seed" != default ] && [ -n "$seed" ] && args+=(--seed "$seed")
[ "$budget" != default ] && [ -n "$budget" ] && args+=(--budget "$budget")
# the split every shard plans with must be the same: the copy verify-slurm.sh made
[ -f "$OUT_DIR/weights.db" ] && args+=(--weights "$OUT_DIR/weights.db")
args+=(-j "$JOBS")

rm -f "$OUT_DIR/shard-$K.done"
host=$(hostname -s 2>/dev/null || hostname)
echo "shard $K/$N on $host, job ${SLURM_JOB_ID:-none}: $lemmata ${args[*]}"

# Slurm ends a task that runs out of time with SIGTERM to every process of it: lemmata saves
# what it finished and exits 130; this shell waits for that and then says what happened.
signal=""
trap 'signal=TERM' TERM
trap 'signal=INT' INT
t0=$(date +%s)
"$lemmata" "${args[@]}" &
pid=$!
while :; do
  wait "$pid"
  rc=$?
  # wait returns early (status > 128) when a trapped signal arrives; the child goes on
  kill -0 "$pid" 2>/dev/null || break
done
secs=$(( $(date +%s) - t0 ))

if [ "$rc" -eq 0 ] && [ -z "$signal" ]; then
  printf '%s shard=%s host=%s seconds=%s finished=%s\n' "$params" "$K" "$host" "$secs" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$OUT_DIR/shard-$K.done.tmp" &&
    mv -f "$OUT_DIR/shard-$K.done.tmp" "$OUT_DIR/shard-$K.done" ||
    { echo "$me: shard $K/$N finished but $OUT_DIR/shard-$K.done could not be written" >&2; exit 3; }
  echo "shard $K/$N done in $secs s"
  exit 0
fi

case "$rc" in
  2)   why="refused (usage or database)" ;;
  3)   why="items failed" ;;
  130) why="interrupted" ;;
  *)   why="exit status $rc" ;;
esac
[ -n "$signal" ] && why="$why after SIG$signal (time limit or scancel?)"
echo "$me: shard $K/$N FAILED on $host after $secs s: $why; logs: $out $err" >&2
[ "$rc" -eq 0 ] && rc=1
exit "$rc"
