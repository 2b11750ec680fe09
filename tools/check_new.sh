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
    [ "$v" = holds ] || { echo "check-new: $id as generated is '$v', not holds" >&2; exit 1; }
done
bin/lemmata check zzprobe/example --json | grep -q '"verdict":"holds"'
make -j2 bin/test_lemmata >/dev/null
./bin/test_lemmata --filter 'zzprobe/*' --jobs 2
bad=$(git status --porcelain | grep -v '^?? lemmas/zzprobe/$' | grep -v '^?? tests/zzprobe/$' || true)
if [ -n "$bad" ]; then echo "check-new: files changed outside lemmas/zzprobe/ and tests/zzprobe/:" >&2; echo "$bad" >&2; exit 1; fi
echo "check-new: a new paper and one claim of each kind build, hold as generated and fail with their wrong constants"
