/// \file tests/support/accuracy.hpp
/// Relative errors against reference values, and a worst-case tracker for reporting them.
#ifndef NSC_TESTS_SUPPORT_ACCURACY_HPP
#define NSC_TESTS_SUPPORT_ACCURACY_HPP

#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>

namespace nsc_test {

/// |value - ref| / |ref| in long double (|value| when ref == 0); +inf if value is NaN.
inline long double rel_error(long double value, long double ref) {
  if (std::isnan(value)) return std::numeric_limits<long double>::infinity();
  if (ref == 0) return std::fabs(value);
  return std::fabs(value - ref) / std::fabs(ref);
}

/// Keeps the largest error seen and a description of where.
struct worst_case {
  long double error = 0;
  std::string where;
  std::size_t count = 0;

  void add(long double err, const std::string& at) {
    ++count;
    if (err > error || (std::isnan(err) && !std::isnan(error))) {
      error = err;
      where = at;
    }
  }
  /// "worst <err> (<err/eps> eps) at <where> over <count> values".
  template <class Real>
  std::string report(const char* what) const {
    std::ostringstream os;
    os.precision(3);
    os << what << ": worst relative error " << static_cast<double>(error) << " ("
       << static_cast<double>(error / std::numeric_limits<Real>::epsilon()) << " eps) at "
       << where << " over " << count << " values";
    return os.str();
  }
};

} // namespace nsc_test

#endif // NSC_TESTS_SUPPORT_ACCURACY_HPP
