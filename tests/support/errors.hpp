/// \file tests/support/errors.hpp
/// The message of the exception a callable throws, for exact error-message checks.
#ifndef NSC_TESTS_SUPPORT_ERRORS_HPP
#define NSC_TESTS_SUPPORT_ERRORS_HPP

#include <exception>
#include <string>

namespace nsc_test {

/// e.what() of the std::exception `f()` throws, or "(no error)".
template <class F>
std::string error_of(const F& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace nsc_test

#endif
