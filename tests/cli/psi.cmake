# nsc psi: the issue's check values, every init, JSON keys, Monte Carlo, and bad arguments.
nsc_cli_test(psi_xavier_2000x2000 ARGS psi --rows 2000 --cols 2000 --init xavier_normal --json
  PASS "\"psi_mp\":1160\\.91527773820")
nsc_cli_test(psi_xavier_4000x1000 ARGS psi --rows 4000 --cols 1000 --init xavier_normal --json
  PASS "\"psi_mp\":908\\.66023714167")
nsc_cli_test(psi_json_keys ARGS psi --rows 64 --cols 32 --init kaiming_uniform --mode fan_out --json
  PASS "\"kurtosis_excess\":-1\\.2.*\"psi_fs\":.*\"psi_mp\":.*\"variance\":0\\.03125")
nsc_cli_test(psi_text ARGS psi --rows 64 --cols 32 --init torch_default
  PASS "psi_mp +[0-9.]+.*psi_fs +[0-9.]+.*variance +0\\.0104166")
nsc_cli_test(psi_normal_std ARGS psi --rows 100 --cols 100 --init normal --std 0.1 --json
  PASS "\"variance\":0\\.01000000000000000[0-9]*[,}]")
nsc_cli_test(psi_truncated ARGS psi --rows 100 --cols 100 --init truncated_normal --std 1 --trunc -2,2 --json
  PASS "\"kurtosis_excess\":-0\\.6344632828")
nsc_cli_test(psi_orthogonal ARGS psi --rows 8 --cols 16 --init orthogonal --gain 1 --json
  PASS "\"kurtosis_excess\":null.*\"psi_mp\":5\\.54517744447956")
nsc_cli_test(psi_xavier_uniform_gain ARGS psi --rows 10 --cols 30 --init xavier_uniform --gain 2 --json
  PASS "\"variance\":0\\.2[,}]")
nsc_cli_test(psi_mc_json ARGS psi --rows 32 --cols 16 --init xavier_normal --mc 50 --seed 7 --json
  PASS "\"psi_w_mean\":[0-9.]+.*\"psi_w_stderr\":[0-9.e-]+")
nsc_cli_test(psi_mc_uniform ARGS psi --rows 32 --cols 16 --init xavier_normal --mc 20 --dist uniform
  PASS "psi_w \\(MC\\) .*uniform entries")
nsc_cli_test(psi_zero_size ARGS psi --rows 0 --cols 16 --init kaiming_normal --mode fan_out --json PASS "\"psi_mp\":0\\.0.*\"variance\":null")
# Bad arguments: a usage/error message and a non-zero exit, never a crash.
nsc_cli_test(psi_missing_rows ARGS psi --cols 3 --init normal WILL_FAIL)
nsc_cli_test(psi_negative_rows ARGS psi --rows -3 --cols 3 --init normal WILL_FAIL)
nsc_cli_test(psi_negative_rows_msg ARGS psi --rows -3 --cols 3 --init normal PASS "must be an integer >= 0")
nsc_cli_test(psi_bad_init ARGS psi --rows 3 --cols 3 --init bogus WILL_FAIL)
nsc_cli_test(psi_bad_mode ARGS psi --rows 3 --cols 3 --init kaiming_normal --mode sideways WILL_FAIL)
nsc_cli_test(psi_bad_trunc ARGS psi --rows 3 --cols 3 --init truncated_normal --trunc 2,1 WILL_FAIL)
nsc_cli_test(psi_bad_trunc_msg ARGS psi --rows 3 --cols 3 --init truncated_normal --trunc 2,1
  PASS "nsc::truncated_normal_moments.*lower bound must be < upper bound")
# A zero-size matrix has psi = 0 even where its fan is 0 (the library's moments() rejects a zero
# fan for a non-empty weight: tests/test_init.cpp).
nsc_cli_test(psi_zero_fan_zero_size ARGS psi --rows 3 --cols 0 --init kaiming_normal PASS "psi_mp +0\n")
nsc_cli_test(psi_bad_gain ARGS psi --rows 3 --cols 3 --init xavier_normal --gain nan WILL_FAIL)
nsc_cli_test(psi_mc_one_trial ARGS psi --rows 3 --cols 3 --init normal --mc 1 WILL_FAIL)
nsc_cli_test(psi_seed_without_mc ARGS psi --rows 3 --cols 3 --init normal --seed 4 WILL_FAIL)
# Hostile sizes (issue 13): huge shapes give finite scores (scaled evaluation), a variance that
# overflows and a Monte Carlo matrix that would not fit in memory are clear errors.
nsc_cli_test(psi_huge_shape ARGS psi --rows 1000000000000000000 --cols 3000000000000000000 --init xavier_normal --json
  PASS "\"psi_fs\":[0-9.e+]+,\"psi_mp\":[0-9.e+]+,")
nsc_cli_test(psi_huge_gain ARGS psi --rows 3 --cols 3 --init kaiming_normal --gain 1e200
  PASS "nsc: error: .*entry variance overflows")
nsc_cli_test(psi_huge_gain_orthogonal ARGS psi --rows 3 --cols 3 --init orthogonal --gain 1e200 --json
  PASS "\"psi_mp\":2763\\.102111592")
nsc_cli_test(psi_mc_too_large ARGS psi --rows 1000000 --cols 1000000 --init normal --mc 2
  PASS "nsc: error: nsc psi: --mc needs a dense rows x cols matrix; rows [*] cols = 1000000000000 exceeds the limit of 16777216")
nsc_cli_test(psi_mc_overflow ARGS psi --rows 9000000000000000000 --cols 9000000000000000000 --init normal --mc 2
  PASS "rows [*] cols overflows")
