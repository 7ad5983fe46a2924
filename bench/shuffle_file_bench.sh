#!/bin/bash
# shuffle-file against GNU shuf (file in memory) and against the disk's own read-twice /
# write-twice time (file larger than --memory). Prints wall times of 3 runs; take medians.
# Usage: bench/shuffle_file_bench.sh [fairdeck binary] [work dir with ~8 GB free]
set -u
F=$(realpath "${1:-build/release/fairdeck}")
mkdir -p "${2:-/tmp/fairdeck-shuffle-bench}" && cd "${2:-/tmp/fairdeck-shuffle-bench}"
[ -f small.txt ] || awk 'BEGIN{for(i=0;i<8000000;i++) printf "record %09d some payload text %d\n", i, i*7}' > small.txt
[ -f big.txt ] || (for k in 1 2 3 4 5; do cat small.txt; done) > big.txt
t() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1; local rc=$?; local e=$(date +%s.%N); echo "$(awk "BEGIN{print $e - $s}") rc=$rc"; }
for rep in 1 2 3; do
  echo "rep $rep"
  echo -n "A shuf small >file: "; t sh -c "shuf small.txt > out_shuf.txt"
  echo -n "B fairdeck small in-memory >file: "; t sh -c "$F shuffle-file small.txt --seed 1 > out_fd.txt"
  echo -n "C fairdeck small in-memory -o (fsync): "; t $F shuffle-file small.txt --seed 1 -o out_fd.txt
  echo -n "D fairdeck small --memory 64M -o: "; t $F shuffle-file small.txt --seed 1 --memory 64M -o out_fd2.txt
  echo -n "E fairdeck small --threads 1 -o: "; t $F shuffle-file small.txt --seed 1 --threads 1 -o out_fd3.txt
  echo -n "F fairdeck big --memory 256M -o: "; t $F shuffle-file big.txt --seed 1 --memory 256M -o out_big.txt
  echo -n "G fairdeck big in-memory -o: "; t $F shuffle-file big.txt --seed 1 -o out_big2.txt
  echo -n "H read+write twice baseline big: "; t sh -c "cat big.txt > c1 && sync c1 && cat c1 > c2 && sync c2"
  rm -f c1 c2
done
cmp out_fd.txt out_fd2.txt && cmp out_fd.txt out_fd3.txt && echo same-small
cmp out_big.txt out_big2.txt && echo same-big
