// Tests of nsc/spectral/finite_size.hpp: psi_fs and psi_vector_normal against the 50-digit
// mpmath reference (tests/reference/gen_spectral_reference.py), properties, and error paths.
#include <nsc/spectral/finite_size.hpp>

#include "support/accuracy.hpp"
#include "support/csv.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

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

std::string where(double m, double n, double v, double kappa) {
  std::ostringstream os;
  os.precision(17);
  os << "(m, n, v, kappa) = (" << m << ", " << n << ", " << v << ", " << kappa << ")";
  return os.str();
}

// psi_fs = psi_MP + c with c = -log1p((u - w)^2 / (4 u w)) / 2 - (kappa/2) r^2 = O(1). Its
// relative error is that of psi_mp (<= 2e-15, see test_marchenko_pastur.cpp) plus a few
// roundings of c, amplified by |psi_mp| / |psi_fs| where c cancels part of psi_mp: over the
// reference points |c| <= 0.33 |psi_fs| (the test prints the largest ratio), so 16 eps covers it.
constexpr double fs_tol_eps = 16;

} // namespace

TEST_CASE("psi_fs in double matches the 50-digit reference", "[psi_fs][reference]") {
  const csv_table t(data_path("psi_mp_reference.csv"));
  worst_case w0, w12;
  long double worst_ratio = 0; // max |psi_fs - psi_mp| / |psi_fs| (the cancellation factor)
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double m = t.number(i, "m"), n = t.number(i, "n"), v = t.number(i, "v");
    for (double kappa : {0.0, -1.2}) {
      const long double ref = t.long_number(i, kappa == 0 ? "psi_fs_k0" : "psi_fs_km1.2");
      const long double err = rel_error(nsc::psi_fs(m, n, v, kappa), ref);
      (kappa == 0 ? w0 : w12).add(err, where(m, n, v, kappa));
      const long double mp = t.long_number(i, "psi_mp");
      worst_ratio = std::max(worst_ratio, std::fabs(mp - ref) / std::fabs(ref));
      if (!(err <= fs_tol_eps * eps))
        FAIL_CHECK("psi_fs error " << double(err / eps) << " eps at " << where(m, n, v, kappa));
    }
  }
  WARN(w0.report<double>("psi_fs<double>, kappa = 0") << "\n"
       << w12.report<double>("psi_fs<double>, kappa = -1.2") << "\nlargest |psi_fs - psi_mp| / psi_fs: "
       << double(worst_ratio));
  CHECK(w0.error <= fs_tol_eps * eps);
  CHECK(w12.error <= fs_tol_eps * eps);
}

TEST_CASE("psi_fs in long double and float", "[psi_fs][reference]") {
  {
    const csv_table t(data_path("psi_mp_reference.csv"));
    worst_case w;
    for (std::size_t i = 0; i < t.size(); ++i) {
      // the inputs are doubles (strtold of their shortest decimal would be another number)
      const long double m = t.number(i, "m"), n = t.number(i, "n"), v = t.number(i, "v");
      for (long double kappa : {0.0L, -1.2L}) {
        const long double ref = t.long_number(i, kappa == 0 ? "psi_fs_k0" : "psi_fs_km1.2");
        const long double err = rel_error(nsc::psi_fs(m, n, v, kappa), ref);
        w.add(err, where(double(m), double(n), double(v), double(kappa)));
        // as for double (16 eps), plus the rounding of kappa = -1.2 and of v q in long double
        if (!(err <= 24 * eps_ld))
          FAIL_CHECK("psi_fs<long double> error " << double(err / eps_ld) << " eps at "
                                                 << where(double(m), double(n), double(v), double(kappa)));
      }
    }
    WARN(w.report<long double>("psi_fs<long double>"));
  }
  {
    const csv_table t(data_path("psi_mp_float_reference.csv"));
    worst_case w;
    for (std::size_t i = 0; i < t.size(); ++i) {
      const float m = float(t.number(i, "m")), n = float(t.number(i, "n")), v = float(t.number(i, "v"));
      // kappa = -1.2f is not -1.2: compare kappa = 0 only, and kappa = -1.2 with a double kappa
      const long double ref0 = t.long_number(i, "psi_fs_k0");
      const float got0 = nsc::psi_fs(m, n, v, 0.0f);
      static_assert(std::is_same_v<decltype(nsc::psi_fs(m, n, v, 0.0f)), float>);
      const long double err = rel_error(got0, ref0);
      w.add(err, where(m, n, v, 0));
      // 1 float eps: evaluated in double, rounded once to float (<= 0.5 eps)
      if (!(err <= eps_f)) FAIL_CHECK("psi_fs<float> error " << double(err / eps_f) << " eps at " << where(m, n, v, 0));
    }
    WARN(w.report<float>("psi_fs<float>, kappa = 0"));
  }
}

TEST_CASE("psi_fs - psi_mp is O(1): independent of the size at fixed beta and x", "[psi_fs][property]") {
  for (double beta : {1.0, 0.25, 1e-3}) {
    for (double x : {1e-3, 0.5, 2.0, 1e4}) {
      for (double kappa : {0.0, -1.2, 3.0}) {
        double first = 0;
        for (int k = 3; k <= 40; k += 3) {
          const double p = std::ldexp(1.0, k), q = p / beta, v = x / q;
          const double mp = nsc::psi_mp(p, q, v), fs = nsc::psi_fs(p, q, v, kappa);
          const double diff = fs - mp;
          CAPTURE(beta, x, kappa, p, diff, first);
          if (k == 3) first = diff;
          // the correction depends on (beta, x) only; the difference of two values of size
          // ~p carries their rounding: 8 eps psi
          CHECK(std::fabs(diff - first) <= 8 * eps * mp + 1e-300);
          // and it is bounded: |log1p(...)|/2 + |kappa|/2 r^2 with r < 1
          CHECK(std::fabs(diff) <= 0.5 * std::log1p(x) + 0.5 * std::fabs(kappa) + 1);
        }
      }
    }
  }
}

TEST_CASE("psi_fs: kappa enters linearly, normal entries lower psi_mp", "[psi_fs][property]") {
  for (double m : {8.0, 64.0, 1000.0})
    for (double n : {8.0, 300.0})
      for (double v : {1e-3, 2 / (m + n), 1.0}) {
        const double f0 = nsc::psi_fs(m, n, v, 0.0), f1 = nsc::psi_fs(m, n, v, -1.2),
                     f2 = nsc::psi_fs(m, n, v, -2.0), f3 = nsc::psi_fs(m, n, v, 10.0);
        CAPTURE(m, n, v, f0, f1, f2);
        CHECK(f0 < nsc::psi_mp(m, n, v)); // -log1p(...)/2 < 0
        CHECK(f1 > f0);                   // negative kurtosis raises psi
        // linear in kappa: (f2 - f0) / -2 == (f3 - f0) / 10
        CHECK((f2 - f0) / -2 == Approx((f3 - f0) / 10).epsilon(1e-9));
        CHECK(nsc::psi_fs(m, n, v, 0.0) == nsc::psi_fs(n, m, v, 0.0));
      }
}

TEST_CASE("psi_vector_normal matches the reference", "[psi_vector][reference]") {
  const csv_table t(data_path("psi_vector_reference.csv"));
  worst_case w;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double n = t.number(i, "n"), v = t.number(i, "v");
    const long double err = rel_error(nsc::psi_vector_normal(n, v), t.long_number(i, "psi"));
    std::ostringstream at;
    at.precision(17);
    at << "(n, v) = (" << n << ", " << v << ")";
    w.add(err, at.str());
    // 1e-12: adaptive quadrature stopping at sqrt(eps) estimated error on a smooth integrand
    // (tanh-sinh for n < 2); the chi-squared pdf itself is accurate to a few eps.
    if (!(err <= 1e-12)) FAIL_CHECK("psi_vector_normal error " << double(err) << " at " << at.str());
  }
  WARN(w.report<double>("psi_vector_normal"));
}

TEST_CASE("psi_vector_normal: limits and the comparison of math.md section 3", "[psi_vector]") {
  CHECK(nsc::psi_vector_normal(9.0, 0.0) == 0);
  // small v: E[ln(1 + v T)] = v n - v^2 n (n + 2) / 2 + v^3 n (n + 2) (n + 4) / 3 + O(v^4 n^4)
  for (double n : {1.0, 3.0, 100.0}) {
    const double v = 1e-7;
    const double series = v * n - v * v * n * (n + 2) / 2 + v * v * v * n * (n + 2) * (n + 4) / 3;
    CAPTURE(n);
    CHECK(nsc::psi_vector_normal(n, v) == Approx(series).epsilon(1e-12));
  }
  // math.md: for 1 x 9 under Xavier (v = 2/10), psi_MP errs by ~2.1%, psi_FS by ~0.17%
  const double exact = nsc::psi_vector_normal(9.0, 0.2);
  const double e_mp = nsc::psi_mp(1, 9, 0.2) / exact - 1, e_fs = nsc::psi_fs(1, 9, 0.2, 0.0) / exact - 1;
  CAPTURE(exact, e_mp, e_fs);
  CHECK(std::fabs(e_mp) == Approx(0.021).margin(0.001));
  CHECK(std::fabs(e_fs) == Approx(0.0017).margin(0.0002));
  // and psi_fs is the better approximation for every vector length and variance here
  for (double n : {2.0, 9.0, 25.0, 100.0})
    for (double v : {2 / (1 + n), 1.0, 0.1}) {
      const double ex = nsc::psi_vector_normal(n, v);
      CAPTURE(n, v);
      CHECK(std::fabs(nsc::psi_fs(1.0, n, v, 0.0) - ex) < std::fabs(nsc::psi_mp(1.0, n, v) - ex));
    }
}

TEST_CASE("psi_fs is finite and accurate at extreme scales (issue 13)", "[psi_fs][reference][extreme]") {
  // psi_fs(100, 100, 1e155, 0) was NaN (the correction squared u - w ~ 1e78 * 4e77...), and
  // non-square shapes with v q > 1e154 threw overflow_error.
  const csv_table t(data_path("psi_extreme_reference.csv"));
  worst_case w;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double m = t.number(i, "m"), n = t.number(i, "n"), v = t.number(i, "v");
    for (double kappa : {0.0, -1.2}) {
      const long double ref = t.long_number(i, kappa == 0 ? "psi_fs_k0" : "psi_fs_km1.2");
      const double got = nsc::psi_fs(m, n, v, kappa);
      if (!std::isfinite(got)) {
        FAIL_CHECK("psi_fs not finite: " << got << " at " << where(m, n, v, kappa));
        continue;
      }
      if (ref < std::numeric_limits<double>::min()) { // subnormal: absolute, in subnormal ulps
        const long double ulps = std::fabs(got - ref) / std::numeric_limits<double>::denorm_min();
        if (!(ulps <= 4)) FAIL_CHECK("psi_fs off by " << double(ulps) << " subnormal ulps at " << where(m, n, v, kappa));
        continue;
      }
      const long double err = rel_error(got, ref);
      w.add(err, where(m, n, v, kappa));
      if (!(err <= fs_tol_eps * eps))
        FAIL_CHECK("psi_fs error " << double(err / eps) << " eps at " << where(m, n, v, kappa));
    }
  }
  WARN(w.report<double>("psi_fs<double>, extreme scales"));
  CHECK(std::isfinite(nsc::psi_fs(100.0, 100.0, 1e155, 0.0)));
  CHECK(std::isfinite(nsc::psi_fs(1.0, 1e160, 1.0, -1.2)));
}

TEST_CASE("psi_fs: a kappa for which the correction exceeds psi_mp is a domain error", "[psi_fs][errors]") {
  using Catch::Contains;
  // kappa = 1e300 gave psi_fs = -7.3e298 before. The correction's kappa term is
  // -(kappa / 2) r^2 with r^2 < 1; the expansion is invalid once |correction| > psi_MP.
  CHECK_THROWS_AS(nsc::psi_fs(100.0, 200.0, 0.01, 1e300), std::domain_error);
  CHECK_THROWS_WITH(nsc::psi_fs(100.0, 200.0, 0.01, 1e300),
                    Contains("nsc::psi_fs") && Contains("exceeds psi_MP") && Contains("1e+300"));
  CHECK(std::isnan(nsc::psi_fs(100.0, 200.0, 0.01, 1e300, ignore_policy())));
  // 1 x 1 with v = 1: psi_MP = 0.5805, r^2 = 0.1459, log term -0.0788: the bound is at
  // kappa = 2 (0.5805 - 0.0788) / 0.1459 = 6.88
  CHECK_NOTHROW(nsc::psi_fs(1.0, 1.0, 1.0, 6.8));
  CHECK_THROWS_AS(nsc::psi_fs(1.0, 1.0, 1.0, 7.0), std::domain_error);
  // a large but sensible kappa (sparse entries, density 1 %: kappa = 97) on a real layer is fine
  const double sparse = nsc::psi_fs(768.0, 3072.0, 1.0 / 768, 97.0);
  CHECK(sparse > 0);
  CHECK(sparse < nsc::psi_mp(768.0, 3072.0, 1.0 / 768));
  // every result in the domain lies in [0, 2 psi_MP]
  for (double kappa : {-2.0, 0.0, 3.0, 6.8})
    for (double v : {1e-6, 1e-2, 1.0, 1e4, 1e200}) {
      CAPTURE(kappa, v);
      const double mp = nsc::psi_mp(1.0, 1.0, v);
      const double fs = nsc::psi_fs(1.0, 1.0, v, kappa);
      CHECK(fs >= 0);
      CHECK(fs <= 2 * mp);
    }
}

TEST_CASE("Zero-size matrices and v = 0 give exactly 0 for psi_fs", "[psi_fs][degenerate]") {
  CHECK(nsc::psi_fs(0, 5, 1.0, 0.0) == 0);
  CHECK(nsc::psi_fs(5, 0, 1.0, -1.2) == 0);
  CHECK(nsc::psi_fs(5, 7, 0.0, 3.0) == 0);
  CHECK(nsc::psi_fs(0.0f, 7.0f, 1.0f, 0.0f) == 0);
}

TEST_CASE("psi_fs and psi_vector_normal domain errors", "[psi_fs][psi_vector][errors]") {
  using Catch::Contains;
  for (double k : {-2.5, -2.0000001, nan_d, inf_d, -inf_d}) {
    CAPTURE(k);
    CHECK_THROWS_AS(nsc::psi_fs(10.0, 20.0, 0.1, k), std::domain_error);
    CHECK_THROWS_WITH(nsc::psi_fs(10.0, 20.0, 0.1, k), Contains("nsc::psi_fs") && Contains("kurtosis"));
    CHECK(std::isnan(nsc::psi_fs(10.0, 20.0, 0.1, k, ignore_policy())));
  }
  CHECK_NOTHROW(nsc::psi_fs(10.0, 20.0, 0.1, -2.0)); // the boundary is allowed
  for (double b : {-1.0, nan_d, inf_d, -inf_d}) {
    CAPTURE(b);
    CHECK_THROWS_AS(nsc::psi_fs(b, 20.0, 0.1, 0.0), std::domain_error);
    CHECK_THROWS_WITH(nsc::psi_fs(b, 20.0, 0.1, 0.0), Contains("nsc::psi_fs") && Contains("rows"));
    CHECK_THROWS_WITH(nsc::psi_fs(10.0, b, 0.1, 0.0), Contains("nsc::psi_fs") && Contains("columns"));
    CHECK_THROWS_WITH(nsc::psi_fs(10.0, 20.0, b, 0.0), Contains("nsc::psi_fs") && Contains("variance"));
    CHECK(std::isnan(nsc::psi_fs(b, 20.0, 0.1, 0.0, ignore_policy())));
    CHECK(std::isnan(nsc::psi_fs(10.0, b, 0.1, 0.0, ignore_policy())));
    CHECK(std::isnan(nsc::psi_fs(10.0, 20.0, b, 0.0, ignore_policy())));
  }
  for (double n : {0.0, -1.0, nan_d, inf_d}) {
    CAPTURE(n);
    CHECK_THROWS_AS(nsc::psi_vector_normal(n, 0.1), std::domain_error);
    CHECK_THROWS_WITH(nsc::psi_vector_normal(n, 0.1), Contains("nsc::psi_vector_normal") && Contains("length"));
    CHECK(std::isnan(nsc::psi_vector_normal(n, 0.1, ignore_policy())));
  }
  for (double v : {-1.0, nan_d, inf_d}) {
    CAPTURE(v);
    CHECK_THROWS_AS(nsc::psi_vector_normal(9.0, v), std::domain_error);
    CHECK_THROWS_WITH(nsc::psi_vector_normal(9.0, v), Contains("nsc::psi_vector_normal") && Contains("variance"));
    CHECK(std::isnan(nsc::psi_vector_normal(9.0, v, ignore_policy())));
  }
}
