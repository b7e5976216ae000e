// Tests of nsc/spectral/init.hpp and nsc/spectral/psi.hpp: initialisation conventions -> entry
// variance and excess kurtosis (math.md section 4), PyTorch's fans, truncated-normal moments
// against the mpmath reference, the psi dispatch, and every error path.
#include <nsc/spectral/init.hpp>
#include <nsc/spectral/psi.hpp>

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
constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_d = std::numeric_limits<double>::infinity();

using ignore_policy =
    boost::math::policies::policy<boost::math::policies::domain_error<boost::math::policies::ignore_error>>;

} // namespace

TEST_CASE("truncated_normal_moments matches the reference", "[init][truncated][reference]") {
  const csv_table t(data_path("truncated_normal_reference.csv"));
  worst_case wm, wv, wk;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double a = t.number(i, "a"), b = t.number(i, "b");
    const auto mom = nsc::truncated_normal_moments(a, b);
    std::ostringstream at;
    at << "[" << a << ", " << b << "]";
    const long double ref_mean = t.long_number(i, "mean"), ref_var = t.long_number(i, "variance"),
                      ref_kurt = t.long_number(i, "kurtosis_excess");
    CAPTURE(at.str(), mom.mean, mom.variance, mom.kurtosis_excess);
    // mean: 0 exactly for symmetric bounds; otherwise 16 eps relative (a difference of two pdf
    // values over a difference of two cdf values, both with few-eps errors).
    if (a == -b) {
      CHECK(mom.mean == 0);
    } else {
      const long double e = rel_error(mom.mean, ref_mean);
      wm.add(e, at.str());
      CHECK(double(e) <= 16 * eps);
    }
    // variance: 32 eps relative. Where the raw-moment recurrence is well conditioned (cancellation
    // <= 8, checked by the code) it loses <= 3 bits over a few-eps pdf/cdf; elsewhere (narrow or
    // far-tail intervals) the central moments are integrated (positive integrands).
    const long double ev = rel_error(mom.variance, ref_var);
    wv.add(ev, at.str());
    CHECK(double(ev) <= 32 * eps);
    // excess kurtosis: absolute (it crosses 0), 1024 eps: mu4 / var^2 amplifies the variance's
    // error twice, and the far-tail cases ([-inf, -6], [5, inf]) come from adaptive quadrature
    // stopping at eps^(2/3) estimated error (measured ~600 eps there, <= 60 eps elsewhere).
    const long double ek = std::fabs(mom.kurtosis_excess - ref_kurt);
    wk.add(ek, at.str());
    CHECK(double(ek) <= 1024 * eps);
  }
  WARN(wm.report<double>("truncated_normal_moments mean") << "\n"
       << wv.report<double>("truncated_normal_moments variance") << "\n"
       << wk.report<double>("truncated_normal_moments excess kurtosis (absolute)"));
}

TEST_CASE("truncated_normal_moments: known values and limits", "[init][truncated]") {
  // no truncation: N(0, 1)
  const auto full = nsc::truncated_normal_moments(-inf_d, inf_d);
  CHECK(full.mean == 0);
  CHECK(full.variance == 1);
  CHECK(full.kurtosis_excess == 0);
  // half-normal [0, inf): mean sqrt(2/pi), variance 1 - 2/pi
  const auto half = nsc::truncated_normal_moments(0.0, inf_d);
  const double pi = boost::math::constants::pi<double>();
  CHECK(half.mean == Approx(std::sqrt(2 / pi)).epsilon(4 * eps));
  CHECK(half.variance == Approx(1 - 2 / pi).epsilon(8 * eps));
  // narrow symmetric interval -> uniform: variance a^2/3, excess kurtosis -1.2
  const auto narrow = nsc::truncated_normal_moments(-1e-3, 1e-3);
  CHECK(narrow.variance == Approx(1e-6 / 3).epsilon(1e-6));
  CHECK(narrow.kurtosis_excess == Approx(-1.2).epsilon(1e-6));
  // narrower still (the raw-moment recurrence alone gave -2.66 at [-1e-3, 1e-3], below the
  // bound -2 of any distribution, which psi_fs then rejects)
  for (double h : {1e-2, 1e-4, 1e-6, 1e-8}) {
    const auto m = nsc::truncated_normal_moments(-h, h);
    CAPTURE(h, m.variance, m.kurtosis_excess);
    CHECK(m.variance == Approx(h * h / 3).epsilon(h * h));
    CHECK(m.kurtosis_excess == Approx(-1.2).epsilon(h * h + 1e-12));
    const auto mo = nsc::moments(nsc::init::truncated_normal(0.02, -h, h), nsc::linear_fans(64.0, 64.0));
    CHECK_NOTHROW(nsc::psi_fs(64.0, 64.0, mo.variance, mo.kurtosis_excess));
  }
  // mirror symmetry: [a, b] and [-b, -a]
  const auto r1 = nsc::truncated_normal_moments(0.5, 4.0), r2 = nsc::truncated_normal_moments(-4.0, -0.5);
  CHECK(r1.mean == Approx(-r2.mean).epsilon(16 * eps));
  CHECK(r1.variance == Approx(r2.variance).epsilon(64 * eps));
  CHECK(r1.kurtosis_excess == Approx(r2.kurtosis_excess).epsilon(1e-12));
}

TEST_CASE("linear_fans and conv_fans follow PyTorch", "[init][fans]") {
  const auto lf = nsc::linear_fans(3072.0, 768.0); // weight (out, in)
  CHECK(lf.fan_in == 768);
  CHECK(lf.fan_out == 3072);
  // plain conv (c_out, c_in, 3, 3)
  const auto c1 = nsc::conv_fans(64.0, 32.0, 3.0, 3.0);
  CHECK(c1.fan_in == 32 * 9);
  CHECK(c1.fan_out == 64 * 9);
  // grouped: weight (c_out, c_in / groups, k, k); torch.nn.init takes fan_out = size(0) * k k
  const auto c2 = nsc::conv_fans(64.0, 32.0, 3.0, 3.0, 4.0);
  CHECK(c2.fan_in == (32 / 4) * 9);
  CHECK(c2.fan_out == 64 * 9);
  // depthwise: groups = c_in = c_out
  const auto c3 = nsc::conv_fans(96.0, 96.0, 5.0, 5.0, 96.0);
  CHECK(c3.fan_in == 25);
  CHECK(c3.fan_out == 96 * 25);
  // non-square kernel, depthwise with channel multiplier 2
  const auto c4 = nsc::conv_fans(64.0, 32.0, 1.0, 7.0, 32.0);
  CHECK(c4.fan_in == 7);
  CHECK(c4.fan_out == 64 * 7);
}

TEST_CASE("moments() for every init_kind against the hand formulas", "[init][moments]") {
  const nsc::fans<double> fl = nsc::linear_fans(3072.0, 768.0);
  const nsc::fans<double> fc = nsc::conv_fans(64.0, 32.0, 3.0, 3.0, 4.0); // fan_in 72, fan_out 576
  const nsc::fans<double> fd = nsc::conv_fans(96.0, 96.0, 3.0, 3.0, 96.0); // fan_in 9, fan_out 864
  const double sqrt2 = std::sqrt(2.0);
  for (const auto& f : {fl, fc, fd}) {
    CAPTURE(f.fan_in, f.fan_out);
    const double fi = f.fan_in, fo = f.fan_out;
    auto m = nsc::moments(nsc::init::xavier_normal(), f);
    CHECK(m.variance == Approx(2 / (fi + fo)).epsilon(2 * eps));
    CHECK(m.kurtosis_excess == 0);
    CHECK(!m.orthogonal);
    m = nsc::moments(nsc::init::xavier_normal(1.5), f);
    CHECK(m.variance == Approx(2.25 * 2 / (fi + fo)).epsilon(2 * eps));
    m = nsc::moments(nsc::init::xavier_uniform(), f);
    CHECK(m.variance == Approx(2 / (fi + fo)).epsilon(2 * eps));
    CHECK(m.kurtosis_excess == Approx(-1.2).epsilon(eps));
    m = nsc::moments(nsc::init::kaiming_normal(), f); // gain sqrt 2, fan_in
    CHECK(m.variance == Approx(2 / fi).epsilon(2 * eps));
    CHECK(m.kurtosis_excess == 0);
    m = nsc::moments(nsc::init::kaiming_normal(sqrt2, nsc::fan_mode::fan_out), f);
    CHECK(m.variance == Approx(2 / fo).epsilon(2 * eps));
    m = nsc::moments(nsc::init::kaiming_uniform(), f);
    CHECK(m.variance == Approx(2 / fi).epsilon(2 * eps));
    CHECK(m.kurtosis_excess == Approx(-1.2).epsilon(eps));
    m = nsc::moments(nsc::init::kaiming_uniform(1.0, nsc::fan_mode::fan_out), f);
    CHECK(m.variance == Approx(1 / fo).epsilon(2 * eps));
    // nn.Linear / nn.Conv default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) -> variance 1 / (3 fan_in)
    m = nsc::moments(nsc::init::torch_default(), f);
    CHECK(m.variance == Approx(1 / (3 * fi)).epsilon(2 * eps));
    CHECK(m.kurtosis_excess == Approx(-1.2).epsilon(eps));
    // normal(std): std^2, independent of the fans
    m = nsc::moments(nsc::init::normal(0.02), f);
    CHECK(m.variance == Approx(0.0004).epsilon(2 * eps));
    CHECK(m.kurtosis_excess == 0);
    // truncated normal: std^2 times the truncated variance factor; its own kurtosis
    m = nsc::moments(nsc::init::truncated_normal(0.02), f); // [-2, 2] std
    CHECK(m.variance == Approx(0.0004 * 0.773741303549923247).epsilon(64 * eps));
    CHECK(m.kurtosis_excess == Approx(-0.634463282870350488).epsilon(1e-13));
    m = nsc::moments(nsc::init::truncated_normal(0.5, -3.0, 1.0), f);
    CHECK(m.variance == Approx(0.25 * 0.616141735357829296).epsilon(64 * eps));
    CHECK(m.kurtosis_excess == Approx(-0.205820651352746931).epsilon(1e-13));
    // orthogonal: no i.i.d. moments; the gain
    m = nsc::moments(nsc::init::orthogonal(1.3), f);
    CHECK(m.orthogonal);
    CHECK(m.gain == 1.3);
  }
  // the PyTorch uniform bound check: kaiming_uniform(a = sqrt 5) has gain sqrt(2 / (1 + 5)) and
  // bound gain sqrt(3 / fan_in), i.e. variance bound^2 / 3 = 1 / (3 fan_in): torch_default
  const double gain_a5 = std::sqrt(2.0 / 6.0);
  CHECK(nsc::moments(nsc::init::kaiming_uniform(gain_a5), fl).variance ==
        Approx(nsc::moments(nsc::init::torch_default(), fl).variance).epsilon(4 * eps));
}

TEST_CASE("psi dispatch: estimators and orthogonal initialisation", "[psi][init]") {
  // Linear weight (out, in) = (rows, cols)
  for (double rows : {1.0, 64.0, 3072.0})
    for (double cols : {1.0, 768.0}) {
      CAPTURE(rows, cols);
      CHECK(nsc::psi(rows, cols, nsc::init::xavier_normal()) == nsc::psi_mp(rows, cols, 2 / (rows + cols)));
      const double g2 = boost::math::constants::root_two<double>() * boost::math::constants::root_two<double>();
      CHECK(nsc::psi(rows, cols, nsc::init::kaiming_uniform(), nsc::estimator::fs) ==
            nsc::psi_fs(rows, cols, g2 / cols, -1.2)); // gain sqrt(2): g^2 is 2 + 1 ulp
      CHECK(nsc::psi(rows, cols, nsc::init::torch_default(), nsc::estimator::fs) ==
            nsc::psi_fs(rows, cols, 1 / (3 * cols), -1.2));
      CHECK(nsc::psi(rows, cols, nsc::init::normal(0.02)) == nsc::psi_mp(rows, cols, 0.02 * 0.02));
      // orthogonal: every singular value is g, psi = p ln(1 + g^2), both estimators
      for (double g : {0.0, 0.5, 1.0, 3.0}) {
        const double p = std::min(rows, cols);
        CHECK(nsc::psi(rows, cols, nsc::init::orthogonal(g)) == Approx(p * std::log1p(g * g)).epsilon(2 * eps));
        CHECK(nsc::psi(rows, cols, nsc::init::orthogonal(g), nsc::estimator::fs) ==
              Approx(p * std::log1p(g * g)).epsilon(2 * eps));
      }
    }
  // conv weight reshaped to (c_out, c_in k k / groups) with conv fans
  const auto f = nsc::conv_fans(64.0, 32.0, 3.0, 3.0, 4.0);
  CHECK(nsc::psi(64.0, 72.0, nsc::init::xavier_uniform(), f, nsc::estimator::mp, nsc::default_policy()) ==
        nsc::psi_mp(64.0, 72.0, 2 / (72.0 + 576.0)));
  // degenerate shapes give 0
  CHECK(nsc::psi(0.0, 5.0, nsc::init::orthogonal(2.0)) == 0);
  CHECK(nsc::psi(5.0, 0.0, nsc::init::normal(0.02)) == 0);
  CHECK(nsc::psi(5.0, 7.0, nsc::init::normal(0.0)) == 0);
}

TEST_CASE("names: to_string and parse round trip", "[init][names]") {
  using nsc::init_kind;
  for (auto k : {init_kind::xavier_normal, init_kind::xavier_uniform, init_kind::kaiming_normal,
                 init_kind::kaiming_uniform, init_kind::torch_default, init_kind::normal,
                 init_kind::truncated_normal, init_kind::orthogonal})
    CHECK(nsc::parse_init_kind(nsc::to_string(k)) == k);
  CHECK(nsc::parse_estimator("mp") == nsc::estimator::mp);
  CHECK(nsc::parse_estimator("fs") == nsc::estimator::fs);
  CHECK(nsc::to_string(nsc::estimator::fs) == "fs");
  CHECK(nsc::to_string(nsc::fan_mode::fan_out) == "fan_out");
}

TEST_CASE("init and psi errors", "[init][errors]") {
  using Catch::Contains;
  // bad specification names: std::invalid_argument naming the function and the bad value
  CHECK_THROWS_AS(nsc::parse_init_kind("xavier"), std::invalid_argument);
  CHECK_THROWS_WITH(nsc::parse_init_kind("xavier"), Contains("nsc::parse_init_kind") && Contains("xavier"));
  CHECK_THROWS_AS(nsc::parse_init_kind(""), std::invalid_argument);
  CHECK_THROWS_AS(nsc::parse_estimator("MP"), std::invalid_argument);
  CHECK_THROWS_WITH(nsc::parse_estimator("bogus"), Contains("nsc::parse_estimator") && Contains("bogus"));
  // groups must divide the channels
  CHECK_THROWS_AS(nsc::conv_fans(64.0, 30.0, 3.0, 3.0, 4.0), std::invalid_argument);
  CHECK_THROWS_WITH(nsc::conv_fans(64.0, 30.0, 3.0, 3.0, 4.0), Contains("nsc::conv_fans") && Contains("groups"));
  CHECK_THROWS_AS(nsc::conv_fans(62.0, 32.0, 3.0, 3.0, 4.0), std::invalid_argument);
  CHECK_THROWS_AS(nsc::conv_fans(64.0, 32.0, 3.0, 3.0, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(nsc::conv_fans(64.0, 32.0, 3.0, 3.0, nan_d), std::invalid_argument);
  CHECK_THROWS_AS(nsc::conv_fans(64.0, 32.0, 3.0, 3.0, 3.0), std::invalid_argument);

  // numeric domain errors: std::domain_error naming nsc::moments, NaN with the ignore policy
  const nsc::fans<double> zero_in{0.0, 10.0}, zero_out{10.0, 0.0}, nan_in{nan_d, 10.0}, neg_in{-4.0, 10.0};
  auto check_bad = [&](const nsc::init& ini, const nsc::fans<double>& f, const char* rule,
                       const char* function = "nsc::moments") {
    CAPTURE(nsc::to_string(ini.kind), f.fan_in, f.fan_out, rule);
    CHECK_THROWS_AS(nsc::moments(ini, f), std::domain_error);
    CHECK_THROWS_WITH(nsc::moments(ini, f), Contains(function) && Contains(rule));
    const auto m = nsc::moments(ini, f, ignore_policy());
    CHECK(std::isnan(m.variance));
    // psi of such a weight: NaN as well (no exception)
    CHECK(std::isnan(nsc::psi(8.0, 8.0, ini, f, nsc::estimator::mp, ignore_policy())));
    CHECK(std::isnan(nsc::psi(8.0, 8.0, ini, f, nsc::estimator::fs, ignore_policy())));
  };
  for (const auto& ini : {nsc::init::xavier_normal(), nsc::init::xavier_uniform()}) {
    check_bad(ini, zero_in, "fan_in");
    check_bad(ini, zero_out, "fan_out");
    check_bad(ini, nan_in, "fan_in");
    check_bad(ini, neg_in, "fan_in");
  }
  for (const auto& ini : {nsc::init::kaiming_normal(), nsc::init::kaiming_uniform(), nsc::init::torch_default()}) {
    check_bad(ini, zero_in, "fan_in");
    check_bad(ini, nan_in, "fan_in");
  }
  check_bad(nsc::init::kaiming_normal(1.0, nsc::fan_mode::fan_out), zero_out, "fan_out");
  const nsc::fans<double> ok{10.0, 10.0};
  check_bad(nsc::init::normal(-0.02), ok, "std");
  check_bad(nsc::init::normal(nan_d), ok, "std");
  check_bad(nsc::init::normal(inf_d), ok, "std");
  check_bad(nsc::init::truncated_normal(-0.02), ok, "std");
  check_bad(nsc::init::truncated_normal(0.02, 2.0, 2.0), ok, "lower bound", "nsc::truncated_normal_moments");
  check_bad(nsc::init::truncated_normal(0.02, 2.0, -2.0), ok, "lower bound", "nsc::truncated_normal_moments");
  check_bad(nsc::init::truncated_normal(0.02, nan_d, 2.0), ok, "lower bound", "nsc::truncated_normal_moments");
  check_bad(nsc::init::xavier_normal(nan_d), ok, "gain");
  check_bad(nsc::init::kaiming_uniform(inf_d), ok, "gain");

  // orthogonal with a non-finite gain, and with a bad shape
  CHECK_THROWS_WITH(nsc::moments(nsc::init::orthogonal(nan_d), ok), Contains("nsc::moments") && Contains("gain"));
  CHECK_THROWS_AS(nsc::psi(-1.0, 5.0, nsc::init::orthogonal(1.0)), std::domain_error);
  CHECK_THROWS_WITH(nsc::psi(-1.0, 5.0, nsc::init::orthogonal(1.0)), Contains("nsc::psi_mp"));
  CHECK(std::isnan(nsc::psi(-1.0, 5.0, nsc::init::orthogonal(1.0), ok, nsc::estimator::mp, ignore_policy())));
  CHECK(std::isnan(nsc::psi(nan_d, 5.0, nsc::init::orthogonal(1.0), ok, nsc::estimator::mp, ignore_policy())));
  CHECK(std::isnan(nsc::psi(5.0, inf_d, nsc::init::orthogonal(1.0), ok, nsc::estimator::fs, ignore_policy())));

  // truncated_normal_moments: a >= b, NaN bounds, an interval of zero probability
  for (auto [a, b] : {std::pair{2.0, 2.0}, std::pair{3.0, -1.0}, std::pair{nan_d, 1.0}, std::pair{0.0, nan_d},
                      std::pair{inf_d, inf_d}}) {
    CAPTURE(a, b);
    CHECK_THROWS_AS(nsc::truncated_normal_moments(a, b), std::domain_error);
    CHECK_THROWS_WITH(nsc::truncated_normal_moments(a, b), Contains("nsc::truncated_normal_moments"));
    const auto m = nsc::truncated_normal_moments(a, b, ignore_policy());
    CHECK(std::isnan(m.mean));
    CHECK(std::isnan(m.variance));
    CHECK(std::isnan(m.kurtosis_excess));
  }
  CHECK_THROWS_WITH(nsc::truncated_normal_moments(40.0, 50.0), Contains("nsc::truncated_normal_moments") && Contains("zero probability"));
  CHECK(std::isnan(nsc::truncated_normal_moments(40.0, 50.0, ignore_policy()).variance));
}

TEST_CASE("huge gains and fans: finite psi or a domain error, never inf or 0 (issue 13)",
          "[init][psi][errors][extreme]") {
  using Catch::Contains;
  // gain^2 / fan above the largest double: a domain error naming the gain, not an infinite
  // variance handed to psi_mp
  CHECK_THROWS_WITH(nsc::moments(nsc::init::xavier_normal(1e200), nsc::linear_fans(10.0, 10.0)),
                    Contains("nsc::moments") && Contains("variance overflows") && Contains("e+199"));
  CHECK_THROWS_AS(nsc::psi(10.0, 10.0, nsc::init::kaiming_normal(1e200)), std::domain_error);
  CHECK_THROWS_WITH(nsc::moments(nsc::init::normal(1e200), nsc::linear_fans(10.0, 10.0)),
                    Contains("variance overflows"));
  // fan_in + fan_out above the largest double: the variance is still 2 / (fan_in + fan_out)
  const auto m = nsc::moments(nsc::init::xavier_normal(1.0), nsc::linear_fans(1e308, 1e308));
  CHECK(m.variance == Approx(1e-308).epsilon(1e-15));
  // orthogonal with a gain whose square overflows: p ln(1 + g^2) = 2 p ln g, finite
  CHECK(nsc::psi(8.0, 16.0, nsc::init::orthogonal(1e200)) ==
        Approx(8 * 2 * std::log(1e200)).epsilon(1e-15));
  CHECK(nsc::psi(8.0, 16.0, nsc::init::orthogonal(1e300)) ==
        Approx(8 * 2 * std::log(1e300)).epsilon(1e-15));
  CHECK_THROWS_WITH(nsc::psi(1e308, 1e308, nsc::init::orthogonal(1e300)),
                    Contains("exceeds the largest"));
  // large shapes through both estimators stay finite
  CHECK(std::isfinite(nsc::psi(1e160, 1e160, nsc::init::xavier_normal(1e100), nsc::estimator::fs)));
  CHECK(std::isfinite(nsc::psi(1.0, 1e300, nsc::init::normal(1e100), nsc::estimator::mp)));
}
