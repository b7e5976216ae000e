# Warning flags for the project's own binaries (tests, examples, benchmarks); never exported.
add_library(nsc_warnings INTERFACE)
target_compile_options(nsc_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-Wall -Wextra -Wpedantic -Wshadow>)
option(NSC_WERROR "Treat warnings as errors in the project's own binaries" OFF)
if(NSC_WERROR)
  target_compile_options(nsc_warnings INTERFACE $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-Werror>)
endif()
set(NSC_SANITIZE "" CACHE STRING "Sanitizers for the project's own binaries, e.g. address,undefined")
if(NSC_SANITIZE)
  target_compile_options(nsc_warnings INTERFACE -fsanitize=${NSC_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(nsc_warnings INTERFACE -fsanitize=${NSC_SANITIZE})
  # Tests with long exact cross-checks run a documented subset of their instances here (the test
  # job runs them all): the sanitizers look for memory errors and UB, not for more instances.
  target_compile_definitions(nsc_warnings INTERFACE NSC_SANITIZED_BUILD=1)
endif()
