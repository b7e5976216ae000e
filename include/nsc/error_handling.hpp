/// \file nsc/error_handling.hpp
/// How nsc reports bad input.
///
/// * Numeric arguments out of their domain (negative or non-finite variance, negative
///   dimension, ...) go through Boost.Math policies, exactly like Boost.Math's own special
///   functions: with the default policy a `std::domain_error` is thrown whose message names
///   the function, the rule and the offending value, e.g.
///   "Error in function nsc::psi_mp<double>(double, double, double): variance must be
///   finite and >= 0 (got -1)". Pass another policy to get a NaN or errno instead.
/// * Malformed specifications (a layer whose heads do not divide the width, a knapsack
///   group without options, a missing JSON field, ...) throw `std::invalid_argument` with
///   a message "nsc::<function>: <rule> (got <value>)".
/// * Infeasible budgets and similar outcomes are not errors: they are a status in the
///   returned result.
#ifndef NSC_ERROR_HANDLING_HPP
#define NSC_ERROR_HANDLING_HPP

#include <boost/math/policies/error_handling.hpp>
#include <boost/math/policies/policy.hpp>

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nsc {

namespace policies = boost::math::policies;

/// The default policy: every domain error throws std::domain_error; double is evaluated in
/// double (Boost.Math's default would promote it to long double, which is slower and would hide
/// the accuracy of the double algorithms); float is still evaluated in double.
using default_policy = policies::policy<policies::promote_double<false>>;

/// Throws std::invalid_argument("nsc::<function>: <rule>").
[[noreturn]] inline void throw_invalid_argument(std::string_view function, std::string_view rule) {
  std::string msg;
  msg.reserve(function.size() + rule.size() + 2);
  msg.append(function).append(": ").append(rule);
  throw std::invalid_argument(msg);
}

/// Throws std::invalid_argument("nsc::<function>: <rule> (got <value>)").
template <class T>
[[noreturn]] void throw_invalid_argument(std::string_view function, std::string_view rule,
                                         const T& value) {
  std::ostringstream os;
  os.precision(17);
  os << function << ": " << rule << " (got " << value << ")";
  throw std::invalid_argument(os.str());
}

namespace detail {

/// Raises a Boost.Math domain error for `value` unless `ok`; returns true when the caller
/// must stop (the policy chose not to throw), with `result` set to the policy's answer.
template <class Real, class Policy>
bool check_domain(bool ok, const char* function, const char* rule, const Real& value,
                  Real& result, const Policy& pol) {
  if (ok) return false;
  result = policies::raise_domain_error<Real>(function, rule, value, pol);
  return true;
}

} // namespace detail
} // namespace nsc

#endif // NSC_ERROR_HANDLING_HPP
