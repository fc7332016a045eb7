#!/usr/bin/env bash
# Instructions per in-process placeOrder with the limiter on (budgets never reached) or off, by cachegrind:
# I(N2) - I(N1) over (N2 - N1) orders, so that start-up and the warm-up cancel out. `--predictable-gc-schedule` fixes
# V8's heap growing and idle collections, which otherwise move I(N) by up to 1G instructions between identical runs.
# Usage (from the repository's root): bench/results/limiter/count.sh on|off|stage [N1] [N2]
who=$1; n1=${2:-2000}; n2=${3:-6000}
cd "$(dirname "$0")/../.."
count() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null \
    node --single-threaded --predictable-gc-schedule --expose-gc --conditions=@spotkit/source src/limiter.ts --child "$who" --quick \
    --limiter-orders "$1" 2>&1 | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
a=$(count "$n1"); b=$(count "$n2")
echo "$who I($n1)=$a I($n2)=$b per-order=$(( (b - a) / (n2 - n1) ))"
