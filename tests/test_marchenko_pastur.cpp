// Tests of nsc/spectral/marchenko_pastur.hpp: psi_mp against the 50-digit mpmath reference
// (tests/reference/gen_spectral_reference.py), the Marchenko-Pastur law (pdf, cdf, quantile,
// expectation), psi_mp_top_r, structural properties, and every error path.
//
// Tolerances are stated in epsilons of the type under test, each with its reason.
#include <nsc/spectral/marchenko_pastur.hpp>

#include "support/accuracy.hpp"
#include "support/csv.hpp"

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nsc_test::csv_table;
using nsc_test::data_path;
using nsc_test::rel_error;
using nsc_test::worst_case;

constexpr double eps = std::numeric_limits<double>::epsilon();
constexpr long double eps_ld = std::numeric_limits<long double>::epsilon();
constexpr float eps_f = std::numeric_limits<float>::epsilon();
constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_d = std::numeric_limits<double>::infinity();

using ignore_policy =
    boost::math::policies::policy<boost::math::policies::domain_error<boost::math::policies::ignore_error>>;

std::string where(double m, double n, double v) {
  std::ostringstream os;
  os.precision(17);
  os << "(m, n, v) = (" << m << ", " << n << ", " << v << ")";
  return os.str();
}

const csv_table& psi_table() {
  static const csv_table t(data_path("psi_mp_reference.csv"));
  return t;
}

} // namespace

// ------------------------------------------------------------------------------------------------
// psi_mp against the reference
// ------------------------------------------------------------------------------------------------

TEST_CASE("psi_mp in double matches the 50-digit reference to 2e-15 relative", "[psi_mp][reference]") {
  const auto& t = psi_table();
  const auto cm = t.column("m"), cn = t.column("n"), cv = t.column("v");
  worst_case random_points, shapes;
  std::size_t n_random = 0;
  // The requirement: <= 2e-15 (9 eps) at every point. The cancellation-free form has no
  // subtraction of nearly equal quantities (math.md section 2); what is left is the rounding of a
  // dozen operations, and of beta = p/q and x = v q for integer shapes.
  const long double tol = 2e-15L;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double m = t.number(i, cm), n = t.number(i, cn), v = t.number(i, cv);
    const long double ref = t.long_number(i, "psi_mp");
    const double got = nsc::psi_mp(m, n, v);
    const long double err = rel_error(got, ref);
    const bool is_random = i < 4000; // rows 1-4000: the random points, written as (beta, 1, x)
    n_random += is_random;
    if (is_random) REQUIRE((n == 1 && m <= 1));
    (is_random ? random_points : shapes).add(err, where(m, n, v));
    if (!(err <= tol)) FAIL_CHECK("psi_mp error " << static_cast<double>(err) << " at " << where(m, n, v));
  }
  CHECK(n_random == 4000);
  WARN(random_points.report<double>("psi_mp<double>, 4000 random points"));
  WARN(shapes.report<double>("psi_mp<double>, near-square points and integer shapes"));
  CHECK(random_points.error <= tol);
  CHECK(shapes.error <= tol);
}

TEST_CASE("psi_mp is finite and accurate at extreme scales (issue 13)", "[psi_mp][reference][extreme]") {
  // x = v q from 1e-300 to beyond the largest double, beta down to 1e-300, and shapes such as
  // psi_mp(1, 1e160, 1) (an overflow_error before) and psi_mp(100, 100, 1e155) (NaN before):
  // tests/data/psi_extreme_reference.csv, the direct formula at up to ~1300 digits.
  const csv_table t(data_path("psi_extreme_reference.csv"));
  REQUIRE(t.size() >= 130);
  worst_case w;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double m = t.number(i, "m"), n = t.number(i, "n"), v = t.number(i, "v");
    const long double ref = t.long_number(i, "psi_mp");
    const double got = nsc::psi_mp(m, n, v);
    if (!std::isfinite(got)) {
      FAIL_CHECK("psi_mp not finite: " << got << " at " << where(m, n, v));
      continue;
    }
    if (ref < std::numeric_limits<double>::min()) {
      // the true value is subnormal in double: its relative precision is not representable;
      // 4 units of the smallest subnormal (the last roundings of p * (...))
      const long double ulps = std::fabs(got - ref) / std::numeric_limits<double>::denorm_min();
      if (!(ulps <= 4)) FAIL_CHECK("psi_mp off by " << double(ulps) << " subnormal ulps at " << where(m, n, v));
      continue;
    }
    const long double err = rel_error(got, ref);
    w.add(err, where(m, n, v));
    // 4 eps: a dozen roundings without cancellation (measured worst: 1.4 eps)
    if (!(err <= 4 * eps)) FAIL_CHECK("psi_mp error " << double(err / eps) << " eps at " << where(m, n, v));
  }
  WARN(w.report<double>("psi_mp<double>, extreme scales"));
  // the reproducers
  CHECK(nsc::psi_mp(1.0, 1e160, 1.0) == Approx(368.41361487904731).epsilon(4 * eps));
  CHECK(std::isfinite(nsc::psi_mp(100.0, 100.0, 1e155)));
  CHECK(std::isfinite(nsc::psi_mp(1e160, 1e160, 1.0)));
  // long double takes the same paths (its own threshold of the scaled form is the same 1e150)
  CHECK(double(nsc::psi_mp(1.0L, 1e160L, 1.0L)) == Approx(368.41361487904731).epsilon(8 * eps));
}

TEST_CASE("psi_mp check values of math.md", "[psi_mp]") {
  // Xavier-normal: 2000 x 2000 -> 1160.9152777..., 4000 x 1000 -> 908.6602371...
  CHECK(nsc::psi_mp(2000, 2000, 2.0 / 4000) == Approx(1160.9152777382035).epsilon(4 * eps));
  CHECK(nsc::psi_mp(4000, 1000, 2.0 / 5000) == Approx(908.66023714167930).epsilon(4 * eps));
  CHECK(nsc::psi_mp(1000, 4000, 2.0 / 5000) == nsc::psi_mp(4000, 1000, 2.0 / 5000));
}

TEST_CASE("psi_mp in long double matches the reference", "[psi_mp][reference]") {
  const auto& t = psi_table();
  worst_case w;
  // 16 eps: the same dozen roundings as in double, plus the reference rounded to long double
  // (0.5 eps) and, for integer shapes, the rounding of v q (68-bit product).
  const long double tol = 16 * eps_ld;
  for (std::size_t i = 0; i < t.size(); ++i) {
    // the inputs are doubles (read as double: strtold of their shortest decimal is another number)
    const long double m = t.number(i, "m"), n = t.number(i, "n"), v = t.number(i, "v");
    const long double ref = t.long_number(i, "psi_mp");
    const long double err = rel_error(nsc::psi_mp(m, n, v), ref);
    w.add(err, where(double(m), double(n), double(v)));
    if (!(err <= tol))
      FAIL_CHECK("psi_mp<long double> error " << static_cast<double>(err / eps_ld) << " eps at "
                                             << where(double(m), double(n), double(v)));
  }
  WARN(w.report<long double>("psi_mp<long double>"));
  CHECK(w.error <= tol);
}

TEST_CASE("psi_mp in float is the double result rounded once", "[psi_mp][reference]") {
  // Inputs exactly representable in float (psi_mp_float_reference.csv), so the reference is
  // that of the very float inputs.
  const csv_table t(data_path("psi_mp_float_reference.csv"));
  worst_case w;
  // 1 float eps: float is evaluated in double (error ~1e-15) and rounded once to float
  // (<= 0.5 float eps); 1 eps leaves room for the double error at a rounding boundary.
  const long double tol = eps_f;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const float m = static_cast<float>(t.number(i, "m")), n = static_cast<float>(t.number(i, "n")),
                v = static_cast<float>(t.number(i, "v"));
    REQUIRE(double(m) == t.number(i, "m"));
    REQUIRE(double(v) == t.number(i, "v"));
    const float got = nsc::psi_mp(m, n, v);
    static_assert(std::is_same_v<decltype(nsc::psi_mp(m, n, v)), float>);
    const long double err = rel_error(got, t.long_number(i, "psi_mp"));
    w.add(err, where(m, n, v));
    if (!(err <= tol))
      FAIL_CHECK("psi_mp<float> error " << static_cast<double>(err / eps_f) << " eps at " << where(m, n, v));
  }
  WARN(w.report<float>("psi_mp<float>"));
  CHECK(w.error <= tol);
}

TEST_CASE("psi_mp in cpp_bin_float_50 matches the 50-digit reference", "[psi_mp][multiprecision]") {
  using mp50 = boost::multiprecision::cpp_bin_float_50;
  const auto& t = psi_table();
  // The two check values, the last two rows (written with 48 digits; the other rows have 24).
  int found = 0;
  for (std::size_t i = t.size() - 2; i < t.size(); ++i) {
    const double m = t.number(i, "m"), n = t.number(i, "n"), v = t.number(i, "v");
    REQUIRE(((m == 2000 && n == 2000 && v == 2.0 / 4000) || (m == 4000 && n == 1000 && v == 2.0 / 5000)));
    ++found;
    const mp50 ref(t.text(i, "psi_mp"));
    const mp50 got = nsc::psi_mp(mp50(m), mp50(n), mp50(v));
    const mp50 err = abs(got - ref) / ref;
    WARN(where(m, n, v) << ": cpp_bin_float_50 relative error " << err.str(3, std::ios::scientific));
    // 1e-45: cpp_bin_float_50 has ~50 digits; the reference is written with 48 and is correct
    // to ~1e-47 at these points (the generator checks 50 against 100 digits).
    CHECK(err < mp50("1e-45"));
    const mp50 swapped = nsc::psi_mp(mp50(n), mp50(m), mp50(v));
    CHECK(swapped == got); // symmetric, bitwise
  }
  CHECK(found == 2);
}

// ------------------------------------------------------------------------------------------------
// The Marchenko-Pastur law
// ------------------------------------------------------------------------------------------------

TEST_CASE("Marchenko-Pastur pdf, cdf and quantile match the reference", "[law][reference]") {
  const csv_table t(data_path("mp_law_reference.csv"));
  worst_case wpdf, wcdf, wq;
  worst_case wpdf_raw, wcdf_raw, wq_raw;
  worst_case wpdf_wc, wcdf_wc, wq_wc; // raw errors where the condition number is <= 10
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double beta = t.number(i, "beta"), x = t.number(i, "x"), arg = t.number(i, "arg");
    const long double ref = t.long_number(i, "value");
    const std::string& what = t.text(i, "what");
    const nsc::marchenko_pastur_distribution<double> d(beta, x);
    const double a = d.lower(), b = d.upper();
    std::ostringstream at;
    at.precision(17);
    at << what << "(beta " << beta << ", x " << x << ", " << arg << ")";
    if (what == "pdf") {
      const long double err = rel_error(nsc::pdf(d, arg), ref);
      if (ref == 0) {
        CHECK(nsc::pdf(d, arg) == 0);
        continue;
      }
      // Condition number of the pdf in lambda: the edges a, b are rounded (a few eps), and the
      // pdf ~ sqrt((b - lambda)(lambda - a)) amplifies that by lambda / (2 (lambda - a)) near a,
      // lambda / (2 (b - lambda)) near b. Tolerance 8 eps per unit of condition number.
      const double cond = 1 + 0.5 * arg / (arg - a) + 0.5 * arg / (b - arg);
      wpdf_raw.add(err, at.str());
      if (cond <= 10) wpdf_wc.add(err, at.str());
      wpdf.add(err / cond, at.str());
      if (!(err <= 8 * eps * cond)) FAIL_CHECK(at.str() << ": error " << double(err / eps) << " eps, cond " << cond);
    } else if (what == "cdf") {
      const double got = nsc::cdf(d, arg);
      if (ref == 0 || ref == 1) {
        CHECK(got == double(ref));
        continue;
      }
      const long double err = rel_error(got, ref);
      // Condition number lambda f(lambda) / F(lambda) (relative change of F for a relative change
      // of lambda, as the edges are rounded), at least 1. Tolerance: 16 eps per unit for the
      // closed form in theta and the 15-point Gauss-Kronrod tails.
      const double cond = 1 + double(arg * nsc::pdf(d, arg) / ref);
      wcdf_raw.add(err, at.str());
      if (cond <= 10) wcdf_wc.add(err, at.str());
      wcdf.add(err / cond, at.str());
      if (!(err <= 16 * eps * cond)) FAIL_CHECK(at.str() << ": error " << double(err / eps) << " eps, cond " << cond);
    } else if (what == "quantile") {
      const double got = nsc::quantile(d, arg);
      const long double err = rel_error(got, ref);
      // Condition number of the quantile: min(F, 1 - F) / (lambda f(lambda)) (the root is found in
      // theta to digits - 2 bits, then mapped to lambda), plus the roundings of the edges.
      const double tail = arg > 0.5 ? 1 - arg : arg;
      const double pdf_at = nsc::pdf(d, double(ref));
      const double cond = 1 + (pdf_at > 0 ? tail / (double(ref) * pdf_at) : 0.0) +
                          (double(ref) - a < b - double(ref) ? a / double(ref) : b / double(ref));
      wq_raw.add(err, at.str());
      if (cond <= 10) wq_wc.add(err, at.str());
      wq.add(err / cond, at.str());
      if (!(err <= 16 * eps * cond)) FAIL_CHECK(at.str() << ": error " << double(err / eps) << " eps, cond " << cond);
    } else {
      FAIL("unknown row kind " << what);
    }
  }
  // raw errors include points within 1e-12 of the support's width from an edge, where the
  // condition number reaches 1e14
  WARN(wpdf_raw.report<double>("pdf (raw)") << "\n" << wpdf_wc.report<double>("pdf (condition number <= 10)")
                                           << "\n" << wpdf.report<double>("pdf / condition number"));
  WARN(wcdf_raw.report<double>("cdf (raw)") << "\n" << wcdf_wc.report<double>("cdf (condition number <= 10)")
                                           << "\n" << wcdf.report<double>("cdf / condition number"));
  WARN(wq_raw.report<double>("quantile (raw)") << "\n" << wq_wc.report<double>("quantile (condition number <= 10)")
                                               << "\n" << wq.report<double>("quantile / condition number"));
}

TEST_CASE("Marchenko-Pastur law: support, moments, round trips", "[law]") {
  for (double beta : {1.0, 0.5, 1e-4}) {
    for (double x : {1e-3, 1.0, 7.5}) {
      const nsc::marchenko_pastur_distribution<double> d(beta, x);
      CAPTURE(beta, x);
      CHECK(d.ratio() == beta);
      CHECK(d.scale() == x);
      const auto [a, b] = nsc::support(d);
      CHECK(a == Approx(x * (1 - std::sqrt(beta)) * (1 - std::sqrt(beta))).epsilon(4 * eps).margin(0));
      CHECK(b == Approx(x * (1 + std::sqrt(beta)) * (1 + std::sqrt(beta))).epsilon(4 * eps));
      CHECK(nsc::mean(d) == x);
      CHECK(nsc::variance(d) == x * x * beta);
      // E[1], E[lambda], E[lambda^2] by the quadrature: 1, x, x^2 (1 + beta).
      const double e0 = nsc::expectation(d, [](double) { return 1.0; });
      const double e1 = nsc::expectation(d, [](double l) { return l; });
      const double e2 = nsc::expectation(d, [](double l) { return l * l; });
      CHECK(e0 == Approx(1).epsilon(1e-13));
      CHECK(e1 == Approx(x).epsilon(1e-13));
      CHECK(e2 == Approx(x * x * (1 + beta)).epsilon(1e-13));
      // outside the support
      CHECK(nsc::pdf(d, -1.0) == 0);
      CHECK(nsc::pdf(d, 2 * b) == 0);
      CHECK(nsc::cdf(d, -1.0) == 0);
      CHECK(nsc::cdf(d, 2 * b) == 1);
      CHECK(nsc::quantile(d, 0.0) == a);
      CHECK(nsc::quantile(d, 1.0) == b);
      // cdf(quantile(p)) == p and monotonicity. The round trip goes through lambda, rounded to
      // double: tolerance 16 eps times the condition number 1 + lambda f(lambda) / p.
      double prev = a;
      for (double p : {1e-9, 0.01, 0.2, 0.5, 0.8, 0.99, 1 - 1e-9}) {
        const double l = nsc::quantile(d, p);
        CHECK(l >= prev);
        prev = l;
        const double cond = 1 + l * nsc::pdf(d, l) / p;
        CAPTURE(p, l, cond);
        CHECK(nsc::cdf(d, l) == Approx(p).epsilon(16 * eps * cond));
      }
    }
  }
}

TEST_CASE("expectation(d, log1p) * p agrees with psi_mp (quadrature cross-check)", "[law][psi_mp]") {
  struct shape {
    double m, n, v;
  };
  for (const auto& s : {shape{2000, 2000, 2.0 / 4000}, shape{4000, 1000, 2.0 / 5000},
                        shape{64, 576, 2.0 / 640}, shape{1, 20000, 1e-3}, shape{768, 3072, 0.02 * 0.02},
                        shape{100, 100, 10.0}, shape{3, 20000, 1e-8}, shape{12345, 777, 1.0}}) {
    const double p = std::min(s.m, s.n), q = std::max(s.m, s.n);
    const nsc::marchenko_pastur_distribution<double> d(p / q, s.v * q);
    double err_est = 0;
    const double e = nsc::expectation(d, [](double l) { return std::log1p(l); }, &err_est);
    CAPTURE(s.m, s.n, s.v, err_est);
    // 1e-12: the adaptive Gauss-Kronrod stops at sqrt(eps) estimated error, which for this smooth
    // periodic integrand means far below it; 1e-12 is the cross-check level.
    CHECK(p * e == Approx(nsc::psi_mp(s.m, s.n, s.v)).epsilon(1e-12));
  }
}

TEST_CASE("psi_mp_top_r matches the reference and its limits", "[top_r][reference]") {
  const csv_table t(data_path("psi_top_r_reference.csv"));
  worst_case w;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double m = t.number(i, "m"), n = t.number(i, "n"), v = t.number(i, "v"),
                 r = t.number(i, "r");
    const long double err = rel_error(nsc::psi_mp_top_r(m, n, v, r), t.long_number(i, "psi_top_r"));
    w.add(err, where(m, n, v) + ", r = " + std::to_string(r));
    // 1e-12: quantile to ~digits - 2 bits, then adaptive Gauss-Kronrod (sqrt(eps) stopping
    // tolerance on a smooth integrand) from that quantile to the upper edge.
    if (!(err <= 1e-12)) FAIL_CHECK("psi_mp_top_r error " << double(err) << " at " << where(m, n, v) << ", r = " << r);
  }
  WARN(w.report<double>("psi_mp_top_r"));
  // limits
  for (double m : {64.0, 300.0}) {
    for (double n : {64.0, 1000.0}) {
      const double v = 2 / (m + n), p = std::min(m, n);
      CHECK(nsc::psi_mp_top_r(m, n, v, 0.0) == 0);
      CHECK(nsc::psi_mp_top_r(m, n, v, p) == nsc::psi_mp(m, n, v));
      CHECK(nsc::psi_mp_top_r(m, n, v, 10 * p) == nsc::psi_mp(m, n, v)); // clamped
      // continuity at both ends and monotonicity in r
      CHECK(nsc::psi_mp_top_r(m, n, v, p * (1 - 1e-9)) == Approx(nsc::psi_mp(m, n, v)).epsilon(1e-8));
      CHECK(nsc::psi_mp_top_r(m, n, v, 1e-9) == Approx(0).margin(1e-8));
      double prev = 0;
      for (double frac : {0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99}) {
        const double val = nsc::psi_mp_top_r(m, n, v, frac * p);
        CHECK(val > prev);
        prev = val;
      }
    }
  }
  CHECK(nsc::psi_mp_top_r(0.0, 10.0, 1.0, 3.0) == 0);
  CHECK(nsc::psi_mp_top_r(10.0, 10.0, 0.0, 3.0) == 0);
}

// ------------------------------------------------------------------------------------------------
// Properties
// ------------------------------------------------------------------------------------------------

TEST_CASE("psi_mp is symmetric in (m, n), bitwise", "[psi_mp][property]") {
  // Bitwise: both orders reduce to the same (p, q) before any arithmetic.
  for (double m : {0.5, 1.0, 3.0, 64.0, 1000.0, 4096.0, 20000.0})
    for (double n : {0.25, 1.0, 7.0, 768.0, 3072.0, 19999.0})
      for (double v : {1e-12, 2 / (m + n), 2 / n, 4e-4, 1.0, 1e3}) {
        CAPTURE(m, n, v);
        CHECK(nsc::psi_mp(m, n, v) == nsc::psi_mp(n, m, v));
      }
}

TEST_CASE("psi_mp is strictly concave in each dimension at fixed v", "[psi_mp][property]") {
  // Second differences over a geometric grid of real m (step h = 2% of m), n and v fixed, across
  // m = n. The second difference is ~ psi'' h^2, checked to be negative and larger in size than
  // a rounding bound (64 eps psi).
  for (double n : {1.0, 8.0, 64.0, 1000.0}) {
    for (double x : {1e-3, 0.1, 1.0, 10.0, 1e3}) {
      const double v = x / n;
      for (double m = 0.5; m < 20 * n + 30; m *= 1.07) {
        const double h = 0.02 * m;
        const double f0 = nsc::psi_mp(m - h, n, v), f1 = nsc::psi_mp(m, n, v),
                     f2 = nsc::psi_mp(m + h, n, v);
        const double d2 = f2 - 2 * f1 + f0;
        CAPTURE(m, n, v, d2, f1);
        CHECK(d2 < -64 * eps * f1);
        // same in the other argument
        const double g0 = nsc::psi_mp(n, m - h, v), g2 = nsc::psi_mp(n, m + h, v);
        CHECK(g2 - 2 * nsc::psi_mp(n, m, v) + g0 < -64 * eps * f1);
      }
    }
  }
}

TEST_CASE("At fixed m n under Xavier, psi_mp is largest at m = n", "[psi_mp][property]") {
  // factor pairs of 2^20: (2^k, 2^(20-k)), v = 2 / (m + n)
  std::vector<double> vals;
  for (int k = 0; k <= 20; ++k) {
    const double m = std::ldexp(1.0, k), n = std::ldexp(1.0, 20 - k);
    vals.push_back(nsc::psi_mp(m, n, 2 / (m + n)));
  }
  for (int k = 0; k < 10; ++k) {
    CAPTURE(k);
    CHECK(vals[k] < vals[k + 1]);          // increasing up to the square
    CHECK(vals[20 - k] < vals[19 - k]);    // decreasing after it
    CHECK(vals[k] == vals[20 - k]);        // symmetric (Xavier is symmetric in the fans)
  }
  // and over every divisor pair of 2^4 * 3^4 * 5^2 = 32400, also with real dimensions
  const double prod = 32400;
  const double best = nsc::psi_mp(180.0, 180.0, 2.0 / 360);
  for (double m = 1; m <= prod; ++m) {
    if (std::fmod(prod, m) != 0 || m == 180) continue;
    const double n = prod / m;
    CAPTURE(m, n);
    CHECK(nsc::psi_mp(m, n, 2 / (m + n)) < best);
  }
}

TEST_CASE("psi_mp is increasing in v", "[psi_mp][property]") {
  for (double m : {1.0, 16.0, 1000.0}) {
    for (double n : {1.0, 100.0, 4096.0}) {
      double prev = 0;
      for (double v = 1e-14; v < 1e6; v *= 1.25) {
        const double val = nsc::psi_mp(m, n, v);
        CAPTURE(m, n, v, prev, val);
        CHECK(val > prev);
        prev = val;
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Degenerate cases and errors
// ------------------------------------------------------------------------------------------------

TEST_CASE("Zero-size matrices and v = 0 give exactly 0", "[psi_mp][degenerate]") {
  CHECK(nsc::psi_mp(0, 5, 1.0) == 0);
  CHECK(nsc::psi_mp(5, 0, 1.0) == 0);
  CHECK(nsc::psi_mp(0, 0, 1.0) == 0);
  CHECK(nsc::psi_mp(5, 7, 0.0) == 0);
  CHECK(nsc::psi_mp(0.0, 7.0, 1e300) == 0);
  CHECK(nsc::psi_mp(0.0f, 7.0f, 1.0f) == 0);
  CHECK(nsc::psi_mp(5.0L, 7.0L, 0.0L) == 0);
  CHECK(nsc::psi_mp_top_r(0.0, 5.0, 1.0, 1.0) == 0);
  CHECK(!std::signbit(nsc::psi_mp(5, 7, 0.0)));
}

TEST_CASE("psi_mp domain errors throw std::domain_error naming the function", "[psi_mp][errors]") {
  using Catch::Contains;
  const double bad[] = {-1.0, nan_d, inf_d, -inf_d};
  for (double b : bad) {
    CAPTURE(b);
    CHECK_THROWS_WITH(nsc::psi_mp(b, 3.0, 1.0), Contains("nsc::psi_mp") && Contains("rows"));
    CHECK_THROWS_WITH(nsc::psi_mp(3.0, b, 1.0), Contains("nsc::psi_mp") && Contains("columns"));
    CHECK_THROWS_WITH(nsc::psi_mp(3.0, 4.0, b), Contains("nsc::psi_mp") && Contains("variance"));
    CHECK_THROWS_AS(nsc::psi_mp(3.0, b, 1.0), std::domain_error);
    CHECK_THROWS_AS(nsc::psi_mp(3.0, 4.0, b), std::domain_error);
    // non-throwing policy: NaN
    CHECK(std::isnan(nsc::psi_mp(b, 3.0, 1.0, ignore_policy())));
    CHECK(std::isnan(nsc::psi_mp(3.0, b, 1.0, ignore_policy())));
    CHECK(std::isnan(nsc::psi_mp(3.0, 4.0, b, ignore_policy())));
    CHECK(std::isnan(nsc::psi_mp(3.0f, 4.0f, float(b), ignore_policy())));
  }
  // v q above the largest double is in the domain (psi is finite: psi_extreme_reference.csv);
  // psi itself above it is a domain error naming min(rows, cols), NaN under ignore_error.
  CHECK(std::isfinite(nsc::psi_mp(10.0, 10.0, 1e308)));
  CHECK_THROWS_WITH(nsc::psi_mp(1e308, 1e308, 1.0),
                    Contains("nsc::psi_mp") && Contains("exceeds the largest") && Contains("1e+308"));
  CHECK_THROWS_AS(nsc::psi_mp(1e308, 1e308, 1e308), std::domain_error);
  using ignore_no_promote = boost::math::policies::policy<
      boost::math::policies::domain_error<boost::math::policies::ignore_error>,
      boost::math::policies::promote_double<false>>;
  CHECK(std::isnan(nsc::psi_mp(1e308, 1e308, 1.0, ignore_no_promote())));
  // psi_mp_top_r integrates against the law, whose scale v q must be finite
  CHECK_THROWS_WITH(nsc::psi_mp_top_r(10.0, 10.0, 1e308, 3.0),
                    Contains("nsc::psi_mp_top_r") && Contains("finite"));
  CHECK_THROWS_WITH(nsc::psi_mp_top_r(100.0, 200.0, 1.7e308 / 200, 50.0),
                    Contains("nsc::psi_mp_top_r") && Contains("upper edge"));
  CHECK(std::isfinite(nsc::psi_mp_top_r(100.0, 200.0, 1e307 / 200, 50.0)));
  // the message names the rule and the value
  CHECK_THROWS_WITH(nsc::psi_mp(3.0, 4.0, -2.5), Contains("-2.5"));
}

TEST_CASE("Marchenko-Pastur law domain errors", "[law][errors]") {
  using Catch::Contains;
  using dist = nsc::marchenko_pastur_distribution<double>;
  using dist_ignore = nsc::marchenko_pastur_distribution<double, ignore_policy>;
  for (double r : {0.0, -0.5, 1.5, nan_d, inf_d}) {
    CAPTURE(r);
    CHECK_THROWS_AS(dist(r, 1.0), std::domain_error);
    CHECK_THROWS_WITH(dist(r, 1.0), Contains("nsc::marchenko_pastur_distribution") && Contains("ratio"));
    // non-throwing policy: the functions of such a law give NaN
    CHECK_NOTHROW(dist_ignore(r, 1.0));
    CHECK(std::isnan(nsc::pdf(dist_ignore(r, 1.0), 0.5)));
    CHECK(std::isnan(nsc::cdf(dist_ignore(r, 1.0), 0.5)));
    CHECK(std::isnan(nsc::quantile(dist_ignore(r, 1.0), 0.5)));
  }
  for (double s : {0.0, -1.0, nan_d, inf_d}) {
    CAPTURE(s);
    CHECK_THROWS_AS(dist(0.5, s), std::domain_error);
    CHECK_THROWS_WITH(dist(0.5, s), Contains("nsc::marchenko_pastur_distribution") && Contains("scale"));
    CHECK(std::isnan(nsc::pdf(dist_ignore(0.5, s), 0.5)));
    CHECK(std::isnan(nsc::cdf(dist_ignore(0.5, s), 0.5)));
    CHECK(std::isnan(nsc::quantile(dist_ignore(0.5, s), 0.5)));
  }
  const dist d(0.5, 2.0);
  const dist_ignore di(0.5, 2.0);
  CHECK_THROWS_WITH(nsc::pdf(d, nan_d), Contains("nsc::pdf"));
  CHECK_THROWS_AS(nsc::pdf(d, nan_d), std::domain_error);
  CHECK_THROWS_WITH(nsc::cdf(d, nan_d), Contains("nsc::cdf"));
  CHECK_THROWS_AS(nsc::cdf(d, nan_d), std::domain_error);
  CHECK(std::isnan(nsc::pdf(di, nan_d)));
  CHECK(std::isnan(nsc::cdf(di, nan_d)));
  for (double p : {-0.1, 1.1, nan_d, inf_d, -inf_d}) {
    CAPTURE(p);
    CHECK_THROWS_AS(nsc::quantile(d, p), std::domain_error);
    CHECK_THROWS_WITH(nsc::quantile(d, p), Contains("nsc::quantile") && Contains("probability"));
    CHECK(std::isnan(nsc::quantile(di, p)));
  }
  // infinite lambda is not an error: outside the support
  CHECK(nsc::pdf(d, inf_d) == 0);
  CHECK(nsc::cdf(d, inf_d) == 1);
  CHECK(nsc::cdf(d, -inf_d) == 0);
}

TEST_CASE("psi_mp_top_r domain errors", "[top_r][errors]") {
  using Catch::Contains;
  for (double r : {-1.0, nan_d, inf_d}) {
    CAPTURE(r);
    CHECK_THROWS_AS(nsc::psi_mp_top_r(10.0, 20.0, 0.1, r), std::domain_error);
    CHECK_THROWS_WITH(nsc::psi_mp_top_r(10.0, 20.0, 0.1, r), Contains("nsc::psi_mp_top_r") && Contains("rank"));
    CHECK(std::isnan(nsc::psi_mp_top_r(10.0, 20.0, 0.1, r, ignore_policy())));
  }
  for (double b : {-1.0, nan_d, inf_d}) {
    CAPTURE(b);
    CHECK_THROWS_WITH(nsc::psi_mp_top_r(b, 20.0, 0.1, 2.0), Contains("nsc::psi_mp_top_r"));
    CHECK_THROWS_WITH(nsc::psi_mp_top_r(10.0, b, 0.1, 2.0), Contains("nsc::psi_mp_top_r"));
    CHECK_THROWS_WITH(nsc::psi_mp_top_r(10.0, 20.0, b, 2.0), Contains("nsc::psi_mp_top_r"));
    CHECK(std::isnan(nsc::psi_mp_top_r(b, 20.0, 0.1, 2.0, ignore_policy())));
    CHECK(std::isnan(nsc::psi_mp_top_r(10.0, 20.0, b, 2.0, ignore_policy())));
  }
}
