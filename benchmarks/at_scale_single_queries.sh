#!/bin/sh
# The single-query workloads of docs/search.md "At scale" (issue 21: <= 100 ms each), one process each
# under `ulimit -v 8000000` and /usr/bin/time: the query's own time line (nsc's steady clock:
# space, DP and re-scoring for nsc prune; the solve for nsc search) and the process's wall, user
# CPU and peak RSS. Usage, from the checkout: sh benchmarks/at_scale_single_queries.sh build/bin/nsc
set -u
NSC=${1:-build/bin/nsc}
L70=examples/configs/llama-3.1-70b.json
LIB=examples/libraries/synthetic_80x16.json
run() {
  name=$1
  shift
  out=$(sh -c "ulimit -v 8000000; /usr/bin/time -f 'TIME %e %U %M' $NSC $*" 2>&1)
  t=$(echo "$out" | grep -E '^time ' | head -1 | sed 's/^time *//; s/ (.*//')
  r=$(echo "$out" | grep '^TIME' | awk '{printf "wall %.2f s, user %.2f s, %d MB", $2, $3, $4 / 1024}')
  printf '%-10s %-12s %s\n' "$name" "$t" "$r"
}
run 70b-1 prune $L70 --space generic --params 40e9
run 70b-2 prune $L70 --space generic --params 40e9 --kv-bytes 2e9
run 70b-3 prune $L70 --space generic --params 40e9 --flops 60e9 --kv-bytes 2e9 --seq-len 8192 --batch 8
run 70b-pl-1 prune $L70 --space generic --emit-format per-layer --params 40e9
run 70b-pl-2 prune $L70 --space generic --emit-format per-layer --params 40e9 --kv-bytes 2e9
run 70b-pl-3 prune $L70 --space generic --emit-format per-layer --params 40e9 --flops 60e9 --kv-bytes 2e9 --seq-len 8192 --batch 8
run lib-2 search --library $LIB --minimize --budget stats.memory_mib=80116 --budget stats.runtime_ms=50177
run lib-3 search --library $LIB --minimize --budget stats.memory_mib=80116 --budget stats.runtime_ms=50177 --budget stats.num_params=37648072704
run lib-range search --library $LIB --minimize --budget stats.memory_mib=80116 --budget stats.runtime_ms=25088..50177
run dsv2-lite prune examples/configs/deepseek-v2-lite.json --space generic --emit-format nsc --params 70%
