#!/bin/sh
# check.sh PYTHON -- which Python peers `make bench` can run.
# Prints the available ones, comma-separated, on stdout and says on stderr
# why a peer is skipped.  Run as root (and unless BENCH_INSTALL=0) it first
# tries to install a missing peer's Debian package; if that fails the peer
# is skipped, never faked.
PY=${1:-python3}
avail=""
for spec in "torch:python3-torch:PyTorch" "numpy:python3-numpy:numpy" "mpmath:python3-mpmath python3-gmpy2:mpmath"; do
  mod=${spec%%:*}; rest=${spec#*:}; pkgs=${rest%%:*}; name=${rest#*:}; pkg=${pkgs%% *}
  if ! "$PY" -c "import $mod" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && [ "${BENCH_INSTALL:-1}" != 0 ]; then
    echo "bench: installing $pkgs for the $name peer (BENCH_INSTALL=0 skips this)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs \
      >/tmp/lemmata-bench-apt.log 2>&1 || echo "bench: apt-get failed (see /tmp/lemmata-bench-apt.log)" >&2
  fi
  if "$PY" -c "import $mod" >/dev/null 2>&1; then
    avail="$avail${avail:+,}$mod"
  else
    echo "skipping $name peer: $pkg not installed (apt-get install $pkg)" >&2
  fi
done
echo "$avail"
