/// \file nsc/spectral/psi.hpp
/// psi of one weight matrix from its shape and initialisation: the estimator chosen at run time.
///
///     estimator::mp   psi_MP, the paper's closed form (default)
///     estimator::fs   psi_FS, psi_MP with the finite-size correction (math.md section 3)
///
/// An orthogonal initialisation has a deterministic spectrum: psi = p ln(1 + g^2) exactly for
/// both estimators.
#ifndef NSC_SPECTRAL_PSI_HPP
#define NSC_SPECTRAL_PSI_HPP

#include <nsc/spectral/finite_size.hpp>
#include <nsc/spectral/init.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>

#include <cmath>
#include <string_view>

namespace nsc {

/// Which closed form scores a matrix.
enum class estimator { mp, fs };

constexpr std::string_view to_string(estimator e) noexcept { return e == estimator::mp ? "mp" : "fs"; }

/// Parses "mp" or "fs"; std::invalid_argument otherwise.
inline estimator parse_estimator(std::string_view name) {
  if (name == "mp") return estimator::mp;
  if (name == "fs") return estimator::fs;
  throw_invalid_argument("nsc::parse_estimator", "unknown estimator; expected mp or fs",
                         std::string(name));
}

/// psi of a rows x cols matrix whose entries have the given moments.
template <class Real, class Policy>
Real psi(Real rows, Real cols, const entry_moments<Real>& mom, estimator est, const Policy& pol) {
  if (mom.orthogonal) {
    // Validate the shape through psi_mp (v = 1), then the exact deterministic value. Under a
    // non-throwing policy a bad shape gives NaN there, which is passed on.
    const Real check = psi_mp(rows, cols, Real(1), pol);
    if (check == 0 || (boost::math::isnan)(check)) return check;
    const Real p = rows < cols ? rows : cols;
    using std::abs;
    using std::log;
    // ln(1 + g^2) without forming g^2 when it could overflow (|g| > 1e150: 1 + g^2 = g^2 to
    // far below the last bit, so ln(1 + g^2) = 2 ln|g|).
    const Real g = abs(mom.gain);
    const Real per_value = g > Real(1e150) ? Real(2 * log(g)) : Real(boost::math::log1p(g * g, pol));
    Real result;
    if (detail::check_domain(per_value <= boost::math::tools::max_value<Real>() / p,
                             "nsc::psi<%1%>(rows, cols, orthogonal)",
                             "psi exceeds the largest representable value (min(rows, cols) = %1%)",
                             p, result, pol))
      return result;
    return p * per_value;
  }
  return est == estimator::mp ? psi_mp(rows, cols, mom.variance, pol)
                              : psi_fs(rows, cols, mom.variance, mom.kurtosis_excess, pol);
}

/// psi of a weight of shape (rows, cols) = (out, in) under initialisation `ini` with the given
/// fans (conv weights: conv_fans), by estimator `est`. A zero-size matrix (rows or cols = 0)
/// has psi = 0 whatever the initialisation (there is nothing to initialise, so the init's own
/// fan checks are not applied); negative or non-finite sizes are domain errors.
template <class Real, class Policy>
Real psi(Real rows, Real cols, const basic_init<Real>& ini, const fans<Real>& f, estimator est,
         const Policy& pol) {
  if (rows == 0 || cols == 0) return psi_mp(rows, cols, Real(1), pol); // validates, returns 0
  return psi(rows, cols, moments(ini, f, pol), est, pol);
}

/// psi of a Linear weight of shape (out, in) = (rows, cols): fan_out = rows, fan_in = cols.
template <class Real>
Real psi(Real rows, Real cols, const basic_init<Real>& ini, estimator est = estimator::mp) {
  return psi(rows, cols, ini, linear_fans(rows, cols), est, default_policy());
}

} // namespace nsc

#endif // NSC_SPECTRAL_PSI_HPP
