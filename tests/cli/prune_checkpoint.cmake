# `nsc prune ... --weights CKPT --emit-checkpoint OUT` (nsc/io/prune_checkpoint.hpp): pruned
# checkpoints of llama, qwen3, mixtral, qwen2_moe, qwen3_moe, phi3, gemma, gemma3, deepseek_v2, deepseek_v3,
# exaone4, glm4, glm4_moe, gemma2, granite, hunyuan_v1_dense, olmo2, olmoe and minimax_m2 in every emit format
# (hybrid layers, issue 19i: nemotron_h, qwen3_next, qwen3_5_moe, falcon_h1, granitemoehybrid, deepseek_v32 and glm_moe_dsa in the nsc format), read back by nsc score and shown
# equal to the masked original by an independent numpy forward pass (tests/reference/
# check_pruned_checkpoint.py; tiny checkpoints of tests/reference/gen_prune_checkpoints.py), and
# the refusals of bad input. The llama.cpp check is opt-in (label engine; README).
set(_nsc_pc_dir ${CMAKE_CURRENT_BINARY_DIR}/prune_checkpoint)
add_test(NAME cli:prune_checkpoint_reference
  COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/check_prune_checkpoints.py $<TARGET_FILE:nsc_cli>
          ${PROJECT_SOURCE_DIR} ${_nsc_pc_dir})
set_tests_properties(cli:prune_checkpoint_reference PROPERTIES PASS_REGULAR_EXPRESSION "52 cases, 0 failures")
add_test(NAME cli:prune_checkpoint_llama_cpp
  COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/check_llama_cpp.py $<TARGET_FILE:nsc_cli>
          ${PROJECT_SOURCE_DIR} ${_nsc_pc_dir})
set_tests_properties(cli:prune_checkpoint_llama_cpp PROPERTIES SKIP_RETURN_CODE 77 LABELS engine)

set(_pc tests/data/prune_ckpt)
nsc_cli_test(prune_checkpoint_needs_weights
  ARGS prune ${_pc}/llama/config.json --space generic --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "--emit-checkpoint OUT needs --weights CKPT [(]the checkpoint to slice[)]")
nsc_cli_test(prune_checkpoint_needs_generic
  ARGS prune ${_pc}/llama/config.json --space lonas --weights ${_pc}/llama --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "--weights / --emit-checkpoint need --space generic")
nsc_cli_test(prune_checkpoint_shape_disagrees
  ARGS prune ${_pc}/qwen3/config.json --space generic --emit-format per-layer --weights ${_pc}/llama
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "nsc::write_pruned_checkpoint: tensor 'model.layers.0.input_layernorm.weight': shape [[]64[]] disagrees with the config [(]expected [[]48[]][)]")
nsc_cli_test(prune_checkpoint_family_refused
  ARGS prune examples/configs/gpt-oss-20b.json --space generic --weights ${_pc}/llama --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "model_type 'gpt_oss' has no checkpoint pruning: fused, biased 3-D expert tensors [(]gate_up_proj interleaved[)] and attention sinks [(]not sliced yet[)] [(]supported: llama, mistral, .*deepseek_v2, .*kimi_k2, glm4_moe[,)]")
# hybrid layers (issue 19i): a nemotron_h checkpoint's tensors are named as stored (backbone.*)
nsc_cli_test(prune_checkpoint_hybrid_shape_disagrees
  ARGS prune tests/fuzz/corpus/prune_space/tiny_nemotron_h.json --space generic --emit-format nsc
       --weights ${_pc}/nemotron_h --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "nsc::write_pruned_checkpoint: tensor 'backbone.layers.0.norm.weight': shape [[]32[]] disagrees with the config [(]expected [[]128[]][)]")
nsc_cli_test(prune_checkpoint_hybrid_fused_experts_refused
  ARGS prune tests/fuzz/corpus/prune_space/tiny_granite_h.json --space generic --emit-format nsc
       --weights ${_pc}/granitemoehybrid --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "layer 0: the granitemoehybrid layout slices no experts: its fused 3-D experts are not sliced yet")
nsc_cli_test(prune_checkpoint_whole_qk_norm_keeps_heads
  ARGS prune ${_pc}/olmo2/config.json --space generic --emit-format per-layer --weights ${_pc}/olmo2
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "layer 0's q_norm / k_norm normalise the whole projection [(]heads x head_dim[)], so dropping or pooling heads would change the kept heads: search with every head kept [(]nsc prune --head-step 4 --kv-heads-min 4")
nsc_cli_test(prune_checkpoint_mtp_layer_refused
  ARGS prune ${_pc}/deepseek_v3/config.json --space generic --emit-format nsc --weights ${_pc}/deepseek_v3_mtp.safetensors
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "tensor 'model.layers.3.enorm.weight' is in layer 3 but the config has 3 layers [(]a multi-token-prediction module")
nsc_cli_test(prune_checkpoint_mixtral_decilm_refused
  ARGS prune ${_pc}/mixtral/config.json --space generic --emit-format decilm --weights ${_pc}/mixtral
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "a mixtral checkpoint cannot be written in the decilm format")
nsc_cli_test(prune_checkpoint_output_not_empty
  ARGS prune ${_pc}/llama/config.json --space generic --weights ${_pc}/llama --emit-checkpoint ${_pc}/qwen3
  PASS "tests/data/prune_ckpt/qwen3: the output directory must be new or empty")
nsc_cli_test(prune_checkpoint_missing_tensor
  ARGS prune ${_pc}/llama/config.json --space generic --weights ${_pc}/llama/model-00001-of-00002.safetensors
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "tensor 'model.layers.[0-9]+[.][a-z_.]+' is missing from the checkpoint")
# --score weights: every option's psi_W value and the knapsack's answer against numpy and brute force
# (tests/tools/check_weight_scores.py: 3-layer llama and 2-layer mixtral, both criteria, params budgets).
add_test(NAME cli:prune_weight_scores
  COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/check_weight_scores.py $<TARGET_FILE:nsc_cli> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:prune_weight_scores PROPERTIES PASS_REGULAR_EXPRESSION "16 cases, 0 failures")
nsc_cli_test(prune_score_weights_needs_weights
  ARGS prune ${_pc}/llama/config.json --space generic --score weights
  PASS "--score weights needs --weights CKPT")
nsc_cli_test(prune_weights_needs_a_use
  ARGS prune ${_pc}/llama/config.json --space generic --weights ${_pc}/llama
  PASS "--weights CKPT is read by --emit-checkpoint OUT or --score weights [(]got neither[)]")
