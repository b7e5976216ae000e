# Exit codes of `nsc` (docs/reference.md "Hostile input"): 0 an answer, 1 no answer (an infeasible
# budget), 2 bad input (a parse error, a missing / unreadable file, a directory, a failed write,
# any error the library reports). ctest alone only tells zero from non-zero, so each entry runs
# this same file in script mode (cmake -P), which runs nsc and compares the exact exit code and,
# optionally, a regex on stderr.
#
#   nsc_exit_code_test(NAME CODE n ARGS a b c [STDERR regex] [STDOUT_FILE path])
if(CMAKE_SCRIPT_MODE_FILE) # ---- script mode: one check ------------------------------------
  string(REPLACE "|" ";" args "${NSC_ARGS}")
  set(out_opt)
  if(NSC_STDOUT_FILE)
    set(out_opt OUTPUT_FILE ${NSC_STDOUT_FILE})
  else()
    set(out_opt OUTPUT_VARIABLE out)
  endif()
  execute_process(COMMAND ${NSC} ${args} RESULT_VARIABLE rc ${out_opt} ERROR_VARIABLE err
                  WORKING_DIRECTORY ${NSC_WORKDIR})
  if(NOT "${rc}" STREQUAL "${NSC_CODE}")
    message(FATAL_ERROR "nsc ${args}: exit code ${rc}, expected ${NSC_CODE}\nstderr: ${err}")
  endif()
  if(NSC_STDERR AND NOT err MATCHES "${NSC_STDERR}")
    message(FATAL_ERROR "nsc ${args}: stderr does not match '${NSC_STDERR}'\nstderr: ${err}")
  endif()
  message(STATUS "nsc ${args}: exit ${rc} as expected; stderr: ${err}")
  return()
endif()

function(nsc_exit_code_test name)
  cmake_parse_arguments(T "" "CODE;STDERR;STDOUT_FILE" "ARGS" ${ARGN})
  list(JOIN T_ARGS "|" joined)
  add_test(NAME cli:exit:${name}
    COMMAND ${CMAKE_COMMAND} -DNSC=$<TARGET_FILE:nsc_cli> "-DNSC_ARGS=${joined}"
            -DNSC_CODE=${T_CODE} "-DNSC_STDERR=${T_STDERR}" "-DNSC_STDOUT_FILE=${T_STDOUT_FILE}"
            -DNSC_WORKDIR=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_LIST_FILE})
endfunction()

# 0: an answer; --help and --version
nsc_exit_code_test(answer CODE 0 ARGS psi --rows 3 --cols 4 --init normal)
nsc_exit_code_test(help CODE 0 ARGS --help)
nsc_exit_code_test(subcommand_help CODE 0 ARGS prune --help)
nsc_exit_code_test(version CODE 0 ARGS --version)
# 2: parse errors (CLI11's own codes 105, 106, ... before), with CLI11's message
nsc_exit_code_test(no_subcommand CODE 2 ARGS)
nsc_exit_code_test(unknown_option CODE 2 ARGS psi --rows 3 --cols 4 --init normal --bogus
  STDERR "bogus")
nsc_exit_code_test(bad_number CODE 2 ARGS psi --rows three --cols 4 --init normal)
nsc_exit_code_test(missing_required CODE 2 ARGS psi --cols 4 --init normal STDERR "--rows")
nsc_exit_code_test(unknown_subcommand CODE 2 ARGS frobnicate)
# 2: files: missing, a directory, invalid JSON, too deep -- the message names the path
nsc_exit_code_test(missing_file CODE 2 ARGS prune /nonexistent/config.json --space lonas
  STDERR "nsc: error: nsc prune: /nonexistent/config.json: cannot open file")
nsc_exit_code_test(directory CODE 2 ARGS prune examples/configs --space lonas
  STDERR "nsc: error: nsc prune: examples/configs: is a directory")
nsc_exit_code_test(invalid_json CODE 2 ARGS prune CMakeLists.txt --space lonas
  STDERR "nsc: error: nsc prune: CMakeLists.txt: invalid JSON")
# 2: a failed write: --emit-config to a full device (reported success before), and stdout
nsc_exit_code_test(emit_config_dev_full CODE 2
  ARGS prune examples/configs/llama-7b.json --space lonas --params 5.7e9 --emit-config /dev/full
  STDERR "nsc: error: writing /dev/full failed: No space left on device")
nsc_exit_code_test(emit_config_unwritable CODE 2
  ARGS prune examples/configs/llama-7b.json --space lonas --params 5.7e9 --emit-config /nonexistent/out.json
  STDERR "cannot open /nonexistent/out.json for writing")
nsc_exit_code_test(stdout_dev_full CODE 2 ARGS psi --rows 3 --cols 4 --init normal
  STDOUT_FILE /dev/full STDERR "nsc: error: writing standard output failed")
# 2: errors the library reports (domain errors, invalid specifications)
nsc_exit_code_test(library_error CODE 2 ARGS psi --rows 3 --cols 3 --init truncated_normal --trunc 2,1
  STDERR "nsc: error: .*truncated_normal_moments")
# 1: no answer: a budget below the smallest model of the space
nsc_exit_code_test(infeasible_prune CODE 1
  ARGS prune examples/configs/llama-7b.json --space lonas --params 1000
  STDERR "nsc: infeasible: the smallest model of the space needs")
