#!/usr/bin/env bash
# tests/slurm/cluster.sh start DIR | stop DIR | env DIR
#
# A throwaway single-node Slurm cluster for tests/slurm/test_slurm.sh: munged, slurmctld and
# slurmd run as root, without systemd, with every key, socket, config, state, spool, log and
# pid file under DIR, so nothing of the machine's own Slurm or munge setup is read or touched.
# All traffic stays on 127.0.0.1.  `start` records every daemon it starts in DIR/pids; `stop`
# cancels the cluster's jobs, ends exactly those pids (never by name) and removes the state.
#
# The clients (sbatch, squeue, sinfo, scancel) find the cluster only through SLURM_CONF:
#     eval "$(tests/slurm/cluster.sh env DIR)"
# prints the export line.  Knobs: CLUSTER_CPUS (CPUs the node offers, default $(nproc); more
# than the machine has is accepted through SlurmdParameters=config_overrides),
# CLUSTER_PORT (slurmctld's port, default 6817; slurmd takes the next one),
# CLUSTER_TIMEOUT (seconds to wait for the node to come up, default 60).
#
# Exit: 0 done; 1 the cluster did not come up (the daemons' log tails are printed);
# 2 usage, or the packages are missing and cannot be installed here.
set -u

PKGS="slurmctld slurmd slurm-client munge"
# the daemons live in sbin, which a non-login root shell may lack
PATH=$PATH:/usr/sbin:/sbin

die2() { echo "cluster.sh: $*" >&2; exit 2; }

usage() { die2 "usage: cluster.sh start DIR | stop DIR | env DIR"; }

[ $# -eq 2 ] || usage
cmd=$1
[ -n "$2" ] || usage
case "$2" in /*) DIR=$2 ;; *) DIR=$PWD/$2 ;; esac
CONF=$DIR/slurm.conf

need_packages() {
  local missing=0 b
  for b in munged slurmctld slurmd sbatch squeue sinfo scancel; do
    command -v "$b" >/dev/null 2>&1 || missing=1
  done
  [ $missing = 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    die2 "Slurm/munge missing; as root run: apt-get update && apt-get install -y --no-install-recommends $PKGS"
  fi
  echo "cluster.sh: installing $PKGS" >&2
  export DEBIAN_FRONTEND=noninteractive
  # The packages would start the machine's own munged and slurm daemons: a policy-rc.d that
  # refuses every start (as container images ship) keeps them from doing so, only for the install.
  local policy="" log="${TMPDIR:-/tmp}/cluster-apt.$$.log" rc=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\n# tests/slurm/cluster.sh: no service starts while it installs\nexit 101\n' > "$policy" &&
      chmod 0755 "$policy"
  fi
  # shellcheck disable=SC2086 # PKGS is a list
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends $PKGS; } >"$log" 2>&1 || rc=$?
  [ -n "$policy" ] && rm -f "$policy"
  if [ "$rc" -ne 0 ]; then
    tail -5 "$log" >&2
    die2 "apt-get install $PKGS failed (log: $log)"
  fi
  rm -f "$log"
}

# DIR holds a cluster this script made (its slurm.conf says so): the only kind of DIR whose
# files start reuses and stop removes, so a mistyped DIR (say /) is never cleared
ours() { [ -f "$CONF" ] && head -1 "$CONF" | grep -q '^# written by tests/slurm/cluster.sh'; }

# The pids this DIR's cluster started, one per line, that are still alive.
live_pids() {
  local p
  [ -f "$DIR/pids" ] || return 0
  while read -r p _; do
    case "$p" in ''|*[!0-9]*) continue ;; esac
    kill -0 "$p" 2>/dev/null && echo "$p"
  done < "$DIR/pids"
}

tails() {
  local f
  for f in "$DIR"/log/munged.log "$DIR"/log/slurmctld.log "$DIR"/log/slurmd.log \
           "$DIR"/log/munged.out "$DIR"/log/slurmctld.out "$DIR"/log/slurmd.out; do
    [ -s "$f" ] || continue
    echo "---- tail $f" >&2
    tail -15 "$f" >&2
  done
}

# Run a daemon in the foreground of its own session, in the background of this shell, so that
# $! is the daemon itself (no double fork to chase) and a ^C to the caller does not reach it.
spawn() { # name cmd...
  local name=$1; shift
  setsid "$@" </dev/null >"$DIR/log/$name.out" 2>&1 &
  echo "$! $name" >> "$DIR/pids"
}

do_start() {
  need_packages
  [ "$(id -u)" = 0 ] || die2 "start needs root (the daemons run as root)"
  if [ -n "$(live_pids)" ]; then
    die2 "a cluster is already running from $DIR (pids: $(live_pids | tr '\n' ' ')); stop it first"
  fi
  local cpus=${CLUSTER_CPUS:-$(nproc)} port=${CLUSTER_PORT:-6817} timeout=${CLUSTER_TIMEOUT:-60}
  case "$cpus" in ''|*[!0-9]*|0*) die2 "CLUSTER_CPUS must be a positive integer, not '$cpus'" ;; esac
  case "$port" in ''|*[!0-9]*|0*) die2 "CLUSTER_PORT must be a port number, not '$port'" ;; esac
  [ "$port" -ge 1024 ] && [ "$port" -le 65000 ] || die2 "CLUSTER_PORT must be in 1024..65000, not '$port'"
  case "$timeout" in ''|*[!0-9]*|0*) die2 "CLUSTER_TIMEOUT must be a positive integer, not '$timeout'" ;; esac
  [ "$cpus" -le 256 ] || die2 "CLUSTER_CPUS must be at most 256, not '$cpus'"

  if [ -d "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ] && ! ours; then
    die2 "$DIR is not empty and holds no cluster of this script: give a new or empty DIR"
  fi
  mkdir -p "$DIR" || die2 "cannot create $DIR"
  # munged refuses keys, sockets and logs in directories others can write
  chmod 0700 "$DIR"
  mkdir -p "$DIR/munge" "$DIR/log" "$DIR/state" "$DIR/spool" "$DIR/run"
  chmod 0700 "$DIR/munge"
  rm -f "$DIR/pids"

  # ---- munge: a fresh key, and a daemon that knows only this DIR
  if ! mungekey --create --keyfile="$DIR/munge/munge.key" --force >/dev/null 2>&1; then
    dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none || die2 "cannot make a munge key"
  fi
  chmod 0400 "$DIR/munge/munge.key"
  local sock=$DIR/munge/munge.socket
  spawn munged munged --foreground --force --socket="$sock" --key-file="$DIR/munge/munge.key" \
        --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
        --seed-file="$DIR/munge/munged.seed"
  local i=0
  until [ -S "$sock" ]; do
    i=$((i + 1))
    if [ $i -gt 100 ] || [ -z "$(live_pids)" ]; then
      echo "cluster.sh: munged did not come up" >&2; tails; do_stop_quiet; exit 1
    fi
    sleep 0.1
  done

  # ---- slurm.conf
  local host
  host=$(hostname -s)
  local overrides=""
  [ "$cpus" -gt "$(nproc)" ] && overrides="SlurmdParameters=config_overrides"
  cat > "$CONF" <<EOF
# written by tests/slurm/cluster.sh: a throwaway single-node cluster under $DIR
ClusterName=lemmata-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/backfill
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
PlugStackConfig=$DIR/plugstack.conf
$overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  : > "$DIR/plugstack.conf"
  export SLURM_CONF=$CONF

  spawn slurmctld slurmctld -D -f "$CONF"
  spawn slurmd slurmd -D -f "$CONF" -N "$host"

  # ---- wait for the node to be idle
  local t0=$SECONDS state=""
  while :; do
    state=$(sinfo -h -N -n "$host" -o '%t' 2>/dev/null | head -1)
    case "$state" in idle*) break ;; esac
    if [ $((SECONDS - t0)) -ge "$timeout" ] || [ "$(live_pids | wc -l)" -lt 3 ]; then
      echo "cluster.sh: node $host not idle after $((SECONDS - t0)) s (state '${state:-none}'; daemons alive: $(live_pids | wc -l)/3)" >&2
      tails; do_stop_quiet; exit 1
    fi
    sleep 1
  done
  echo "cluster.sh: cluster up in $((SECONDS - t0)) s: node $host, $cpus CPUs, partition debug; export SLURM_CONF=$CONF"
}

do_stop_quiet() { do_stop >/dev/null 2>&1; }

do_stop() {
  if ! ours && [ ! -f "$DIR/pids" ]; then
    echo "cluster.sh: no cluster in $DIR"
    return 0
  fi
  # Cancel the jobs first so slurmd's job step daemons end with them instead of being orphaned
  # when slurmd goes.  Only if slurmctld of this DIR is alive: else scancel would wait on it.
  if [ -f "$CONF" ] && [ -n "$(live_pids)" ] && command -v scancel >/dev/null 2>&1; then
    export SLURM_CONF=$CONF
    scancel --quiet --user="$(id -un)" >/dev/null 2>&1
    local i=0
    while [ $i -lt 20 ] && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do sleep 1; i=$((i + 1)); done
  fi
  local p n
  for p in $(live_pids); do kill -TERM "$p" 2>/dev/null; done
  n=0
  while [ -n "$(live_pids)" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
  for p in $(live_pids); do echo "cluster.sh: pid $p did not end on TERM; killing" >&2; kill -KILL "$p" 2>/dev/null; done
  n=0
  while [ -n "$(live_pids)" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
  if [ -n "$(live_pids)" ]; then
    echo "cluster.sh: still alive: $(live_pids | tr '\n' ' '); $DIR left in place" >&2
    return 1
  fi
  # only the files this script makes: DIR itself may hold the caller's other files
  ours || { rm -f "$DIR/pids"; echo "cluster.sh: cluster in $DIR stopped"; return 0; }
  rm -rf "$DIR/munge" "$DIR/log" "$DIR/state" "$DIR/spool" "$DIR/run" \
         "$DIR/pids" "$CONF" "$DIR/plugstack.conf"
  rmdir "$DIR" 2>/dev/null
  echo "cluster.sh: cluster in $DIR stopped"
  return 0
}

case "$cmd" in
  start) do_start ;;
  stop)  do_stop ;;
  env)   echo "export SLURM_CONF='$CONF'" ;;
  *)     usage ;;
esac
