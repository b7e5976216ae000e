# `nsc search ...` and `nsc prune ...` (examples/nsc/cmd_search.cpp, cmd_prune.cpp): the paper's
# answers, the --json keys of every command (objects are printed on one line with sorted keys),
# and the unhappy paths (non-zero exit, a message naming the problem).

# ---- search txl ---------------------------------------------------------------------------
nsc_cli_test(search_txl_json
  ARGS search txl --json
  PASS "^\\{\"band\":\\[36480000,40320000\\],\"budget\":38400000[.0]*,\"d_inner\":\\[1152(,1152)+\\],\"d_model\":512,\"n_layer\":18,\"nsc\":12391[.]756[0-9]*,\"params\":40211712,\"search\":\"transformer-xl\",\"stats\":\\{[^}]*\\},\"time_seconds\":[0-9.e-]+,\"tolerance\":0[.]05\\}\n$")
nsc_cli_test(search_txl_text
  ARGS search txl
  PASS "best     d_model 512, n_layer 18, d_inner 1152 x 18\n         params 40,211,712 [(]40[.]21M[)], NSC 12391[.]756.*time     [0-9.]+ [mu]?s")
nsc_cli_test(search_txl_front
  ARGS search txl --json --front
  PASS "\"front\":\\[\\{\"d_inner\":\\[[0-9,]+\\],\"d_model\":[0-9]+,\"n_layer\":[0-9]+,\"nsc\":[0-9.e+]+,\"params\":[0-9]+\\}")
nsc_cli_test(search_txl_front_text
  ARGS search txl --front --params 20e6 --tolerance 0.1
  PASS "front    [0-9]+ points")
nsc_cli_test(search_txl_infeasible
  ARGS search txl --params 1000
  WILL_FAIL)
nsc_cli_test(search_txl_infeasible_message
  ARGS search txl --params 1000
  PASS "nsc: infeasible: no Transformer-XL of the space has params in")
nsc_cli_test(search_txl_bad_tolerance
  ARGS search txl --tolerance 2
  WILL_FAIL)

# ---- search autoformer --------------------------------------------------------------------
nsc_cli_test(search_autoformer_tiny_json
  ARGS search autoformer --space tiny --json
  PASS "^\\{\"depth\":14,\"embed_dim\":192,\"limit\":5900000,\"method\":\"factored\",\"mlp_ratio\":\\[[0-9.,]+\\],\"nsc\":[0-9.e+]+,\"num_heads\":\\[[0-9,]+\\],\"params\":5896704,\"search\":\"autoformer\",\"space\":\"tiny\",\"stats\":\\{[^}]*\\},\"time_seconds\":[0-9.e-]+\\}\n$")
nsc_cli_test(search_autoformer_small
  ARGS search autoformer --space small
  PASS "limit    23,500,000 params.*best     embed_dim [0-9]+, depth [0-9]+\n         mlp_ratio \\[.*\\]\n         num_heads \\[.*\\]\n         params 23,[0-9,]+ ")
nsc_cli_test(search_autoformer_base_joint
  ARGS search autoformer --space base --method joint --json
  PASS "\"limit\":54500000,\"method\":\"joint\".*\"params\":54[0-9][0-9][0-9][0-9][0-9][0-9],")
nsc_cli_test(search_autoformer_override
  ARGS search autoformer --space tiny --params 5.5e6 --json --front
  PASS "\"front\":\\[\\{\"depth\":[0-9]+,\"embed_dim\":192,\"mlp_ratio\":.*\"limit\":5500000")
nsc_cli_test(search_autoformer_infeasible
  ARGS search autoformer --space tiny --params 1e6
  WILL_FAIL)
nsc_cli_test(search_autoformer_infeasible_message
  ARGS search autoformer --space tiny --params 1e6
  PASS "nsc: infeasible: no AutoFormer-tiny subnet has at most 1,000,000 params")
nsc_cli_test(search_autoformer_bad_space
  ARGS search autoformer --space huge
  WILL_FAIL)
nsc_cli_test(search_autoformer_missing_space
  ARGS search autoformer
  WILL_FAIL)

# ---- search nats-sss ----------------------------------------------------------------------
nsc_cli_test(search_nats_json
  ARGS search nats-sss --params 3e5 --json
  PASS "^\\{\"accuracy\":\\{[^}]*\"chosen\":[0-9.]+.*\"oracle\":[0-9.]+[^}]*\\},\"agree\":true,\"arch\":\"[0-9:]+\",\"budget\":300000,\"channels\":\\[[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+\\],.*\"nsc\":[0-9.e+]+,\"params\":[0-9]+,\"protocol\":\"xautodl\",\"search\":\"nats-sss\",.*\"top\":\\[")
nsc_cli_test(search_nats_text
  ARGS search nats-sss --dataset cifar100 --top 5
  PASS "agreement   exhaustive == DP: yes.*top-5 by NSC:.*accuracy [(]cifar100_acc")
nsc_cli_test(search_nats_reference
  ARGS search nats-sss --protocol reference-fr --params 2e5 --json --front
  PASS "\"agree\":true.*\"front\":\\[\\{\"arch\"")
nsc_cli_test(search_nats_no_data
  ARGS search nats-sss --data no/such/file.csv
  WILL_FAIL)
nsc_cli_test(search_nats_bad_dataset
  ARGS search nats-sss --dataset mnist
  WILL_FAIL)
nsc_cli_test(search_nats_infeasible
  ARGS search nats-sss --params 100
  WILL_FAIL)

# ---- search --space -----------------------------------------------------------------------
nsc_cli_test(search_space_groups_json
  ARGS search --space examples/spaces/ffn_widths_groups.json --json --front
  PASS "\"budget\":10000000[.0]*,\"budgets\":\\{\"cost\":10000000[.0]*\\},\"choice\":\\[\\{\"group\":\"layer0\",\"option\":\"d_ff=[0-9]+\"\\}.*\"cost\":[0-9.e+]+,\"costs\":\\{\"cost\":[0-9.e+]+\\}.*\"front\":\\[.*\"nsc\":[0-9.e+]+,\"resolution\":1[.0]*,\"search\":\"groups\",\"space\":\"ffn-widths\",\"status\":\"optimal\"")
nsc_cli_test(search_space_transformer_json
  ARGS search --space examples/spaces/gqa_transformer.json --budget 9e7 --json
  PASS "\"cost_kind\":\"params\",\"costs\":\\{\"params\":[0-9]+\\},\"d_ff\":\\[[0-9,]+\\],\"d_model\":1024,.*\"flops\":[0-9]+,.*\"n_heads\":\\[[0-9,]+\\],\"n_layer\":8,\"nsc\":[0-9.e+]+,\"params\":[0-9]+,")
nsc_cli_test(search_space_text
  ARGS search --space examples/spaces/gqa_transformer.json
  PASS "best     NSC [0-9.]+, params [0-9,]+, FLOPs/token")
nsc_cli_test(search_space_infeasible
  ARGS search --space examples/spaces/ffn_widths_groups.json --budget 10
  WILL_FAIL)
nsc_cli_test(search_space_missing
  ARGS search --space no/such/space.json
  PASS "nsc::read_search_space: no/such/space.json: cannot open file [(]no such file[)]")
nsc_cli_test(search_nothing
  ARGS search
  WILL_FAIL)
nsc_cli_test(search_nothing_message
  ARGS search
  PASS "give a search [(]txl, autoformer, nats-sss[)] or --space SPACE.json")
nsc_cli_test(search_unknown
  ARGS search resnet
  WILL_FAIL)

set(_nsc_search_dir ${CMAKE_CURRENT_BINARY_DIR}/search_spaces)
file(WRITE ${_nsc_search_dir}/empty_group.json
  "{\"groups\": [{\"name\": \"a\", \"options\": [{\"value\": 1, \"cost\": 2}]}, {\"name\": \"b\", \"options\": []}]}\n")
file(WRITE ${_nsc_search_dir}/bad_dff.json
  "{\"transformer\": {\"d_model\": 512, \"n_layers\": 2, \"choices\": [{\"d_ff\": \"wide\", \"n_heads\": 8}]}}\n")
nsc_cli_test(search_space_empty_group
  ARGS search --space ${_nsc_search_dir}/empty_group.json
  PASS "nsc: error: nsc::read_search_space: .*empty_group.json: /groups/1/options: a group needs at least one option [(]got \\[\\][)]")
nsc_cli_test(search_space_bad_dff
  ARGS search --space ${_nsc_search_dir}/bad_dff.json
  PASS "/transformer/choices/0/d_ff: must be a positive integer [(]got \"wide\"[)]")
nsc_cli_test(search_space_bad_dff_exit
  ARGS search --space ${_nsc_search_dir}/bad_dff.json
  WILL_FAIL)

# ---- prune --------------------------------------------------------------------------------
nsc_cli_test(prune_lonas_json
  ARGS prune examples/configs/llama-7b.json --space lonas --params 5.7e9 --json
  PASS "^\\{\"budget\":5700000000,\"budget_kind\":\"params\",\"ffn_sum\":266944,\"front_points\":129,\"intermediate_sizes\":\\[[0-9,]+\\],\"lora_ranks\":\\[32(,32)+\\],\"model\":\"llama-7b\",\"model_type\":\"llama\",\"nsc\":881196[.]752[0-9]*,\"params\":5690097664,\"params_total_hf\":5690101760,\"seq_len\":256,\"space\":\"lonas\",\"stats\":\\{[^}]*\\},\"tflops\":1[.]44[0-9]*,\"time_seconds\":[0-9.e-]+,\"unpruned\":\\{[^}]*\"params\":6738411520,[^}]*\\}\\}\n$")
nsc_cli_test(prune_lonas_text
  ARGS prune examples/configs/llama-7b.json --space lonas --params 5.7e9 --front
  PASS "best     5,690,097,664 params [(]5[.]690098B[)], 1[.]4402 TFLOPs, NSC 881196[.]752\n         FFN widths 8256 x 30, 9632 x 2; q/k/v ranks 32 x 32.*front    129 points, 4[.]574151B [.][.] 6[.]738412B params")
nsc_cli_test(prune_lonas_front_json
  ARGS prune examples/configs/llama-7b.json --space lonas --params 5.7e9 --front --json
  PASS "\"front\":\\[\\{\"ffn_sum\":176128,\"intermediate_sizes\":\\[5504(,5504)+\\],\"lora_ranks\":\\[32(,32)+\\],\"nsc\":[0-9.e+]+,\"params\":4574150656,\"tflops\":[0-9.]+\\}")
nsc_cli_test(prune_lonas_csv
  ARGS prune examples/configs/llama-7b.json --space lonas --params 5.7e9 --front --format csv
  PASS "^kind,params,tflops,nsc,ffn_sum,intermediate_sizes,lora_ranks\nchosen,5690097664,1[.]44[0-9]*,881196[.]75[0-9]*,266944,[^,]+,32(.32)+\nunpruned,6738411520,.*\nfront,4574150656,.*front,6738411520,")
nsc_cli_test(prune_lonas_tflops
  ARGS prune examples/configs/llama-7b.json --space lonas --tflops 1.3 --json
  PASS "\"budget_kind\":\"macs\"")
nsc_cli_test(prune_mistral
  ARGS prune examples/configs/mistral-7b.json --space lonas --params 6e9 --json
  PASS "\"model\":\"mistral-7b\".*\"params\":[0-9]+,")
nsc_cli_test(prune_infeasible
  ARGS prune examples/configs/llama-7b.json --space lonas --params 1e9
  WILL_FAIL)
nsc_cli_test(prune_infeasible_message
  ARGS prune examples/configs/llama-7b.json --space lonas --params 1e9
  PASS "nsc: infeasible: the smallest model of the space needs 4,574,150,656 params; the budget is 1,000,000,000")
nsc_cli_test(prune_bad_space
  ARGS prune examples/configs/llama-7b.json --space sparsegpt
  WILL_FAIL)
nsc_cli_test(prune_bad_config
  ARGS prune examples/configs/no-such.json --space lonas
  WILL_FAIL)
nsc_cli_test(prune_both_budgets
  ARGS prune examples/configs/llama-7b.json --params 5e9 --tflops 1.3
  PASS "give --params or --tflops, not both")

# --emit-config writes a config that `nsc score` reads back with the same params (Hugging
# Face's count: the search's params + the final norm, params_total_hf above).
set(_nsc_pruned ${CMAKE_CURRENT_BINARY_DIR}/search_spaces/llama-7b-pruned-5.7b.json)
nsc_cli_test(prune_emit_config
  ARGS prune examples/configs/llama-7b.json --space lonas --params 5.7e9 --emit-config ${_nsc_pruned}
  PASS "config   .*llama-7b-pruned-5[.]7b[.]json")
set_tests_properties(cli:prune_emit_config PROPERTIES FIXTURES_SETUP nsc_pruned_config)
nsc_cli_test(prune_emit_config_score
  ARGS score ${_nsc_pruned} --json
  PASS "\"params_total\":5690101760")
nsc_cli_test(prune_emit_config_score_nsc
  ARGS score ${_nsc_pruned} --json --o-proj per_head
  PASS "\"nsc\":881196[.]75")
set_tests_properties(cli:prune_emit_config_score cli:prune_emit_config_score_nsc PROPERTIES
  FIXTURES_REQUIRED nsc_pruned_config)

# ---- several budgets (issue 8) ------------------------------------------------------------
nsc_cli_test(search_budgets_named_json
  ARGS search --space examples/spaces/kv_ffn_groups.json --budget params=6e6 --budget kv_bytes=3072 --json
  PASS "^\\{\"best\":\\{\"choice\":\\[[^]]*\\],\"costs\":\\{\"kv_bytes\":2816[.0]*,\"params\":5963776[.0]*\\},\"nsc\":4438[.]411115[0-9]*\\},\"budget\":\\{\"kv_bytes\":3072[.0]*,\"params\":6000000[.0]*\\}.*\"status\":\"optimal\"")
nsc_cli_test(search_budgets_file_default
  ARGS search --space examples/spaces/kv_ffn_groups.json
  PASS "budget   kv_bytes <= 3,072 and params <= 6,000,000\nbest     value 4438[.]411115, kv_bytes 2816, params 5963776")
nsc_cli_test(search_budgets_one_dimension
  ARGS search --space examples/spaces/kv_ffn_groups.json --budget kv_bytes=1024 --budget params=1e12 --json
  PASS "\"costs\":\\{\"kv_bytes\":1024[.0]*,\"params\":8650752[.0]*\\}")
# five entries {"choice":[...],"costs":{...},"nsc":4438.41111...,"orderings":12} (CMake regexes have no {n})
string(REPEAT "\\{\"choice\":\\[[^]]*\\],\"costs\":\\{[^}]*\\},\"nsc\":4438[.]41111[0-9]*,\"orderings\":12\\}[],]" 5 _nsc_top5)
# --positions: the optimum's orderings of the 4 identical layers are separate entries
nsc_cli_test(search_budgets_top_positions
  ARGS search --space examples/spaces/kv_ffn_groups.json --top 5 --positions --json
  PASS "\"top\":\\[${_nsc_top5}\\}")
# default: one entry per multiset; the optimum {kv1-ffn1024, kv2-ffn2048, 2 x kv4-ffn1024} stands
# for 4! / 2! = 12 orderings; the second, {kv1-ffn2048, kv2-ffn1024, 2 x kv4-ffn1024}, is another
# multiset of layers with the same value (the FFN widths swapped between attention widths), and
# the ties line sums the two
nsc_cli_test(search_budgets_top
  ARGS search --space examples/spaces/kv_ffn_groups.json --top 2 --json
  PASS "\"top\":\\[\\{\"choice\":\\[[^]]*kv1-ffn1024[^]]*\\],\"costs\":\\{[^}]*\\},\"nsc\":4438[.]41111[0-9]*,\"orderings\":12\\},\\{\"choice\":\\[[^]]*kv1-ffn2048[^]]*\\],\"costs\":\\{[^}]*\\},\"nsc\":4438[.]41111[0-9]*,\"orderings\":12\\}\\]")
nsc_cli_test(search_budgets_top_ties
  ARGS search --space examples/spaces/kv_ffn_groups.json --top 3
  PASS "ties     value 4438[.]411115 [(]entries 1-2[)]: 24 selections [(]orderings of identical layers, summed[)]")
nsc_cli_test(search_budgets_top_distance
  ARGS search --space examples/spaces/kv_ffn_groups.json --top 3 --min-distance 4
  PASS "top      2 best selections at distance >= 4 [(]identical groups interchangeable")
nsc_cli_test(search_budgets_top_distance_positions
  ARGS search --space examples/spaces/kv_ffn_groups.json --top 3 --min-distance 4 --positions
  PASS "top      3 best selections at distance >= 4 [(]--positions")
nsc_cli_test(search_budgets_front
  ARGS search --space examples/spaces/kv_ffn_groups.json --front
  PASS "front    17 Pareto points")
nsc_cli_test(search_budgets_transformer
  ARGS search --space examples/spaces/gqa_transformer_params_flops.json --json
  PASS "\"cost_kind\":\\[\"params\",\"flops\"\\].*\"costs\":\\{\"flops\":225443840,\"params\":79183872\\}")
nsc_cli_test(search_budgets_infeasible_json
  ARGS search --space examples/spaces/kv_ffn_groups.json --budget kv_bytes=100 --json
  PASS "\\{\"budgets\":\\{\"kv_bytes\":100[.0]*,\"params\":6000000[.0]*\\},\"search\":\"groups\",\"space\":\"kv-ffn\",\"status\":\"infeasible\"\\}")
nsc_cli_test(search_budgets_infeasible_message
  ARGS search --space examples/spaces/gqa_transformer_params_flops.json --budget flops=1e8
  PASS "nsc: infeasible: no selection of gqa-transformer-2 has params <= 90,000,000 and flops <= 100,000,000")
add_test(NAME cli:search_budgets_infeasible_exit_1
  COMMAND sh -c "$0 search --space examples/spaces/kv_ffn_groups.json --budget kv_bytes=100; test $? -eq 1"
          $<TARGET_FILE:nsc_cli>
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME cli:search_budgets_bad_name_exit_2
  COMMAND sh -c "$0 search --space examples/spaces/kv_ffn_groups.json --budget kv=1; test $? -eq 2"
          $<TARGET_FILE:nsc_cli>
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
nsc_cli_test(search_budgets_bad_name
  ARGS search --space examples/spaces/kv_ffn_groups.json --budget kv=1
  PASS "--budget kv=1: unknown cost 'kv' [(]the costs of kv-ffn are kv_bytes, params[)]")
nsc_cli_test(search_budgets_bare_number_ambiguous
  ARGS search --space examples/spaces/kv_ffn_groups.json --budget 5
  PASS "kv-ffn has several costs [(]kv_bytes, params[)]; give --budget NAME=VALUE")
nsc_cli_test(search_budgets_bad_value
  ARGS search --space examples/spaces/kv_ffn_groups.json --budget params=-1
  PASS "--budget params: cannot read '-1' [(]negative[)]")
nsc_cli_test(search_budgets_distance_needs_top
  ARGS search --space examples/spaces/kv_ffn_groups.json --min-distance 2
  WILL_FAIL)
add_test(NAME cli:search_budgets_brute_force
  COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/check_search_budgets.py
          $<TARGET_FILE:nsc_cli> ${CMAKE_CURRENT_BINARY_DIR}/search_budgets_random 20261201 200)
set_tests_properties(cli:search_budgets_brute_force PROPERTIES PASS_REGULAR_EXPRESSION "200 random spaces, 0 failures")

# ---- hostile space files (issue 13) --------------------------------------------------------
file(WRITE ${_nsc_search_dir}/one_option.json
  "{\"groups\": [{\"options\": [{\"value\": 1, \"cost\": 3}]}], \"budget\": 9007199254740992}\n")
nsc_cli_test(search_space_budget_2p53_file
  ARGS search --space ${_nsc_search_dir}/one_option.json
  PASS "best     value 1, cost 3")
set_tests_properties(cli:search_space_budget_2p53_file PROPERTIES TIMEOUT 10)
nsc_cli_test(search_space_budget_2p53_flag
  ARGS search --space examples/spaces/ffn_widths_groups.json --budget 9007199254740992
  PASS "best     value 5931[.]708642, cost 18895872")
set_tests_properties(cli:search_space_budget_2p53_flag PROPERTIES TIMEOUT 10)
nsc_cli_test(search_space_budget_huge_transformer
  ARGS search --space examples/spaces/gqa_transformer.json --budget 1e300
  PASS "best     NSC 52775[.]358381")
file(WRITE ${_nsc_search_dir}/huge_values.json
  "{\"groups\": [{\"options\": [{\"value\": 1e308, \"cost\": 1}]}, {\"options\": [{\"value\": 1e308, \"cost\": 1}]}]}\n")
nsc_cli_test(search_space_values_overflow
  ARGS search --space ${_nsc_search_dir}/huge_values.json --json
  PASS "the sum over groups of the largest [|]value[|] must be finite")
nsc_cli_test(search_space_values_overflow_exit
  ARGS search --space ${_nsc_search_dir}/huge_values.json --json
  WILL_FAIL FAIL "null")
string(REPEAT "[" 100000 _nsc_deep)
file(WRITE ${_nsc_search_dir}/deep.json "{\"groups\": ${_nsc_deep}\n")
nsc_cli_test(search_space_deep_json
  ARGS search --space ${_nsc_search_dir}/deep.json
  PASS "nsc::read_search_space: .*deep.json: JSON nested deeper than 64 levels")
file(WRITE ${_nsc_search_dir}/out_of_range.json
  "{\"groups\": [{\"options\": [{\"value\": 1e400, \"cost\": 1}]}]}\n")
nsc_cli_test(search_space_out_of_range_number
  ARGS search --space ${_nsc_search_dir}/out_of_range.json
  PASS "nsc::read_search_space: .*out_of_range.json: invalid JSON")
nsc_cli_test(search_space_directory
  ARGS search --space ${_nsc_search_dir}
  PASS "nsc::read_search_space: .*search_spaces: is a directory, not a file")
file(WRITE ${_nsc_search_dir}/mixed_costs.json
  "{\"groups\": [{\"options\": [{\"value\": 1, \"cost\": {\"params\": 1}}, {\"value\": 2, \"cost\": 3}]}]}\n")
nsc_cli_test(search_space_mixed_costs
  ARGS search --space ${_nsc_search_dir}/mixed_costs.json
  PASS "/groups/0/options/1/cost: the first option's cost names its costs")
file(WRITE ${_nsc_search_dir}/missing_cost_name.json
  "{\"groups\": [{\"options\": [{\"value\": 1, \"cost\": {\"params\": 1, \"kv\": 2}}, {\"value\": 2, \"cost\": {\"params\": 3}}]}]}\n")
nsc_cli_test(search_space_missing_cost_name
  ARGS search --space ${_nsc_search_dir}/missing_cost_name.json
  PASS "/groups/0/options/1/cost: missing cost 'kv'")
file(WRITE ${_nsc_search_dir}/bad_budget_name.json
  "{\"groups\": [{\"options\": [{\"value\": 1, \"cost\": {\"params\": 1}}]}], \"budget\": {\"flops\": 3}}\n")
nsc_cli_test(search_space_bad_budget_name
  ARGS search --space ${_nsc_search_dir}/bad_budget_name.json
  PASS "/budget/flops: unknown budget name [(]the costs are params[)]")
file(WRITE ${_nsc_search_dir}/bad_transformer_cost.json
  "{\"transformer\": {\"d_model\": 64, \"n_layers\": 1, \"choices\": [{\"d_ff\": 64, \"n_heads\": 4}], \"cost\": [\"params\", \"latency\"]}}\n")
nsc_cli_test(search_space_bad_transformer_cost
  ARGS search --space ${_nsc_search_dir}/bad_transformer_cost.json
  PASS "/transformer/cost/1: unknown cost; expected one of params, flops [(]got \"latency\"[)]")
# a diverse pool at 80 layers (Puzzle's sequential definition; exact values from pulp + CBC in
# benchmarks/bench_library_cbc.py), and --max-memory in the CLI's byte units
nsc_cli_test(search_library_pool
  ARGS search --library examples/libraries/synthetic_80x16.json --minimize --budget stats.memory_mib=80000
       --budget stats.runtime_ms=50000 --top 3 --min-distance 20 --max-memory 500MB
  PASS "1  metrics.kl_div 4.34481,.*2  metrics.kl_div 4.367234,.*3  metrics.kl_div 4.377248,")
nsc_cli_test(search_max_memory_units
  ARGS search --library examples/libraries/synthetic_80x16.json --minimize --budget stats.memory_mib=80000 --max-memory 6Gx
  PASS "nsc search: --max-memory: cannot read '6Gx' [(]unknown unit[)]")
