/// \file nsc/spectral/init.hpp
/// Initialisation conventions -> entry variance v and excess kurtosis kappa (math.md section 4).
///
///     basic_init<Real>            a convention with its parameters (gain, fan mode, std, bounds)
///     linear_fans / conv_fans     PyTorch's fan_in / fan_out for Linear and (grouped) Conv weights
///     entry_moments(init, fans)   { variance, kurtosis_excess, orthogonal }
///     truncated_normal_moments    variance factor and excess kurtosis of N(0,1) cut to [a, b]
///
/// | convention                     | v                                | kappa   |
/// |--------------------------------|----------------------------------|---------|
/// | xavier_normal(g)               | g^2 2 / (fan_in + fan_out)       | 0       |
/// | xavier_uniform(g)              | same                             | -1.2    |
/// | kaiming_normal(g, mode)        | g^2 / fan_mode                   | 0       |
/// | kaiming_uniform(g, mode)       | same                             | -1.2    |
/// | torch_default (a = sqrt 5)     | 1 / (3 fan_in)                   | -1.2    |
/// | normal(std)                    | std^2                            | 0       |
/// | truncated_normal(std, a, b)    | std^2 * truncated variance factor| its own |
/// | orthogonal(g)                  | every singular value is g        | -       |
#ifndef NSC_SPECTRAL_INIT_HPP
#define NSC_SPECTRAL_INIT_HPP

#include <nsc/error_handling.hpp>

#include <boost/math/constants/constants.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/fpclassify.hpp>
#include <boost/math/tools/precision.hpp>

#include <array>
#include <limits>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace nsc {

/// The initialisation families nsc knows.
enum class init_kind {
  xavier_normal,
  xavier_uniform,
  kaiming_normal,
  kaiming_uniform,
  torch_default,
  normal,
  truncated_normal,
  orthogonal
};

/// Which fan Kaiming initialisation divides by.
enum class fan_mode { fan_in, fan_out };

/// Canonical names (as in PyTorch's torch.nn.init, and the CLI's --init).
constexpr std::string_view to_string(init_kind k) noexcept {
  switch (k) {
  case init_kind::xavier_normal: return "xavier_normal";
  case init_kind::xavier_uniform: return "xavier_uniform";
  case init_kind::kaiming_normal: return "kaiming_normal";
  case init_kind::kaiming_uniform: return "kaiming_uniform";
  case init_kind::torch_default: return "torch_default";
  case init_kind::normal: return "normal";
  case init_kind::truncated_normal: return "truncated_normal";
  case init_kind::orthogonal: return "orthogonal";
  }
  return "?";
}

constexpr std::string_view to_string(fan_mode m) noexcept {
  return m == fan_mode::fan_in ? "fan_in" : "fan_out";
}

/// Parses a name produced by to_string; std::invalid_argument listing the valid names otherwise.
inline init_kind parse_init_kind(std::string_view name) {
  constexpr std::array all = {init_kind::xavier_normal,   init_kind::xavier_uniform,
                              init_kind::kaiming_normal,  init_kind::kaiming_uniform,
                              init_kind::torch_default,   init_kind::normal,
                              init_kind::truncated_normal, init_kind::orthogonal};
  for (auto k : all)
    if (to_string(k) == name) return k;
  throw_invalid_argument("nsc::parse_init_kind",
                         "unknown initialisation; expected one of xavier_normal, xavier_uniform, "
                         "kaiming_normal, kaiming_uniform, torch_default, normal, "
                         "truncated_normal, orthogonal",
                         std::string(name));
}

/// An initialisation convention with its parameters. Build it with the named factories;
/// fields irrelevant to the kind are ignored.
template <class Real = double>
struct basic_init {
  init_kind kind = init_kind::xavier_normal;
  Real gain = 1;             ///< xavier, kaiming, orthogonal
  fan_mode mode = fan_mode::fan_in; ///< kaiming
  Real std = Real(0.02);     ///< normal, truncated_normal
  Real lower = -2;           ///< truncated_normal lower bound, in units of std
  Real upper = 2;            ///< truncated_normal upper bound, in units of std

  static basic_init xavier_normal(Real g = 1) { return {init_kind::xavier_normal, g}; }
  static basic_init xavier_uniform(Real g = 1) { return {init_kind::xavier_uniform, g}; }
  /// PyTorch's kaiming_* default is gain sqrt(2) (leaky_relu with a = 0), mode fan_in.
  static basic_init kaiming_normal(Real g = boost::math::constants::root_two<Real>(),
                                   fan_mode m = fan_mode::fan_in) {
    return {init_kind::kaiming_normal, g, m};
  }
  static basic_init kaiming_uniform(Real g = boost::math::constants::root_two<Real>(),
                                    fan_mode m = fan_mode::fan_in) {
    return {init_kind::kaiming_uniform, g, m};
  }
  /// nn.Linear / nn.Conv*d default: kaiming_uniform with a = sqrt(5) -> U(-1/sqrt(fan_in), ..).
  static basic_init torch_default() { return {init_kind::torch_default}; }
  static basic_init normal(Real s) {
    basic_init i{init_kind::normal};
    i.std = s;
    return i;
  }
  /// N(0, std^2) truncated to [a std, b std] (bounds in units of std).
  static basic_init truncated_normal(Real s, Real a = -2, Real b = 2) {
    basic_init i{init_kind::truncated_normal};
    i.std = s;
    i.lower = a;
    i.upper = b;
    return i;
  }
  static basic_init orthogonal(Real g = 1) { return {init_kind::orthogonal, g}; }
};

using init = basic_init<double>;

/// PyTorch's fan_in and fan_out of a weight.
template <class Real = double>
struct fans {
  Real fan_in;
  Real fan_out;
};

/// Linear weight of shape (out, in): fan_in = in, fan_out = out.
template <class Real>
fans<Real> linear_fans(Real out, Real in) {
  return {in, out};
}

/// Conv weight (c_out, c_in / groups, k_h, k_w), as torch.nn.init computes it from the weight
/// tensor: fan_in = (c_in / groups) k_h k_w, fan_out = c_out k_h k_w. (PyTorch takes fan_out from
/// the tensor's first dimension, c_out, whatever the groups; math.md's "(c_out/groups)" is not
/// what PyTorch draws, so nsc follows the code.) groups must be >= 1 and divide c_in and c_out
/// (std::invalid_argument otherwise).
template <class Real>
fans<Real> conv_fans(Real c_out, Real c_in, Real k_h, Real k_w, Real groups = 1) {
  using std::fmod;
  if (!(groups >= 1) || fmod(c_in, groups) != 0 || fmod(c_out, groups) != 0)
    throw_invalid_argument("nsc::conv_fans", "groups must be >= 1 and divide c_in and c_out",
                           groups);
  return {c_in / groups * k_h * k_w, c_out * k_h * k_w};
}

/// Variance factor and excess kurtosis of a standard normal truncated to [a, b] (a < b).
template <class Real = double>
struct truncated_moments {
  Real mean;            ///< E[X] (0 for symmetric bounds)
  Real variance;        ///< Var[X] (the factor multiplying std^2)
  Real kurtosis_excess; ///< E[(X - mean)^4] / Var^2 - 3
};

/// Moments of N(0, 1) truncated to [a, b], from Boost.Math's normal pdf/cdf:
/// with Z = Phi(b) - Phi(a) and g_k = (a^k phi(a) - b^k phi(b)) / Z, the raw moments obey
/// m_0 = 1, m_1 = g_0, m_k = (k - 1) m_{k-2} + g_{k-1}. Infinite bounds are allowed. Where
/// that recurrence cancels (narrow intervals, intervals far in a tail) the central moments are
/// integrated instead (see the body). Domain: a < b, not NaN (domain error otherwise).
template <class Real, class Policy>
truncated_moments<Real> truncated_normal_moments(Real a, Real b, const Policy& pol) {
  using boost::math::isinf;
  using boost::math::isnan;
  static const char* function = "nsc::truncated_normal_moments<%1%>(%1%, %1%)";
  Real r;
  if (detail::check_domain(!(isnan)(a) && !(isnan)(b) && a < b, function,
                           "lower bound must be < upper bound (got lower - upper = %1%)", a - b,
                           r, pol))
    return {r, r, r};
  const boost::math::normal_distribution<Real, Policy> nd;
  auto phi = [&](Real t) { return (isinf)(t) ? Real(0) : boost::math::pdf(nd, t); };
  // Z with the better-conditioned tail when both bounds are on the same side.
  Real z;
  if (a >= 0)
    z = boost::math::cdf(boost::math::complement(nd, a)) -
        boost::math::cdf(boost::math::complement(nd, b));
  else
    z = boost::math::cdf(nd, b) - boost::math::cdf(nd, a);
  if (detail::check_domain(z > 0, function,
                           "the interval [a, b] has zero probability under N(0,1) (got %1%)", z,
                           r, pol))
    return {r, r, r};
  auto g = [&](int k) {
    auto term = [&](Real t) {
      if ((isinf)(t)) return Real(0);
      using std::pow;
      return (k == 0 ? Real(1) : pow(t, k)) * phi(t);
    };
    return (term(a) - term(b)) / z;
  };
  const Real m1 = g(0);
  const Real g1 = g(1), g2 = g(2), g3 = g(3);
  const Real m2 = 1 + g1;
  const Real m3 = 2 * m1 + g2;
  const Real m4 = 3 * m2 + g3;
  const Real var = m2 - m1 * m1;
  const Real mu4 = m4 - 4 * m1 * m3 + 6 * m1 * m1 * m2 - 3 * m1 * m1 * m1 * m1;
  // The raw-moment recurrence cancels for narrow intervals (m2 = 1 + g_1 with g_1 -> -1: at
  // [-1e-3, 1e-3] it gives an excess kurtosis of -2.66, below the bound -2) and far in a tail
  // (var << m2). Measure the cancellation (magnitude of the terms over the result); above 8,
  // integrate the central moments instead (positive integrands, adaptive Gauss-Kronrod).
  using std::abs;
  const Real m1sq = m1 * m1;
  const Real mag_var = 1 + abs(g1) + m1sq;
  const Real mag_mu4 = 3 * (1 + abs(g1)) + abs(g3) + 4 * abs(m1) * (2 * abs(m1) + abs(g2)) +
                       6 * m1sq * abs(m2) + 3 * m1sq * m1sq;
  if (var > 0 && mu4 > 0 && mag_var <= 8 * var && mag_mu4 <= 8 * mu4)
    return {m1, var, mu4 / (var * var) - 3};
  // Infinite bounds are cut 40 beyond the other bound or 0 (phi(40) / phi(0) = e^-800), and the
  // integrals taken over u in [0, 1] (Boost's adaptive Gauss-Kronrod compares an unscaled error
  // estimate with a scaled tolerance, which would over-subdivide a short interval).
  const Real lo = (isinf)(a) ? (b < 0 ? b : Real(0)) - 40 : a;
  const Real hi = (isinf)(b) ? (a > 0 ? a : Real(0)) + 40 : b;
  const Real len = hi - lo;
  const Real tol = boost::math::tools::cbrt_epsilon<Real>() * boost::math::tools::cbrt_epsilon<Real>();
  auto moment = [&](int k, const Real& centre) {
    const Real offset = lo - centre;
    auto f = [&](const Real& u) {
      const Real t = lo + len * u;
      const Real d = offset + len * u; // t - centre, without the rounding of t
      Real dk = 1;
      for (int i = 0; i < k; ++i) dk *= d;
      return len * dk * phi(t);
    };
    return boost::math::quadrature::gauss_kronrod<Real, 31>::integrate(f, Real(0), Real(1), 15, tol);
  };
  const Real i0 = moment(0, Real(0));
  const Real mean = a == -b ? Real(0) : moment(1, Real(0)) / i0;
  const Real cvar = moment(2, mean) / i0;
  const Real cmu4 = moment(4, mean) / i0;
  return {mean, cvar, cmu4 / (cvar * cvar) - 3};
}

template <class Real>
truncated_moments<Real> truncated_normal_moments(Real a, Real b) {
  return truncated_normal_moments(a, b, default_policy());
}

/// What an initialisation means for psi: i.i.d. entries of this variance and excess kurtosis,
/// or (orthogonal) a deterministic spectrum with every singular value equal to `gain`.
template <class Real = double>
struct entry_moments {
  Real variance;
  Real kurtosis_excess;
  bool orthogonal = false;
  Real gain = 0; ///< only for orthogonal
};

/// Entry variance and excess kurtosis of `ini` for a weight with fans `f` (math.md section 4).
/// Domain errors (naming the value): fans must be finite and > 0 for the conventions that
/// use them, gain finite (> 0 for orthogonal... any finite value, its square is used), std
/// finite and >= 0, truncation bounds a < b, and the resulting variance finite (a gain of
/// 1e200 is a domain error here, not an infinite variance passed on).
template <class Real, class Policy>
entry_moments<Real> moments(const basic_init<Real>& ini, const fans<Real>& f, const Policy& pol) {
  using boost::math::isfinite;
  static const char* function = "nsc::moments<%1%>(const basic_init<%1%>&, const fans<%1%>&)";
  Real r;
  const Real nan = std::numeric_limits<Real>::quiet_NaN();
  const entry_moments<Real> bad{nan, nan, false, 0};
  auto need_fan = [&](const Real& fan, const char* rule) {
    return !detail::check_domain(isfinite(fan) && fan > 0, function, rule, fan, r, pol);
  };
  auto need_gain = [&]() {
    return !detail::check_domain(isfinite(ini.gain), function, "gain must be finite (got %1%)",
                                 ini.gain, r, pol);
  };
  // gain^2 / fan or std^2 above the largest Real: the entry variance is not representable.
  auto finite_variance = [&](const Real& v) {
    return !detail::check_domain(
        isfinite(v), function,
        "entry variance overflows (gain^2 / fan or std^2 too large; gain = %1%)",
        ini.kind == init_kind::normal || ini.kind == init_kind::truncated_normal ? ini.std
                                                                                 : ini.gain,
        r, pol);
  };
  const Real uniform_kappa = Real(-6) / 5;
  switch (ini.kind) {
  case init_kind::xavier_normal:
  case init_kind::xavier_uniform: {
    if (!need_fan(f.fan_in, "fan_in must be finite and > 0 (got %1%)") ||
        !need_fan(f.fan_out, "fan_out must be finite and > 0 (got %1%)") || !need_gain())
      return bad;
    // fan_in / 2 + fan_out / 2: the same value as (fan_in + fan_out) / 2, without overflow
    const Real v = ini.gain * ini.gain / (f.fan_in / 2 + f.fan_out / 2);
    if (!finite_variance(v)) return bad;
    return {v, ini.kind == init_kind::xavier_uniform ? uniform_kappa : Real(0)};
  }
  case init_kind::kaiming_normal:
  case init_kind::kaiming_uniform: {
    const Real fan = ini.mode == fan_mode::fan_in ? f.fan_in : f.fan_out;
    if (!need_fan(fan, ini.mode == fan_mode::fan_in ? "fan_in must be finite and > 0 (got %1%)"
                                                    : "fan_out must be finite and > 0 (got %1%)") ||
        !need_gain())
      return bad;
    const Real v = ini.gain * ini.gain / fan;
    if (!finite_variance(v)) return bad;
    return {v, ini.kind == init_kind::kaiming_uniform ? uniform_kappa : Real(0)};
  }
  case init_kind::torch_default:
    if (!need_fan(f.fan_in, "fan_in must be finite and > 0 (got %1%)")) return bad;
    return {1 / (3 * f.fan_in), uniform_kappa};
  case init_kind::normal:
    if (detail::check_domain(isfinite(ini.std) && ini.std >= 0, function,
                             "std must be finite and >= 0 (got %1%)", ini.std, r, pol))
      return bad;
    if (!finite_variance(ini.std * ini.std)) return bad;
    return {ini.std * ini.std, Real(0)};
  case init_kind::truncated_normal: {
    if (detail::check_domain(isfinite(ini.std) && ini.std >= 0, function,
                             "std must be finite and >= 0 (got %1%)", ini.std, r, pol))
      return bad;
    const auto t = truncated_normal_moments(ini.lower, ini.upper, pol);
    if (!finite_variance(ini.std * ini.std * t.variance)) return bad;
    return {ini.std * ini.std * t.variance, t.kurtosis_excess};
  }
  case init_kind::orthogonal:
    if (!need_gain()) return bad;
    return {Real(0), Real(0), true, ini.gain};
  }
  return bad;
}

template <class Real>
entry_moments<Real> moments(const basic_init<Real>& ini, const fans<Real>& f) {
  return moments(ini, f, default_policy());
}

} // namespace nsc

#endif // NSC_SPECTRAL_INIT_HPP
