#!/usr/bin/env bash
# Live mode on this machine, end to end: the scheduler (`blox run` of a live spec), three
# `blox node` agents with CPU slots, real training processes; then the same spec simulated and
# `blox compare` of the two. What a real cluster does with GPU nodes (README, "Real cluster").
#
# Usage: scripts/live-localhost.sh   (OUT=results by default; BLOX=target/release/blox)
# Takes about a minute. Everything it starts is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
blox="${BLOX:-target/release/blox}"
out="${OUT:-results}"
[ -x "$blox" ] || { echo "build blox first (cargo build --release)" >&2; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/blox-live.XXXXXX")"
pids=()
cleanup() {
    [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
BLOX_TOKEN="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export BLOX_TOKEN

address_file="$out/live-localhost/live-address"
rm -f "$address_file"
"$blox" run specs/examples/live-localhost.yaml --out "$out" --force &
scheduler=$!
pids+=("$scheduler")
for _ in $(seq 300); do [ -s "$address_file" ] && break; sleep 0.1; done
[ -s "$address_file" ] || { echo "the scheduler did not start" >&2; exit 1; }
address="$(cat "$address_file")"
for i in 0 1 2; do
    "$blox" node --scheduler "$address" --cpu-slots 2 --name "node$i" --work-dir "$work" 2>"$work/node$i.log" &
    pids+=($!)
done
wait "$scheduler"
"$blox" run specs/examples/live-localhost-simulated.yaml --out "$out" --quiet
"$blox" compare "$out/live-localhost-simulated" "$out/live-localhost"
