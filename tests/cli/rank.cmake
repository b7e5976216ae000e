# `nsc rank --family F [--json] ...` (examples/nsc/cmd_rank.cpp) on the shared ground-truth data.
# `nsc rank --table T ...` on the generator's table and the example tables (examples/tables/).
# JSON objects are printed with sorted keys on one line: baselines, convention, data, dataset,
# estimator, family, flops, n, nsc, params, params_source, protocol, skipped, target, time_ms,
# timing_ms; nsc, params and flops are {partial_tau, pw10_tau, rho, tau_b} (null when
# undefined); with --bootstrap also bootstrap and the comparison keys (cmd_rank.cpp).

set(_rank_num "-?[0-9][0-9.e+-]*")
set(_rank_val "[-0-9.e+nul]+") # a number or null (CMake regexes allow only 9 groups)
set(_rank_stats "\\{\"partial_tau\":${_rank_val},\"pw10_tau\":${_rank_val},\"rho\":${_rank_val},\"tau_b\":${_rank_val}\\}")
set(_rank_tail "\"time_ms\":${_rank_num},\"timing_ms\":\\{\"load\":${_rank_num},\"statistics\":${_rank_num}\\}\\}\n$")

# Every family, default settings: the full key set. FlexiBERT and GPT-2 reproduce the paper's
# tau / rho (0.695 / 0.884 and 0.849 / 0.968).
nsc_cli_test(rank_flexibert_json
  ARGS rank --family flexibert --json
  PASS "^\\{\"baselines\":\"data\",\"convention\":\"reference\",\"data\":\"[^\"]*/flexibert_500_glue[.]csv\",\"dataset\":null,\"estimator\":\"mp\",\"family\":\"flexibert\",\"flops\":${_rank_stats},\"n\":500,\"nsc\":\\{\"partial_tau\":${_rank_num},\"pw10_tau\":${_rank_num},\"rho\":0[.]884[0-9]*,\"tau_b\":0[.]695[0-9]*\\},\"params\":${_rank_stats},\"params_source\":\"data\",\"protocol\":null,\"skipped\":0,\"target\":\"glue\",${_rank_tail}")
nsc_cli_test(rank_gpt2_json
  ARGS rank --family gpt2 --json
  PASS "^\\{\"baselines\":\"data\",\"convention\":\"reference\",\"data\":\"[^\"]*/random_GPT2_wt103[.]csv\",\"dataset\":null,\"estimator\":\"mp\",\"family\":\"gpt2\",\"flops\":${_rank_stats},\"n\":200,\"nsc\":\\{\"partial_tau\":${_rank_num},\"pw10_tau\":${_rank_num},\"rho\":0[.]968[0-9]*,\"tau_b\":0[.]848[0-9]*\\},\"params\":${_rank_stats},\"params_source\":\"data\",\"protocol\":null,\"skipped\":0,\"target\":\"valid_ppl\",${_rank_tail}")
nsc_cli_test(rank_txl_json
  ARGS rank --family txl --json
  PASS "^\\{\"baselines\":\"data\",\"convention\":\"reference\",\"data\":\"[^\"]*/random_TransXL_wt103[.]csv\",\"dataset\":null,\"estimator\":\"mp\",\"family\":\"txl\",\"flops\":${_rank_stats},\"n\":200,\"nsc\":${_rank_stats},\"params\":${_rank_stats},\"params_source\":\"data\",\"protocol\":null,\"skipped\":0,\"target\":\"valid_ppl\",${_rank_tail}")
# All 32,768 NATS-SSS architectures: about 0.4 s for reading, scoring and every statistic
# (2 cores, Release); the timeout guards against an accidental O(n^2).
nsc_cli_test(rank_nats_sss_json
  ARGS rank --family nats-sss --json
  PASS "^\\{\"baselines\":\"data\",\"convention\":\"reference\",\"data\":\"[^\"]*/nats_sss_32768[.]csv\",\"dataset\":\"cifar10\",\"estimator\":\"mp\",\"family\":\"nats-sss\",\"flops\":${_rank_stats},\"n\":32768,\"nsc\":${_rank_stats},\"params\":${_rank_stats},\"params_source\":\"data\",\"protocol\":\"factorized-reduce\",\"skipped\":0,\"target\":\"cifar10_acc\",${_rank_tail}")
set_tests_properties(cli:rank_nats_sss_json PROPERTIES TIMEOUT 20)
# AutoFormer-Tiny: #Params and #FLOPs are rank-equivalent, so their partial taus are null.
nsc_cli_test(rank_autoformer_tiny_json
  ARGS rank --family autoformer-tiny --json
  PASS "^\\{\"baselines\":\"data\",\"convention\":\"reference\",\"data\":\"[^\"]*/autoformer_tiny_200[.]csv\",\"dataset\":null,\"estimator\":\"mp\",\"family\":\"autoformer-tiny\",\"flops\":\\{\"partial_tau\":null,[^}]*\\},\"n\":200,\"nsc\":${_rank_stats},\"params\":\\{\"partial_tau\":null,[^}]*\\},\"params_source\":\"data\",\"protocol\":null,\"skipped\":0,\"target\":\"c100_kd_acc\",${_rank_tail}")

# Options.
nsc_cli_test(rank_flexibert_paper_baselines
  ARGS rank --family flexibert --baselines paper --json
  PASS "\"baselines\":\"paper\".*\"flops\":\\{[^}]*\"tau_b\":0[.]552[0-9]*\\}.*\"params\":\\{\"partial_tau\":${_rank_num},\"pw10_tau\":0[.]082[0-9]*,\"rho\":0[.]676[0-9]*,\"tau_b\":0[.]484[6-9][0-9]*\\}")
nsc_cli_test(rank_nats_options
  ARGS rank --family nats-sss --dataset cifar100 --protocol figure-1x1 --convention xautodl --estimator fs --json
  PASS "\"convention\":\"xautodl\",.*\"dataset\":\"cifar100\",\"estimator\":\"fs\",.*\"n\":32768,.*\"protocol\":\"figure-1x1\",\"skipped\":0,\"target\":\"cifar100_acc\"")
nsc_cli_test(rank_autoformer_target
  ARGS rank --family autoformer-tiny --target c100_base_acc --convention framework --json
  PASS "\"convention\":\"framework\",.*\"n\":100,.*\"skipped\":100,\"target\":\"c100_base_acc\"")
nsc_cli_test(rank_txl_homogeneous
  ARGS rank --family txl --data ../shared/data/lts-archai/random_TransXL_wt103_homogeneous.csv --convention per_head --target test_ppl --json
  PASS "\"convention\":\"per_head\",\"data\":\"../shared/data/lts-archai/random_TransXL_wt103_homogeneous.csv\",.*\"n\":98,.*\"skipped\":1,\"target\":\"test_ppl\"")
nsc_cli_test(rank_dump
  ARGS rank --family gpt2 --dump ${CMAKE_CURRENT_BINARY_DIR}/rank_gpt2_dump.csv --json
  PASS "\"n\":200")
nsc_cli_test(rank_table
  ARGS rank --family gpt2
  PASS "family      gpt2: 200 architectures [(]0 skipped without valid_ppl[)].*\nscore +tau-b +rho +10%-PW tau +partial tau +partial controls\nNSC +0[.]8488 +0[.]9681 +${_rank_num} +${_rank_num} +#Params, #FLOPs\n#Params +0[.]8468 .* +#FLOPs\n#FLOPs +.* +#Params\n\ntime +${_rank_num} ms")
nsc_cli_test(rank_table_nats
  ARGS rank --family nats-sss --protocol figure-1x1
  PASS "dataset cifar10, protocol figure-1x1\n")

# Unhappy paths: non-zero exit and a message naming the problem.
nsc_cli_test(rank_bad_family
  ARGS rank --family bert
  WILL_FAIL)
nsc_cli_test(rank_bad_family_message
  ARGS rank --family bert
  PASS "nsc: error: nsc::eval::parse_family: unknown family; expected flexibert, gpt2, txl, nats-sss or autoformer-tiny [(]got bert[)]")
nsc_cli_test(rank_missing_family
  ARGS rank --json
  WILL_FAIL)
nsc_cli_test(rank_bad_convention
  ARGS rank --family gpt2 --convention per_head
  WILL_FAIL)
nsc_cli_test(rank_bad_convention_message
  ARGS rank --family gpt2 --convention per_head
  PASS "unknown convention for gpt2; expected reference or framework [(]got per_head[)]")
nsc_cli_test(rank_bad_target
  ARGS rank --family autoformer-tiny --target top1
  WILL_FAIL)
nsc_cli_test(rank_bad_target_message
  ARGS rank --family autoformer-tiny --target top1
  PASS "unknown target for autoformer-tiny; the file's target columns are c100_base_acc, c100_kd_acc, .* [(]got top1[)]")
nsc_cli_test(rank_dataset_not_nats
  ARGS rank --family flexibert --dataset cifar10
  PASS "the dataset option applies to nats-sss only [(]got cifar10[)]")
nsc_cli_test(rank_bad_dataset
  ARGS rank --family nats-sss --dataset imagenet
  WILL_FAIL)
nsc_cli_test(rank_bad_protocol_message
  ARGS rank --family nats-sss --protocol fr
  PASS "unknown protocol; expected factorized-reduce or figure-1x1 [(]got fr[)]")
nsc_cli_test(rank_bad_estimator
  ARGS rank --family gpt2 --estimator exact
  PASS "unknown estimator; expected mp or fs [(]got exact[)]")
nsc_cli_test(rank_bad_baselines
  ARGS rank --family gpt2 --baselines paper
  PASS "unknown baselines for gpt2; expected data [(]got paper[)]")
nsc_cli_test(rank_bad_data
  ARGS rank --family gpt2 --data no/such/file.csv
  WILL_FAIL)
nsc_cli_test(rank_wrong_family_data
  ARGS rank --family txl --data ../shared/data/lts-archai/random_GPT2_wt103.csv
  PASS "params_nonembedding disagrees with the txl parameter count")
nsc_cli_test(rank_params_computed_ranks_anyway
  ARGS rank --family txl --data ../shared/data/lts-archai/random_GPT2_wt103.csv --params computed --json
  PASS "\"n\":200,.*\"params_source\":\"computed\"")
nsc_cli_test(rank_bad_params_source
  ARGS rank --family gpt2 --params guess
  WILL_FAIL)

# Family mode with the paired bootstrap: the comparison keys and the bootstrap settings.
nsc_cli_test(rank_family_bootstrap_json
  ARGS rank --family gpt2 --bootstrap 200 --seed 3 --json
  PASS "\"bootstrap\":\\{\"confidence\":0[.]95,\"method\":\"paired percentile\",\"resamples\":200,\"seed\":3\\},.*\"flops\":\\{\"partial_tau\":${_rank_val},\"pw10_tau\":${_rank_val},\"rho\":${_rank_num},\"rho_diff\":${_rank_num},\"rho_diff_ci\":\\[${_rank_num},${_rank_num}\\],\"rho_verdict\":\"(better|tied|worse)\",\"tau_b\":${_rank_num},\"tau_b_diff\":${_rank_num},\"tau_b_diff_ci\":\\[${_rank_num},${_rank_num}\\],\"valid\":200,\"verdict\":\"(better|tied|worse)\"\\}.*\"nsc\":\\{[^}]*\"rho_ci\":\\[${_rank_num},${_rank_num}\\],\"tau_b\":0[.]848[0-9]*,\"tau_b_ci\":\\[")
nsc_cli_test(rank_family_bootstrap_table
  ARGS rank --family gpt2 --bootstrap 100
  PASS "#Params +0[.]8468 .*NSC (better|tied|worse)\n.*bootstrap   100 paired resamples, seed 1, 95% percentile intervals")

# --table: the generator's table (tests/reference/gen_rank_table.py): NSC's tau-b equals scipy's
# 0.6834421298392301 and #Params' 0.839462440447174; the synthetic perplexity follows #Params, so
# NSC is worse than #Params.
nsc_cli_test(rank_table_json
  ARGS rank --table tests/data/rank_table_gpt.csv --target perplexity --lower-is-better --id-column id --bootstrap 300 --seed 1 --json
  PASS "^\\{\"arch_column\":\"arch\",\"baselines\":\\[\\{\"name\":\"params\",\"partial_tau\":${_rank_val},\"pw10_tau\":${_rank_val},\"rho\":0[.]96660852120706[0-9]*,\"rho_diff\":${_rank_num},\"rho_diff_ci\":\\[${_rank_num},${_rank_num}\\],\"rho_verdict\":\"worse\",\"tau_b\":0[.]8394624404471[0-9]*,\"tau_b_diff\":${_rank_num},\"tau_b_diff_ci\":\\[${_rank_num},${_rank_num}\\],\"valid\":300,\"verdict\":\"worse\"\\},\\{\"name\":\"flops\",[^}]*\\}\\],\"bootstrap\":\\{\"confidence\":0[.]95,\"method\":\"paired percentile\",\"resamples\":300,\"seed\":1\\},\"estimator\":null,\"format\":\"csv\",\"id_column\":\"id\",\"init\":null,\"kinds\":\\{\"hf_config\":0,\"nsc_architecture\":300,\"path\":0\\},\"lower_is_better\":true,\"n\":300,\"nsc\":\\{\"partial_tau\":${_rank_val},\"pw10_tau\":${_rank_val},\"rho\":0[.]86951013913443[0-9]*,\"rho_ci\":\\[${_rank_num},${_rank_num}\\],\"tau_b\":0[.]68344212983923[0-9]*,\"tau_b_ci\":\\[${_rank_num},${_rank_num}\\]\\},\"params_source\":\"computed\",\"seq_len\":256[.0]*,\"skipped\":0,\"table\":\"tests/data/rank_table_gpt[.]csv\",\"target\":\"perplexity\",\"time_ms\":${_rank_num},\"timing_ms\":\\{\"bootstrap\":${_rank_num},\"load\":${_rank_num},\"statistics\":${_rank_num}\\}\\}\n$")
# The LTS GPT-2 benchmark as a table reproduces --family gpt2 (tau-b 0.8488, #Params 0.8468).
nsc_cli_test(rank_table_lts_gpt2
  ARGS rank --table examples/tables/lts_gpt2.csv --target valid_ppl --lower-is-better --id-column arch_id --params data --params-column params_nonembedding --bootstrap 0
  PASS "table       examples/tables/lts_gpt2[.]csv [(]CSV[)]: 200 architectures [(]0 skipped without valid_ppl[)]: 0 paths, 0 inline HF configs, 200 nsc architectures\n.*NSC +0[.]8488 +0[.]9681 .*\n#Params +0[.]8468 ")
# The example tables: every kind of architecture cell, CSV and JSON Lines alike.
nsc_cli_test(rank_table_kinds_csv
  ARGS rank --table examples/tables/gpt2_family.csv --target wikitext103_ppl --lower-is-better --id-column model --baseline params_non_embedding --json
  PASS "\"kinds\":\\{\"hf_config\":1,\"nsc_architecture\":1,\"path\":2\\},.*\"n\":4,.*\"tau_b\":1[.]0")
nsc_cli_test(rank_table_kinds_jsonl
  ARGS rank --table examples/tables/gpt2_family.jsonl --target wikitext103_ppl --lower-is-better --baseline params --baseline flops --estimator fs --json
  PASS "\"estimator\":\"fs\",\"format\":\"jsonl\",.*\"kinds\":\\{\"hf_config\":1,\"nsc_architecture\":1,\"path\":2\\}")
nsc_cli_test(rank_table_dump
  ARGS rank --table examples/tables/gpt2_family.csv --target wikitext103_ppl --lower-is-better --id-column model --dump ${CMAKE_CURRENT_BINARY_DIR}/rank_table_dump.csv --bootstrap 0 --json
  PASS "\"n\":4")
# Unhappy paths of --table.
nsc_cli_test(rank_table_no_target
  ARGS rank --table examples/tables/gpt2_family.csv
  PASS "nsc rank: --table needs --target COLUMN")
nsc_cli_test(rank_table_and_family
  ARGS rank --table examples/tables/gpt2_family.csv --family gpt2 --target x
  PASS "give exactly one of --family or --table")
nsc_cli_test(rank_neither
  ARGS rank --json
  PASS "give exactly one of --family or --table")
nsc_cli_test(rank_table_family_option
  ARGS rank --table examples/tables/gpt2_family.csv --target wikitext103_ppl --convention framework
  PASS "nsc rank: --convention applies to --family only")
nsc_cli_test(rank_family_table_option
  ARGS rank --family gpt2 --lower-is-better
  PASS "nsc rank: --lower-is-better applies to --table only")
nsc_cli_test(rank_table_missing_file
  ARGS rank --table no/such/table.csv --target q
  PASS "nsc::read_table: no/such/table[.]csv: cannot open file")
nsc_cli_test(rank_table_bad_column
  ARGS rank --table examples/tables/gpt2_family.csv --target ppl
  PASS "no target column 'ppl' [(]the columns are model, arch, wikitext103_ppl[)]")
nsc_cli_test(rank_table_bad_init
  ARGS rank --table examples/tables/gpt2_family.csv --target wikitext103_ppl --init he
  PASS "unknown initialisation")
nsc_cli_test(rank_table_bad_confidence
  ARGS rank --table examples/tables/gpt2_family.csv --target wikitext103_ppl --confidence 1
  PASS "--confidence must lie in [(]0, 1[)]")
nsc_cli_test(rank_table_exit_code
  ARGS rank --table examples/tables/gpt2_family.csv --target ppl
  WILL_FAIL)
# --plot (scripts/plot_rank.py; python3 with matplotlib, as the quick start installs) and a
# failed --dump write (exit 2, the path named).
nsc_cli_test(rank_table_plot
  ARGS rank --table examples/tables/gpt2_family.csv --target wikitext103_ppl --lower-is-better --bootstrap 0 --plot ${CMAKE_CURRENT_BINARY_DIR}/rank_table_plot.png --json
  PASS "\"plot\":\"[^\"]*rank_table_plot[.]png\"")
nsc_cli_test(rank_dump_unwritable
  ARGS rank --table examples/tables/gpt2_family.csv --target wikitext103_ppl --bootstrap 0 --dump /dev/full
  PASS "writing /dev/full failed")
nsc_cli_test(rank_dump_unwritable_exit
  ARGS rank --table examples/tables/gpt2_family.csv --target wikitext103_ppl --bootstrap 0 --dump /dev/full
  WILL_FAIL)
