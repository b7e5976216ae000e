/// \file nsc/spectral/marchenko_pastur.hpp
/// The Marchenko-Pastur closed form psi_MP of the spectral capacity of a random matrix, and the
/// Marchenko-Pastur law itself (support, pdf, cdf, quantile, expectations, rank truncation).
///
/// Synopsis
///
///     psi_mp(m, n, v)                 p * E_MP[ln(1 + lambda)]      (math.md section 2)
///     marchenko_pastur_distribution   law of the eigenvalues of the p x p Gram matrix
///     pdf / cdf / quantile / support / mean / variance / expectation(d, f)
///     psi_mp_top_r(m, n, v, r)        psi of the r largest singular values under the law
///
/// Notation (math.md): W is m x n with i.i.d. entries of mean 0 and variance v;
/// p = min(m, n), q = max(m, n), beta = p / q in (0, 1], x = v q, the mean eigenvalue of the
/// smaller Gram matrix. The law of its eigenvalues is Marchenko-Pastur with ratio beta and
/// scale x, supported on [x (1 - sqrt beta)^2, x (1 + sqrt beta)^2].
///
/// Accuracy: psi_mp is evaluated in a cancellation-free form (below); against a 50-digit
/// mpmath reference over x in [1e-8, 1e8], beta in [1e-6, 1] the worst relative error in
/// double is stated in README.md ("Accuracy") and enforced by tests/test_marchenko_pastur.cpp;
/// at extreme scales (x from 1e-300 to beyond 1.8e308, beta down to 1e-300) against
/// tests/data/psi_extreme_reference.csv.
#ifndef NSC_SPECTRAL_MARCHENKO_PASTUR_HPP
#define NSC_SPECTRAL_MARCHENKO_PASTUR_HPP

#include <nsc/error_handling.hpp>

#include <boost/math/constants/constants.hpp>
#include <boost/math/policies/policy.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/fpclassify.hpp>
#include <boost/math/special_functions/log1p.hpp>
#include <boost/math/tools/precision.hpp>
#include <boost/math/tools/promotion.hpp>
#include <boost/math/tools/roots.hpp>

#include <cmath>
#include <cstdint>
#include <utility>

namespace nsc {

namespace detail {

/// The three cancellation-free pieces shared by psi_MP and psi_FS for ratio beta and scale x:
/// u = sqrt(x (1 + sqrt beta)^2 + 1), w = sqrt(x (1 - sqrt beta)^2 + 1).
template <class Real>
struct mp_roots {
  Real u, w;
};

/// 1 - sqrt(beta) as (1 - beta) / (1 + sqrt(beta)): no cancellation as beta -> 1 (1 - beta is exact
/// for beta in [1/2, 1]), where the rounding of sqrt(beta) would otherwise be amplified by
/// 1 / (1 - sqrt(beta)).
template <class Real>
Real one_minus_sqrt(const Real& beta, const Real& sb) {
  return (1 - beta) / (1 + sb);
}

template <class Real>
mp_roots<Real> make_mp_roots(const Real& beta, const Real& x) {
  using std::sqrt;
  const Real sb = sqrt(beta);
  const Real omsb = one_minus_sqrt(beta, sb);
  return {sqrt(x * (1 + sb) * (1 + sb) + 1), sqrt(x * omsb * omsb + 1)};
}

/// psi_MP / q for ratio beta in (0, 1] and scale x > 0, without cancellation:
///   A - 1 = (d + (x^2 (1 - beta)^2 + 2 x (1 + beta)) / (u w + 1)) / 2,  d = x (1 - beta)
///   B - 1 = 2 x beta / (u w + 1 + d)
///   F/(4x) = 4 x beta / (u + w)^2
///   psi_MP / q = beta log1p(A - 1) + log1p(B - 1) - F / (4x)
/// (math.md section 2; B - 1 uses (u w)^2 - (1 + d)^2 = 4 x beta, a shorter identity than the
/// one in math.md, equal to it exactly: every term is now a sum of positive quantities.)
template <class Real, class Policy>
Real psi_mp_per_q(const Real& beta, const Real& x, const Policy& pol) {
  const auto [u, w] = make_mp_roots(beta, x);
  const Real uw = u * w;
  const Real omb = 1 - beta;
  const Real d = x * omb;
  const Real a_minus_1 = (d + (x * x * omb * omb + 2 * x * (1 + beta)) / (uw + 1)) / 2;
  const Real b_minus_1 = 2 * x * beta / (uw + 1 + d);
  const Real f_over_4x = 4 * x * beta / ((u + w) * (u + w));
  return beta * boost::math::log1p(a_minus_1, pol) + boost::math::log1p(b_minus_1, pol) - f_over_4x;
}

/// Above this scale x the unscaled pieces of psi_mp_per_q would square x (x^2 overflows double
/// above ~1.3e154); there psi is evaluated in the scaled form of mp_scaled_pieces.
template <class Real>
constexpr Real mp_large_scale() {
  return Real(1e150);
}

/// Below this product beta * x (= p v) the terms of psi_mp_per_q, each O(beta x) or O(beta),
/// would reach the subnormal range before being multiplied by q; there the "per p" form is used.
template <class Real>
constexpr Real mp_small_beta_x() {
  return Real(1e-280);
}

/// The pieces of psi_MP per unit of p, valid for every beta in (0, 1] and x = v q > 0, including
/// v q above the largest Real (then x = inf and only v, q are used):
///   psi_MP = p (L_A + b1 rho(beta b1) - f1),  L_A = log1p(A - 1),  rho(y) = log1p(y) / y
/// with B - 1 = beta b1 and F/(4x) = beta f1 (so that q log1p(B - 1) = p b1 rho(beta b1) with no
/// product of beta with a small number, which could underflow). For x <= mp_large_scale the
/// roots u, w are formed as in make_mp_roots; above it in units of sqrt(x):
///   u = sqrt(x) uh, w = sqrt(x) wh, uh = sqrt((1 + sqrt beta)^2 + t^2), wh = sqrt((1 - sqrt beta)^2 + t^2),
///   t = 1 / sqrt(x), u w + 1 = x (uh wh + t^2), u + w = sqrt(x) (uh + wh),
///   A - 1 = x alpha, alpha = (1 - beta) / 2 + ((1 - beta)^2 + 2 (1 + beta) t^2) / (uh wh + t^2) / 2
/// so no intermediate exceeds ~x, and L_A = log1p(x alpha), or ln v + ln q + ln alpha when x
/// overflows (then x alpha > 1e150 and the neglected 1 / (x alpha) is below the last bit).
/// Also returned: the two finite-size quantities of psi_fs, D = (u - w)^2 / (4 u w) and
/// r = (u - w) / (u + w), in the same form.
template <class Real>
struct mp_pieces {
  Real log1p_a_minus_1, b1, f1, D, r;
};

template <class Real, class Policy>
mp_pieces<Real> mp_scaled_pieces(const Real& beta, const Real& v, const Real& q, const Policy& pol) {
  using std::log;
  using std::sqrt;
  const Real x = v * q;
  const Real sb = sqrt(beta);
  const Real omsb = one_minus_sqrt(beta, sb);
  const Real omb = 1 - beta;
  if (x <= mp_large_scale<Real>()) {
    const auto [u, w] = make_mp_roots(beta, x);
    const Real uw = u * w;
    const Real d = x * omb;
    const Real diff = 4 * x * sb / (u + w); // u - w
    return {boost::math::log1p((d + (x * x * omb * omb + 2 * x * (1 + beta)) / (uw + 1)) / 2, pol),
            2 * x / (uw + 1 + d), 4 * x / ((u + w) * (u + w)), diff * diff / (4 * uw),
            diff / (u + w)};
  }
  const bool x_finite = x <= boost::math::tools::max_value<Real>();
  const Real t = x_finite ? Real(1 / sqrt(x)) : Real(1 / (sqrt(v) * sqrt(q)));
  const Real t2 = t * t; // 1 / x (subnormal or 0 for x > 4.5e307: only added to O(1) terms)
  const Real uh = sqrt((1 + sb) * (1 + sb) + t2);
  // beta = 1: wh = t exactly, and alpha = (1 + beta) t / (uh + t) (t^2 may underflow);
  // otherwise (1 - sqrt beta)^2 >= 3e-33 in double and t^2 < 1e-150 only rounds.
  const bool square = omsb == 0;
  const Real wh = square ? t : sqrt(omsb * omsb + t2);
  const Real uwh = uh * wh;
  const Real alpha = square ? Real((1 + beta) * t / (uh + t))
                            : Real(omb / 2 + (omb * omb + 2 * (1 + beta) * t2) / (uwh + t2) / 2);
  const Real la = x_finite ? Real(boost::math::log1p(x * alpha, pol))
                           : Real(log(v) + log(q) + log(alpha));
  const Real s2 = (uh + wh) * (uh + wh);
  return {la, 2 / (uwh + t2 + omb), 4 / s2, 4 * beta / (s2 * uwh), 4 * sb / s2};
}

/// psi_MP for p = beta q and entry variance v (x = v q > 0, possibly above the largest Real),
/// finite for every such input whose value is representable: in the region covered by the
/// 4000-point reference test (x <= mp_large_scale, beta x >= mp_small_beta_x) the
/// cancellation-free form q psi_mp_per_q; elsewhere the per-p scaled form of
/// mp_scaled_pieces (worst error 1.4 eps over tests/data/psi_extreme_reference.csv). A result
/// above the largest Real (about p ln(x) > max) is a domain error via `pol` naming p.
template <class Real, class Policy>
Real psi_mp_value(const char* function, const Real& p, const Real& q, const Real& beta,
                  const Real& v, const Policy& pol) {
  const Real big = boost::math::tools::max_value<Real>();
  const Real x = v * q;
  Real result;
  if (x <= mp_large_scale<Real>() && beta * x >= mp_small_beta_x<Real>()) {
    const Real per_q = psi_mp_per_q(beta, x, pol);
    if (detail::check_domain(per_q <= big / q, function,
                             "psi exceeds the largest representable value (min(rows, cols) = %1%)",
                             p, result, pol))
      return result;
    return q * per_q;
  }
  const mp_pieces<Real> s = mp_scaled_pieces(beta, v, q, pol);
  const Real y = beta * s.b1;
  const Real rho = y == 0 ? Real(1) : Real(boost::math::log1p(y, pol) / y);
  const Real per_p = s.log1p_a_minus_1 + s.b1 * rho - s.f1;
  if (detail::check_domain(per_p <= big / p, function,
                           "psi exceeds the largest representable value (min(rows, cols) = %1%)",
                           p, result, pol))
    return result;
  return p * per_p;
}

/// Validates (m, n, v) and reduces them to (p, q, beta, x). Returns false (with `result` set)
/// when the answer is already known: a domain error under a non-throwing policy, or a
/// degenerate case (m = 0, n = 0 or v = 0) whose psi is 0. x = v q may be infinite (v q above
/// the largest Real) unless `finite_scale` (the law-based functions need a finite scale).
template <class Real, class Policy>
bool reduce_shape(const char* function, const Real& m, const Real& n, const Real& v, Real& p,
                  Real& q, Real& beta, Real& x, Real& result, const Policy& pol,
                  bool finite_scale = false) {
  using boost::math::isfinite;
  if (check_domain(isfinite(m) && m >= 0, function,
                   "number of rows must be finite and >= 0 (got %1%)", m, result, pol))
    return false;
  if (check_domain(isfinite(n) && n >= 0, function,
                   "number of columns must be finite and >= 0 (got %1%)", n, result, pol))
    return false;
  if (check_domain(isfinite(v) && v >= 0, function,
                   "entry variance must be finite and >= 0 (got %1%)", v, result, pol))
    return false;
  if (m == 0 || n == 0 || v == 0) {
    result = 0;
    return false;
  }
  p = m < n ? m : n;
  q = m < n ? n : m;
  beta = p / q;
  x = v * q;
  if (finite_scale &&
      check_domain(isfinite(x), function,
                   "variance * max(rows, cols) must be finite (got %1%)", x, result, pol))
    return false;
  return true;
}

} // namespace detail

/// psi_MP(m, n, v) = p * E_MP[ln(1 + lambda)]: the large-matrix limit of
/// psi(W) = sum_i ln(1 + s_i^2) for an m x n matrix with i.i.d. entries of mean 0 and
/// variance v (Shannon transform of the Marchenko-Pastur law, math.md section 2).
///
/// Domain: m, n, v finite and >= 0 (real-valued dimensions are allowed, e.g. for concavity
/// studies). m = 0, n = 0 or v = 0 give 0. Otherwise a domain error via `pol`. The result is
/// finite for every input in the domain (scaled evaluation where v max(m, n) exceeds 1e150,
/// even beyond the largest double, and where min(m, n) v is below 1e-280), except where psi
/// itself exceeds the largest double (about min(m, n) ln(v max(m, n)) > 1.8e308): a domain
/// error naming min(m, n).
/// Symmetric in (m, n) at fixed v. float arguments are evaluated in double (Boost.Math's
/// promote_float policy) and rounded once.
template <class T1, class T2, class T3, class Policy>
typename boost::math::tools::promote_args<T1, T2, T3>::type psi_mp(T1 m, T2 n, T3 v,
                                                                    const Policy& pol) {
  using result_type = typename boost::math::tools::promote_args<T1, T2, T3>::type;
  using value_type = typename policies::evaluation<result_type, Policy>::type;
  static const char* function = "nsc::psi_mp<%1%>(%1%, %1%, %1%)";
  value_type p, q, beta, x, result;
  if (!detail::reduce_shape<value_type>(function, static_cast<value_type>(m),
                                        static_cast<value_type>(n), static_cast<value_type>(v),
                                        p, q, beta, x, result, pol))
    return static_cast<result_type>(result);
  return policies::checked_narrowing_cast<result_type, Policy>(
      detail::psi_mp_value(function, p, q, beta, value_type(v), pol), function);
}

/// psi_mp with the default (throwing) policy.
template <class T1, class T2, class T3>
typename boost::math::tools::promote_args<T1, T2, T3>::type psi_mp(T1 m, T2 n, T3 v) {
  return psi_mp(m, n, v, default_policy());
}

/// The Marchenko-Pastur law of the eigenvalues of the p x p Gram matrix W W^T (p <= q) of a
/// p x q matrix with i.i.d. entries of variance v: ratio beta = p / q in (0, 1], scale
/// x = v q (its mean). Density on [a, b] = [x (1 - sqrt beta)^2, x (1 + sqrt beta)^2]:
///
///     f(lambda) = sqrt((b - lambda)(lambda - a)) / (2 pi beta x lambda)
///
/// (no atom at 0 since beta <= 1). Every integral below is taken in the angle theta with
/// lambda(theta) = x (1 + beta) - 2 x sqrt(beta) cos(theta), theta in [0, pi], which turns the
/// square-root edges into a smooth, periodic integrand.
template <class RealType = double, class Policy = default_policy>
class marchenko_pastur_distribution {
public:
  using value_type = RealType;
  using policy_type = Policy;

  /// ratio in (0, 1], scale > 0 and finite; otherwise a domain error.
  explicit marchenko_pastur_distribution(RealType ratio, RealType scale = 1)
      : ratio_(ratio), scale_(scale) {
    using boost::math::isfinite;
    static const char* function =
        "nsc::marchenko_pastur_distribution<%1%>::marchenko_pastur_distribution";
    RealType r;
    check_parameters(function, r);
  }

  /// Checks ratio and scale (domain error via Policy); true when the caller must stop with
  /// `result` (a law built with bad parameters under a non-throwing policy: every function of it
  /// then returns the policy's answer, NaN, as Boost.Math's distributions do).
  bool check_parameters(const char* function, RealType& result) const {
    using boost::math::isfinite;
    return detail::check_domain(isfinite(ratio_) && ratio_ > 0 && ratio_ <= 1, function,
                                "ratio must be in (0, 1] (got %1%)", ratio_, result, Policy()) ||
           detail::check_domain(isfinite(scale_) && scale_ > 0, function,
                                "scale must be finite and > 0 (got %1%)", scale_, result, Policy());
  }

  RealType ratio() const { return ratio_; }
  RealType scale() const { return scale_; }
  /// Lower and upper edges of the support.
  RealType lower() const {
    using std::sqrt;
    const RealType s = detail::one_minus_sqrt(ratio_, RealType(sqrt(ratio_)));
    return scale_ * s * s;
  }
  RealType upper() const {
    using std::sqrt;
    const RealType s = 1 + sqrt(ratio_);
    return scale_ * s * s;
  }
  /// lambda(theta) = (x (1 - sqrt beta)^2) + 4 x sqrt(beta) sin^2(theta / 2), cancellation-free.
  RealType lambda_of_theta(RealType theta) const {
    using std::sin;
    using std::sqrt;
    const RealType sb = sqrt(ratio_);
    const RealType s = sin(theta / 2);
    return lower() + 4 * scale_ * sb * s * s;
  }
  /// Inverse of lambda_of_theta on the support (from the nearer edge: asin is ill-conditioned
  /// near 1, so the upper half uses theta = pi - 2 asin(sqrt((upper - lambda) / (4 x sqrt beta)))).
  RealType theta_of_lambda(RealType lambda) const {
    using std::asin;
    using std::sqrt;
    const RealType sb = sqrt(ratio_);
    const RealType width = 4 * scale_ * sb;
    RealType s2 = (lambda - lower()) / width;
    if (s2 <= RealType(1) / 2) {
      if (s2 < 0) s2 = 0;
      return 2 * asin(sqrt(s2));
    }
    RealType c2 = (upper() - lambda) / width;
    if (c2 < 0) c2 = 0;
    return boost::math::constants::pi<RealType>() - 2 * asin(sqrt(c2));
  }
  /// dF/dtheta = (2 x sqrt(beta) sin theta)^2 / (2 pi beta x lambda(theta)) = 2 x sin^2 theta / (pi lambda).
  RealType density_in_theta(RealType theta) const {
    using std::cos;
    using std::sin;
    const RealType pi = boost::math::constants::pi<RealType>();
    if (ratio_ == 1) { // lambda = 4 x sin^2(theta/2): the ratio simplifies exactly
      const RealType c = cos(theta / 2);
      return 2 * c * c / pi;
    }
    const RealType s = sin(theta);
    return 2 * scale_ * s * s / (pi * lambda_of_theta(theta));
  }
  /// lambda(pi - s) = x (1 + sqrt beta)^2 - 4 x sqrt(beta) sin^2(s / 2) and dF/dtheta at pi - s,
  /// evaluated from s: near the upper edge theta = pi - s cannot carry s to full relative
  /// precision (sin(theta) would have a relative error ~ eps / s), so the upper tail is
  /// integrated in s.
  RealType lambda_at_pi_minus(RealType s) const {
    using std::sin;
    using std::sqrt;
    const RealType h = sin(s / 2);
    return upper() - 4 * scale_ * sqrt(ratio_) * h * h;
  }
  RealType density_at_pi_minus(RealType s) const {
    using std::sin;
    const RealType pi = boost::math::constants::pi<RealType>();
    if (ratio_ == 1) {
      const RealType h = sin(s / 2);
      return 2 * h * h / pi;
    }
    const RealType sn = sin(s);
    return 2 * scale_ * sn * sn / (pi * lambda_at_pi_minus(s));
  }
  /// CDF as a function of theta, in closed form:
  ///   F = [2 sqrt(beta) sin theta + (1 + beta) theta
  ///        - 2 (1 - beta) atan(((1 + sqrt beta)/(1 - sqrt beta)) tan(theta/2))] / (2 pi beta)
  /// The three terms cancel where F (or, for the complement, 1 - F) is much smaller than they
  /// are: near theta = 0 (F ~ theta^3 unless beta = 1), near pi for 1 - F, and everywhere when
  /// beta is small (terms O(1), numerator O(beta)). The cancellation is measured (sum of the
  /// terms' magnitudes over the result); above 8 the positive integrand dF/dtheta is integrated
  /// instead, over [0, theta] or [theta, pi], whichever is shorter (adaptive 31-point Gauss-Kronrod,
  /// stopping at eps^(2/3) estimated error, which for these analytic integrands leaves a few
  /// ulps; the 1/lambda peak of width ~ (1 - sqrt beta) near theta = 0 for beta close to 1 is
  /// resolved by the subdivision).
  RealType cdf_of_theta(RealType theta, bool complement = false) const {
    using std::atan2;
    using std::cos;
    using std::sin;
    using std::sqrt;
    const RealType pi = boost::math::constants::pi<RealType>();
    if (theta <= 0) return complement ? RealType(1) : RealType(0);
    if (theta >= pi) return complement ? RealType(0) : RealType(1);
    const RealType sb = sqrt(ratio_);
    const RealType t1 = 2 * sb * sin(theta);
    const RealType t2 = (1 + ratio_) * theta;
    const RealType t3 = ratio_ == 1 ? RealType(0) // (1 - beta) atan(...) -> 0
                                    : 2 * (1 - ratio_) *
                                          atan2((1 + sb) * sin(theta / 2),
                                                detail::one_minus_sqrt(ratio_, sb) * cos(theta / 2));
    const RealType total = 2 * pi * ratio_;
    const RealType f = t1 + t2 - t3; // 2 pi beta F
    const RealType value = complement ? total - f : f;
    const RealType magnitude = complement ? total + t1 + t2 + t3 : t1 + t2 + t3;
    if (value > 0 && magnitude <= 8 * value) return value / total;
    // The shorter side is integrated, over u in [0, 1]: theta = theta u ([0, theta]) or
    // theta = pi - (pi - theta) u ([theta, pi]); the other side is 1 minus it. (Boost's adaptive
    // Gauss-Kronrod compares an unscaled error estimate with a scaled tolerance, so a short
    // interval in theta would be subdivided to the maximum depth.)
    const RealType tol = boost::math::tools::cbrt_epsilon<RealType>() *
                         boost::math::tools::cbrt_epsilon<RealType>();
    using gk = boost::math::quadrature::gauss_kronrod<RealType, 31>;
    if (theta > pi / 2) {
      const RealType len = pi - theta;
      auto integrand = [this, len](RealType u) { return len * density_at_pi_minus(len * u); };
      const RealType upper_tail = gk::integrate(integrand, RealType(0), RealType(1), 15, tol);
      return complement ? upper_tail : 1 - upper_tail;
    }
    auto integrand = [this, theta](RealType u) { return theta * density_in_theta(theta * u); };
    const RealType lower_tail = gk::integrate(integrand, RealType(0), RealType(1), 15, tol);
    return complement ? 1 - lower_tail : lower_tail;
  }

private:
  RealType ratio_;
  RealType scale_;
};

/// Support [x (1 - sqrt beta)^2, x (1 + sqrt beta)^2].
template <class RealType, class Policy>
std::pair<RealType, RealType> support(const marchenko_pastur_distribution<RealType, Policy>& d) {
  return {d.lower(), d.upper()};
}

/// Mean x.
template <class RealType, class Policy>
RealType mean(const marchenko_pastur_distribution<RealType, Policy>& d) {
  return d.scale();
}

/// Variance x^2 beta.
template <class RealType, class Policy>
RealType variance(const marchenko_pastur_distribution<RealType, Policy>& d) {
  return d.scale() * d.scale() * d.ratio();
}

/// Density; 0 outside the support. lambda must not be NaN (domain error).
template <class RealType, class Policy>
RealType pdf(const marchenko_pastur_distribution<RealType, Policy>& d, const RealType& lambda) {
  using boost::math::isnan;
  using std::sqrt;
  static const char* function = "nsc::pdf(const marchenko_pastur_distribution<%1%>&, %1%)";
  RealType r{}; // set by check_parameters / check_domain before any use
  if (d.check_parameters(function, r)) return r;
  if (detail::check_domain(!(isnan)(lambda), function, "argument must not be NaN (got %1%)",
                           lambda, r, Policy()))
    return r;
  const RealType a = d.lower(), b = d.upper();
  if (lambda <= a || lambda >= b || lambda <= 0) return 0;
  return sqrt((b - lambda) * (lambda - a)) /
         (2 * boost::math::constants::pi<RealType>() * d.ratio() * d.scale() * lambda);
}

/// P(Lambda <= lambda), from the closed form in theta (tails by quadrature).
template <class RealType, class Policy>
RealType cdf(const marchenko_pastur_distribution<RealType, Policy>& d, const RealType& lambda) {
  using boost::math::isnan;
  static const char* function = "nsc::cdf(const marchenko_pastur_distribution<%1%>&, %1%)";
  RealType r{}; // set by check_parameters / check_domain before any use
  if (d.check_parameters(function, r)) return r;
  if (detail::check_domain(!(isnan)(lambda), function, "argument must not be NaN (got %1%)",
                           lambda, r, Policy()))
    return r;
  if (lambda <= d.lower()) return 0;
  if (lambda >= d.upper()) return 1;
  return d.cdf_of_theta(d.theta_of_lambda(lambda));
}

/// The lambda with P(Lambda <= lambda) = prob, prob in [0, 1] (domain error otherwise).
/// Solved in theta by Boost.Math's TOMS 748 to full precision.
template <class RealType, class Policy>
RealType quantile(const marchenko_pastur_distribution<RealType, Policy>& d,
                  const RealType& prob) {
  using boost::math::isfinite;
  static const char* function =
      "nsc::quantile(const marchenko_pastur_distribution<%1%>&, %1%)";
  RealType r{}; // set by check_parameters / check_domain before any use
  if (d.check_parameters(function, r)) return r;
  if (detail::check_domain(isfinite(prob) && prob >= 0 && prob <= 1, function,
                           "probability must be in [0, 1] (got %1%)", prob, r, Policy()))
    return r;
  if (prob == 0) return d.lower();
  if (prob == 1) return d.upper();
  const RealType pi = boost::math::constants::pi<RealType>();
  const bool upper_half = prob > RealType(1) / 2;
  auto f = [&](RealType t) {
    return upper_half ? (1 - prob) - d.cdf_of_theta(t, true) : d.cdf_of_theta(t) - prob;
  };
  boost::math::tools::eps_tolerance<RealType> tol(policies::digits<RealType, Policy>() - 2);
  std::uintmax_t max_iter = policies::get_max_root_iterations<Policy>();
  RealType f_lo = upper_half ? (1 - prob) - 1 : -prob;
  RealType f_hi = upper_half ? (1 - prob) : 1 - prob;
  const auto bracket = boost::math::tools::toms748_solve(f, RealType(0), pi, f_lo, f_hi, tol,
                                                         max_iter, Policy());
  return d.lambda_of_theta((bracket.first + bracket.second) / 2);
}

/// E[f(Lambda)] under the law, by adaptive 61-point Gauss-Kronrod in theta over [lo, hi]
/// (default the whole support). The integrand f(lambda(theta)) dF/dtheta is smooth for smooth
/// f, so convergence is fast; `error` (optional) receives the quadrature's error estimate.
/// Used to cross-check the closed forms; the closed forms are faster and more accurate.
template <class RealType, class Policy, class F>
RealType expectation(const marchenko_pastur_distribution<RealType, Policy>& d, F f,
                     RealType* error = nullptr) {
  auto g = [&](RealType t) { return f(d.lambda_of_theta(t)) * d.density_in_theta(t); };
  using std::sqrt;
  return boost::math::quadrature::gauss_kronrod<RealType, 61>::integrate(
      g, RealType(0), boost::math::constants::pi<RealType>(), 15,
      sqrt(boost::math::tools::epsilon<RealType>()), error);
}

/// psi of the r largest singular values under the law: p * E[ln(1 + Lambda); Lambda >= the
/// (1 - r/p) quantile]. r in [0, p] (r > p is clamped to p, giving psi_mp); m, n, v as in
/// psi_mp; r must be finite and >= 0 (domain error).
/// Use: the capacity kept by a rank-r truncation of a randomly initialised matrix.
template <class RealType, class Policy>
RealType psi_mp_top_r(RealType m, RealType n, RealType v, RealType r, const Policy& pol) {
  using boost::math::isfinite;
  static const char* function = "nsc::psi_mp_top_r<%1%>(%1%, %1%, %1%, %1%)";
  RealType p, q, beta, x, result;
  if (detail::check_domain(isfinite(r) && r >= 0, function,
                           "rank must be finite and >= 0 (got %1%)", r, result, pol))
    return result;
  if (!detail::reduce_shape<RealType>(function, m, n, v, p, q, beta, x, result, pol, true))
    return result;
  if (r == 0) return 0;
  if (r >= p) return detail::psi_mp_value(function, p, q, beta, v, pol);
  {
    using std::sqrt;
    const RealType edge = x * (1 + sqrt(beta)) * (1 + sqrt(beta));
    if (detail::check_domain(isfinite(edge), function,
                             "the upper edge of the spectrum, v max(rows, cols) (1 + sqrt(beta))^2, "
                             "must be finite for r < min(rows, cols) (got %1%)",
                             edge, result, pol))
      return result;
  }
  marchenko_pastur_distribution<RealType, Policy> d(beta, x);
  const RealType lam_r = quantile(d, 1 - r / p);
  const RealType theta_r = d.theta_of_lambda(lam_r);
  // in s = pi - theta over [0, pi - theta_r] (accurate near the upper edge, see
  // density_at_pi_minus)
  auto g = [&](RealType s) {
    return boost::math::log1p(d.lambda_at_pi_minus(s), pol) * d.density_at_pi_minus(s);
  };
  using std::sqrt;
  return p * boost::math::quadrature::gauss_kronrod<RealType, 61>::integrate(
                 g, RealType(0), boost::math::constants::pi<RealType>() - theta_r, 15,
                 sqrt(boost::math::tools::epsilon<RealType>()));
}

template <class RealType>
RealType psi_mp_top_r(RealType m, RealType n, RealType v, RealType r) {
  return psi_mp_top_r(m, n, v, r, default_policy());
}

} // namespace nsc

#endif // NSC_SPECTRAL_MARCHENKO_PASTUR_HPP
