#!/bin/sh
# The layout rules of the tree (README "Layout"), checked by `make test`:
#  1. the core (src/, include/) includes no header of a paper folder and names no paper:
#     no claim id or path of a paper ("<paper>/..."), no paper id as a string ("<paper>");
#  2. a paper folder (lemmas/P/) and its tests (tests/P/) include no other paper's header;
#  3. every paper folder declares its paper (an LM_PAPER line) and has a tests/ folder.
# Prints one line per breach and exits 1; silent and 0 when the tree keeps the rules.
cd "$(dirname "$0")/.." || exit 2
bad=0
papers=$(for d in lemmas/*/; do basename "$d"; done)
hdrs() { find "lemmas/$1" -name '*.h' -exec basename {} \; 2>/dev/null; }
for p in $papers; do
    for h in $(hdrs "$p"); do
        hits=$(grep -rlF "#include \"$h\"" src include 2>/dev/null)
        for f in $hits; do echo "layout: $f (core) includes $h of lemmas/$p/"; bad=1; done
        for q in $papers; do
            [ "$q" = "$p" ] && continue
            hits=$(grep -rlF "#include \"$h\"" "lemmas/$q" "tests/$q" 2>/dev/null)
            for f in $hits; do echo "layout: $f includes $h of another paper (lemmas/$p/)"; bad=1; done
        done
    done
    hits=$(grep -rnE "(\b|\")$p/|\"$p\"" src include 2>/dev/null | cut -d: -f1,2)
    for f in $hits; do echo "layout: $f (core) names the paper '$p'"; bad=1; done
    grep -qs '^LM_PAPER(' lemmas/$p/*.c || { echo "layout: lemmas/$p/ declares no paper (LM_PAPER)"; bad=1; }
    [ -d "tests/$p" ] || { echo "layout: lemmas/$p/ has no tests/$p/"; bad=1; }
done
exit $bad
