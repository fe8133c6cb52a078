#!/usr/bin/env bash
# Live mode on a real Slurm, end to end: starts a private Slurm on this machine (munged,
# slurmctld and three slurmd, nodes n1..n3 of two fake GPUs each), runs
# specs/examples/live-slurm.yaml on it (`engine.executor: slurm`: FIFO and LAS, real Python
# training processes launched with srun, LAS preempting, job 3 a two-node gang), then simulates
# the same spec with the launch overhead the live run measured and checks with `blox compare`
# that each policy's average JCT agrees within 1.5 rounds plus 15 % (the localhost live test's
# tolerance, tests/live/live_cluster.rs); then drains a node under a gang; then runs Synergy's
# FIFO at the proportional share, whose jobs check from inside that Slurm gave them the CPUs
# and memory the policy did; then EDF (the event engine) resizing a running job.
#
# Usage: scripts/slurm-live-e2e.sh   (BLOX=target/release/blox; KEEP=1 keeps the directory)
# Needs root (the daemons), slurm-wlm and munge (.ci/run installs them when missing), python3
# with pyarrow, and a built blox. Everything it starts runs from a temporary directory and is
# stopped on exit. Takes about two minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
blox="${BLOX:-$(pwd)/target/release/blox}"
[ -x "$blox" ] || { echo "build blox first (cargo build --release)" >&2; exit 1; }
for tool in munged slurmctld slurmd srun; do
    command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install slurm-wlm munge" >&2; exit 1; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/blox-slurm-live.XXXXXX")"
nodes=(n1 n2 n3)
cleanup() {
    squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null || true
    for pidfile in "$work"/slurmd-*.pid "$work/slurmctld.pid" "$work/munge/munged.pid"; do
        [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
    done
    sleep 1
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# A private munge: its own key and socket, nothing under /etc.
mkdir -p "$work/munge" "$work/state" "$work/gpus"
chmod 700 "$work/munge"
head -c 1024 /dev/urandom > "$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed"

# Three node entries on this machine, each its own slurmd on its own port. Their GPUs are GRES
# whose device files are links to /dev/null: Slurm counts, allocates and hands them out
# (CUDA_VISIBLE_DEVICES) as it does real ones. Memory is consumable, 100 MB per CPU unless a
# job asks (--mem). Each node claims 6 CPUs (config_overrides: more than this machine may have),
# the 3 CPUs per GPU at which Synergy's profiles were measured.
port="${SLURM_LIVE_PORT:-16917}"
{
    cat <<EOF
ClusterName=blox-live-e2e
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
SlurmctldPort=$port
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd-%n.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=100
SlurmdParameters=config_overrides
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
GresTypes=gpu
KillWait=5
EOF
    echo "AutoDetect=off" > "$work/gres.conf"
    i=0
    for node in "${nodes[@]}"; do
        i=$((i + 1))
        echo "NodeName=$node NodeHostname=localhost Port=$((port + 3 + i)) CPUs=6 RealMemory=1000 Gres=gpu:2 State=UNKNOWN"
        ln -s /dev/null "$work/gpus/$node-gpu0"
        ln -s /dev/null "$work/gpus/$node-gpu1"
        echo "NodeName=$node Name=gpu File=$work/gpus/$node-gpu[0-1]" >> "$work/gres.conf"
        mkdir -p "$work/spool/$node"
    done
    echo "PartitionName=live Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
} > "$work/slurm.conf"
export SLURM_CONF="$work/slurm.conf"
slurmctld
for node in "${nodes[@]}"; do slurmd -N "$node"; done
up() { [ "$(sinfo -h -N -o %t 2>/dev/null | grep -cE '^(idle|mix|alloc)$')" = "${#nodes[@]}" ]; }
for _ in $(seq 60); do up && break; sleep 1; done
up || { echo "Slurm did not come up:" >&2; sinfo -N >&2 || true; tail -20 "$work"/*.log >&2; exit 1; }
sinfo -N -o '%N %t %G' >&2

BLOX_TOKEN="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export BLOX_TOKEN
out="$work/out"
"$blox" run specs/examples/live-slurm.yaml --out "$out" --force

# The simulation of the same spec, calibrated with the mean launch overhead the live run
# measured (launch decision to first report, less the one iteration the report follows).
overhead="$(python3 - "$out/live-slurm" <<'EOF'
import glob, sys
import pyarrow.parquet as pq
rows = [r for f in glob.glob(sys.argv[1] + "/attempts/*.parquet") for r in pq.read_table(f).to_pylist()]
gaps = [r["launch_overhead_s"] - 0.1 for r in rows if r["launch_overhead_s"] is not None]
print(round(max(0.0, sum(gaps) / len(gaps)), 2))
EOF
)"
echo "measured launch overhead: $overhead s" >&2
sed -e 's/^name: live-slurm$/name: live-slurm-simulated/' -e 's/^  mode: live$/  mode: rounds/' -e '/^  executor: slurm$/d' \
    -e '/^  live:$/,/^    wait_for_nodes_s:/d' -e "s#^  round_s: \(.*\)#  round_s: \1\n  overhead: {fixed: {first_launch_s: $overhead, resume_s: $overhead}}#" \
    -e "s#\.\./\.\./traces/#$(pwd)/traces/#" specs/examples/live-slurm.yaml > "$work/simulated.yaml"
"$blox" run "$work/simulated.yaml" --out "$out" --quiet
"$blox" compare "$out/live-slurm-simulated" "$out/live-slurm" --format svg

python3 - "$out" <<'EOF'
import csv, glob, sys
import pyarrow.parquet as pq
out = sys.argv[1]
round_s = 4.0
failed = False
attempts = {}
for f in glob.glob(out + "/live-slurm/attempts/*.parquet"):
    for r in pq.read_table(f).to_pylist():
        attempts.setdefault(r["label"], []).append(r)
for label, rows in sorted(attempts.items()):
    gang = [r for r in rows if "," in r["node"]]
    finished_gang = [r for r in gang if r["end"] == "finished"]
    preempted = [r for r in rows if r["end"] == "preempted" and r["iterations_after"] > r["iterations_before"]]
    print(f"{label}: {len(rows)} attempts, {len(gang)} of them two-node gangs ({len(finished_gang)} finished), "
          f"{len(preempted)} preempted after progress")
    if not finished_gang:
        print(f"{label}: the four-GPU job did not finish as a gang on two nodes", file=sys.stderr)
        failed = True
    if label == "LAS" and not preempted:
        print("LAS preempted no job that had made progress", file=sys.stderr)
        failed = True
with open(out + "/live-slurm-simulated/compare-live-slurm/summary.csv") as f:
    for row in csv.DictReader(f):
        sim, live = float(row["avg_jct_a_s"]), float(row["avg_jct_b_s"])
        tolerance = 1.5 * round_s + 0.15 * sim
        ok = abs(live - sim) <= tolerance and row["finished_in_both"] == row["jobs_a"]
        print(f"{row['label']}: live average JCT {live:.1f} s, simulated {sim:.1f} s, tolerance {tolerance:.2f} s: "
              f"{'ok' if ok else 'FAILED'}")
        failed |= not ok
sys.exit(1 if failed else 0)
EOF
echo "slurm live e2e: FIFO and LAS on Slurm agree with their simulation" >&2

# A node drained mid-run: FIFO again, n3 drained while the four-GPU gang runs there. Its parts
# are cancelled and counted lost, the gang waits for two whole free nodes, n3 comes back when
# resumed, and every job still finishes.
drained="$work/drained"
"$blox" run specs/examples/live-slurm.yaml --out "$drained" --only label=FIFO --quiet 2> "$work/drained.log" &
run=$!
for _ in $(seq 600); do
    squeue -h --states=RUNNING -o '%j %N' | grep -qE '^blox-3-[0-9]+-[0-9]+-.* n3$' && break
    kill -0 "$run" 2>/dev/null || break
    sleep 0.1
done
scontrol update nodename=n3 state=drain reason=blox-e2e
sleep 6
scontrol update nodename=n3 state=resume
wait "$run" || { cat "$work/drained.log" >&2; exit 1; }
grep -q "Slurm node n3 left the cluster" "$work/drained.log" || { echo "the drain went unseen" >&2; cat "$work/drained.log" >&2; exit 1; }
python3 - "$drained/live-slurm" <<'EOF'
import glob, sys
import pyarrow.parquet as pq
experiment = sys.argv[1]
attempts = [r for f in glob.glob(experiment + "/attempts/*.parquet") for r in pq.read_table(f).to_pylist()]
jobs = [r for f in glob.glob(experiment + "/jobs/*.parquet") for r in pq.read_table(f).to_pylist()]
lost = [(a["job_id"], a["attempt"], a["node"]) for a in attempts if a["end"] == "lost"]
unfinished = [j["job_id"] for j in jobs if j["finish_s"] is None]
print(f"drained n3: lost attempts {lost}; {len(jobs) - len(unfinished)} of {len(jobs)} jobs finished")
sys.exit(0 if lost and all("n3" in node for _, _, node in lost) and jobs and not unfinished else 1)
EOF
echo "slurm live e2e: a drained node took its jobs out and every job still finished" >&2
# Synergy's FIFO at the GPU-proportional share of these nodes (2 GPUs, 6 CPUs, 0.75 GB): 3 CPUs
# and 0.375 GB per GPU. Each attempt writes what the policy gave it (BLOX_CPUS, BLOX_MEMORY_GB)
# beside what Slurm allocated its job (SLURM_CPUS_PER_TASK, and the memory `scontrol show job`
# gives it: srun sets no variable for it).
synergy="$work/synergy"
mkdir -p "$synergy/alloc"
{
    echo "job_id,arrival_s,gpus,duration_s,model"
    for i in 0 1 2 3 4 5; do echo "$i,$((i / 2)),$((i % 3 == 1 ? 2 : 1)),$((3 + i % 3)),lstm"; done
} > "$synergy/trace.csv"
cat > "$synergy/live.yaml" <<EOF
name: live-slurm-synergy
engine:
  mode: live
  executor: slurm
  round_s: 4
  live:
    listen: 127.0.0.1:0
    command: >-
      { echo "blox_cpus=\$BLOX_CPUS slurm_cpus=\$SLURM_CPUS_PER_TASK blox_memory_gb=\$BLOX_MEMORY_GB";
      scontrol show job "\$SLURM_JOB_ID"; } > $synergy/alloc/{job}-{attempt}-\$NODE_RANK;
      exec python3 clients/python/examples/train.py --iterations {iterations} --ms-per-iteration 100
    iterations_per_s: 10
    grace_s: 5
    wait_for_nodes_s: 60
policies:
  - {label: FIFO+fair, scheduler: {synergy-fifo: {allocation: fair}}}
clusters:
  - groups:
      - {nodes: 3, gpus_per_node: 2, gpu: v100, cpus_per_node: 6, memory_gb_per_node: 0.75}
workloads:
  - csv: {path: $synergy/trace.csv}
measure:
  track: all
EOF
"$blox" run "$synergy/live.yaml" --out "$synergy/out" --quiet
python3 - "$synergy" <<'EOF'
import glob, math, os, re, sys
import pyarrow.parquet as pq
synergy = sys.argv[1]
jobs = [r for f in glob.glob(synergy + "/out/live-slurm-synergy/jobs/*.parquet") for r in pq.read_table(f).to_pylist()]
unfinished = [j["job_id"] for j in jobs if j["finish_s"] is None]
failed = not jobs or bool(unfinished)
files = sorted(glob.glob(synergy + "/alloc/*"))
for path in files:
    text = open(path).read()
    fields = dict(f.split("=", 1) for f in text.splitlines()[0].split())
    blox_cpus, slurm_cpus, blox_mem = fields["blox_cpus"], fields["slurm_cpus"], fields["blox_memory_gb"]
    memory = re.search(r"MinMemoryNode=(\d+)M", text)
    slurm_mem = memory.group(1) if memory else "?"
    ok = slurm_cpus == str(math.ceil(float(blox_cpus))) and slurm_mem == str(math.ceil(float(blox_mem) * 1024))
    ok &= float(blox_cpus) % 3 == 0 and abs(float(blox_mem) / (float(blox_cpus) / 3) - 0.375) < 1e-9
    if not ok:
        print(f"{os.path.basename(path)}: the policy gave {blox_cpus} CPUs and {blox_mem} GB, Slurm {slurm_cpus} CPUs "
              f"and {slurm_mem} MB", file=sys.stderr)
        failed = True
print(f"synergy: {len(jobs) - len(unfinished)} of {len(jobs)} jobs finished; {len(files)} parts checked their CPUs and memory")
sys.exit(1 if failed or not files else 0)
EOF
echo "slurm live e2e: each Synergy job got from Slurm the CPUs and memory its policy gave it" >&2

# EDF, the event engine's elastic policy, on Slurm: job 0 runs alone on four GPUs (a two-node
# gang), shrinks when job 1, due earlier, arrives, and grows back after; each resize stops the
# attempt with a checkpoint (its attempt row ends `resized`) and starts one on the new GPU
# count (BLOX_GPUS), whose toy training runs at the A100 curve's speed for that count.
edf="$work/edf"
mkdir -p "$edf"
cat > "$edf/trace.csv" <<EOF
job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort
0,0,274,resnet50,400,64,1,40,0
1,8,137,resnet50,60,64,1,20,0
2,12,137,resnet50,300,64,1,20,0
EOF
cat > "$edf/live.yaml" <<EOF
name: live-slurm-edf
engine:
  mode: live
  executor: slurm
  slot_s: 2
  live:
    listen: 127.0.0.1:0
    command: >-
      case \$BLOX_GPUS in 1) ms=100;; 2) ms=57.8;; *) ms=37.4;; esac;
      exec python3 clients/python/examples/train.py --iterations {iterations} --ms-per-iteration \$ms
    iterations_per_s: 10
    grace_s: 5
    wait_for_nodes_s: 60
policies:
  - {label: EDF, scheduler: edf}
clusters:
  - groups:
      - {nodes: 3, gpus_per_node: 2, gpu: a100}
workloads:
  - trace: {path: $edf/trace.csv}
measure:
  track: all
EOF
"$blox" run "$edf/live.yaml" --out "$edf/out" --quiet
python3 - "$edf/out/live-slurm-edf" <<'EOF'
import glob, sys
import pyarrow.parquet as pq
experiment = sys.argv[1]
attempts = sorted((r for f in glob.glob(experiment + "/attempts/*.parquet") for r in pq.read_table(f).to_pylist()),
                  key=lambda a: (a["job_id"], a["attempt"]))
jobs = [r for f in glob.glob(experiment + "/jobs/*.parquet") for r in pq.read_table(f).to_pylist()]
unfinished = [j["job_id"] for j in jobs if j["finish_s"] is None]
gpus = lambda a: sum(len(part.split(",")) for part in a["slots"].split(";"))
resizes = [(a["job_id"], gpus(a), gpus(b)) for a, b in zip(attempts, attempts[1:])
           if a["job_id"] == b["job_id"] and a["end"] == "resized" and gpus(a) != gpus(b)]
print(f"edf: {len(jobs) - len(unfinished)} of {len(jobs)} jobs finished; resizes (job, GPUs before, after): {resizes}")
sys.exit(0 if jobs and not unfinished and resizes else 1)
EOF
echo "slurm live e2e: EDF resized a running job on Slurm by checkpoint and restart at its new GPU count" >&2
