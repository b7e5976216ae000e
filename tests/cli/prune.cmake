# `nsc prune CONFIG --space generic ...` (examples/nsc/cmd_prune.cpp): round trips of every
# emitted format through `nsc score` (params, non-embedding params, FLOPs, KV bytes, memory and
# NSC must be equal), exit codes of impossible envelopes and bad input. Each round trip runs this
# file in script mode: nsc prune --emit-config OUT --json, then nsc score OUT --json at the same
# workload, and compares the JSON fields with CMake's string(JSON).
#
#   nsc_prune_round_trip(NAME ARGS a b c WORKLOAD w x y)
if(CMAKE_SCRIPT_MODE_FILE AND NOT NSC_ROUND_TRIP) # an exit-code check (exit_codes.cmake's script mode)
  include(${CMAKE_CURRENT_LIST_DIR}/exit_codes.cmake)
  return()
endif()
if(CMAKE_SCRIPT_MODE_FILE AND NSC_ROUND_TRIP) # ---- script mode: one round trip ----------------
  string(REPLACE "|" ";" args "${NSC_ARGS}")
  string(REPLACE "|" ";" load "${NSC_LOAD}")
  set(out "${NSC_OUT}")
  execute_process(COMMAND ${NSC} prune ${args} ${load} --emit-config ${out} --json RESULT_VARIABLE rc
                  OUTPUT_VARIABLE pj ERROR_VARIABLE err WORKING_DIRECTORY ${NSC_WORKDIR})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nsc prune ${args}: exit ${rc}\n${err}")
  endif()
  # nsc prune and nsc score both store the weights as the checkpoint does (torch_dtype,
  # quantization_config) unless --weight-dtype says otherwise: the same workload reads back.
  execute_process(COMMAND ${NSC} score ${out} ${load} --json RESULT_VARIABLE rc OUTPUT_VARIABLE sj
                  ERROR_VARIABLE err WORKING_DIRECTORY ${NSC_WORKDIR})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nsc score ${out}: exit ${rc}\n${err}")
  endif()
  foreach(key nsc params_total params_non_embedding params_active flops_per_token kv_cache_bytes memory_bytes
              prefill_flops)
    string(JSON a GET "${pj}" ${key})
    string(JSON b GET "${sj}" ${key})
    if(NOT "${a}" STREQUAL "${b}")
      message(FATAL_ERROR "${key}: nsc prune reports ${a}, nsc score of ${out} ${b}")
    endif()
  endforeach()
  string(JSON n LENGTH "${pj}" layers)
  string(JSON layers GET "${sj}" layers)
  message(STATUS "round trip of ${out}: ${n} layers, every figure equal")
  return()
endif()

function(nsc_prune_round_trip name)
  cmake_parse_arguments(T "" "" "ARGS;WORKLOAD" ${ARGN})
  list(JOIN T_ARGS "|" joined)
  list(JOIN T_WORKLOAD "|" load)
  add_test(NAME cli:prune:${name}
    COMMAND ${CMAKE_COMMAND} -DNSC_ROUND_TRIP=ON -DNSC=$<TARGET_FILE:nsc_cli> "-DNSC_ARGS=${joined}"
            "-DNSC_LOAD=${load}" -DNSC_OUT=${CMAKE_CURRENT_BINARY_DIR}/prune_${name}.json
            -DNSC_WORKDIR=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_LIST_FILE})
endfunction()

# Every format, several budget subsets, configs of different families.
nsc_prune_round_trip(llama70b_decilm_memory
  ARGS examples/configs/llama-3.1-70b.json --space generic --memory 80e9 --emit-format decilm
  WORKLOAD --seq-len 8192 --context 8192 --batch 8 --kv-dtype bf16 --weight-dtype bf16)
nsc_prune_round_trip(llama70b_decilm_three
  ARGS examples/configs/llama-3.1-70b.json --space generic --params 40e9 --flops 60e9 --kv-bytes 2e9
       --emit-format decilm
  WORKLOAD --seq-len 8192 --batch 8)
nsc_prune_round_trip(llama8b_per_layer_three
  ARGS examples/configs/llama-3-8b.json --space generic --params 5e9 --flops 8e9 --kv-bytes 1e9
       --emit-format per-layer
  WORKLOAD --seq-len 8192 --batch 8)
nsc_prune_round_trip(llama70b_nsc_params
  ARGS examples/configs/llama-3.1-70b.json --space generic --params 50e9 --emit-format nsc
  WORKLOAD --seq-len 4096)
nsc_prune_round_trip(mistral_decilm_kv_tp
  ARGS examples/configs/mistral-7b.json --space generic --params 5e9 --kv-bytes 1e9 --min-ffn 4096
       --emit-format decilm
  WORKLOAD --seq-len 4096 --batch 4 --kv-dtype fp8 --tp 2)
nsc_prune_round_trip(qwen3_per_layer
  ARGS examples/configs/qwen3-8b.json --space generic --params-non-embedding 5e9 --emit-format per-layer
  WORKLOAD --seq-len 2048)
nsc_prune_round_trip(mixtral_nsc_memory
  ARGS examples/configs/mixtral-8x7b.json --space generic --memory 60e9 --emit-format nsc --ffn-multiple 512
  WORKLOAD --seq-len 4096 --batch 4)
nsc_prune_round_trip(llama8b_decilm_active_memory
  ARGS examples/configs/llama-3-8b.json --space generic --active-params 6e9 --memory 14e9 --ffn-multiple 1024
       --emit-format decilm
  WORKLOAD --seq-len 4096 --weight-dtype int8)
# Mixture of experts: experts kept per layer (top-k kept, the router shrinks), every format.
nsc_prune_round_trip(mixtral_decilm_experts_memory
  ARGS examples/configs/mixtral-8x7b.json --space generic --memory 60e9 --keep-expert-width --emit-format decilm
  WORKLOAD --seq-len 4096 --batch 4)
nsc_prune_round_trip(mixtral_per_layer_experts_ep
  ARGS examples/configs/mixtral-8x7b.json --space generic --memory 60e9 --active-params 12e9 --ep 2
       --ffn-multiple 1024 --emit-format per-layer
  WORKLOAD --seq-len 4096 --batch 4)
nsc_prune_round_trip(qwen3moe_per_layer_active_memory
  ARGS examples/configs/qwen3-30b-a3b.json --space generic --memory 40e9 --active-params 2.5e9 --emit-format per-layer
  WORKLOAD --seq-len 4096)
nsc_prune_round_trip(qwen15moe_nsc_params
  ARGS examples/configs/qwen1.5-moe-a2.7b.json --space generic --params 10e9 --expert-step 4 --emit-format nsc
  WORKLOAD --seq-len 2048)
nsc_cli_test(prune_generic_moe_table
  ARGS prune examples/configs/mixtral-8x7b.json --space generic --memory 60e9 --seq-len 4096 --batch 4 --keep-expert-width
  PASS "experts  per MoE layer [(]first: layer 0[)]: routed experts kept [{]8,7,6,5,4,3,2[}] of 8, top-2 routing kept, expert width kept\n.*best .*\n +layers? 0(-[0-9]+)?: attention 32 heads / [0-9]+ KV, FFN [2-7] experts x 14336\n")
nsc_exit_code_test(prune_generic_moe_decilm_shared CODE 2
  ARGS prune examples/configs/qwen1.5-moe-a2.7b.json --space generic --params 10e9 --emit-format decilm
  STDERR "cannot be written as DeciLM block_configs [^\n]*: layer 0: attention biases, which DeciLM block_configs cannot state[.] What works: --uniform .*builds them[)][.].$")
nsc_exit_code_test(prune_generic_bad_ep CODE 2
  ARGS prune examples/configs/mixtral-8x7b.json --space generic --params 30e9 --ep 0)

# Table output: the per-layer listing and the read-back note.
nsc_cli_test(prune_generic_table
  ARGS prune examples/configs/llama-3.1-70b.json --space generic --memory 80e9 --seq-len 8192 --context 8192
       --batch 8
  PASS "generic space, decilm output\n.*budget   memory +<= 80,000,000,000 bytes\n.*best .*\n +layers? 0(-[0-9]+)?: attention 64 heads / [0-9]+ KV, FFN [0-9]+\n")
nsc_cli_test(prune_generic_top
  ARGS prune examples/configs/gemma-3-1b-it.json --space generic --params 0.7e9 --top 3 --emit-format nsc --json
  PASS "\"top\":\\[\\{.*\\},\\{.*\\},\\{.*\\}\\]")
# ties: Llama-3.1-70B's optimum (FFN 13312 on 23 of 80 identical layers) stands for C(80, 23)
# orderings (Python: math.comb(80, 23) = 68310851714568382400); the second entry is another model
nsc_cli_test(prune_generic_top_ties
  ARGS prune examples/configs/llama-3.1-70b.json --space generic --params 40e9 --top 2
  PASS "top      2 best [(]identical layers interchangeable.*\nties     NSC 2669791[.]689 [(]entry 1[)]: 68,310,851,714,568,382,400 selections [(]orderings of identical layers[)]\nties     NSC 2669788[.]489 [(]entry 2[)]: >= ")

# Impossible envelopes: exit 1, the budget named with the smallest achievable value.
nsc_exit_code_test(prune_generic_infeasible CODE 1
  ARGS prune examples/configs/llama-3.1-70b.json --space generic --params 1e9
  STDERR "nsc: infeasible: budget params = 1,000,000,000 params cannot be met. the smallest model of the space has 2,101,354,496 params")
nsc_exit_code_test(prune_generic_infeasible_kv CODE 1
  ARGS prune examples/configs/llama-3.1-70b.json --space generic --kv-bytes 1000 --emit-format nsc
  STDERR "budget kv_bytes = 1,000 bytes cannot be met. the smallest model of the space has 83,886,080 bytes")
# A format that cannot express the model: bad input, named.
# A Mamba-2 hybrid (issue 18): Mamba-2 layers kept or removed (dropped from
# hybrid_override_pattern), their fixed-size state in the memory budget; decilm refuses them.
nsc_prune_round_trip(nemotron_h_nsc_params_memory
  ARGS examples/configs/nemotron-h-8b-base-8k.json --space generic --params 6e9 --memory 20e9 --emit-format nsc
  WORKLOAD --seq-len 4096 --context 8192 --batch 64)
nsc_prune_round_trip(nemotron_h_nsc_memory_fp32_state
  ARGS examples/configs/nemotron-h-8b-base-8k.json --space generic --memory 18e9 --emit-format nsc
  WORKLOAD --seq-len 4096 --context 8192 --batch 64 --state-dtype fp32)
nsc_prune_round_trip(nemotron_h_nsc_drops_mamba_layers # batch 1024: the state outweighs 8 Mamba layers (52 -> 44)
  ARGS examples/configs/nemotron-h-8b-base-8k.json --space generic --memory 50e9 --emit-format nsc
  WORKLOAD --seq-len 256 --context 256 --batch 1024)
# A Gated DeltaNet hybrid (qwen3_next): its linear-attention layers' state is a budgeted cost.
nsc_prune_round_trip(qwen3next_nsc_params_memory
  ARGS examples/configs/qwen3-coder-next.json --space generic --params 60e9 --memory 140e9 --expert-step 64 --emit-format nsc
  WORKLOAD --seq-len 4096 --context 32768 --batch 16)
# Issue 18d: Granite 4.0 (granitemoehybrid; its shared_mlp is the FFN the space prunes).
nsc_prune_round_trip(granite4_micro_nsc_memory
  ARGS examples/configs/granite-4.0-micro.json --space generic --memory 5.5e9 --emit-format nsc
  WORKLOAD --seq-len 4096 --context 8192 --batch 4)
# Issue 18h: Granite-4.0-H-Small, 36 Mamba-2 layers (kept, their state in the memory budget) with
# 72 experts and a shared_mlp in every layer.
nsc_prune_round_trip(granite4h_small_nsc_params_memory
  ARGS examples/configs/granite-4.0-h-small.json --space generic --params 24e9 --memory 60e9 --expert-step 8
       --keep-expert-width --emit-format nsc
  WORKLOAD --seq-len 4096 --context 32768 --batch 8)
# Falcon-H1 (falcon_h1): attention and Mamba-2 in parallel in every layer; both mixers kept, the
# FFN pruned, the mixer state a budgeted cost (nsc format); decilm refuses it by name.
nsc_prune_round_trip(falcon_h1_nsc_params_memory
  ARGS examples/configs/falcon-h1-0.5b-instruct.json --space generic --params 85% --memory 3.4e9 --emit-format nsc
  WORKLOAD --seq-len 1024 --context 16384 --batch 8)
nsc_prune_round_trip(falcon_h1_uniform_24gb # FalconH1ForCausalLM's own fields (heads, KV heads, FFN width)
  ARGS examples/configs/falcon-h1-7b-base.json --space generic --memory 24e9 --uniform
  WORKLOAD --seq-len 1024 --context 32768 --batch 8)
nsc_exit_code_test(prune_generic_per_layer_falcon_h1 CODE 2
  ARGS prune examples/configs/falcon-h1-0.5b-instruct.json --space generic --params 85% --emit-format per-layer
  STDERR "per_layer_config, which model_type falcon_h1 does not read; use --emit-format nsc")
nsc_exit_code_test(prune_generic_decilm_falcon_h1 CODE 2
  ARGS prune examples/configs/falcon-h1-0.5b-instruct.json --space generic --params 85% --emit-format decilm
  STDERR "layer 0 runs attention and a mamba2 mixer in parallel .falcon_h1., which the decilm format cannot express")
nsc_exit_code_test(prune_generic_decilm_nemotron_h CODE 2
  ARGS prune examples/configs/nemotron-h-8b-base-8k.json --space generic --params 6e9 --emit-format decilm
  STDERR "layer 0 is a mamba2 layer, which the decilm format cannot express; use --emit-format nsc")
nsc_exit_code_test(prune_generic_decilm_qwen3 CODE 2
  ARGS prune examples/configs/qwen3-8b.json --space generic --params 5e9 --emit-format decilm
  STDERR "cannot be written as DeciLM block_configs [^\n]*: layer 0: q_norm / k_norm [(]RMSNorm of queries and keys[)], which DeciLM's attention does not have[.] What works: --uniform .*builds them[)][.].$")
nsc_exit_code_test(prune_generic_tflops CODE 2
  ARGS prune examples/configs/llama-7b.json --space generic --tflops 1
  STDERR "--tflops is the LoNAS space's")
nsc_exit_code_test(prune_lonas_generic_flag CODE 2
  ARGS prune examples/configs/llama-7b.json --space lonas --kv-bytes 1e9
  STDERR "need --space generic")
nsc_exit_code_test(prune_generic_bad_format CODE 2
  ARGS prune examples/configs/llama-7b.json --space generic --emit-format gguf)

# nsc design: the best decoder from scratch; the emitted DeciLM config re-scores identically
# (checked inside nsc design; here through nsc score as well).
nsc_cli_test(design_1b
  ARGS design --params 1.2e9 --kv-bytes 2e9 --seq-len 4096 --batch 8 --hidden-min 1024 --hidden-max 2048
       --depth-min 8 --depth-max 24 --depth-step 4 --json
  PASS "\"feasible_configs\":[0-9]+,.*\"kv_cache_bytes\":[0-9]+,.*\"outer_configs\":25,\"params_non_embedding\":[0-9]+,\"params_total\":11[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9],")
nsc_exit_code_test(design_infeasible CODE 1
  ARGS design --params 1e6 --hidden-min 512 --hidden-max 1024 --depth-max 8
  STDERR "nsc: infeasible: none of the [0-9]+ [(]hidden, depth[)] configurations meets every budget")
nsc_exit_code_test(design_no_budget CODE 2 ARGS design STDERR "give at least one budget")
nsc_exit_code_test(design_bad_range CODE 2 ARGS design --params 1e9 --hidden-min 4096 --hidden-max 1024
  STDERR "--hidden-min <= --hidden-max")

# --plot of the generic Pareto set (scripts/plot_front.py's generic mode; skipped when python3
# with matplotlib is missing: the tool then says "plot     not written").
nsc_cli_test(prune_generic_plot
  ARGS prune examples/configs/llama-3-8b.json --space generic --memory 10e9 --seq-len 4096 --ffn-multiple 1024 --front
       --plot ${CMAKE_CURRENT_BINARY_DIR}/prune_generic_plot.png --json
  PASS "\"plot\":\"[^\"]*prune_generic_plot[.]png\"")
set_tests_properties(cli:prune_generic_plot PROPERTIES SKIP_REGULAR_EXPRESSION "plot +not written")
nsc_exit_code_test(prune_generic_plot_needs_front CODE 2
  ARGS prune examples/configs/llama-3-8b.json --space generic --params 5e9 --plot x.png
  STDERR "--plot draws the Pareto set: add --front")
# nsc design --front / --plot: every feasible (hidden, depth) configuration's optimum, the
# Pareto-optimal ones marked, and the plot of them (skipped without matplotlib).
nsc_cli_test(design_front_json
  ARGS design --params 1.2e9 --kv-bytes 2e9 --seq-len 4096 --batch 8 --hidden-min 1024 --hidden-max 2048
       --depth-min 8 --depth-max 24 --depth-step 4 --front --json
  PASS "\"budgets\":\\{\"kv_bytes\":2000000000,\"params\":1200000000\\},.*\"front\":\\[\\{\"flops_per_token\":[^}]*\"hidden_size\":1024,[^}]*\"pareto\":(true|false),")
nsc_cli_test(design_plot
  ARGS design --params 1.2e9 --kv-bytes 2e9 --seq-len 4096 --batch 8 --hidden-min 1024 --hidden-max 2048
       --depth-min 8 --depth-max 24 --depth-step 4 --plot ${CMAKE_CURRENT_BINARY_DIR}/design_plot.png --json
  PASS "\"plot\":\"[^\"]*design_plot[.]png\"")
set_tests_properties(cli:design_plot PROPERTIES SKIP_REGULAR_EXPRESSION "plot +not written")

# --engine: DeciLM block_configs with only the keys that engine reads, the space kept to what it
# runs (6-decimal ffn_mult widths; llama.cpp: no attention without its FFN, attention in layer 0).
nsc_prune_round_trip(llama8b_engine_llama_cpp
  ARGS examples/configs/llama-3-8b.json --space generic --params 5e9 --kv-bytes 1e9 --ffn-multiple 1024
       --engine llama.cpp
  WORKLOAD --seq-len 4096 --batch 4)
nsc_prune_round_trip(llama8b_engine_mlx_memory
  ARGS examples/configs/llama-3-8b.json --space generic --memory 9e9 --ffn-multiple 1024 --engine mlx
  WORKLOAD --seq-len 8192 --batch 4)
nsc_prune_round_trip(llama70b_engine_vllm_memory
  ARGS examples/configs/llama-3.1-70b.json --space generic --memory 80e9 --engine vllm
  WORKLOAD --seq-len 8192 --batch 8)
nsc_prune_round_trip(llama8b_engine_sglang_flops
  ARGS examples/configs/llama-3-8b.json --space generic --flops 8e9 --ffn-multiple 512 --engine sglang
  WORKLOAD --seq-len 2048)
nsc_cli_test(prune_engine_llama_cpp_table
  ARGS prune examples/configs/llama-3-8b.json --space generic --params 5e9 --ffn-multiple 1024 --engine llama.cpp
  PASS "generic space, decilm for llama.cpp output\n.*\nloads    llama.cpp: yes [(]convert_hf_to_gguf.py: arch deci[)]\n.*loads    vllm: yes")
# A model the engine cannot run: refused with the reason and what works.
nsc_exit_code_test(prune_generic_gemma4_kv_shared_refused CODE 2 # a KV-shared layer is not pruned apart from its source
  ARGS prune examples/configs/gemma-4-e2b-it.json --space generic --params 3e9
  STDERR "the model has per-layer embeddings .*; KV-shared layers .*[(]from layer 15[)], which the pruning space does not model")
nsc_exit_code_test(prune_engine_qwen3_refused CODE 2
  ARGS prune examples/configs/qwen3-8b.json --space generic --memory 21.5e9 --engine vllm
  STDERR "--engine vllm cannot serve qwen3-8b [(]qwen3[)] as DeciLM block_configs: layer 0: q_norm / k_norm .*What works: --uniform [(]Qwen3ForCausalLM")
nsc_exit_code_test(prune_engine_deepseek_refused CODE 2
  ARGS prune examples/configs/deepseek-v2-lite.json --space generic --memory 21.5e9 --engine sglang
  STDERR "layer 0: multi-head latent attention [(]MLA[)].*What works: --uniform [(]DeepseekV2ForCausalLM")
nsc_exit_code_test(prune_engine_mixtral_refused CODE 2
  ARGS prune examples/configs/mixtral-8x7b.json --space generic --memory 60e9 --engine mlx
  STDERR "a mixture of experts [(]8 experts[)]")
nsc_exit_code_test(prune_default_decilm_qwen3_says_what_works CODE 2
  ARGS prune examples/configs/qwen3-8b.json --space generic --memory 21.5e9 --seq-len 32768 --batch 4
  STDERR "cannot be written as DeciLM block_configs [(]--emit-format decilm, the default[)]: layer 0: q_norm / k_norm.*What works: --uniform")
nsc_exit_code_test(prune_engine_emit_format_clash CODE 2
  ARGS prune examples/configs/llama-3-8b.json --space generic --params 5e9 --engine vllm --emit-format per-layer
  STDERR "writes DeciLM block_configs")
nsc_exit_code_test(prune_engine_bad CODE 2
  ARGS prune examples/configs/llama-3-8b.json --space generic --params 5e9 --engine ollama)

# --uniform: one shape for every layer in the family's own architecture (exact enumeration);
# the Qwen3-8B and DeepSeek-V2-Lite paths of issue 19 (one 24 GB GPU at 32k context, batch 4).
nsc_prune_round_trip(qwen3_uniform_24gb
  ARGS examples/configs/qwen3-8b.json --space generic --memory 21.5e9 --uniform
  WORKLOAD --seq-len 32768 --batch 4)
nsc_prune_round_trip(deepseek_v2_lite_uniform_24gb
  ARGS examples/configs/deepseek-v2-lite.json --space generic --memory 21.5e9 --uniform
  WORKLOAD --seq-len 32768 --batch 4)
nsc_prune_round_trip(llama70b_uniform_three
  ARGS examples/configs/llama-3.1-70b.json --space generic --params 40e9 --flops 60e9 --kv-bytes 2e9 --uniform
  WORKLOAD --seq-len 8192 --batch 8)
nsc_prune_round_trip(mixtral_uniform_no_noop
  ARGS examples/configs/mixtral-8x7b.json --space generic --memory 60e9 --uniform --no-noop --ffn-multiple 1024
  WORKLOAD --seq-len 4096 --batch 4)
nsc_cli_test(prune_uniform_qwen3_table
  ARGS prune examples/configs/qwen3-8b.json --space generic --memory 21.5e9 --seq-len 32768 --batch 4 --uniform
  PASS "uniform space, own-architecture [(]qwen3[)] output\n.*best .*\n +layers 0-35: attention 32 heads / 2 KV, FFN 12288\n.*loads    every engine: yes [(]\\[\"Qwen3ForCausalLM\"\\]")
nsc_exit_code_test(prune_uniform_front CODE 2
  ARGS prune examples/configs/qwen3-8b.json --space generic --memory 21.5e9 --uniform --front
  STDERR "--uniform gives one exact answer")
nsc_exit_code_test(prune_uniform_emit_format CODE 2
  ARGS prune examples/configs/qwen3-8b.json --space generic --memory 21.5e9 --uniform --emit-format per-layer
  STDERR "drop --emit-format")
# Issue 18c: new structure in the generic space. gpt_oss (attention sinks, biased attention,
# router and experts, alternating sliding windows) and llama4 (chunked attention, NoPE layers,
# interleaved dense / MoE layers, shared experts) round-trip through the formats that keep the
# model_type; DeciLM's block_configs cannot express sinks / chunks / NoPE and is refused by name.
nsc_prune_round_trip(gptoss20b_per_layer_params
  ARGS examples/configs/gpt-oss-20b.json --space generic --params 15e9 --emit-format per-layer
  WORKLOAD --seq-len 4096)
nsc_prune_round_trip(gptoss20b_per_layer_memory
  ARGS examples/configs/gpt-oss-20b.json --space generic --memory 30e9 --active-params 3.5e9 --emit-format per-layer
  WORKLOAD --seq-len 8192 --context 32768 --batch 4)
nsc_prune_round_trip(gptoss120b_nsc_memory
  ARGS examples/configs/gpt-oss-120b.json --space generic --memory 160e9 --params 80e9 --expert-step 16 --emit-format nsc
  WORKLOAD --seq-len 4096 --batch 8)
nsc_prune_round_trip(llama4scout_nsc_memory
  ARGS examples/configs/llama-4-scout-17b-16e.json --space generic --memory 120e9 --emit-format nsc
  WORKLOAD --seq-len 16384 --context 65536 --batch 2)
nsc_exit_code_test(prune_generic_decilm_sinks CODE 2
  ARGS prune examples/configs/gpt-oss-20b.json --space generic --params 15e9
  STDERR "nsc::prune_emit_config: the decilm format cannot express attention sinks [(]gpt_oss[)]. use --emit-format per-layer or nsc")
nsc_exit_code_test(prune_generic_decilm_wrapper CODE 2
  ARGS prune examples/configs/llama-4-scout-17b-16e.json --space generic --params 80e9 --emit-format decilm
  STDERR "the decilm format cannot express a multimodal config [(]the text decoder in text_config[)]")
nsc_exit_code_test(prune_generic_per_layer_llama4 CODE 2
  ARGS prune examples/configs/llama-4-scout-17b-16e.json --space generic --params 80e9 --emit-format per-layer
  STDERR "which model_type llama4_text does not read. use --emit-format nsc")
nsc_exit_code_test(prune_generic_decilm_dsa CODE 2
  ARGS prune examples/configs/deepseek-v3.2-exp.json --space generic --params 500e9
  STDERR "the decilm format cannot express DSA sparse attention and its indexer [(]deepseek_v32[)]")

# --plot counts the plotter's copy of the front against --max-memory (issue 21: no path past the
# cap): at 80 MB the exact 8B front's listing does not fit; without --plot an eps = 0.01 front of
# 16,977 points does, with --plot (2,048 bytes more per point: plot_front.py's dicts) only the
# eps = 0.05 one (before: eps = 0.01 listed and plotted, 108 MB peak at the 80 MB cap); asked for
# eps = 0.01 with --plot it is refused with the bytes it would need, and nothing is plotted.
nsc_cli_test(prune_front_cap_without_plot
  ARGS prune examples/configs/llama-3-8b.json --space generic --params 5e9 --kv-bytes 1e9 --seq-len 8192 --batch 8
       --front --max-memory 80MB
  PASS "front    16977 points over the budgeted costs, an epsilon-front with eps = 0[.]01:")
nsc_cli_test(prune_front_cap_with_plot
  ARGS prune examples/configs/llama-3-8b.json --space generic --params 5e9 --kv-bytes 1e9 --seq-len 8192 --batch 8
       --front --max-memory 80MB --plot ${CMAKE_CURRENT_BINARY_DIR}/prune_front_cap_with_plot.png
  PASS "front    [0-9]+ points over the budgeted costs, an epsilon-front with eps = 0[.]05:.*5376 per point")
nsc_exit_code_test(prune_front_plot_past_cap CODE 2
  ARGS prune examples/configs/llama-3-8b.json --space generic --params 5e9 --kv-bytes 1e9 --seq-len 8192 --batch 8
       --front --front-epsilon 0.01 --max-memory 80MB --plot ${CMAKE_CURRENT_BINARY_DIR}/prune_front_plot_past_cap.png
  STDERR "listing the epsilon-front needs [0-9]+ bytes [(]16977 points x 5376 bytes[)] beside the [0-9]+ bytes of its DP and points, more than the memory cap [(]got 80000000[)]")

# Issue 19j: one LayerNorm shared by a parallel attention and MLP (falcon-7b's parallel_attn with
# num_ln_in_parallel_attn 1, cohere, cohere2): the norm stays while either sublayer is kept and
# goes with the second; every format that carries it reads back exactly, decilm is refused by name.
nsc_prune_round_trip(falcon7b_nsc_params
  ARGS examples/configs/falcon-7b-instruct.json --space generic --params 5e9 --emit-format nsc
  WORKLOAD --seq-len 2048)
nsc_prune_round_trip(falcon7b_nsc_memory
  ARGS examples/configs/falcon-7b-instruct.json --space generic --memory 8GB --emit-format nsc
  WORKLOAD --seq-len 2048 --context 8192 --batch 4)
nsc_prune_round_trip(falcon7b_uniform_params
  ARGS examples/configs/falcon-7b-instruct.json --space generic --params 5e9 --uniform
  WORKLOAD --seq-len 2048)
nsc_prune_round_trip(command_r7b_per_layer_no_ffn # every FFN removed, the norm kept with the attention
  ARGS examples/configs/command-r7b-12-2024.json --space generic --params 1.6e9 --emit-format per-layer
  WORKLOAD --seq-len 256)
nsc_prune_round_trip(command_r7b_per_layer_memory_kv
  ARGS examples/configs/command-r7b-12-2024.json --space generic --memory 6e9 --kv-bytes 30% --emit-format per-layer
  WORKLOAD --seq-len 256 --context 32768)
nsc_prune_round_trip(aya_expanse_per_layer_params_flops
  ARGS examples/configs/aya-expanse-8b.json --space generic --params 2.5e9 --flops 40% --emit-format per-layer
  WORKLOAD --seq-len 1024)
nsc_prune_round_trip(aya_expanse_nsc_memory
  ARGS examples/configs/aya-expanse-8b.json --space generic --memory 10GB --emit-format nsc
  WORKLOAD --seq-len 1024 --context 8192)
nsc_prune_round_trip(tiny_aya_per_layer_memory
  ARGS examples/configs/tiny-aya-global.json --space generic --memory 4GB --emit-format per-layer
  WORKLOAD --seq-len 256 --context 8192 --batch 8)
nsc_prune_round_trip(tiny_aya_nsc_params
  ARGS examples/configs/tiny-aya-global.json --space generic --params 2e9 --emit-format nsc
  WORKLOAD --seq-len 256)
nsc_exit_code_test(prune_generic_decilm_shared_norm CODE 2
  ARGS prune examples/configs/aya-expanse-8b.json --space generic --params 5e9
  STDERR "layer 0: one norm shared by a parallel attention and MLP [(]cohere, cohere2, falcon parallel_attn[)], which DeciLM's sequential blocks")
nsc_exit_code_test(prune_generic_decilm_shared_norm_falcon CODE 2
  ARGS prune examples/configs/falcon-7b-instruct.json --space generic --params 5e9 --emit-format decilm
  STDERR "What works: --uniform [(]FalconForCausalLM with one shape for every layer, which every engine loads with no remote code[)], or --emit-format nsc [(]heterogeneous")

# --uniform on multimodal wrappers (the fields go into text_config), with per-layer lists cut to the
# kept depth (llama4's moe_layers / no_rope_layers), and the families whose shared expert takes the
# routed experts' width field refused by name unless the width is kept (stop 29).
nsc_prune_round_trip(uniform_wrapper_gemma3
  ARGS examples/configs/gemma-3-4b-it.json --space generic --params 3e9 --uniform
  WORKLOAD --seq-len 256)
nsc_prune_round_trip(uniform_wrapper_ministral3
  ARGS examples/configs/ministral-3-3b-instruct-2512.json --space generic --params 2.5e9 --uniform
  WORKLOAD --seq-len 256)
nsc_prune_round_trip(uniform_llama4_keep_width
  ARGS examples/configs/llama-4-scout-17b-16e.json --space generic --params 80e9 --uniform --keep-expert-width
  WORKLOAD --seq-len 256)
nsc_exit_code_test(prune_uniform_shared_expert_width CODE 2
  ARGS prune examples/configs/ernie-4.5-21b-a3b-pt.json --space generic --params 15e9 --uniform
  STDERR "model_type ernie4_5_moe derives its shared expert's width from the experts' [(]1536 -> shared 3072[)], so a uniform expert width of 1024 would resize the shared expert, which the search keeps; search with --keep-expert-width")
