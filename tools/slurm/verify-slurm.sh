#!/usr/bin/env bash
# tools/slurm/verify-slurm.sh -- `lemmata verify` as a Slurm job array (docs/slurm.md).
#
# Submits one array task per shard (tools/slurm/shard-job.sh: `lemmata verify --shard K/N`
# into OUT_DIR/shard-K.db) and one merge-and-report job (tools/slurm/merge-job.sh) that runs
# only when every task succeeded.  Shards that already have their OUT_DIR/shard-K.done
# marker are not submitted again, so re-running the same command after a failure re-runs
# only the unfinished shards (and, when all are done, submits the merge alone).
#
# Settings (environment, as `make verify-slurm` passes them; NAME=VALUE arguments work too):
#   SHARDS       number of shards, 1..1000 (required)
#   PARTITION    sbatch --partition;  TIME  sbatch --time;  ACCOUNT  sbatch --account
#   SBATCH_OPTS  more sbatch options, word-split, passed verbatim to both submissions
#   QUICK=1      quick budget;  SEED, BUDGET  as for lemmata verify
#   JOBS         cores per shard (sbatch -c and lemmata -j), default 1
#   DB           the merged database, default results/lemmata.db
#   OUT_DIR      shards, markers, logs; default results/shards/<seed>-<budget>[-quick]/
#   LEMMATA      the binary, default bin/lemmata
#   WEIGHTS      a lemmata database whose newest finished run's seconds per claim balance the
#                shards (verify --weights); default DB when it exists; "none": equal weights
#
# The settings that decide the results (shard count, seed, budget, quick, the binary's
# commit) are written to OUT_DIR/params; a later submission into the same OUT_DIR with other
# ones is refused.  The binary is copied to OUT_DIR/lemmata at the first submission and every
# job runs that copy: a rebuild while jobs wait in the queue cannot mix two builds in one run.
# The weights database is copied likewise (OUT_DIR/weights.db), so every shard, whenever it
# starts, plans the same split even when DB gains runs meanwhile.
#
# Exit: 0 submitted; 1 Slurm refused or failed a submission; 2 a bad setting, a missing
# command or an OUT_DIR that belongs to other settings or still has jobs in the queue.
set -u

me=verify-slurm.sh
die() { echo "$me: $2" >&2; exit "$1"; }

for a in "$@"; do
  case "$a" in
    SHARDS=*|PARTITION=*|TIME=*|ACCOUNT=*|SBATCH_OPTS=*|QUICK=*|SEED=*|BUDGET=*|JOBS=*|DB=*|OUT_DIR=*|LEMMATA=*|WEIGHTS=*)
      export "${a%%=*}=${a#*=}" ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die 2 "unknown argument '$a' (settings are NAME=VALUE: SHARDS, PARTITION, TIME, ACCOUNT, SBATCH_OPTS, QUICK, SEED, BUDGET, JOBS, DB, OUT_DIR, LEMMATA, WEIGHTS)" ;;
  esac
done

REPO=$(cd "$(dirname "$0")/../.." && pwd -P) || die 2 "cannot find the repository root"

command -v sbatch >/dev/null 2>&1 || die 2 "sbatch not found: run this on a Slurm login node (or PATH lacks the Slurm client commands)"
command -v squeue >/dev/null 2>&1 || die 2 "squeue not found: run this on a Slurm login node (or PATH lacks the Slurm client commands)"

# ---- the settings: each bad one is a one-line refusal before anything is submitted

# a canonical decimal (no sign, no leading zero: bash would read 010 as octal) of at most $2 digits
is_uint() { [[ $1 =~ ^(0|[1-9][0-9]*)$ ]] && [ ${#1} -le "$2" ]; }
one_line() { [[ $1 != *$'\n'* && $1 != *$'\r'* ]]; }

SHARDS=${SHARDS:-}
[ -n "$SHARDS" ] || die 2 "SHARDS is required: the number of shards, 1..1000 (e.g. make verify-slurm SHARDS=64)"
{ is_uint "$SHARDS" 4 && [ "$SHARDS" -ge 1 ] && [ "$SHARDS" -le 1000 ]; } ||
  die 2 "SHARDS must be an integer in 1..1000, not '$SHARDS'"

QUICK=${QUICK:-}
case "$QUICK" in ''|0) QUICK=0 ;; 1) ;; *) die 2 "QUICK must be 1 or 0 (or empty), not '$QUICK'" ;; esac

SEED=${SEED:-}
if [ -n "$SEED" ]; then
  is_uint "$SEED" 20 || die 2 "SEED must be a non-negative integer below 2^64, not '$SEED'"
  # equal lengths of digits: the string order is the numeric order (bash arithmetic is 63-bit)
  # shellcheck disable=SC2071
  if [ ${#SEED} -eq 20 ] && [[ $SEED > 18446744073709551615 ]]; then
    die 2 "SEED must be a non-negative integer below 2^64, not '$SEED'"
  fi
fi

BUDGET=${BUDGET:-}
if [ -n "$BUDGET" ]; then
  { is_uint "$BUDGET" 6 && [ "$BUDGET" -ge 1 ] && [ "$BUDGET" -le 100000 ]; } ||
    die 2 "BUDGET must be an integer in 1..100000, not '$BUDGET'"
fi

JOBS=${JOBS:-1}
{ is_uint "$JOBS" 4 && [ "$JOBS" -ge 1 ] && [ "$JOBS" -le 1024 ]; } ||
  die 2 "JOBS must be an integer in 1..1024 (cores per shard), not '$JOBS'"

TIME=${TIME:-}
if [ -n "$TIME" ]; then
  # sbatch's forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, or no limit
  [[ $TIME =~ ^([0-9]+|[0-9]+:[0-9]+|[0-9]+:[0-9]+:[0-9]+|[0-9]+-[0-9]+|[0-9]+-[0-9]+:[0-9]+|[0-9]+-[0-9]+:[0-9]+:[0-9]+|UNLIMITED|unlimited|INFINITE|infinite)$ ]] ||
    die 2 "TIME must be a Slurm time limit (minutes, H:M:S or D-H:M:S), not '$TIME'"
fi
PARTITION=${PARTITION:-}
if [ -n "$PARTITION" ] && ! [[ $PARTITION =~ ^[A-Za-z0-9_.,-]+$ ]]; then
  die 2 "PARTITION must be a partition name (or a comma list of them), not '$PARTITION'"
fi
ACCOUNT=${ACCOUNT:-}
if [ -n "$ACCOUNT" ] && ! [[ $ACCOUNT =~ ^[A-Za-z0-9_.-]+$ ]]; then
  die 2 "ACCOUNT must be an account name, not '$ACCOUNT'"
fi
SBATCH_OPTS=${SBATCH_OPTS:-}
one_line "$SBATCH_OPTS" || die 2 "SBATCH_OPTS must be one line"

# relative paths given by the caller are relative to where it stands; the defaults to the repo
abspath() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }

LEMMATA=${LEMMATA:-$REPO/bin/lemmata}
one_line "$LEMMATA" || die 2 "LEMMATA must be one line"
LEMMATA=$(abspath "$LEMMATA")
[ -f "$LEMMATA" ] && [ -x "$LEMMATA" ] || die 2 "LEMMATA=$LEMMATA is not an executable file (build it: make)"

DB=${DB:-$REPO/results/lemmata.db}
one_line "$DB" || die 2 "DB must be one line"
DB=$(abspath "$DB")
[ -d "$DB" ] && die 2 "DB=$DB is a directory; give the database file"

WEIGHTS=${WEIGHTS:-}
one_line "$WEIGHTS" || die 2 "WEIGHTS must be one line"
case "$WEIGHTS" in
  none) ;;
  '') if [ -f "$DB" ]; then WEIGHTS=$DB; else WEIGHTS=none; fi ;;
  *) WEIGHTS=$(abspath "$WEIGHTS")
     [ -f "$WEIGHTS" ] && [ -r "$WEIGHTS" ] || die 2 "WEIGHTS=$WEIGHTS is not a readable file (a lemmata database, or none)" ;;
esac

commit=$("$LEMMATA" --version 2>/dev/null | sed -n '1s/.*(commit \([^)]*\)).*/\1/p')
[ -n "$commit" ] || commit=unknown

if [ -z "${OUT_DIR:-}" ]; then
  OUT_DIR=$REPO/results/shards/${SEED:-default}-${BUDGET:-default}
  [ "$QUICK" = 1 ] && OUT_DIR=$OUT_DIR-quick
fi
one_line "$OUT_DIR" || die 2 "OUT_DIR must be one line"
# sbatch expands % in --output/--error paths
case "$OUT_DIR" in *%*) die 2 "OUT_DIR must not contain '%' (sbatch reads it as a file-name pattern)" ;; esac
OUT_DIR=$(abspath "$OUT_DIR")
OUT_DIR=${OUT_DIR%/}

# ---- OUT_DIR: create it, and hold it for the rest of this script
mkdir -p "$OUT_DIR/logs" 2>/dev/null || die 2 "cannot create OUT_DIR=$OUT_DIR"
[ -w "$OUT_DIR" ] || die 2 "OUT_DIR=$OUT_DIR is not writable"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$OUT_DIR/.submit.lock" || die 2 "cannot write $OUT_DIR/.submit.lock"
  flock -n 9 || die 2 "another verify-slurm.sh is submitting into $OUT_DIR"
fi

params="shards=$SHARDS seed=${SEED:-default} budget=${BUDGET:-default} quick=$QUICK commit=$commit"
if [ -f "$OUT_DIR/params" ]; then
  old=$(head -1 "$OUT_DIR/params")
  [ "$old" = "$params" ] ||
    die 2 "OUT_DIR=$OUT_DIR holds shards of other settings ($old), not ($params): remove it or set another OUT_DIR"
fi

# jobs of an earlier submission still in the queue would run the same shards twice
user=$(id -un)
if ! queue=$(squeue -h -u "$user" -o '%F %A %T %r' 2>&1); then
  die 1 "squeue failed: $(printf '%s' "$queue" | head -1)"
fi
if [ -f "$OUT_DIR/jobs" ]; then
  stale_merge=""
  busy=""
  while read -r role id; do
    case "$id" in ''|*[!0-9]*) continue ;; esac
    while read -r f a st reason; do
      [ "$f" = "$id" ] || continue
      # a merge whose shards failed can never run (where kill-on-invalid-dep is off)
      if [ "$role" = merge ] && [ "$st" = PENDING ] && [ "$reason" = DependencyNeverSatisfied ]; then
        stale_merge=$id
      else
        busy="$busy $a($st)"
      fi
    done <<< "$queue"
  done < "$OUT_DIR/jobs"
  [ -z "$busy" ] ||
    die 2 "jobs of an earlier submission into $OUT_DIR are still queued or running:$busy; wait for them or scancel them first"
  if [ -n "$stale_merge" ]; then
    echo "$me: cancelling job $stale_merge, the earlier merge that was waiting on failed shards"
    scancel "$stale_merge" 2>/dev/null
  fi
fi

# ---- the binary every job runs: copied at the first submission (see the header)
if [ -f "$OUT_DIR/lemmata" ]; then
  if ! cmp -s "$LEMMATA" "$OUT_DIR/lemmata"; then
    echo "$me: note: $LEMMATA differs from the copy the first submission made (same commit $commit); the jobs keep running $OUT_DIR/lemmata so all shards come from one build"
  fi
else
  cp "$LEMMATA" "$OUT_DIR/lemmata.tmp" && chmod 0755 "$OUT_DIR/lemmata.tmp" &&
    mv "$OUT_DIR/lemmata.tmp" "$OUT_DIR/lemmata" || die 2 "cannot copy $LEMMATA into $OUT_DIR"
fi

# ---- the weights every shard plans with: copied at the first submission (see the header)
snapshot_db() { # src dst: a consistent copy even while a verify writes src
  if command -v python3 >/dev/null 2>&1 &&
     python3 -c 'import sqlite3, sys, urllib.parse
s = sqlite3.connect("file:" + urllib.parse.quote(sys.argv[1]) + "?mode=ro", uri=True)
d = sqlite3.connect(sys.argv[2]); s.backup(d); d.close(); s.close()' "$1" "$2" 2>/dev/null; then
    return 0
  fi
  rm -f "$2"
  cp "$1" "$2"
}
if [ -f "$OUT_DIR/params" ]; then
  if [ -f "$OUT_DIR/weights.db" ]; then
    weights_note="the shards plan with $OUT_DIR/weights.db (copied at the first submission)"
  else
    weights_note="equal weights (as at the first submission)"
  fi
else
  rm -f "$OUT_DIR/weights.db" "$OUT_DIR/weights.db.tmp"
  if [ "$WEIGHTS" = none ]; then
    weights_note="equal weights"
  else
    snapshot_db "$WEIGHTS" "$OUT_DIR/weights.db.tmp" && mv -f "$OUT_DIR/weights.db.tmp" "$OUT_DIR/weights.db" ||
      die 2 "cannot copy WEIGHTS=$WEIGHTS into $OUT_DIR"
    weights_note="the seconds of the newest finished run of $WEIGHTS (copied to $OUT_DIR/weights.db)"
  fi
  printf '%s\n' "$params" > "$OUT_DIR/params" || die 2 "cannot write $OUT_DIR/params"
fi

# ---- which shards still need to run: those without a done marker, as sbatch index ranges
todo=""
ntodo=0
lo=-1
prev=-1
flush() {
  [ "$lo" -ge 0 ] || return 0
  if [ "$lo" = "$prev" ]; then todo="$todo,$lo"; else todo="$todo,$lo-$prev"; fi
}
for ((k = 0; k < SHARDS; k++)); do
  if [ -f "$OUT_DIR/shard-$k.done" ]; then continue; fi
  ntodo=$((ntodo + 1))
  if [ "$prev" -ge 0 ] && [ "$k" -eq $((prev + 1)) ]; then prev=$k; continue; fi
  flush
  lo=$k
  prev=$k
done
flush
todo=${todo#,}

common=(--parsable --chdir="$REPO")
[ -n "$PARTITION" ] && common+=(--partition="$PARTITION")
[ -n "$ACCOUNT" ] && common+=(--account="$ACCOUNT")
[ -n "$TIME" ] && common+=(--time="$TIME")
# shellcheck disable=SC2206 # word-split on purpose: SBATCH_OPTS is a list of options
extra=($SBATCH_OPTS)

submit() { # what args... -> the job id on stdout
  local what=$1 out id
  shift
  if ! out=$(sbatch "$@" 2>&1); then
    # its first line says why ("Try sbatch --help" follows an unknown option)
    echo "$me: sbatch refused the $what: $(printf '%s\n' "$out" | grep -v -e '^$' -e '^Try ' | head -1)" >&2
    return 1
  fi
  id=$(printf '%s\n' "$out" | tail -1)
  id=${id%%;*}
  case "$id" in ''|*[!0-9]*) echo "$me: sbatch gave no job id for the $what: $out" >&2; return 1 ;; esac
  printf '%s' "$id"
}

: > "$OUT_DIR/jobs.tmp"
array_id=""
if [ "$ntodo" -gt 0 ]; then
  array_id=$(submit "shard array" "${common[@]}" --array="$todo" --job-name=lemmata-shard \
             --cpus-per-task="$JOBS" --output="$OUT_DIR/logs/shard-%a.out" \
             --error="$OUT_DIR/logs/shard-%a.err" "${extra[@]}" \
             "$REPO/tools/slurm/shard-job.sh" "$OUT_DIR" "$JOBS") || exit 1
  echo "array $array_id" >> "$OUT_DIR/jobs.tmp"
fi

dep=()
[ -n "$array_id" ] && dep=(--dependency="afterok:$array_id" --kill-on-invalid-dep=yes)
merge_id=$(submit "merge job" "${common[@]}" "${dep[@]}" --job-name=lemmata-merge --cpus-per-task=1 \
           --output="$OUT_DIR/logs/merge.out" --error="$OUT_DIR/logs/merge.err" "${extra[@]}" \
           "$REPO/tools/slurm/merge-job.sh" "$OUT_DIR" "$DB" "$REPO")
if [ -z "$merge_id" ]; then
  mv -f "$OUT_DIR/jobs.tmp" "$OUT_DIR/jobs"
  [ -n "$array_id" ] &&
    echo "$me: the shards run as job $array_id; once it has ended, the same command again submits the merge alone" >&2
  exit 1
fi
echo "merge $merge_id" >> "$OUT_DIR/jobs.tmp"
mv -f "$OUT_DIR/jobs.tmp" "$OUT_DIR/jobs"

ids=$merge_id
[ -n "$array_id" ] && ids=$array_id,$merge_id
if [ -n "$array_id" ]; then
  echo "verify-slurm: $ntodo of $SHARDS shards (indices $todo) submitted as array job $array_id"
  echo "verify-slurm: merge and report submitted as job $merge_id (runs once every shard succeeded)"
else
  echo "verify-slurm: all $SHARDS shards are done; merge and report submitted as job $merge_id"
fi
cat <<EOF
  settings: $params
  balance:  $weights_note
  follow:   squeue -j $ids
            sacct -j $ids --format=JobID,State,Elapsed,ExitCode   (needs Slurm accounting)
  logs:     $OUT_DIR/logs/shard-<K>.out and .err, $OUT_DIR/logs/merge.out and .err
  shards:   $OUT_DIR/shard-<K>.db; a finished one leaves $OUT_DIR/shard-<K>.done
  database: $DB
  report:   $REPO/report/lemmata.pdf (and the other report/*.pdf) once job $merge_id has ended
  a shard failed? read its log, then run the same command again: it re-runs only the shards
  without a .done marker
EOF
exit 0
