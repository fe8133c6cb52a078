#!/usr/bin/env bash
# blox on a real Slurm, end to end: starts a private single-node Slurm (munged, slurmctld, slurmd)
# on this machine, submits a spec as an array of shards with `blox slurm --submit --wait`, and
# checks that the union of the shards' tables equals an unsharded run, column for column.
#
# Usage: scripts/slurm-e2e.sh [SPEC] (default specs/paper/blox-fig6.yaml); TASKS=4 by default.
# Needs root (the daemons), the slurm-wlm and munge packages (installed with apt-get when
# missing), python3 with pyarrow (scripts/compare_tables.py), and a built target/release/blox.
# Everything it starts runs from a temporary directory and is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
spec="${1:-specs/paper/blox-fig6.yaml}"
tasks="${TASKS:-4}"
blox="${BLOX:-$repo/target/release/blox}"
[ -x "$blox" ] || { echo "build blox first (cargo build --release)" >&2; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    echo "installing slurm-wlm and munge" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q slurm-wlm munge >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q slurm-wlm munge >/dev/null; }
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/blox-slurm.XXXXXX")"
cleanup() {
    for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/munged.pid"; do
        [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
    done
    sleep 1
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# A private munge: its own key and socket, nothing under /etc.
mkdir -p "$work/munge" "$work/state" "$work/spool"
chmod 700 "$work/munge"
head -c 1024 /dev/urandom > "$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed"

host="$(hostname -s)"
cat > "$work/slurm.conf" <<EOF
ClusterName=blox-e2e
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
SlurmctldPort=${SLURMCTLD_PORT:-16817}
SlurmdPort=${SLURMD_PORT:-16818}
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=e2e Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"
slurmctld
slurmd
for _ in $(seq 60); do
    if sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then break; fi
    sleep 1
done
sinfo -h -o %t | grep -qE '^(idle|mix|alloc)' || { echo "Slurm did not come up:" >&2; tail -20 "$work"/*.log >&2; exit 1; }

echo "Slurm up on $host; submitting $spec as $tasks array tasks" >&2
"$blox" slurm "$spec" --tasks "$tasks" --out "$work/sharded" --submit --wait
"$blox" run "$spec" --out "$work/whole" -q >/dev/null
name="$(basename "$(dirname "$(find "$work/whole" -name grid.json | head -1)")")"
for log in "$work/sharded/$name"/slurm/*.out; do
    grep -q "shard .*/$tasks: " "$log" || { echo "a task did not run a shard: $log" >&2; cat "$log" >&2; exit 1; }
done
"$blox" status "$work/sharded/$name"
"$blox" status "$work/sharded/$name" | grep -q " 0 missing, 0 failed" || { echo "the shards left runs undone" >&2; exit 1; }
python3 scripts/compare_tables.py "$work/whole" "$work/sharded"
echo "slurm e2e: $tasks array tasks reproduced the unsharded run exactly" >&2
