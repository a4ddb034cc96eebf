#!/usr/bin/env bash
# Install, configure and start a single-node SLURM cluster on this Debian machine (as root, no
# systemd needed), then check that it runs a job. Running it again when the cluster is up
# changes nothing. Stop it with tools/slurm/stop-cluster.sh.
#
# Exit status: 0 when `srun` runs a job; 75 (EX_TEMPFAIL) when the cluster cannot be set up here
# for a reason outside the project (not root, no apt-get, the Debian mirror cannot be reached),
# after saying why; anything else is a real failure.
set -euo pipefail

SKIP=75
PACKAGES=(munge slurmctld slurmd slurm-client)
CONF=/etc/slurm/slurm.conf
HERE=$(cd "$(dirname "$0")" && pwd)

say() { echo "start-cluster: $*"; }
skip() { echo "start-cluster: skipped: $*" >&2; exit "$SKIP"; }
fail() { echo "start-cluster: error: $*" >&2; exit 1; }

# Poll `$@` once a second until it succeeds; fail naming `what` after `seconds`.
wait_for() {
    local seconds=$1 what=$2
    shift 2
    for _ in $(seq "$seconds"); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 1
    done
    fail "$what did not happen within ${seconds} s (logs: /var/log/slurm/, /var/log/munge/)"
}

# True when the process named in pidfile $1 is alive.
running() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

[ "$(id -u)" = 0 ] || skip "not root: installing packages and starting the SLURM daemons needs root"
command -v apt-get >/dev/null || skip "no apt-get: this script installs SLURM from Debian packages"

# --- packages: only the missing ones; a download failure means the mirror is out of reach ---
missing=()
for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # `apt-get update` exits 0 even when it cannot fetch the lists, so the download below is
    # what tells an unreachable mirror apart from a broken installation.
    apt-get update -qq || true
    apt-get install -y -qq --no-install-recommends --download-only "${missing[@]}" \
        || skip "apt-get cannot download ${missing[*]} (is the Debian mirror reachable?)"
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- slurm.conf from this machine's hardware (slurmd -C) and hostname ---
host=$(hostname -s)
if ! getent hosts "$host" >/dev/null; then
    # slurmctld and slurmd look the node up by name
    echo "127.0.0.1 $host" >>/etc/hosts
fi
node=$(slurmd -C | head -n 1)  # NodeName=<host> CPUs=... RealMemory=...
[[ $node == NodeName=* ]] || fail "unexpected output of slurmd -C: $node"
wanted=$(mktemp)
trap 'rm -f "$wanted"' EXIT
cat >"$wanted" <<EOF
# Written by tools/slurm/start-cluster.sh: a one-node test cluster.
ClusterName=hiddenbn
SlurmctldHost=$host(127.0.0.1)
# root runs the daemons, so no slurm user or file ownership needs setting up
SlurmUser=root
AuthType=auth/munge
# no cgroups and no systemd here: track processes through /proc, no CPU binding
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
# no slurmdbd: snakemake must poll with squeue, which sees a finished job only while
# slurmctld keeps it, so keep finished jobs for an hour (recipe pitfalls 1 and 3)
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=3600
# a node that was down comes back when its slurmd registers again
ReturnToService=2
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
if ! cmp -s "$wanted" "$CONF"; then
    if running /run/slurmctld.pid || running /run/slurmd.pid; then
        say "slurm.conf changed: restarting the SLURM daemons"
        "$HERE/stop-cluster.sh"
    fi
    install -D -m 0644 "$wanted" "$CONF"
fi
mkdir -p /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm

# --- munge: the daemons authenticate each other with it ---
install -d -m 0755 -o munge -g munge /run/munge
install -d -m 0700 -o munge -g munge /etc/munge
if [ ! -s /etc/munge/munge.key ]; then
    mungekey --create --keyfile=/etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key
    chmod 0600 /etc/munge/munge.key
fi
if ! running /run/munge/munged.pid; then
    say "starting munged"
    # the daemons detach; closed standard streams keep a CI pipe from waiting on them
    runuser -u munge -- /usr/sbin/munged </dev/null >/dev/null 2>&1
fi
wait_for 20 "munge authentication" bash -c "munge -n | unmunge"

# --- slurmctld, then slurmd ---
if ! running /run/slurmctld.pid; then
    say "starting slurmctld"
    /usr/sbin/slurmctld </dev/null >/dev/null 2>&1
fi
wait_for 30 "slurmctld answering scontrol ping" bash -c "scontrol ping | grep -q UP"
if ! running /run/slurmd.pid; then
    say "starting slurmd"
    /usr/sbin/slurmd </dev/null >/dev/null 2>&1
fi
# A node left down or drained by an earlier, unclean stop does not come back by itself.
state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
if [[ $state == down* || $state == drain* ]]; then
    scontrol update NodeName="$host" State=RESUME
fi
wait_for 60 "node $host becoming idle" \
    bash -c "sinfo -h -n '$host' -o %T | grep -Eq '^(idle|mixed|allocated)'"

# --- smoke test ---
answer=$(timeout -k 5 60 srun -N1 -n1 hostname) || fail "srun could not run a job"
[ "$answer" = "$(hostname)" ] || fail "srun ran on '$answer', not on $(hostname)"
say "SLURM is up: node $host ($(sinfo -h -n "$host" -o '%c CPUs, %m MB'))"
