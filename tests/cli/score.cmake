# `nsc score CONFIG.json ...` (examples/nsc/cmd_score.cpp) on the bundled Hugging Face configs.
# JSON objects are printed with sorted keys on one line, so one ordered regex checks them all.

nsc_cli_test(score_llama7b_json
  ARGS score examples/configs/llama-7b.json --json
  PASS "^\\{\"estimator\":\"mp\",\"flops_per_token\":[0-9.e+]+,\"init\":\"xavier_normal\",\"layers\":\\[\\{\"attention\":0[.0]*,\"ffn\":0[.0]*,\"flops_per_token\":0[.0]*,\"name\":\"embeddings\",\"nsc\":0[.0]*,\"other\":0[.0]*,\"params\":131072000,\"params_active\":131072000,\"router\":0[.0]*\\},\\{\"attention\":[0-9.e+]+,\"ffn\":[0-9.e+]+,\"flops_per_token\":[0-9.e+]+,\"name\":\"layers.0\",\"nsc\":[0-9.e+]+,\"other\":[0-9.e+-]+,\"params\":202383360,.*\"macs_per_token\":[0-9.e+]+,\"model\":\"llama-7b\",\"model_type\":\"llama\",\"nsc\":[0-9.e+]+,\"params_active\":6738415616,\"params_non_embedding\":6476271616,\"params_total\":6738415616,\"seq_len\":256[.0]*,\"variance_source\":\"block\"\\}\n$")
nsc_cli_test(score_llama7b_format_json
  ARGS score examples/configs/llama-7b.json --format json --seq-len 2048
  PASS "\"params_total\":6738415616,\"seq_len\":2048")
nsc_cli_test(score_mixtral_active
  ARGS score examples/configs/mixtral-8x7b.json --json
  PASS "\"params_active\":12879925248,\"params_non_embedding\":46440648704,\"params_total\":46702792704")
nsc_cli_test(score_table
  ARGS score examples/configs/gpt2.json
  PASS "params total   124,439,808\nparams non-emb 85,056,000\nparams active  124,439,808\nFLOPs/token .*\nlayer +nsc +attention +ffn +params +flops/token\nembeddings .*\nlayers.0 .*\nlayers.11 .*\nfinal_norm .*\nlm_head +0 +0 +0 +0 +7[.]7")
nsc_cli_test(score_table_bert
  ARGS score examples/configs/bert-base-uncased.json --estimator fs --init hf
  PASS "scoring        init hf: normal[(]0.02[)], variance per tensor, psi_fs.*params total   109,482,240")
nsc_cli_test(score_csv
  ARGS score examples/configs/qwen2-7b.json --format csv --qkv merged
  PASS "^layer,nsc,attention,ffn,router,other,params,params_active,flops_per_token\nembeddings,0,0,0,0,0,544997376,544997376,0\nlayers.0,.*\ntotal,[0-9.e+]+,[0-9.e+]+,[0-9.e+]+,0,[0-9.e+-]+,7615616512,7615616512,[0-9.e+]+\n$")
nsc_cli_test(score_llama3_8b
  ARGS score examples/configs/llama-3-8b.json --init kaiming_normal --variance-source tensor --json
  PASS "\"params_total\":8030261248")
nsc_cli_test(score_gpt2_medium
  ARGS score examples/configs/gpt2-medium.json --json --o-proj per_head --score-embeddings
  PASS "\"params_total\":354823168")
nsc_cli_test(score_mistral
  ARGS score examples/configs/mistral-7b.json --json
  PASS "\"params_total\":7241732096")

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
nsc_cli_test(score_malformed_field
  ARGS score ${_nsc_score_bad_dir}/bad_hidden.json
  PASS "nsc: error: nsc::read_hf_config: field 'hidden_size' must be a positive integer [(]got \"abc\"[)]")
nsc_cli_test(score_malformed_field_exit
  ARGS score ${_nsc_score_bad_dir}/bad_hidden.json
  WILL_FAIL)
nsc_cli_test(score_unknown_model_type
  ARGS score ${_nsc_score_bad_dir}/bad_type.json
  PASS "unknown model_type; supported: llama, mistral, mixtral, qwen2, qwen3, .*, gpt2, bert, opt [(]got \"t5\"[)]")
nsc_cli_test(score_kv_heads
  ARGS score ${_nsc_score_bad_dir}/bad_kv.json
  PASS "field 'num_key_value_heads' must divide num_attention_heads = 32 [(]got 5[)]")
nsc_cli_test(score_missing_field
  ARGS score ${_nsc_score_bad_dir}/missing.json
  PASS "missing field 'n_head' [(]model_type gpt2[)]")
