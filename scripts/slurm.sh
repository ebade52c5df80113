#!/usr/bin/env bash
# A throwaway single-node Slurm cluster for the tests (tests/cluster.rs),
# without systemd: Debian's slurm-wlm 22.05 and munge (scripts/setup.sh
# installs them). Run as root.
#
#   scripts/slurm.sh up DIR     start it; everything lives in DIR
#   scripts/slurm.sh down DIR   cancel its jobs, stop it (safe to repeat)
#
# `up` writes DIR/slurm.conf, starts munged unless one already answers,
# then slurmctld and slurmd in the foreground (-D) in the background with
# `-f DIR/slurm.conf`, and waits until the node is idle. Nothing in
# /etc/slurm is read or written. The client commands (sbatch, squeue,
# scontrol, sinfo, scancel) find the cluster through SLURM_CONF: `up`
# prints `export SLURM_CONF=DIR/slurm.conf` on stdout (and nothing else
# there) and writes the same line to DIR/env, so either
#   eval "$(scripts/slurm.sh up DIR)"   or   . DIR/env
# works. Messages go to stderr.
#
# DIR: slurm.conf, env, state/ (StateSaveLocation, new at each `up`),
# spool/ (slurmd's), log/ (slurmctld.log, slurmd.log and their stdout),
# run/ (pid files; slurmctld.pid and slurmd.pid are the processes this
# script started), munged.pid (only when this script started munged;
# `down` then stops it too, unless another slurmctld or slurmd runs). DIR is made traversable by others (chmod
# a+rx) because slurmctld runs as the `slurm` user.
#
# Environment: SLURMCTLD_PORT (6817), SLURMD_PORT (6818),
# SLURM_UP_TIMEOUT (30 s). One cluster at a time per pair of ports.
#
# Finished jobs stay visible to `scontrol show job` for an hour
# (MinJobAge=3600), with JobState=COMPLETED or FAILED and ExitCode; there
# is no slurmdbd, so `sacct` does not work.
set -uo pipefail

say() { echo "slurm.sh: $*" >&2; }
die() { say "$*"; exit 1; }

usage() { say "usage: $0 up|down DIR"; exit 2; }
[ $# = 2 ] || usage
cmd=$1
case $cmd in up | down) ;; *) usage ;; esac
[ "$(id -u)" = 0 ] || { say "must run as root (it starts munged, slurmctld and slurmd)"; exit 2; }
case $2 in /*) dir=$2 ;; *) dir=$PWD/$2 ;; esac
dir=${dir%/}

ctld_port=${SLURMCTLD_PORT:-6817}
d_port=${SLURMD_PORT:-6818}
timeout=${SLURM_UP_TIMEOUT:-30}
socket=/run/munge/munge.socket.2
conf=$dir/slurm.conf

# The pid in file $1 if that process is alive and its name starts with $2.
live_pid() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  local comm
  comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [[ $comm == "$2"* ]] || return 1
  echo "$pid"
}

# Send TERM to the process of pid file $1 (name $2), wait up to 15 s, then KILL.
stop_pid() {
  local pid i
  pid=$(live_pid "$1" "$2") || { rm -f "$1"; return 0; }
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 150; i++)); do
    [ -d "/proc/$pid" ] || break
    # A zombie child of ours counts as gone.
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
    sleep 0.1
  done
  if [ -d "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; then
    say "$2 (pid $pid) did not stop in 15 s; killing it"
    kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$1"
}

munge_ok() { munge -n -S "$socket" </dev/null 2>/dev/null | unmunge -S "$socket" >/dev/null 2>&1; }

port_busy() {
  if command -v ss >/dev/null; then
    [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
  fi
}

down() {
  if [ -f "$conf" ] && live_pid "$dir/run/slurmctld.pid" slurmctld >/dev/null; then
    # Cancel every job first: slurmstepd (which runs the job) would outlive slurmd.
    local jobs i
    jobs=$(SLURM_CONF=$conf squeue -h -o %A 2>/dev/null | sort -u)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      SLURM_CONF=$conf scancel $jobs 2>/dev/null
      for ((i = 0; i < 150; i++)); do
        [ -z "$(SLURM_CONF=$conf squeue -h -t RUNNING,COMPLETING,SUSPENDED,CONFIGURING -o %A 2>/dev/null)" ] && break
        sleep 0.1
      done
    fi
  fi
  stop_pid "$dir/run/slurmd.pid" slurmd
  stop_pid "$dir/run/slurmctld.pid" slurmctld
  # munged: only if this script started it for DIR and no other Slurm
  # daemon (another cluster, with other ports) still uses it.
  if [ -f "$dir/munged.pid" ]; then
    if ps -eo stat=,comm= | awk '$1 !~ /^Z/ && ($2 == "slurmctld" || $2 == "slurmd") { found = 1 } END { exit !found }'; then
      say "leaving munged running: another Slurm daemon uses it"
      rm -f "$dir/munged.pid"
    else
      stop_pid "$dir/munged.pid" munged
    fi
  fi
}

fail_up() {
  say "$1"
  local d f
  for d in slurmctld slurmd; do
    # The daemon's log file, or its stdout if it died before opening that.
    f=$dir/log/$d.log
    [ -s "$f" ] || f=$dir/log/$d.out
    [ -s "$f" ] || continue
    echo "--- last lines of $f" >&2
    tail -n 15 "$f" >&2
  done
  down
  exit 1
}

if [ "$cmd" = down ]; then
  [ -d "$dir" ] || exit 0
  down
  exit 0
fi

# ---- up
for t in slurmctld slurmd sinfo munged munge; do
  command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] ||
    die "$t is missing: apt-get install slurm-wlm munge (scripts/setup.sh)"
done
PATH=$PATH:/usr/sbin

if live_pid "$dir/run/slurmctld.pid" slurmctld >/dev/null || live_pid "$dir/run/slurmd.pid" slurmd >/dev/null; then
  die "a cluster is already up in $dir (run: $0 down $dir)"
fi
for p in "$ctld_port" "$d_port"; do
  port_busy "$p" && die "port $p is in use (another Slurm?); choose others with SLURMCTLD_PORT and SLURMD_PORT"
done

mkdir -p "$dir" || die "cannot create $dir"
chmod a+rx "$dir"
rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
chown slurm:slurm "$dir/state" "$dir/log" "$dir/run"
chmod 755 "$dir/state" "$dir/spool" "$dir/log" "$dir/run"

# munged: reuse one that answers on the usual socket, else start one.
if ! munge_ok; then
  key=/etc/munge/munge.key
  if [ ! -s "$key" ]; then
    mkdir -p /etc/munge
    mungekey --create --keyfile="$key" || die "cannot create $key"
  fi
  chown munge:munge /etc/munge "$key"
  chmod 700 /etc/munge
  chmod 400 "$key"
  mkdir -p /run/munge /var/lib/munge /var/log/munge
  chown munge:munge /run/munge /var/lib/munge /var/log/munge
  chmod 755 /run/munge
  runuser -u munge -- /usr/sbin/munged </dev/null >"$dir/log/munged.out" 2>&1 ||
    die "munged did not start: $(cat "$dir/log/munged.out") (see /var/log/munge/munged.log)"
  for ((i = 0; i < 50; i++)); do munge_ok && break; sleep 0.1; done
  munge_ok || die "munged started but does not answer on $socket"
  cp /run/munge/munged.pid "$dir/munged.pid" 2>/dev/null ||
    pgrep -u munge -x munged >"$dir/munged.pid"
fi

host=$(hostname -s)
cpus=$(nproc)
# The node's memory in MiB, less a little, so jobs that ask for memory (the merge job does) fit.
mem_mib=$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.95) }' /proc/meminfo)
cat >"$conf" <<EOF
# Written by scripts/slurm.sh: a throwaway single-node cluster.
ClusterName=arena
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Keep finished jobs in memory an hour: scontrol show job tells FAILED/COMPLETED.
MinJobAge=3600
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.daemon.pid
SlurmdPidFile=$dir/run/slurmd.daemon.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mib State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
chmod 644 "$conf"
echo "export SLURM_CONF=$conf" >"$dir/env"

start=$SECONDS
slurmctld -D -c -f "$conf" >"$dir/log/slurmctld.out" 2>&1 </dev/null &
echo $! >"$dir/run/slurmctld.pid"
slurmd -D -c -N "$host" -f "$conf" >"$dir/log/slurmd.out" 2>&1 </dev/null &
echo $! >"$dir/run/slurmd.pid"

export SLURM_CONF=$conf
while :; do
  state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null)
  [ "$state" = idle ] && break
  live_pid "$dir/run/slurmctld.pid" slurmctld >/dev/null || fail_up "slurmctld exited"
  live_pid "$dir/run/slurmd.pid" slurmd >/dev/null || fail_up "slurmd exited"
  [ $((SECONDS - start)) -ge "$timeout" ] &&
    fail_up "the node is not idle after $timeout s (state: ${state:-none})"
  sleep 0.2
done
say "up in $((SECONDS - start)) s: node $host idle, $cpus CPUs, ports $ctld_port/$d_port"
echo "export SLURM_CONF=$conf"
