# `nsc prune ... --weights CKPT --emit-checkpoint OUT` (nsc/io/prune_checkpoint.hpp): pruned
# checkpoints of llama, qwen3, mixtral, gpt_oss (BF16 and MXFP4 experts), granitemoe, qwen2_moe, qwen3_moe, phi3, gemma, gemma3, deepseek_v2, deepseek_v3,
# exaone4, glm4, glm4_moe, gemma2, granite, hunyuan_v1_dense, olmo2, olmoe, minimax_m2, starcoder2, gpt_neox, falcon, opt,
# internlm2, gpt2, cohere, cohere2, falcon-7b's one shared norm and phimoe in every emit format (hybrid layers: nemotron_h,
# qwen3_next, qwen3_5_moe, falcon_h1, granitemoehybrid with and without experts, deepseek_v32 and glm_moe_dsa; hunyuan_v1_moe,
# ernie4_5_moe, llama4 and llama4_text: in the nsc format), read back by nsc score and shown
# equal to the masked original by an independent numpy forward pass (tests/reference/
# check_pruned_checkpoint.py; tiny checkpoints of tests/reference/gen_prune_checkpoints.py), and
# the refusals of bad input. The llama.cpp check is opt-in (label engine; README).
set(_nsc_pc_dir ${CMAKE_CURRENT_BINARY_DIR}/prune_checkpoint)
add_test(NAME cli:prune_checkpoint_reference
  COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/check_prune_checkpoints.py $<TARGET_FILE:nsc_cli>
          ${PROJECT_SOURCE_DIR} ${_nsc_pc_dir})
set_tests_properties(cli:prune_checkpoint_reference PROPERTIES PASS_REGULAR_EXPRESSION "101 cases, 0 failures")
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
# a fused-expert family's tensors checked by name before anything is read (gpt_oss's names under granitemoe's config)
nsc_cli_test(prune_checkpoint_fused_expert_names
  ARGS prune ${_pc}/granitemoe/config.json --space generic --emit-format per-layer --weights ${_pc}/gpt_oss
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "tensor 'model.layers.0.block_sparse_moe.router.layer.weight' is missing from the checkpoint")
nsc_cli_test(prune_checkpoint_mxfp4_dtype_refused
  ARGS prune ${_pc}/gpt_oss_mxfp4/config.json --space generic --emit-format per-layer --keep-expert-width
       --weights ${_pc}/gpt_oss_mxfp4_f32_scales.safetensors --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "tensor 'model.layers.0.mlp.experts.gate_up_proj_scales' has dtype F32 [(]MXFP4 blocks and scales are U8[)]")
# MXFP4 experts (gpt_oss as released): 32-value blocks along the expert width, so only whole experts go
nsc_cli_test(prune_checkpoint_mxfp4_width_refused
  ARGS prune ${_pc}/gpt_oss_mxfp4/config.json --space generic --emit-format per-layer --ffn-multiple 8 --weights ${_pc}/gpt_oss_mxfp4
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "tensor 'model.layers.0.mlp.experts.down_proj_blocks': the experts are MXFP4, whose 32-value blocks run along the expert width [(]32[)] in down_proj, so the width [0-9]+ the space offers would cut blocks: search with --keep-expert-width")
# hybrid layers (issue 19i): a nemotron_h checkpoint's tensors are named as stored (backbone.*)
nsc_cli_test(prune_checkpoint_hybrid_shape_disagrees
  ARGS prune tests/fuzz/corpus/prune_space/tiny_nemotron_h.json --space generic --emit-format nsc
       --weights ${_pc}/nemotron_h --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "nsc::write_pruned_checkpoint: tensor 'backbone.layers.0.norm.weight': shape [[]32[]] disagrees with the config [(]expected [[]128[]][)]")
# granitemoehybrid with experts (issue 19l): a dense checkpoint under a config with experts lacks block_sparse_moe
nsc_cli_test(prune_checkpoint_hybrid_experts_missing
  ARGS prune tests/fuzz/corpus/prune_space/tiny_granite_h.json --space generic --emit-format nsc
       --weights ${_pc}/granitemoehybrid --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "tensor 'model[.]layers[.]0[.]block_sparse_moe[.]input_linear[.]weight' is missing from the checkpoint")
nsc_cli_test(prune_checkpoint_whole_qk_norm_keeps_heads
  ARGS prune ${_pc}/olmo2/config.json --space generic --emit-format per-layer --weights ${_pc}/olmo2
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "layer 0's q_norm / k_norm normalise the whole projection [(]heads x head_dim[)], so dropping or pooling heads would change the kept heads: search with every head kept [(]nsc prune --head-step 4 --kv-heads-min 4")
# own-name families: gpt_neox pairs each query head with its KV head; falcon-7b's config against a
# new-architecture checkpoint; messages name the family's own tensor names
nsc_cli_test(prune_checkpoint_gpt_neox_keeps_heads
  ARGS prune ${_pc}/gpt_neox/config.json --space generic --emit-format per-layer --weights ${_pc}/gpt_neox
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "layer 0: gpt_neox has one KV head per query head, so an option with 4 query heads and 2 KV heads has no checkpoint: search with every head kept [(]nsc prune --head-step 4 --kv-heads-min 4")
nsc_cli_test(prune_checkpoint_falcon_shared_norm_names
  ARGS prune examples/configs/falcon-7b-instruct.json --space generic --emit-format nsc --weights ${_pc}/falcon
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "tensor 'transformer[.]h[.]0[.]ln_attn[.]weight': shape [[]32[]] disagrees with the config [(]expected [[]4544[]][)]")
# issue 19j: cohere's k_norm has one row per KV head, so KV heads are kept; falcon-7b has no DeciLM form
nsc_cli_test(prune_checkpoint_cohere_kv_pooling_refused
  ARGS prune ${_pc}/cohere/config.json --space generic --emit-format per-layer --weights ${_pc}/cohere
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "layer 0: cohere's k_norm holds one weight row per KV head [(]CohereLayerNorm over [(]KV heads, head_dim[)], applied before attention[)], so a KV head pooled from several has no k_norm that gives their normalised keys: search with every KV head kept [(]nsc prune --kv-heads-min 2")
nsc_cli_test(prune_checkpoint_falcon7b_decilm_refused
  ARGS prune ${_pc}/falcon7b/config.json --space generic --emit-format decilm --weights ${_pc}/falcon7b
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "a falcon checkpoint cannot be written in the decilm format")
nsc_cli_test(prune_checkpoint_own_name_missing
  ARGS prune ${_pc}/gpt_neox/config.json --space generic --emit-format nsc --weights ${_pc}/falcon
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "tensor 'gpt_neox[.]layers[.]0[.]input_layernorm[.]weight' is missing from the checkpoint")
nsc_cli_test(prune_checkpoint_gpt2_spectral_refused
  ARGS prune ${_pc}/gpt2/config.json --space generic --emit-format nsc --criterion spectral --weights ${_pc}/gpt2
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "nsc::prune_weight_values: the gpt2 checkpoint stores its weights transposed [(]Conv1D[)], which --score weights and --criterion spectral do not read yet")
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
# (tests/tools/check_weight_scores.py: 3-layer llama, 2-layer mixtral and gpt_oss (fused 3-D experts), both
# criteria, params budgets).
add_test(NAME cli:prune_weight_scores
  COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/check_weight_scores.py $<TARGET_FILE:nsc_cli> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:prune_weight_scores PROPERTIES PASS_REGULAR_EXPRESSION "22 cases, 0 failures")
nsc_cli_test(prune_score_weights_needs_weights
  ARGS prune ${_pc}/llama/config.json --space generic --score weights
  PASS "--score weights needs --weights CKPT")
nsc_cli_test(prune_weights_needs_a_use
  ARGS prune ${_pc}/llama/config.json --space generic --weights ${_pc}/llama
  PASS "--weights CKPT is read by --emit-checkpoint OUT or --score weights [(]got neither[)]")
# issue 19k: gemma4's per-layer embeddings and KV-shared layers stay refused by name (the pruning space), before any
# checkpoint is read; gemma-4-31B's shape is sliced (cli:prune_checkpoint_reference)
nsc_cli_test(prune_checkpoint_gemma4_e2b_refused
  ARGS prune examples/configs/gemma-4-e2b-it.json --space generic --emit-format nsc --weights ${_pc}/gemma4
       --emit-checkpoint ${_nsc_pc_dir}/x
  PASS "the model has per-layer embeddings [(]Gemma 4 hidden_size_per_layer_input.*KV-shared layers [(]Gemma 4 num_kv_shared_layers")
