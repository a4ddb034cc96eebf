#!/usr/bin/env bash
# Stop the single-node SLURM cluster started by tools/slurm/start-cluster.sh: slurmd, slurmctld
# and munged, each by the PID in its pidfile. Stopping a cluster that is not running is a no-op.
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "stop-cluster: needs root" >&2; exit 1; }

for pidfile in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill -0 "$pid" 2>/dev/null || continue
    echo "stop-cluster: stopping $(basename "$pidfile" .pid) (pid $pid)"
    kill "$pid"
    for _ in $(seq 30); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "stop-cluster: error: pid $pid still running after 30 s" >&2
        exit 1
    fi
done
