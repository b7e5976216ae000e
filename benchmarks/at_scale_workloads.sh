#!/bin/sh
# Every workload of issue 21 (docs/search.md "At scale", the table "The issue's workloads on this code"),
# one process each under `ulimit -v 8000000`, nice and `/usr/bin/time -v`: the exit code, wall
# time, CPU time (user + system), peak RSS and the output line that states the answer (nsc's own
# `time` line for nsc search; the front / top line for the others). Done-when of the issue:
# single queries <= 100 ms, top-10 and the pool <= 5 s, the two-budget front <= 60 s, each within
# the memory cap (--max-memory, default 1 GiB), or refused in seconds with what would fit.
# Usage, from the checkout: sh benchmarks/at_scale_workloads.sh build/bin/nsc [NAME...]
# (NAMEs: run only those workloads, e.g. lib-front 70b-front).
set -u
NSC=${1:-build/bin/nsc}
[ $# -gt 0 ] && shift
ONLY="$*"
L70=examples/configs/llama-3.1-70b.json
LIB=examples/libraries/synthetic_80x16.json
LB="--budget stats.memory_mib=80116 --budget stats.runtime_ms=50177"
TMP=${TMPDIR:-/tmp}/nsc_at_scale_$$
mkdir -p "$TMP"
printf '%-12s %4s %9s %9s %9s  %s\n' workload exit wall CPU "peak RSS" "answer (the output's line)"
run() {
  name=$1
  pick=$2
  shift 2
  if [ -n "$ONLY" ] && ! echo " $ONLY " | grep -q " $name "; then return; fi
  sh -c "ulimit -v 8000000; exec nice /usr/bin/time -v -o $TMP/time $NSC $*" > "$TMP/out" 2> "$TMP/err"
  rc=$?
  wall=$(grep 'Elapsed (wall clock)' "$TMP/time" | awk -F': ' '{print $2}' |
         awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  user=$(grep 'User time' "$TMP/time" | awk -F': ' '{print $2}')
  sys=$(grep 'System time' "$TMP/time" | awk -F': ' '{print $2}')
  rss=$(grep 'Maximum resident' "$TMP/time" | awk -F': ' '{print $2}')
  line=$(grep -E "$pick" "$TMP/out" | head -2 | cut -c1-100 | sed 's/  */ /g' | paste -sd'|')
  [ -z "$line" ] && line=$(head -c 150 "$TMP/err" | tr '\n' ' ')
  printf '%-12s %4s %8.2fs %8.2fs %6.1f MB  %s\n' "$name" "$rc" "$wall" "$(echo "$user + $sys" | bc)" \
    "$(echo "$rss / 1024" | bc -l)" "$line"
}
# the 80 x 16 block library (minimise kl_div; the budgets of benchmarks/bench_library_cbc.py)
run lib-2 '^time ' search --library $LIB --minimize $LB
run lib-3 '^time ' search --library $LIB --minimize $LB --budget stats.num_params=37648072704
run lib-top10 '^time ' search --library $LIB --minimize $LB --top 10
run lib-pool '^time ' search --library $LIB --minimize $LB --top 3 --min-distance 20
run lib-front '^(front|time) ' search --library $LIB --minimize $LB --front
# Llama-3.1-70B, nsc prune --space generic
run 70b-front '^(front|time) ' prune $L70 --space generic --params 40e9 --kv-bytes 2e9 --front
run 70b-front-T '^(front|time) ' prune $L70 --space generic --params 40e9 --kv-bytes 2e9 --seq-len 8192 --batch 8 --front
run 70b-front-plot '^(front|time) ' prune $L70 --space generic --params 40e9 --kv-bytes 2e9 --seq-len 8192 --batch 8 --front \
  --plot $TMP/front.png
run 70b-top2 '^time ' prune $L70 --space generic --params 40e9 --kv-bytes 2e9 --top 2
run 70b-top6 '^time ' prune $L70 --space generic --params 40e9 --top 6
run 70b-top3 '^time ' prune $L70 --space generic --params 40e9 --top 3
run 70b-pool '^time ' prune $L70 --space generic --params 40e9 --top 3 --min-distance 20
run 70b-pl-3 '^time ' prune $L70 --space generic --emit-format per-layer --params 40e9 --flops 60e9 --kv-bytes 2e9 \
  --seq-len 8192 --batch 8
# DeepSeek-V2-Lite's expert prune (routed experts and widths on the grid)
run dsv2-lite '^time ' prune examples/configs/deepseek-v2-lite.json --space generic --emit-format nsc --params 70%
rm -rf "$TMP"
