#!/usr/bin/env bash
# tests/slurm/test_slurm.sh -- `make verify-slurm` end to end on a throwaway Slurm cluster.
#
# Starts a single-node cluster (tests/slurm/cluster.sh, root; it installs the Debian packages
# when missing), submits a quick verify as SHARDS shards plus the merge-and-report job with
# tools/slurm/verify-slurm.sh, waits for both, checks what they left (a .done marker per
# shard, the merge marker, the merged database, a fresh report/lemmata.pdf), then compares
# the merged run with a whole run made without Slurm: REF_DB when given (e.g. the
# results/lemmata.db of a `make verify QUICK=1` of the same build), else a
# `lemmata verify --quick --no-report` into a temporary database made here.
#
# The comparison takes the latest finished whole run (not a shard, not --only) of each
# database and requires every stored value of it to be identical, REALs bit for bit: its
# runs, claims, configs and live rows, and the constants rows of its seed and budget; except
# the columns that differ between any two runs (ids, dates, seconds, host, save order, reuse
# links, shard provenance): see SKIP below.  With REF_DB its timings also balance the shards.
#
# Settings: LEMMATA (default bin/lemmata), REF_DB, SLURM_TEST_SHARDS (4),
# SLURM_TEST_TIMEOUT (seconds to wait for the jobs, 2400), CLUSTER_CPUS and CLUSTER_PORT
# (tests/slurm/cluster.sh; the port defaults to a random one here), KEEP=1 keeps the
# temporary directory.  Exit 0 all checks passed, 1 a check failed, 2 cannot run here.
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd -P) || exit 2
cd "$REPO" || exit 2
me=test_slurm
say() { echo "$me: $*"; }

LEMMATA=${LEMMATA:-bin/lemmata}
case "$LEMMATA" in /*) ;; *) LEMMATA=$REPO/$LEMMATA ;; esac
[ -x "$LEMMATA" ] || { say "$LEMMATA is not built (make)" >&2; exit 2; }
if ! "$LEMMATA" verify --help 2>&1 | grep -q -- '--shard' || ! "$LEMMATA" merge --help >/dev/null 2>&1; then
  say "$LEMMATA has no 'verify --shard' or 'merge': nothing to test" >&2
  exit 2
fi
SHARDS=${SLURM_TEST_SHARDS:-4}
TIMEOUT=${SLURM_TEST_TIMEOUT:-2400}
[[ $SHARDS =~ ^[1-9][0-9]*$ ]] || { say "SLURM_TEST_SHARDS must be a positive integer" >&2; exit 2; }
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || { say "SLURM_TEST_TIMEOUT must be a positive integer" >&2; exit 2; }
if [ -n "${REF_DB:-}" ]; then
  case "$REF_DB" in /*) ;; *) REF_DB=$REPO/$REF_DB ;; esac
  [ -f "$REF_DB" ] || { say "REF_DB=$REF_DB does not exist" >&2; exit 2; }
fi
command -v python3 >/dev/null 2>&1 || { say "python3 is needed for the comparison" >&2; exit 2; }

# the caller may itself run under Slurm, or set sbatch defaults: none of that may leak in
while read -r v; do
  case "$v" in SLURM_*|SBATCH_*) unset "$v" ;; esac
done < <(compgen -e)
unset PARTITION TIME ACCOUNT SBATCH_OPTS SEED BUDGET JOBS WEIGHTS
# a port of its own, so a test cluster never answers another one's clients
export CLUSTER_PORT=${CLUSTER_PORT:-$((20000 + RANDOM % 20000))}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/lemmata-slurm-test.XXXXXX") || exit 2
CL=$TMP/cluster
passed=0
failed=0
ok()   { passed=$((passed + 1)); say "ok: $*"; }
bad()  { failed=$((failed + 1)); say "FAILED: $*" >&2; }

cleanup() {
  bash "$REPO/tests/slurm/cluster.sh" stop "$CL" >/dev/null || say "could not stop the cluster in $CL" >&2
  if [ "${KEEP:-0}" = 1 ]; then say "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'say "interrupted" >&2; exit 130' INT TERM

logs_tail() {
  local f
  for f in "$TMP"/shards/logs/*.err "$TMP"/shards/logs/merge.out; do
    [ -s "$f" ] || continue
    echo "---- tail $f" >&2
    tail -8 "$f" >&2
  done
}

finish() {
  echo "$me: $passed passed, $failed failed"
  [ "$failed" -eq 0 ] && exit 0
  exit 1
}

# ---- the cluster
bash "$REPO/tests/slurm/cluster.sh" start "$CL"
rc=$?
if [ "$rc" -ne 0 ]; then
  say "the test cluster did not start" >&2
  [ "$rc" = 2 ] && exit 2
  exit 1
fi
export SLURM_CONF=$CL/slurm.conf
ok "cluster up ($(sinfo -h -o '%D node, %c CPUs, partition %P'))"

# ---- submit
stamp=$TMP/start.stamp
: > "$stamp"
sleep 1   # a PDF written in this same second would not count as newer
t0=$(date +%s)
# with a reference database, its timings balance the shards (and verify --weights is tested)
if SHARDS=$SHARDS QUICK=1 JOBS=1 DB=$TMP/merged.db OUT_DIR=$TMP/shards LEMMATA=$LEMMATA \
   WEIGHTS=${REF_DB:-none} \
   bash "$REPO/tools/slurm/verify-slurm.sh" > "$TMP/submit.out" 2>&1; then
  sed 's/^/  | /' "$TMP/submit.out"
  ok "submitted"
else
  sed 's/^/  | /' "$TMP/submit.out" >&2
  bad "verify-slurm.sh refused the submission"
  finish
fi
array_id=$(awk '$1 == "array" { print $2 }' "$TMP/shards/jobs")
merge_id=$(awk '$1 == "merge" { print $2 }' "$TMP/shards/jobs")
ids=" $array_id $merge_id "

# ---- wait: until none of the two jobs is in the queue
last=0
sq_fail=0
while :; do
  if ! q=$(squeue -h -o '%F %A %T %r' 2>&1); then
    sq_fail=$((sq_fail + 1))
    [ $sq_fail -ge 6 ] && { bad "squeue keeps failing: $q"; logs_tail; finish; }
    sleep 5; continue
  fi
  sq_fail=0
  mine=$(while read -r f a st _; do [[ $ids == *" $f "* ]] && echo "$a:$st"; done <<< "$q")
  [ -z "$mine" ] && break
  now=$(date +%s)
  if [ $((now - t0)) -ge "$TIMEOUT" ]; then
    bad "jobs still in the queue after $TIMEOUT s: $(echo $mine)"
    scancel $array_id $merge_id 2>/dev/null
    logs_tail
    finish
  fi
  if [ $((now - last)) -ge 30 ]; then
    last=$now
    ndone=$(ls "$TMP"/shards/shard-*.done 2>/dev/null | wc -l)
    say "[$((now - t0)) s] shards done $ndone/$SHARDS; queue: $(echo $mine)"
  fi
  sleep 5
done
t_slurm=$(( $(date +%s) - t0 ))
say "Slurm run (submit to merged report): $t_slurm s"
state=$(scontrol -o show job "$merge_id" 2>/dev/null | grep -o -E 'JobState=[A-Z_]+|ExitCode=[0-9:]+' | tr '\n' ' ')
[ -n "$state" ] && say "merge job $merge_id: $state"

# ---- what the jobs left
ndone=0
for ((k = 0; k < SHARDS; k++)); do
  if [ -f "$TMP/shards/shard-$k.done" ]; then
    ndone=$((ndone + 1))
    say "  shard $k: $(grep -o -E 'host=[^ ]+ seconds=[0-9]+' "$TMP/shards/shard-$k.done")"
  fi
done
[ "$ndone" -eq "$SHARDS" ] && ok "all $SHARDS shards done" || bad "$ndone of $SHARDS shards done"
if [ -f "$TMP/shards/merge.done" ]; then
  ok "merge job done ($(grep -o -E 'merge_seconds=[0-9]+ report_seconds=[0-9]+' "$TMP/shards/merge.done"))"
else
  bad "the merge job left no merge.done"
fi
[ -s "$TMP/merged.db" ] && ok "merged database $TMP/merged.db" || bad "no merged database"
if [ -s "$REPO/report/lemmata.pdf" ] && [ "$REPO/report/lemmata.pdf" -nt "$stamp" ]; then
  ok "report/lemmata.pdf written by the merge job"
else
  bad "report/lemmata.pdf is missing or older than the submission"
fi
if [ "$failed" -gt 0 ]; then
  logs_tail
  finish
fi

# ---- the reference: a whole run of the same build without Slurm
if [ -n "${REF_DB:-}" ]; then
  ref=$REF_DB
  say "reference: REF_DB=$ref"
else
  ref=$TMP/ref.db
  say "reference: $LEMMATA verify --quick --no-report --db $ref -j $(nproc)"
  r0=$(date +%s)
  "$LEMMATA" verify --quick --no-report --db "$ref" -j "$(nproc)" > "$TMP/ref.out" 2>&1
  rc=$?
  say "local reference run: $(( $(date +%s) - r0 )) s (exit $rc)"
  if [ "$rc" -ne 0 ]; then
    tail -5 "$TMP/ref.out" >&2
    bad "the local reference run failed (exit $rc)"
    finish
  fi
fi

# ---- the comparison
if python3 - "$TMP/merged.db" "$ref" "$SHARDS" <<'PY'
import sqlite3, sys, urllib.parse

merged_path, ref_path, nshards = sys.argv[1], sys.argv[2], int(sys.argv[3])

# Columns that differ between any two runs of the same build (src/store/store.c, `tables`):
# ids and links between runs, dates, timings, the host, the save order (shards save in
# another order than one process), and the shard/merge provenance of a run.
SKIP = {
    "runs": {"id", "date", "seconds", "finished_date", "shard", "host", "selection", "plan",
             "merge_key"},
    "claims": {"run_id", "seq", "seconds", "saved", "reused_from"},
    "configs": {"run_id", "seconds"},
    "live": {"run_id", "seconds", "reused_from"},
    # one row per (claim, constant, seed, budget, quick), not per run (constants_db.c)
    "constants": {"seconds", "saved"},
}
# A constant's slack, where it is not read off a power law, is bisected within an allowance of
# runs set by the claim's reference cost (data/costs.tsv, compiled in: src/verify/slack.c), not
# by this machine's timings, so every constants row must agree too.
KEYS = {"claims": ("claim_id",), "configs": ("claim_id", "seq"), "live": ("name",),
        "constants": ("claim_id", "param")}

def connect(path):
    uri = "file:" + urllib.parse.quote(path) + "?mode=ro"
    return sqlite3.connect(uri, uri=True)

def columns(db, table):
    return [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]

def latest_whole_run(db, path):
    cols = columns(db, "runs")
    cond = ["finished=1"]
    for c in ("shard", "selection"):
        if c in cols:
            cond.append(f"COALESCE({c}, '')=''")
    row = db.execute(f"SELECT id FROM runs WHERE {' AND '.join(cond)} ORDER BY id DESC LIMIT 1").fetchone()
    if not row:
        sys.exit(f"test_slurm: {path} holds no finished whole run")
    return row[0]

def norm(v):
    # a REAL compares by its exact repr: 0.1 and 0.1000000000000000055 differ, -0.0 != 0.0
    return ("real", repr(v)) if isinstance(v, float) else v

def show(v):
    s = repr(v[1]) if isinstance(v, tuple) else repr(v)
    return s if len(s) <= 90 else s[:87] + "..."

m, r = connect(merged_path), connect(ref_path)
mid, rid = latest_whole_run(m, merged_path), latest_whole_run(r, ref_path)
print(f"test_slurm: comparing merged run {mid} of {merged_path} with run {rid} of {ref_path}")
def stored_seconds(db, run):
    v = db.execute("SELECT seconds FROM runs WHERE id=?", (run,)).fetchone()[0]
    return "?" if v is None else f"{v:.0f} s"
print(f"test_slurm:   stored run times: merged {stored_seconds(m, mid)} (its longest shard), "
      f"reference {stored_seconds(r, rid)}")
diffs, counts, values = [], {}, 0

def rows(db, table, run, cols, key):
    sel = ", ".join(f'"{c}"' for c in cols)
    if table == "runs":
        where, args = "id=?", (run,)
    elif table == "constants":
        # the constant slack measured with the run's own seed and budget
        where = "seed=? AND budget=? AND quick=?"
        args = db.execute("SELECT seed, budget, quick FROM runs WHERE id=?", (run,)).fetchone()
    else:
        where, args = "run_id=?", (run,)
    out = {}
    for row in db.execute(f'SELECT {sel} FROM "{table}" WHERE {where}', args):
        d = dict(zip(cols, row))
        out[tuple(d[k] for k in key) if key else ()] = d
    return out

for table in ("runs", "claims", "configs", "live", "constants"):
    mc, rc = columns(m, table), columns(r, table)
    if not mc and not rc:
        continue
    only = sorted((set(mc) ^ set(rc)) - SKIP[table])
    if only:
        diffs.append(f"{table}: columns in one database only: {only}")
    cols = [c for c in mc if c in rc]
    cmp_cols = [c for c in cols if c not in SKIP[table]]
    key = KEYS.get(table, ())
    mr, rr = rows(m, table, mid, cols, key), rows(r, table, rid, cols, key)
    for k in sorted(set(mr) | set(rr), key=repr):
        if k not in rr:
            diffs.append(f"{table} {k}: only in the merged run")
            continue
        if k not in mr:
            diffs.append(f"{table} {k}: only in the reference run")
            continue
        for c in cmp_cols:
            values += 1
            a, b = norm(mr[k][c]), norm(rr[k][c])
            if a != b:
                diffs.append(f"{table} {k} {c}: merged {show(a)} vs reference {show(b)}")
    counts[table] = (len(mr), len(rr), len(cmp_cols))

for t, (nm, nr, nc) in counts.items():
    print(f"test_slurm:   {t}: {nm} rows merged, {nr} reference, {nc} columns compared")
print(f"test_slurm:   {values} values compared, {len(diffs)} differences")

if "shards" in [row[0] for row in m.execute("SELECT name FROM sqlite_master WHERE type='table'")]:
    n = m.execute("SELECT COUNT(*) FROM shards WHERE run_id=?", (mid,)).fetchone()[0]
    print(f"test_slurm:   the merged run records {n} shards")
    if n != nshards:
        diffs.append(f"shards: the merged run records {n} shards, not {nshards}")
else:
    diffs.append("the merged database has no table shards")

for d in diffs[:20]:
    print("test_slurm:   DIFF " + d)
if len(diffs) > 20:
    print(f"test_slurm:   ... and {len(diffs) - 20} more")
sys.exit(1 if diffs else 0)
PY
then
  ok "the merged run equals the reference run"
else
  bad "the merged run differs from the reference run"
fi
finish
