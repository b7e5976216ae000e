# `nsc weights PATH ...` (examples/nsc/cmd_weights.cpp) and `nsc score CONFIG --weights PATH` on the
# checkpoints written by tests/reference/gen_safetensors.py. Reference psi_W values are numpy's
# SVD of the stored values (tests/data/safetensors/reference.csv); JSON keys print sorted.
set(_st tests/data/safetensors)

nsc_cli_test(weights_bare_json
  ARGS weights ${_st}/bare.safetensors --json
  PASS "^\\{\"blas\":(true|false),\"checkpoint\":\"tests/data/safetensors/bare.safetensors\",\"estimator\":\"mp\",\"family\":\"\",\"files\":1,\"init\":\"xavier_normal\",\"layers\":\\[\\],\"matrices\":\\[\\{\"blocks\":\\[\\{\"col0\":0,\"cols\":32,\"head\":-1,\"kind\":\"other\",\"psi_mp\":22[.]23237062833[0-9]*,\"psi_w\":20[.]6274190106[0-9]*,\"route\":\"cholesky\",\"row0\":0,\"rows\":48\\}\\],\"dtype\":\"F64\",\"expert\":-1,.*\"name\":\"w_f64\".*\"name\":\"w_bf16\",\"part\":\"other\",\"psi_mp\":[0-9.]+,\"psi_w\":28[.]89456763993[0-9]*,.*\"skipped\":\\[\"bias [(]1-D[)]\",\"quantised [(]dtype I8[)]\"\\],\"total\":\\{\"matrices\":5,")
nsc_cli_test(weights_sharded_table
  ARGS weights ${_st}/llama_sharded
  PASS "checkpoint tests/data/safetensors/llama_sharded [(]2 files, 18 tensors[)]\nnames      llama [(]llama-like table; blocks as nsc score splits them[)]\ninit       xavier_normal [(]variance per block[)], psi_mp\n.*\nmodel.layers.0.self_attn.q_proj.weight +64x64 +F32 +4 +9[.]33380[0-9] +58[.]154255 .*\nmodel.layers.1.self_attn.q_proj.weight +64x64 +BF16 +4 .*\nlayer +psi_W +psi_init +ratio\n0 .*\n1 .*\n\ntotal      psi_W [0-9.]+, psi_init [0-9.]+, ratio [0-9.]+, 16 matrices in .*\nskipped    2 tensors")
nsc_cli_test(weights_index_json_layers
  ARGS weights ${_st}/llama_sharded/model.safetensors.index.json --json --init hf
  PASS "\"init\":\"hf: normal[(]0.02[)]\",\"layers\":\\[\\{\"kinds\":\\{\"down_proj\":\\{[^}]*\\},\"gate_proj\":\\{[^}]*\\},\"k_proj\":\\{[^}]*\\},\"o_proj\":\\{[^}]*\\},\"q_proj\":\\{[^}]*\\},\"up_proj\":\\{[^}]*\\},\"v_proj\":\\{[^}]*\\}\\},\"layer\":0,")
nsc_cli_test(weights_gpt2_csv
  ARGS weights ${_st}/gpt2 --format csv
  PASS "^name,layer,kind,shape,dtype,blocks,psi_w,psi_mp,ratio,seconds\nh.0.attn.c_attn.weight,0,qkv_proj,48x144,F32,12,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.e-]+\nh.0.attn.c_proj.weight,0,o_proj,48x48,F32,1,.*\nlayers.0,0,layer,,,,[0-9.]+,[0-9.]+,[0-9.]+,\ntotal,,,,,4,")
nsc_cli_test(weights_svd
  ARGS weights ${_st}/phi3 --svd --json
  PASS "\"route\":\"svd\"")
nsc_cli_test(weights_config_option
  ARGS weights ${_st}/gpt_neox/model.safetensors --config ${_st}/gpt_neox/config.json --format csv
  PASS "gpt_neox.layers.0.attention.query_key_value.weight,0,qkv_proj,144x48,F16,9,")
nsc_cli_test(weights_score
  ARGS score ${_st}/mixtral/config.json --weights ${_st}/mixtral --json
  PASS "\"nsc\":28[.]60028776[0-9]*,.*\"weights\":\"tests/data/safetensors/mixtral\"")

# Truncated or lying files: non-zero exit and a message naming the file, the tensor and the rule.
nsc_cli_test(weights_truncated ARGS weights ${_st}/hostile/truncated.safetensors WILL_FAIL)
nsc_cli_test(weights_truncated_message
  ARGS weights ${_st}/hostile/truncated.safetensors
  PASS "nsc: error: nsc::read_safetensors: tests/data/safetensors/hostile/truncated.safetensors: tensor 'a': data_offsets end 48 is past the end of the data buffer [(]30 bytes[)]")
nsc_cli_test(weights_header_length ARGS weights ${_st}/hostile/header_length_1e15.safetensors WILL_FAIL)
nsc_cli_test(weights_header_length_message
  ARGS weights ${_st}/hostile/header_length_1e15.safetensors
  PASS "header length 1000000000000000 exceeds the limit of 100000000 bytes")
nsc_cli_test(weights_overlap ARGS weights ${_st}/hostile/overlap.safetensors WILL_FAIL)
nsc_cli_test(weights_nan ARGS weights ${_st}/hostile/nan_entries.safetensors WILL_FAIL)
nsc_cli_test(weights_nan_message
  ARGS weights ${_st}/hostile/nan_entries.safetensors
  PASS "tensor 'a': 2 non-finite entries [(]first at row 0, column 2: nan[)]")
nsc_cli_test(weights_index_outside ARGS weights ${_st}/hostile_index_outside WILL_FAIL)
nsc_cli_test(weights_index_outside_message
  ARGS weights ${_st}/hostile_index_outside
  PASS "a '[.][.]' component leaves the checkpoint directory")
nsc_cli_test(weights_missing ARGS weights ${_st}/no_such_dir WILL_FAIL)
nsc_cli_test(weights_bad_init ARGS weights ${_st}/bare.safetensors --init bogus WILL_FAIL)
nsc_cli_test(weights_score_merged_message
  ARGS score ${_st}/mixtral/config.json --weights ${_st}/mixtral --qkv merged
  PASS "nsc::score_with_weights: layer layers.0: qkv_proj: the checkpoint has no matrix for this scored weight")
