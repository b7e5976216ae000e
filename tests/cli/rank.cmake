# `nsc rank --family F [--json] ...` (examples/nsc/cmd_rank.cpp) on the shared ground-truth data.
# JSON objects are printed with sorted keys on one line: baselines, convention, data, dataset,
# estimator, family, flops, n, nsc, params, protocol, skipped, target, time_ms, timing_ms; nsc,
# params and flops are {partial_tau, pw10_tau, rho, tau_b} (null when undefined).

set(_rank_num "-?[0-9][0-9.e+-]*")
set(_rank_val "[-0-9.e+nul]+") # a number or null (CMake regexes allow only 9 groups)
set(_rank_stats "\\{\"partial_tau\":${_rank_val},\"pw10_tau\":${_rank_val},\"rho\":${_rank_val},\"tau_b\":${_rank_val}\\}")
set(_rank_tail "\"time_ms\":${_rank_num},\"timing_ms\":\\{\"load\":${_rank_num},\"statistics\":${_rank_num}\\}\\}\n$")

# Every family, default settings: the full key set. FlexiBERT and GPT-2 reproduce the paper's
# tau / rho (0.695 / 0.884 and 0.849 / 0.968).
nsc_cli_test(rank_flexibert_json
  ARGS rank --family flexibert --json
  PASS "^\\{\"baselines\":\"data\",\"convention\":\"reference\",\"data\":\"[^\"]*/flexibert_500_glue[.]csv\",\"dataset\":null,\"estimator\":\"mp\",\"family\":\"flexibert\",\"flops\":${_rank_stats},\"n\":500,\"nsc\":\\{\"partial_tau\":${_rank_num},\"pw10_tau\":${_rank_num},\"rho\":0[.]884[0-9]*,\"tau_b\":0[.]695[0-9]*\\},\"params\":${_rank_stats},\"protocol\":null,\"skipped\":0,\"target\":\"glue\",${_rank_tail}")
nsc_cli_test(rank_gpt2_json
  ARGS rank --family gpt2 --json
  PASS "^\\{\"baselines\":\"data\",\"convention\":\"reference\",\"data\":\"[^\"]*/random_GPT2_wt103[.]csv\",\"dataset\":null,\"estimator\":\"mp\",\"family\":\"gpt2\",\"flops\":${_rank_stats},\"n\":200,\"nsc\":\\{\"partial_tau\":${_rank_num},\"pw10_tau\":${_rank_num},\"rho\":0[.]968[0-9]*,\"tau_b\":0[.]848[0-9]*\\},\"params\":${_rank_stats},\"protocol\":null,\"skipped\":0,\"target\":\"valid_ppl\",${_rank_tail}")
nsc_cli_test(rank_txl_json
  ARGS rank --family txl --json
  PASS "^\\{\"baselines\":\"data\",\"convention\":\"reference\",\"data\":\"[^\"]*/random_TransXL_wt103[.]csv\",\"dataset\":null,\"estimator\":\"mp\",\"family\":\"txl\",\"flops\":${_rank_stats},\"n\":200,\"nsc\":${_rank_stats},\"params\":${_rank_stats},\"protocol\":null,\"skipped\":0,\"target\":\"valid_ppl\",${_rank_tail}")
# All 32,768 NATS-SSS architectures: about 0.4 s for reading, scoring and every statistic
# (2 cores, Release); the timeout guards against an accidental O(n^2).
nsc_cli_test(rank_nats_sss_json
  ARGS rank --family nats-sss --json
  PASS "^\\{\"baselines\":\"data\",\"convention\":\"reference\",\"data\":\"[^\"]*/nats_sss_32768[.]csv\",\"dataset\":\"cifar10\",\"estimator\":\"mp\",\"family\":\"nats-sss\",\"flops\":${_rank_stats},\"n\":32768,\"nsc\":${_rank_stats},\"params\":${_rank_stats},\"protocol\":\"factorized-reduce\",\"skipped\":0,\"target\":\"cifar10_acc\",${_rank_tail}")
set_tests_properties(cli:rank_nats_sss_json PROPERTIES TIMEOUT 20)
# AutoFormer-Tiny: #Params and #FLOPs are rank-equivalent, so their partial taus are null.
nsc_cli_test(rank_autoformer_tiny_json
  ARGS rank --family autoformer-tiny --json
  PASS "^\\{\"baselines\":\"data\",\"convention\":\"reference\",\"data\":\"[^\"]*/autoformer_tiny_200[.]csv\",\"dataset\":null,\"estimator\":\"mp\",\"family\":\"autoformer-tiny\",\"flops\":\\{\"partial_tau\":null,[^}]*\\},\"n\":200,\"nsc\":${_rank_stats},\"params\":\\{\"partial_tau\":null,[^}]*\\},\"protocol\":null,\"skipped\":0,\"target\":\"c100_kd_acc\",${_rank_tail}")

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
