# `nsc fit` (examples/nsc/cmd_fit.cpp), the GPU / latency budgets of `nsc prune`, and budgets with
# units in every command (nsc/io/units.hpp). Expected numbers are hand-computed (docs/score.md, "Serving on
# GPUs"): Qwen3-8B on an L4 at 32,000 tokens x 4, fp8 KV: weights 8,190,735,360 x 2 B, KV 32,000 x 4 x
# 36 x 2 x 8 x 128 x 1 B, activations 2048 x 2 x (2 x 4096 + 2 x 12288) + 4 x 151936 x 8 B; budget
# 0.9 x 24e9; largest batch 1, longest context at batch 4 15,403.
#
#   nsc_fit_round_trip(NAME PRUNE a b c FIT x y z): nsc prune --json --emit-config OUT, then
#   nsc fit OUT --json: decode / prefill picoseconds and per-GPU weights + KV must be equal.
if(CMAKE_SCRIPT_MODE_FILE AND NOT NSC_FIT_ROUND_TRIP)
  include(${CMAKE_CURRENT_LIST_DIR}/exit_codes.cmake)
  return()
endif()
if(CMAKE_SCRIPT_MODE_FILE AND NSC_FIT_ROUND_TRIP)
  string(REPLACE "|" ";" pargs "${NSC_PRUNE}")
  string(REPLACE "|" ";" fargs "${NSC_FIT}")
  execute_process(COMMAND ${NSC} prune ${pargs} --emit-config ${NSC_OUT} --json RESULT_VARIABLE rc
                  OUTPUT_VARIABLE pj ERROR_VARIABLE err WORKING_DIRECTORY ${NSC_WORKDIR})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nsc prune ${pargs}: exit ${rc}\n${err}")
  endif()
  execute_process(COMMAND ${NSC} fit ${NSC_OUT} ${fargs} --json RESULT_VARIABLE rc OUTPUT_VARIABLE fj
                  ERROR_VARIABLE err WORKING_DIRECTORY ${NSC_WORKDIR})
  if(NOT (rc EQUAL 0 OR rc EQUAL 1))
    message(FATAL_ERROR "nsc fit ${NSC_OUT}: exit ${rc}\n${err}")
  endif()
  string(JSON pd GET "${pj}" decode_time_ps)
  string(JSON fd GET "${fj}" decode_ps)
  string(JSON pp GET "${pj}" prefill_time_ps)
  string(JSON fp GET "${fj}" prefill_ps)
  string(JSON pm GET "${pj}" memory_per_gpu_bytes)
  string(JSON fw GET "${fj}" per_gpu weight_bytes)
  string(JSON fk GET "${fj}" per_gpu kv_cache_bytes)
  math(EXPR fm "${fw} + ${fk}")
  if(NOT pd STREQUAL fd OR NOT pp STREQUAL fp OR NOT pm STREQUAL fm)
    message(FATAL_ERROR "prune: decode ${pd} ps, prefill ${pp} ps, per GPU ${pm} B; fit: ${fd}, ${fp}, ${fm}")
  endif()
  message(STATUS "decode ${pd} ps, prefill ${pp} ps, per GPU ${pm} B: equal")
  return()
endif()

function(nsc_fit_round_trip name)
  cmake_parse_arguments(T "" "" "PRUNE;FIT" ${ARGN})
  list(JOIN T_PRUNE "|" p)
  list(JOIN T_FIT "|" f)
  add_test(NAME cli:fit:${name}
    COMMAND ${CMAKE_COMMAND} -DNSC_FIT_ROUND_TRIP=ON -DNSC=$<TARGET_FILE:nsc_cli> "-DNSC_PRUNE=${p}" "-DNSC_FIT=${f}"
            -DNSC_OUT=${CMAKE_CURRENT_BINARY_DIR}/fit_${name}.json -DNSC_WORKDIR=${PROJECT_SOURCE_DIR}
            -P ${CMAKE_CURRENT_LIST_FILE})
endfunction()

nsc_cli_test(fit_qwen3_l4_json
  ARGS fit examples/configs/qwen3-8b.json --gpu L4 --context 32k --batch 4 --kv-dtype fp8 --json
  PASS "\"fits\":false,.*\"max_batch\":1,\"max_context\":15403,.*\"per_gpu\":\\{\"activation_bytes\":139079680[.0]*,\"budget_bytes\":21600000000[.0]*,\"kv_cache_bytes\":9437184000,\"memory_bytes\":26494605312[.0]*,\"reserve_bytes\":536870912[.0]*,\"weight_bytes\":16381470720\\}")
nsc_exit_code_test(fit_does_not_fit CODE 1 ARGS fit examples/configs/qwen3-8b.json --gpu L4 --context 32Ki --batch 4 --kv-dtype fp8)
nsc_exit_code_test(fit_fp8_weights_fit CODE 0
  ARGS fit examples/configs/qwen3-8b.json --gpu l4 --context 32k --batch 4 --kv-dtype fp8 --weight-dtype fp8)
nsc_exit_code_test(fit_unknown_gpu CODE 2 ARGS fit examples/configs/qwen3-8b.json --gpu H1000
  STDERR "--gpu 'H1000' is not a known GPU [(]H100-SXM, H100-PCIe")
nsc_exit_code_test(fit_ambiguous_K CODE 2 ARGS fit examples/configs/qwen3-8b.json --gpu L4 --context 32K
  STDERR "nsc fit: --context: cannot read '32K' [(]K is ambiguous: k is 1,000, Ki is 1,024[)]; write an integer count of tokens")
nsc_exit_code_test(fit_bad_gpus CODE 2 ARGS fit examples/configs/llama-3.1-70b.json --gpu H100-SXM --gpus 3 --tp 2
  STDERR "must be a multiple of --tp 2")
# tp 2 on Llama-3.1-70B (T = context = 256): per GPU 70,555,025,408 B of weights + 80 x 256 x 2 x 4 x 128 x 2 B of KV.
nsc_cli_test(score_tp2_memory
  ARGS score examples/configs/llama-3.1-70b.json --tp 2 --json
  PASS "\"memory_bytes\":141193936896,\"memory_per_gpu_bytes\":70596968448,")
# Units and percentages in the budgets of every command.
nsc_exit_code_test(prune_units_bad CODE 2 ARGS prune examples/configs/qwen3-8b.json --space generic --memory 24GX
  STDERR "nsc prune: --memory: cannot read '24GX' [(]unknown unit[)]; write bytes as 24GiB, 80GB")
nsc_cli_test(prune_percent_and_floors
  ARGS prune examples/configs/qwen3-8b.json --space generic --emit-format per-layer --params 80% --kv-heads-min 2
       --min-ffn-ratio 25% --memory 14GiB
  PASS "FFN [(]multiples of 256, >= 25% of the layer's own, or no-op[)].*budget   params +<= 6,552,588,288 params\nbudget   memory +<= 15,032,385,536 bytes\n.*defaults --ffn-multiple 256, --min-ffn 0, --head-step the GQA group, --no-noop not given [(]no-op sublayers offered[)], --tp 1, --weight-dtype bf16 [(]torch_dtype bfloat16[)], --kv-dtype bf16,"
  FAIL "defaults .*(--kv-heads-min|--min-ffn-ratio|--expert-step)")
# Every default the answer rests on is printed as its flag (docs/prune.md "Defaults"): the FFN floor's 10%
# included, and the MoE flags on a MoE model.
nsc_cli_test(prune_defaults_listed
  ARGS prune examples/configs/deepseek-v2-lite.json --space generic --emit-format nsc --params 70%
  PASS "FFN [(]multiples of 256, >= 10% of the layer's own[)].*defaults --ffn-multiple 256, --min-ffn-ratio 10% [(]no FFN below this share of its layer's own width. no-op aside[)], --min-ffn 0, --head-step the GQA group, --kv-heads-min 1, --no-noop not given [(]no-op sublayers offered[)], --tp 1, --expert-step 1, --min-experts top-k [(]6[)], --ep 1, --keep-expert-width not given")
nsc_cli_test(score_units
  ARGS score examples/configs/qwen3-8b.json --context 32Ki --batch 4 --seq-len 2k --json
  PASS "\"batch\":4,\"context\":32768,.*\"seq_len\":2000")
nsc_cli_test(design_units
  ARGS design --params 1.2B --kv-bytes 2GB --seq-len 4k --hidden-min 1024 --hidden-max 1536 --depth-min 8 --depth-max 12 --depth-step 4
  PASS "budget   params +<= 1,200,000,000\nbudget   kv_bytes +<= 2,000,000,000\n")
nsc_exit_code_test(prune_time_needs_gpu CODE 2 ARGS prune examples/configs/qwen3-8b.json --space generic --decode-ms 40
  STDERR "need a GPU")
# The Qwen3-8B / L4 envelope: decode 60 tokens/s at batch 4, read back exactly by nsc fit.
nsc_fit_round_trip(qwen3_l4_tokens_per_s
  PRUNE examples/configs/qwen3-8b.json --space generic --emit-format per-layer --gpu L4 --context 32k --batch 4 --kv-dtype fp8
        --tokens-per-s 60
  FIT --gpu L4 --context 32k --batch 4 --kv-dtype fp8)
nsc_fit_round_trip(llama70b_tp2_ttft_memory_per_gpu
  PRUNE examples/configs/llama-3.1-70b.json --space generic --gpu H100-SXM --tp 2 --context 8k --batch 8 --ttft-ms 90% --memory-per-gpu 70GB
  FIT --gpu H100-SXM --tp 2 --context 8k --batch 8)
