#!/bin/sh
# Checks the Debian packages lemmata needs.  As root it installs what is
# missing; otherwise it prints the one apt-get line to run and exits 2.
PKGS="libgsl-dev libmpfr-dev libgmp-dev libflint-arb-dev libflint-dev libjansson-dev libsleef-dev libcriterion-dev gnuplot-nox libsqlite3-dev libopenblas-dev pkg-config texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "lemmata: installing missing packages:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >/tmp/lemmata-apt.log 2>&1 || {
    echo "lemmata: apt-get failed (see /tmp/lemmata-apt.log)" >&2; exit 2; }
  exit 0
fi
echo "lemmata: missing Debian packages; run:" >&2
echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
exit 2
