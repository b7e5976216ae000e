/// \file nsc/spectral/finite_size.hpp
/// Finite-size corrections to psi_MP (math.md section 3; beyond the paper).
///
///     psi_fs(m, n, v, kappa)     psi_MP + the O(1) second-order term of the linear spectral
///                                statistic sum ln(1 + lambda_i) (Bai & Silverstein 2004)
///     psi_vector_normal(n, v)    E[ln(1 + v chi^2_n)]: exact E[psi] of a 1 x n (or n x 1)
///                                matrix with N(0, v) entries
#ifndef NSC_SPECTRAL_FINITE_SIZE_HPP
#define NSC_SPECTRAL_FINITE_SIZE_HPP

#include <nsc/spectral/marchenko_pastur.hpp>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>

namespace nsc {

/// psi_FS(m, n, v, kappa): psi_MP plus the finite-size mean correction for real i.i.d.
/// entries of variance v and excess kurtosis kappa. With u = sqrt(1 + x (1 + sqrt beta)^2),
/// w = sqrt(1 + x (1 - sqrt beta)^2) (u^2, w^2 are math.md's hi, lo):
///
///     psi_FS = psi_MP + (ln u + ln w)/2 - ln((u + w)/2) - (kappa/2) ((u - w)/(u + w))^2
///            = psi_MP - log1p((u - w)^2 / (4 u w)) / 2 - (kappa/2) r^2,
///     u - w = 4 x sqrt(beta) / (u + w),   r = (u - w) / (u + w)
///
/// (the second line is the cancellation-free evaluation). kappa: 0 for normal entries, -1.2
/// for uniform, see init.hpp. Domain: as psi_mp, and kappa finite and >= -2 (the excess
/// kurtosis of any distribution), and |correction| <= psi_MP: a correction larger than the
/// leading term means the O(1) expansion is invalid for that kappa and shape (e.g. kappa = 1e300,
/// or kappa = 10 for a 1 x 1 matrix); psi_fs is then a domain error instead of a negative psi.
/// For kappa <= 0 the bound never applies to a shape with max(m, n) >= 1 (tests/fuzz/fuzz_psi.cpp
/// checks this); fractional shapes (max(m, n) < 1) can reach it.
/// Finite for every input in the domain (scaled evaluation for x > 1e150, as psi_mp). Accuracy
/// of the model against Monte Carlo: README.md.
template <class T1, class T2, class T3, class T4, class Policy>
typename boost::math::tools::promote_args<T1, T2, T3, T4>::type psi_fs(T1 m, T2 n, T3 v,
                                                                        T4 kappa,
                                                                        const Policy& pol) {
  using result_type = typename boost::math::tools::promote_args<T1, T2, T3, T4>::type;
  using value_type = typename policies::evaluation<result_type, Policy>::type;
  using boost::math::isfinite;
  using std::sqrt;
  static const char* function = "nsc::psi_fs<%1%>(%1%, %1%, %1%, %1%)";
  value_type p, q, beta, x, result;
  const value_type k = static_cast<value_type>(kappa);
  if (detail::check_domain(isfinite(k) && k >= -2, function,
                           "excess kurtosis must be finite and >= -2 (got %1%)", k, result, pol))
    return static_cast<result_type>(result);
  if (!detail::reduce_shape<value_type>(function, static_cast<value_type>(m),
                                        static_cast<value_type>(n), static_cast<value_type>(v),
                                        p, q, beta, x, result, pol))
    return static_cast<result_type>(result);
  const value_type vv = static_cast<value_type>(v);
  const value_type mp = detail::psi_mp_value(function, p, q, beta, vv, pol);
  if (!(isfinite)(mp)) return static_cast<result_type>(mp); // non-throwing policy: passed on
  value_type correction;
  if (x <= detail::mp_large_scale<value_type>()) { // the form the reference tests cover
    const auto [u, w] = detail::make_mp_roots(beta, x);
    const value_type diff = 4 * x * sqrt(beta) / (u + w); // u - w
    const value_type r = diff / (u + w);
    correction = -boost::math::log1p(diff * diff / (4 * u * w), pol) / 2 - k / 2 * r * r;
  } else { // scaled: (u - w)^2 / (4 u w) and r in units of sqrt(x), see mp_scaled_pieces
    const auto s = detail::mp_scaled_pieces(beta, vv, q, pol);
    correction = -boost::math::log1p(s.D, pol) / 2 - k / 2 * s.r * s.r;
  }
  // Validity of the expansion: psi of any matrix is >= 0, and the correction is the O(1) term
  // of an expansion in powers of 1/p around psi_MP = O(p). A correction larger in magnitude
  // than psi_MP itself (for max(m, n) >= 1 only possible for kappa > 0: r^2 < 1 bounds the kappa
  // term by kappa / 2, and for kappa <= 0 the log term stays below psi_MP) means the expansion
  // does not hold for this kappa and shape: a domain error, not a negative or doubled psi.
  using std::abs;
  if (detail::check_domain(abs(correction) <= mp, function,
                           "excess kurtosis too large for this shape: the finite-size correction "
                           "exceeds psi_MP, so the expansion is invalid (got kappa = %1%)",
                           k, result, pol))
    return static_cast<result_type>(result);
  return policies::checked_narrowing_cast<result_type, Policy>(mp + correction, function);
}

template <class T1, class T2, class T3, class T4>
typename boost::math::tools::promote_args<T1, T2, T3, T4>::type psi_fs(T1 m, T2 n, T3 v,
                                                                        T4 kappa) {
  return psi_fs(m, n, v, kappa, default_policy());
}

/// E[ln(1 + v T)], T ~ chi^2 with n degrees of freedom: the exact expected psi of a 1 x n
/// vector with N(0, v) entries (psi = ln(1 + |w|^2)). Quadrature against the
/// chi-squared density (adaptive Gauss-Kronrod split at the mode; tanh-sinh when n < 2, where
/// the density is singular at 0); the neglected upper tail has mass < 1e-40.
/// Domain: n finite and > 0, v finite and >= 0; v = 0 gives 0.
template <class RealType, class Policy>
RealType psi_vector_normal(RealType n, RealType v, const Policy& pol) {
  using boost::math::isfinite;
  static const char* function = "nsc::psi_vector_normal<%1%>(%1%, %1%)";
  RealType result;
  if (detail::check_domain(isfinite(n) && n > 0, function,
                           "length must be finite and > 0 (got %1%)", n, result, pol))
    return result;
  if (detail::check_domain(isfinite(v) && v >= 0, function,
                           "entry variance must be finite and >= 0 (got %1%)", v, result, pol))
    return result;
  if (v == 0) return 0;
  const boost::math::chi_squared_distribution<RealType, Policy> chi(n);
  const RealType mode = n > 2 ? n - 2 : RealType(0);
  const RealType hi = boost::math::quantile(boost::math::complement(chi, RealType(1e-40)));
  auto f = [&](RealType t) {
    if (t <= 0) return RealType(0);
    return boost::math::log1p(v * t, pol) * boost::math::pdf(chi, t);
  };
  using std::sqrt;
  const RealType tol = sqrt(boost::math::tools::epsilon<RealType>());
  if (n < 2) { // the density is singular at 0: tanh-sinh handles the endpoint
    boost::math::quadrature::tanh_sinh<RealType, Policy> integrator;
    return integrator.integrate(f, RealType(0), hi, tol);
  }
  using gk = boost::math::quadrature::gauss_kronrod<RealType, 61>;
  RealType total = 0;
  if (mode > 0) total += gk::integrate(f, RealType(0), mode, 15, tol);
  total += gk::integrate(f, mode, hi, 15, tol);
  return total;
}

template <class RealType>
RealType psi_vector_normal(RealType n, RealType v) {
  return psi_vector_normal(n, v, default_policy());
}

} // namespace nsc

#endif // NSC_SPECTRAL_FINITE_SIZE_HPP
