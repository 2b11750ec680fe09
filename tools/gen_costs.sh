#!/bin/sh
# tools/gen_costs.sh DB > data/costs.tsv
# The reference cost of every claim and live run: the seconds its newest run at budget 64 (not
# quick) took in the results database DB, to two significant digits.  The build compiles the
# table in (tools/gen_costs_c.sh): make verify sizes each constant's slack bisection by it (so
# the bisection, and the slack it finds, do not depend on how busy the machine is), and
# `verify --shard` without --weights balances the shards by it.  Regenerate it on an idle
# machine after a full `make verify` when claims were added or got much slower or faster;
# items missing from it fall back to their measured CPU time (slack) or the median (shards).
set -eu
db=${1:?usage: tools/gen_costs.sh DB > data/costs.tsv}
command -v sqlite3 >/dev/null || { echo "gen_costs.sh: needs the sqlite3 command (apt-get install sqlite3)" >&2; exit 2; }
echo "# reference seconds at budget 64 (one core), from a full make verify: tools/gen_costs.sh"
for t in claims live; do
  key=claim_id kind=claim
  [ $t = live ] && key=name kind=live
  sqlite3 -separator '	' "$db" "SELECT '$kind', x.$key, printf('%.2g', x.seconds) FROM $t x JOIN runs r ON r.id=x.run_id
    WHERE r.budget=64 AND r.quick=0 AND r.finished=1 AND x.seconds IS NOT NULL
      AND x.run_id=(SELECT MAX(y.run_id) FROM $t y JOIN runs q ON q.id=y.run_id
                    WHERE y.$key=x.$key AND q.budget=64 AND q.quick=0 AND q.finished=1)
    ORDER BY x.$key"
done
