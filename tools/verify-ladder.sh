#!/bin/sh
# tools/verify-ladder.sh BIN BUDGETS SEEDS [verify options...]
# `make verify BUDGET=64,256,1024 SEEDS=1..3`: one `lemmata verify` run per budget and seed into
# the same database, budgets ascending (so each claim's latest result, the one the report
# leads with, is its deepest search), then one weave.  The report's "Search depth" paragraph
# compares the runs.  With a single budget and seed (or none given) it is plain `lemmata verify`.
# Bad lists are one-line errors with exit 2; a run that fails with 3 does not stop the ladder
# (its exit status is the ladder's), an interrupted or refused one does.
set -u
bin=$1 budgets=$2 seeds=$3
shift 3
die() { echo "lemmata: make verify: $*" >&2; exit 2; }
is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ ${#1} -le 19 ]; }

# budgets: N or N,N,... (1..100000), sorted ascending, duplicates dropped
blist=
if [ -n "$budgets" ]; then
  for b in $(echo "$budgets" | tr ',' ' '); do
    is_uint "$b" && [ "$b" -ge 1 ] && [ "$b" -le 100000 ] ||
      die "BUDGET wants budgets from 1 to 100000 separated by commas (e.g. 64,256,1024), got '$budgets'"
    blist="$blist $b"
  done
  case $budgets in ,* | *, | *,,*) die "BUDGET wants budgets separated by single commas, got '$budgets'" ;; esac
  blist=$(for b in $blist; do echo "$b"; done | sort -n -u | tr '\n' ' ')
fi
# seeds: S, S,S,... or A..B (at most 1000 of them)
slist=
if [ -n "$seeds" ]; then
  case $seeds in
    *..*)
      a=${seeds%%..*} b=${seeds#*..}
      is_uint "$a" && is_uint "$b" && [ "$a" -le "$b" ] && [ $((b - a)) -lt 1000 ] ||
        die "SEEDS wants A..B with A <= B, at most 1000 seeds, or a comma list (e.g. 1..3 or 5,9), got '$seeds'"
      slist=$(seq "$a" "$b" | tr '\n' ' ') ;;
    *)
      case $seeds in ,* | *, | *,,*) die "SEEDS wants seeds separated by single commas, got '$seeds'" ;; esac
      for s in $(echo "$seeds" | tr ',' ' '); do
        is_uint "$s" || die "SEEDS wants non-negative integers (e.g. 1..3 or 5,9), got '$seeds'"
        slist="$slist $s"
      done ;;
  esac
  for a in "$@"; do [ "$a" = --seed ] && die "give SEED or SEEDS, not both"; done
fi
nb=$(echo $blist | wc -w) ns=$(echo $slist | wc -w)
if [ "$nb" -le 1 ] && [ "$ns" -le 1 ]; then
  exec "$bin" verify ${blist:+--budget $blist} ${slist:+--seed $slist} "$@"
fi
[ -n "$blist" ] || blist=-
[ -n "$slist" ] || slist=-
total=$(( $(echo $blist | wc -w) * $(echo $slist | wc -w) )) k=0 worst=0
for b in $blist; do
  for s in $slist; do
    k=$((k + 1))
    bd=${b#-} sd=${s#-}
    echo "lemmata: search depth: run $k of $total (budget ${bd:-default}, seed ${sd:-default})" >&2
    [ "$b" = - ] && bo= || bo="--budget $b"
    [ "$s" = - ] && so= || so="--seed $s"
    # shellcheck disable=SC2086
    "$bin" verify --no-report $bo $so "$@"
    rc=$?
    case $rc in
      0 | 1) ;;
      3) worst=3 ;;
      *) exit $rc ;;
    esac
  done
done
# the weave reads where the runs wrote
ro= prev=
for a in "$@"; do
  case $prev in --db | --out-dir) ro="$ro $prev $a" ;; esac
  prev=$a
done
# shellcheck disable=SC2086
"$bin" report $ro || exit $?
exit $worst
