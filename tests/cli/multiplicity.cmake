# Layers with a multiplicity (issue 13): the original reproducers num_hidden_layers 2,000,000
# (22 s and 6 GB before) and 1e7 (48 s and 15.7 GB) are one run of identical layers and answer
# exactly at once; 1e12 layers overflow int64 parameters: a domain error naming the quantity.
# Reference totals: 202,383,360 parameters per LLaMA-7B layer x N + 2 x 32000 x 4096 (token
# table, untied head) + 4096 (final norm), as tests/reference/gen_family_params.py's "deep".
set(_nsc_mult_dir ${CMAKE_CURRENT_BINARY_DIR}/multiplicity_configs)
foreach(_n 2000000 10000000 1000000000000)
  file(WRITE ${_nsc_mult_dir}/llama_${_n}.json
    "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 11008, \"num_hidden_layers\": ${_n}, \"num_attention_heads\": 32, \"vocab_size\": 32000}\n")
endforeach()
file(WRITE ${_nsc_mult_dir}/gemma2_deep.json
  "{\"model_type\": \"gemma2\", \"hidden_size\": 256, \"intermediate_size\": 512, \"num_hidden_layers\": 2000000, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 64, \"vocab_size\": 1000, \"sliding_window\": 128}\n")

nsc_cli_test(multiplicity_2e6_table
  ARGS score ${_nsc_mult_dir}/llama_2000000.json
  PASS "llama_2000000 [(]llama[)], 2,000,000 layers\n.*params total   404,766,982,148,096\nparams non-emb 404,766,720,004,096\n.*KV cache       8,388,608,000,000 bytes .* 32,768,000,000 bytes per token\n.*\nlayers.0-1999999 +2,000,000 .* 202,383,360 ")
nsc_cli_test(multiplicity_1e7_json
  ARGS score ${_nsc_mult_dir}/llama_10000000.json --json
  PASS "\"kv_cache_bytes_per_token\":163840000000,.*\"name\":\"layers.0-9999999\",.*\"params\":202383360,\"params_active\":202383360,\"repeat\":10000000,.*\"layers_total\":10000000,.*\"params_active\":2023833862148096,\"params_non_embedding\":2023833600004096,\"params_total\":2023833862148096,")
nsc_cli_test(multiplicity_1e7_csv
  ARGS score ${_nsc_mult_dir}/llama_10000000.json --format csv
  PASS "\nlayers.0-9999999,[0-9.e+]+,[0-9.e+]+,[0-9.e+]+,0,[0-9.e+-]+,202383360,202383360,.*,10000000\n.*\ntotal,[0-9.e+]+,[0-9.e+]+,[0-9.e+]+,0,[0-9.e+-]+,2023833862148096,2023833862148096,")
nsc_cli_test(multiplicity_1e12_overflow
  ARGS score ${_nsc_mult_dir}/llama_1000000000000.json
  PASS "^nsc: error: nsc::count: weight parameters overflows the signed 64-bit range [(]202375168 [*] 1000000000000[)]\n$")
nsc_cli_test(multiplicity_1e12_overflow_exit
  ARGS score ${_nsc_mult_dir}/llama_1000000000000.json
  WILL_FAIL)
# A per-layer pattern (Gemma 2 alternates sliding and global layers) cannot be a few runs at
# 2,000,000 layers: refused with the field, the value and the limit.
nsc_cli_test(multiplicity_alternating_limit
  ARGS score ${_nsc_mult_dir}/gemma2_deep.json
  PASS "nsc: error: nsc::read_hf_config: field 'num_hidden_layers' gives more than 16384 runs of identical layers [(]the sliding window alternates every 2 layers[)]; at most 16384 runs are supported [(]got 2000000[)]")
