#!/bin/sh
# End to end, as a new author would: in a fresh clone of this checkout's commit, `lemmata new`
# a paper and one claim of each kind, build, list, check (as printed: holds; with the
# wrong constant its test sets: violated), run the new tests, and confirm that every new file
# is under lemmas/zzprobe/ or tests/zzprobe/.  Exit 0 when all of it holds.  (make check-new)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/lm_check_new.XXXXXX)
trap 'rm -rf "$dir"' EXIT
git clone -q "$top" "$dir/src"
cd "$dir/src"
make -j2 >/dev/null
bin/lemmata new zzprobe
for k in identity trajectory rate; do bin/lemmata new zzprobe/$k-demo --kind $k >/dev/null; done
make -j2 >/dev/null
bin/lemmata list --paper zzprobe
for id in $(bin/lemmata list --paper zzprobe | awk '{print $1}'); do
    v=$(bin/lemmata check "$id" --quick --json | sed -n 's/^{"id":"[^"]*","verdict":"\([a-z-]*\)".*/\1/p')
    echo "$id: $v"
    case "$v" in holds|consistent) ;; *) echo "check-new: $id as generated is '$v', not holds (consistent for a rate proxy)" >&2; exit 1 ;; esac
done
bin/lemmata check zzprobe/example --json | grep -q '"verdict":"holds"'
make -j2 bin/test_lemmata >/dev/null
./bin/test_lemmata --filter 'zzprobe/*' --jobs 2
# incremental by paper: a stored result is reused until its paper folder changes, and editing one
# paper's non-claim files changes that paper's fingerprint only
bin/lemmata verify --quick --only zzprobe/ --db "$dir/r.db" --no-report -j 2 >/dev/null
out=$(bin/lemmata verify --quick --only zzprobe/ --db "$dir/r.db" --no-report -j 2)
echo "$out" | grep -q "4 unchanged and reused" || { echo "check-new: a second verify re-ran claims: $out" >&2; exit 1; }
cp build/srchash.c "$dir/hash.before"
printf '/* an edit of the paper folder */\n' >> lemmas/zzprobe/paper.c
make -j2 >/dev/null
changed=$(diff "$dir/hash.before" build/srchash.c | grep '^>' || true)
case "$changed" in
    *'"zzprobe"'*) ;;
    *) echo "check-new: editing lemmas/zzprobe/paper.c did not change its paper's fingerprint" >&2; exit 1 ;;
esac
[ "$(echo "$changed" | wc -l)" = 1 ] || { echo "check-new: editing one paper changed other fingerprints: $changed" >&2; exit 1; }
out=$(bin/lemmata verify --quick --only zzprobe/ --db "$dir/r.db" --no-report -j 2)
echo "$out" | grep -q "4 items run, 0 unchanged" || { echo "check-new: the paper edit did not re-run its claims: $out" >&2; exit 1; }
sed -i '$d' lemmas/zzprobe/paper.c
bad=$(git status --porcelain | grep -v '^?? lemmas/zzprobe/$' | grep -v '^?? tests/zzprobe/$' || true)
if [ -n "$bad" ]; then echo "check-new: files changed outside lemmas/zzprobe/ and tests/zzprobe/:" >&2; echo "$bad" >&2; exit 1; fi
echo "check-new: a new paper and one claim of each kind build, hold as generated and fail with their wrong constants; its results are reused until its folder changes, and that changes no other paper's fingerprint"
