# `nsc score CONFIG.json ...` (examples/nsc/cmd_score.cpp) on the bundled Hugging Face configs.
# JSON objects are printed with sorted keys on one line, so one ordered regex checks them all.

nsc_cli_test(score_llama7b_json
  ARGS score examples/configs/llama-7b.json --json
  PASS "^\\{\"attention\":\"full\",\"batch\":1,\"context\":256,\"conv_state_dtype\":\"bf16\",\"decode_flops_per_token\":[0-9]+,\"estimator\":\"mp\",\"flops_convention\":\"FLOPs = 2 x MACs;[^\"]*\",\"flops_per_token\":[0-9.e+]+,\"init\":\"xavier_normal\",\"kv_cache_bytes\":134217728,\"kv_cache_bytes_per_token\":524288,\"kv_dtype\":\"bf16\",\"layers\":\\[\\{\"attention\":0[.0]*,\"chunk\":0,\"decode_flops\":0,\"ffn\":0[.0]*,\"flops_per_token\":0[.0]*,\"kv_cache_bytes\":0,\"kv_cache_bytes_per_token\":0,\"memory_bytes\":262144000,\"name\":\"embeddings\",\"nsc\":0[.0]*,\"other\":0[.0]*,\"params\":131072000,\"params_active\":131072000,\"repeat\":1,\"router\":0[.0]*,\"weight_bytes\":262144000,\"window\":0\\},\\{\"attention\":[0-9.e+]+,\"chunk\":0,\"decode_flops\":[0-9]+,\"ffn\":[0-9.e+]+,\"flops_per_token\":[0-9.e+]+,\"kv_cache_bytes\":4194304,\"kv_cache_bytes_per_token\":16384,\"memory_bytes\":[0-9]+,\"name\":\"layers.0-31\",\"nsc\":[0-9.e+]+,\"other\":[0-9.e+-]+,\"params\":202383360,.*\"layers_total\":32,\"macs_per_token\":[0-9.e+]+,\"memory_bytes\":[0-9]+,\"model\":\"llama-7b\",\"model_type\":\"llama\",\"notes\":\\[\\],\"nsc\":[0-9.e+]+,\"params_active\":6738415616,\"params_non_embedding\":6476271616,\"params_total\":6738415616,\"prefill_flops\":[0-9]+,\"seq_len\":256[.0]*,\"state_bytes\":0,\"state_dtype\":\"bf16\",\"text_config\":false,\"variance_source\":\"block\",\"weight_bytes\":13476831232,\"weight_dtype\":\"fp16\",\"weight_dtype_source\":\"torch_dtype float16\"\\}\n$")
nsc_cli_test(score_llama7b_format_json
  ARGS score examples/configs/llama-7b.json --format json --seq-len 2048
  PASS "\"params_total\":6738415616,\"prefill_flops\":[0-9]+,\"seq_len\":2048")
nsc_cli_test(score_mixtral_active
  ARGS score examples/configs/mixtral-8x7b.json --json
  PASS "\"params_active\":12879925248,\"params_non_embedding\":46440648704,\"params_total\":46702792704")
nsc_cli_test(score_table
  ARGS score examples/configs/gpt2.json
  PASS "params total   124,439,808\nparams non-emb 85,056,000\nparams active  124,439,808\nworkload       prefill T = 256 tokens, full attention; context C = 256, batch 1; KV bf16, weights bf16\nFLOPs/token .*\nprefill FLOPs .*\ndecode FLOPs .*\nKV cache       9,437,184 bytes [(]9.00 MiB[)] at C x batch; 36,864 bytes per token\nweights        248,879,616 bytes .*\nmemory         258,316,800 bytes .*\n\nlayer +repeat +nsc +attention +ffn +params +flops/token +kv bytes\nembeddings +1 .*\nlayers.0-11 +12 .* 7,087,872 .*\nfinal_norm +1 .*\nlm_head +1 +0 +0 +0 +0 +7[.]7[0-9e+.]* +0\n")
nsc_cli_test(score_table_bert
  ARGS score examples/configs/bert-base-uncased.json --estimator fs --init hf
  PASS "scoring        init hf: normal[(]0.02[)], variance per tensor, psi_fs.*params total   109,482,240")
nsc_cli_test(score_csv
  ARGS score examples/configs/qwen2-7b.json --format csv --qkv merged
  PASS "^layer,nsc,attention,ffn,router,other,params,params_active,flops_per_token,decode_flops,kv_cache_bytes,weight_bytes,memory_bytes,repeat\nembeddings,0,0,0,0,0,544997376,544997376,0,0,0,1089994752,1089994752,1\nlayers.0-27,.*,28\n.*total,[0-9.e+]+,[0-9.e+]+,[0-9.e+]+,0,[0-9.e+-]+,7615616512,7615616512,[0-9.e+]+,[0-9]+,[0-9]+,15231233024,[0-9]+,\n$")
nsc_cli_test(score_llama3_8b
  ARGS score examples/configs/llama-3-8b.json --init kaiming_normal --variance-source tensor --json
  PASS "\"params_total\":8030261248")
nsc_cli_test(score_gpt2_medium
  ARGS score examples/configs/gpt2-medium.json --json --o-proj per_head --score-embeddings
  PASS "\"params_total\":354823168")
nsc_cli_test(score_mistral
  ARGS score examples/configs/mistral-7b.json --json
  PASS "\"params_total\":7241732096")

# Every new family reads, with its published total (see tests/reference/gen_family_params.py).
nsc_cli_test(score_gemma2_9b
  ARGS score examples/configs/gemma-2-9b.json --json
  PASS "\"params_total\":9241705984")
nsc_cli_test(score_gemma3_text_config
  ARGS score examples/configs/gemma-3-4b-it.json
  PASS "model          google/gemma-3-4b-it|gemma-3-4b-it [(]gemma3_text, text decoder of a multimodal config[)], 34 layers.*params total   3,880,263,168")
nsc_cli_test(score_phi3
  ARGS score examples/configs/phi-3-mini-4k-instruct.json --json
  PASS "\"params_total\":3821079552")
nsc_cli_test(score_qwen3
  ARGS score examples/configs/qwen3-8b.json --json
  PASS "\"params_total\":8190735360")
nsc_cli_test(score_qwen3_moe
  ARGS score examples/configs/qwen3-30b-a3b.json --json
  PASS "\"params_active\":3353032704,\"params_non_embedding\":[0-9]+,\"params_total\":30532122624")
nsc_cli_test(score_qwen2_moe
  ARGS score examples/configs/qwen1.5-moe-a2.7b.json --json
  PASS "\"params_active\":2689173504,\"params_non_embedding\":[0-9]+,\"params_total\":14315784192")
nsc_cli_test(score_pythia
  ARGS score examples/configs/pythia-160m.json --json
  PASS "\"params_total\":162322944")
nsc_cli_test(score_olmo2
  ARGS score examples/configs/olmo-2-1124-7b.json --json
  PASS "\"params_total\":7298617344")
nsc_cli_test(score_nemotron_nas
  ARGS score examples/configs/nemotron-nas-example.json --json
  PASS "\"params_total\":747008000")
# DeepSeek-V3 at a serving workload: MLA's latent KV (70,272 bytes per token), 8 sequences of 32k.
nsc_cli_test(score_deepseek_v3_workload
  ARGS score examples/configs/deepseek-v3.json --json --context 32768 --batch 8 --attention causal --seq-len 4096
  PASS "\"attention\":\"causal\",\"batch\":8,\"context\":32768,.*\"kv_cache_bytes\":18421383168,\"kv_cache_bytes_per_token\":70272,\"kv_dtype\":\"bf16\",.*\"params_active\":37552297472,\"params_non_embedding\":669173061120,\"params_total\":671026419200,.*\"weight_bytes\":673150582112,\"weight_dtype\":\"fp8\",\"weight_dtype_source\":\"quantization_config fp8 block 128x128 [(]fp32 scales[)]; other weights torch_dtype bfloat16\"")
# Issue 18a. Weight bytes as the checkpoint stores them (DeepSeek-V3's fp8 blocks above), unless
# --weight-dtype; the source is named.
nsc_cli_test(score_weight_dtype_override
  ARGS score examples/configs/deepseek-v3.json --json --weight-dtype bf16
  PASS "\"weight_bytes\":1342052838400,\"weight_dtype\":\"bf16\",\"weight_dtype_source\":\"--weight-dtype bf16\"")
# MTP modules: always reported apart; --mtp counts them (671,026,419,200 + 11,610,068,224).
nsc_cli_test(score_mtp_reported
  ARGS score examples/configs/deepseek-v3.json
  PASS "MTP            1 module [(]num_nextn_predict_layers[)]: 11,610,068,224 params [(]688,100,608 active;.*not in the totals [(]--mtp counts them[)]\nparams total   671,026,419,200")
nsc_cli_test(score_mtp_counted
  ARGS score examples/configs/deepseek-v3.json --json --mtp
  PASS "\"params_total\":682636487424")
nsc_cli_test(score_mtp_absent
  ARGS score examples/configs/qwen3-8b.json --mtp
  PASS "nsc score: --mtp: the config has no multi-token-prediction module")
# MiMo-7B with its MTP module and granite-3.1-1b-a400m (float32): the weight bytes are the
# checkpoints' published model.safetensors.index.json total_size.
nsc_cli_test(score_mimo_mtp_stored
  ARGS score examples/configs/mimo-7b.json --json --mtp
  PASS "\"params_total\":7833409536,.*\"weight_bytes\":15666819072,\"weight_dtype\":\"bf16\"")
nsc_cli_test(score_granitemoe_float32
  ARGS score examples/configs/granite-3.1-1b-a400m-instruct.json --json
  PASS "\"params_active\":428658688,\"params_non_embedding\":[0-9]+,\"params_total\":1334628352,.*\"weight_bytes\":5338513408,\"weight_dtype\":\"fp32\"")
nsc_cli_test(score_smollm3_nope
  ARGS score examples/configs/smollm3-3b.json
  PASS "note           NoPE layers [(]no rotary positions. global attention[)]: 3, 7, 11, 15, 19, 23, 27, 31, 35\nparams total   3,075,098,624")
nsc_cli_test(score_granite
  ARGS score examples/configs/granite-3.3-8b-instruct.json --json
  PASS "\"params_total\":8170864640")
nsc_cli_test(score_glm45_air_mtp
  ARGS score examples/configs/glm-4.5-air.json --json --mtp
  PASS "\"params_total\":109227310848")
nsc_cli_test(score_minimax_m27_fp8
  ARGS score examples/configs/minimax-m2.7.json --json
  PASS "\"params_active\":11030553088,\"params_non_embedding\":[0-9]+,\"params_total\":228689764864,.*\"weight_bytes\":230024081408,\"weight_dtype\":\"fp8\"")
nsc_cli_test(score_phimoe
  ARGS score examples/configs/phi-3.5-moe-instruct.json --json
  PASS "\"params_active\":6640999744,\"params_non_embedding\":[0-9]+,\"params_total\":41873153344")
nsc_cli_test(score_olmoe
  ARGS score examples/configs/olmoe-1b-7b-0924-instruct.json --json
  PASS "\"params_active\":1282017280,\"params_non_embedding\":[0-9]+,\"params_total\":6919161856")
# Issue 18d: one released config per new family, params as published (README: sources).
nsc_cli_test(score_cohere_aya
  ARGS score examples/configs/aya-expanse-8b.json --json
  PASS "\"params_total\":8028033024,.*\"weight_dtype\":\"fp16\",\"weight_dtype_source\":\"torch_dtype float16\"")
nsc_cli_test(score_cohere2_windows # (24 sliding layers x 4096 + 8 global x 32768 tokens) x 4 KiB
  ARGS score examples/configs/command-r7b-12-2024.json --context 32768 --json
  PASS "\"kv_cache_bytes\":1476395008,")
nsc_cli_test(score_internlm2
  ARGS score examples/configs/internlm2_5-7b-chat.json --json
  PASS "\"params_total\":7737708544")
nsc_cli_test(score_seed_oss
  ARGS score examples/configs/seed-oss-36b-instruct.json --json
  PASS "\"params_total\":36151104512")
nsc_cli_test(score_granite4_micro
  ARGS score examples/configs/granite-4.0-micro.json --json
  PASS "\"params_total\":3402836480")
# Issue 18e: falcon (the hub's totals add the tied head stored as its own tensor), exaone4's
# windows (48 sliding layers x 4096 + 16 global x 32768 tokens, x 4 KiB), GLM-5 (the hub's
# 753,864,139,008 = the model + its MTP module), ERNIE / Hunyuan MoE active params, Kimi K2's fp8 bytes.
nsc_cli_test(score_falcon40b
  ARGS score examples/configs/falcon-40b-instruct.json --json
  PASS "\"kv_cache_bytes_per_token\":122880,.*\"params_total\":41303293952")
nsc_cli_test(score_exaone4_windows
  ARGS score examples/configs/exaone-4.0-32b.json --context 32768 --json
  PASS "\"kv_cache_bytes\":2952790016,.*\"params_total\":32003216384")
nsc_cli_test(score_glm5_mtp
  ARGS score examples/configs/glm-5.json
  PASS "DSA sparse attention on 78 layers.*MTP            1 module [(]num_nextn_predict_layers[)]: 9,952,920,576 params.*params total   743,911,218,432")
nsc_cli_test(score_ernie_moe
  ARGS score examples/configs/ernie-4.5-21b-a3b-pt.json --json
  PASS "\"params_active\":3352150208,\"params_non_embedding\":[0-9]+,\"params_total\":21825437888")
nsc_cli_test(score_hunyuan_moe
  ARGS score examples/configs/hunyuan-a13b-instruct.json --json
  PASS "\"params_active\":12747448320,\"params_non_embedding\":[0-9]+,\"params_total\":80393183232")
nsc_cli_test(score_kimi_k2_fp8
  ARGS score examples/configs/kimi-k2-instruct.json
  PASS "params total   1,026,408,232,448.*weights        1,029,173,203,808 bytes [(]958.49 GiB[)], quantization_config fp8 block 128x128")
nsc_cli_test(score_mistral3_vision # text 23,572,403,200 + Pixtral 438,958,080 = the published 24,011,361,280
  ARGS score examples/configs/mistral-small-3.1-24b-instruct-2503.json
  PASS "vision tower and projector are not counted [(]438958080 parameters[)].*params total   23,572,403,200")
# Gemma 4 (issue 18g): E2B's KV-shared layers cache nothing (18,432 KV bytes per token from the 15
# layers that compute keys), its towers are printed apart; 26B-A4B's MoE block: 3.8B active.
nsc_cli_test(score_gemma4_e2b_kv_shared_towers
  ARGS score examples/configs/gemma-4-e2b-it.json --context 32768
  PASS "layers 15-34 [(]20 of 35[)] are KV-shared.*vision tower and projector [(]168544256 parameters[)] and the audio tower and projector [(]307183904 parameters[)].*params total   4,628,569,344.*18,432 bytes per token.*layers.15-18 +4 .* 63,708,928 ")
nsc_cli_test(score_gemma4_26b_a4b_moe
  ARGS score examples/configs/gemma-4-26b-a4b-it.json
  PASS "Gemma 4 MoE block.*[(]572792112 parameters[)].*params total   25,233,141,760.*params active  3,822,530,560")
nsc_cli_test(score_families_in_help
  ARGS score --help
  PASS "kimi_k2, granite, granitemoe, smollm3")
# Gemma 2: alternate sliding-window layers cache at most 4096 tokens; int4 weights, fp8 KV:
# 13 x 2048 x (4096 + 16384) bytes by hand.
nsc_cli_test(score_gemma2_window_table
  ARGS score examples/configs/gemma-2-2b.json --context 16384 --kv-dtype fp8 --weight-dtype int4
  PASS "KV cache       545,259,520 bytes [(]520.00 MiB[)] at C x batch; 53,248 bytes per token")
# Prefill FLOPs beyond 2^64 are printed exactly (a string of digits in JSON).
nsc_cli_test(score_prefill_beyond_2_64
  ARGS score examples/configs/deepseek-v3.json --json --seq-len 1000000000 --attention causal
  PASS "\"prefill_flops\":\"[0-9]+\"")
nsc_cli_test(score_bad_seq_len_fraction
  ARGS score examples/configs/gpt2.json --seq-len 2.5
  PASS "--seq-len: cannot read '2[.]5' [(]not a whole number of tokens[)]")
nsc_cli_test(score_bad_kv_dtype
  ARGS score examples/configs/gpt2.json --kv-dtype int4
  WILL_FAIL)
nsc_cli_test(score_bad_batch
  ARGS score examples/configs/gpt2.json --batch 0
  WILL_FAIL)
nsc_cli_test(score_bad_attention
  ARGS score examples/configs/gpt2.json --attention sparse
  WILL_FAIL)
nsc_cli_test(score_directory
  ARGS score examples/configs
  PASS "nsc::read_hf_config: examples/configs: is a directory, not a file")

# Unhappy paths: non-zero exit and a message naming the problem.
nsc_cli_test(score_bad_path
  ARGS score examples/configs/no-such-model.json
  WILL_FAIL)
nsc_cli_test(score_bad_path_message
  ARGS score examples/configs/no-such-model.json
  PASS "nsc: error: nsc::read_hf_config: examples/configs/no-such-model.json: cannot open file [(]no such file[)]")
nsc_cli_test(score_not_json
  ARGS score CMakeLists.txt
  PASS "nsc::read_hf_config: CMakeLists.txt: invalid JSON")
nsc_cli_test(score_bad_init
  ARGS score examples/configs/gpt2.json --init glorot
  PASS "unknown initialisation; expected one of xavier_normal")
nsc_cli_test(score_bad_seq_len
  ARGS score examples/configs/gpt2.json --seq-len 0
  WILL_FAIL)
nsc_cli_test(score_missing_config
  ARGS score
  WILL_FAIL)

# Malformed configs, written at configure time.
set(_nsc_score_bad_dir ${CMAKE_CURRENT_BINARY_DIR}/score_bad_configs)
file(WRITE ${_nsc_score_bad_dir}/bad_hidden.json
  "{\"model_type\": \"llama\", \"hidden_size\": \"abc\", \"intermediate_size\": 11008, \"num_hidden_layers\": 2, \"num_attention_heads\": 32, \"vocab_size\": 32000}\n")
file(WRITE ${_nsc_score_bad_dir}/bad_type.json "{\"model_type\": \"t5\", \"d_model\": 512}\n")
file(WRITE ${_nsc_score_bad_dir}/bad_kv.json
  "{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 2, \"num_attention_heads\": 32, \"num_key_value_heads\": 5, \"vocab_size\": 32000}\n")
file(WRITE ${_nsc_score_bad_dir}/missing.json
  "{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 12, \"vocab_size\": 50257, \"n_positions\": 1024}\n")
# Hostile configs (issue 13): overflow is an error, not a wrapped number; sizes are bounded.
file(WRITE ${_nsc_score_bad_dir}/huge_hidden.json
  "{\"model_type\": \"llama\", \"hidden_size\": 1e12, \"intermediate_size\": 11008, \"num_hidden_layers\": 2, \"num_attention_heads\": 32, \"vocab_size\": 32000}\n")
file(WRITE ${_nsc_score_bad_dir}/huge_vocab.json
  "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 11008, \"num_hidden_layers\": 2, \"num_attention_heads\": 32, \"vocab_size\": 5e15}\n")
file(WRITE ${_nsc_score_bad_dir}/many_layers.json
  "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 11008, \"num_hidden_layers\": 2000000, \"num_attention_heads\": 32, \"vocab_size\": 32000}\n")
file(WRITE ${_nsc_score_bad_dir}/out_of_range.json
  "{\"model_type\": \"llama\", \"hidden_size\": 1e400}\n")
string(REPEAT "[" 100000 _nsc_open)
string(REPEAT "]" 100000 _nsc_close)
file(WRITE ${_nsc_score_bad_dir}/deep.json "{\"model_type\": ${_nsc_open}${_nsc_close}}\n")
nsc_cli_test(score_huge_hidden
  ARGS score ${_nsc_score_bad_dir}/huge_hidden.json
  PASS "nsc: error: nsc::weight: parameters of '[a-z_]+' overflows the signed 64-bit range")
nsc_cli_test(score_huge_hidden_exit
  ARGS score ${_nsc_score_bad_dir}/huge_hidden.json
  WILL_FAIL)
nsc_cli_test(score_huge_vocab
  ARGS score ${_nsc_score_bad_dir}/huge_vocab.json
  PASS "nsc: error: nsc::weight: parameters of 'embed_tokens' overflows the signed 64-bit range [(]5000000000000000 [*] 4096[)]")
# 2,000,000 identical layers are one run (tests/cli/multiplicity.cmake has more): exact totals.
nsc_cli_test(score_many_layers
  ARGS score ${_nsc_score_bad_dir}/many_layers.json
  PASS "2,000,000 layers.*params total   404,766,982,148,096\n")
nsc_cli_test(score_out_of_range_number
  ARGS score ${_nsc_score_bad_dir}/out_of_range.json
  PASS "nsc::read_hf_config: .*out_of_range.json: invalid JSON")
nsc_cli_test(score_deep_json
  ARGS score ${_nsc_score_bad_dir}/deep.json
  PASS "nsc::read_hf_config: .*deep.json: JSON nested deeper than 64 levels")

nsc_cli_test(score_malformed_field
  ARGS score ${_nsc_score_bad_dir}/bad_hidden.json
  PASS "nsc: error: nsc::read_hf_config: field 'hidden_size' must be a positive integer [(]got \"abc\"[)]")
nsc_cli_test(score_malformed_field_exit
  ARGS score ${_nsc_score_bad_dir}/bad_hidden.json
  WILL_FAIL)
nsc_cli_test(score_unknown_model_type
  ARGS score ${_nsc_score_bad_dir}/bad_type.json
  PASS "nsc: error: nsc::read_hf_config: unknown model_type; supported: llama, mistral, mixtral, qwen2, qwen3, .*, gpt2, bert, opt, kimi_k2, .*, cohere, cohere2, internlm2, seed_oss, granitemoehybrid, falcon, .*, ernie4_5_moe, gemma4 / gemma4_text [(]and multimodal wrappers holding one of these in text_config: .*[)] [(]got \"t5\"[)]")
nsc_cli_test(score_kv_heads
  ARGS score ${_nsc_score_bad_dir}/bad_kv.json
  PASS "field 'num_key_value_heads' must divide num_attention_heads = 32 [(]got 5[)]")
nsc_cli_test(score_missing_field
  ARGS score ${_nsc_score_bad_dir}/missing.json
  PASS "missing field 'n_head' [(]model_type gpt2[)]")

# Issue 18c: the new structures are stated next to the numbers (sinks, chunked / NoPE layers,
# DSA, a wrapper's vision tower with its parameter count), and --help lists the families.
nsc_cli_test(score_gpt_oss_notes
  ARGS score examples/configs/gpt-oss-20b.json
  PASS "note           attention sinks: one learned logit per query head on 24 layers [(]1536 parameters.*\nparams total   20,914,757,184\n")
nsc_cli_test(score_llama4_notes
  ARGS score examples/configs/llama-4-scout-17b-16e.json --json
  PASS "\"notes\":\\[\"chunked attention [(]chunk 8192 tokens[)] on 36 layers.*\"NoPE layers [(]no rotary positions. global attention[)]: 3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47\".*vision tower and projector are not counted [(]871932416 parameters[)].*\"params_total\":107769861120.*\"vision_params_not_counted\":871932416")
nsc_cli_test(score_dsa_notes
  ARGS score examples/configs/deepseek-v3.2-exp.json
  PASS "note           DSA sparse attention on 61 layers: attends at most index_topk = 2048 keys.*\nparams total   671,877,944,064\n")
nsc_cli_test(score_help_families
  ARGS score --help
  PASS "gpt_oss, llama4 / llama4_text.*cohere, cohere2, internlm2, seed_oss, granitemoehybrid, falcon, falcon_h1, internlm3, ernie4_5, exaone4, hunyuan_v1_dense, hunyuan_v1_moe, glm_moe_dsa, ernie4_5_moe.*attention sinks [(]gpt_oss[)] are n_heads parameters per layer.*granitemoehybrid layer_types mamba.*cohere / cohere2: one weight-only LayerNorm per.*falcon_h1: every layer runs attention and a Mamba-2 mixer in parallel.*glm_moe_dsa: DeepSeek-V3.2's DSA")
