// Tests for nsc/eval/bootstrap.hpp and nsc/eval/rank_scores.hpp: the bounded draw, the weighted
// tau-b / rho of a resample against a naive O(n^2) tau-b and explicit rho of the explicitly
// resampled vectors (ties from resampling included), determinism under a seed and across thread
// counts, percentile intervals, verdicts on constructed cases, and the argument checks.
#include <nsc/eval/bootstrap.hpp>
#include <nsc/eval/rank_scores.hpp>
#include <nsc/eval/ranking.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

namespace ev = nsc::eval;
using Catch::Contains;

namespace {

/// tau-b by visiting every pair (the definition).
std::optional<double> naive_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  std::int64_t c = 0, d = 0, tx = 0, ty = 0, n0 = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      ++n0;
      const int sx = (x[i] < x[j]) - (x[i] > x[j]), sy = (y[i] < y[j]) - (y[i] > y[j]);
      if (sx == 0) ++tx;
      if (sy == 0) ++ty;
      if (sx * sy > 0) ++c;
      if (sx * sy < 0) ++d;
    }
  if (n0 == tx || n0 == ty) return std::nullopt;
  return double(c - d) / std::sqrt(double(n0 - tx) * double(n0 - ty));
}

/// Pearson correlation of average ranks computed by counting (O(n^2)).
std::optional<double> naive_rho(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  auto ranks = [n](const std::vector<double>& v) {
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n; ++i) {
      double less = 0, eq = 0;
      for (std::size_t j = 0; j < n; ++j) {
        less += v[j] < v[i];
        eq += v[j] == v[i];
      }
      r[i] = less + (eq + 1) / 2;
    }
    return r;
  };
  const auto rx = ranks(x), ry = ranks(y);
  const double m = (double(n) + 1) / 2;
  long double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (rx[i] - m) * (ry[i] - m);
    sxx += (rx[i] - m) * (rx[i] - m);
    syy += (ry[i] - m) * (ry[i] - m);
  }
  if (sxx == 0 || syy == 0) return std::nullopt;
  return double(sxy / std::sqrt(sxx * syy));
}

std::vector<double> noise(std::size_t n, std::uint64_t seed, double scale = 1) {
  std::mt19937_64 g(seed);
  std::vector<double> v(n);
  for (double& x : v) x = scale * double(g() >> 11) * 0x1p-53;
  return v;
}

} // namespace

TEST_CASE("uniform_below: in range, unbiased, the standard engine", "[bootstrap][rng]") {
  std::mt19937_64 std_engine; // default seed 5489: the standard fixes its 10000th output
  std_engine.discard(9999);
  CHECK(std_engine() == 9981545732273789042ull);
  std::mt19937_64 g(7);
  std::vector<int> hits(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const auto v = ev::uniform_below(g, 7);
    REQUIRE(v < 7);
    ++hits[v];
  }
  double chi2 = 0;
  for (int h : hits) chi2 += (h - 10000.0) * (h - 10000.0) / 10000.0;
  CHECK(chi2 < 22.46); // chi-square, 6 degrees of freedom, p = 0.001
  CHECK(ev::uniform_below(g, 1) == 0);
  // n just above 2^63: the threshold 2^64 mod n = 2^63 - 1 rejects about half the draws
  const std::uint64_t big = (std::uint64_t(1) << 63) + 1;
  for (int i = 0; i < 100; ++i) REQUIRE(ev::uniform_below(g, big) < big);
  // the portable 128-bit product against known values
  CHECK(ev::mul_64x64(~0ull, ~0ull) == std::pair<std::uint64_t, std::uint64_t>{~0ull - 1, 1});
  CHECK(ev::mul_64x64(0x123456789ABCDEF0ull, 0x0FEDCBA987654321ull) ==
        std::pair<std::uint64_t, std::uint64_t>{0x0121FA00AD77D742ull, 0x2236D88FE5618CF0ull});
  std::mt19937_64 h(5);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t a = h(), b = h() >> (i % 64);
    REQUIRE(ev::mul_64x64_portable(a, b) == ev::mul_64x64(a, b));
  }
  // Lemire's method is the high half: draws x with x * 7 / 2^64 (no rejection in this range)
  std::mt19937_64 g1(99), g2(99);
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = g2();
    if (ev::mul_64x64(x, 7).second < 7) break; // a rejection would desynchronise the copies
    REQUIRE(ev::uniform_below(g1, 7) == ev::mul_64x64(x, 7).first);
  }
  CHECK(ev::splitmix64(0) == 0xE220A8397B1DCDAFull); // SplitMix64's published first output
}

TEST_CASE("resample statistics equal the naive ones on the explicit resample", "[bootstrap][exact]") {
  // small n with ties in x and y: resampling adds more (copies)
  const std::vector<double> x{1, 2, 2, 3, 5, 5, 5, 8, 9, 10, 10, 12, 3};
  const std::vector<double> y{2, 1, 4, 4, 3, 6, 6, 7, 9, 8, 8, 10, 1};
  const std::vector<double> z = noise(x.size(), 3);
  const std::span<const double> scores[] = {x, z};
  ev::bootstrap_settings s;
  s.resamples = 300;
  s.seed = 42;
  const ev::bootstrap_result r = ev::paired_bootstrap(scores, y, s);
  std::size_t undefined = 0;
  for (std::size_t k = 0; k < s.resamples; ++k) {
    std::mt19937_64 g = ev::resample_engine(s.seed, k);
    std::vector<std::uint32_t> w;
    ev::resample_counts(g, x.size(), w);
    std::vector<double> rx, ry, rz;
    for (std::size_t i = 0; i < x.size(); ++i)
      for (std::uint32_t c = 0; c < w[i]; ++c) {
        rx.push_back(x[i]);
        ry.push_back(y[i]);
        rz.push_back(z[i]);
      }
    const auto t = naive_tau_b(rx, ry);
    const auto tz = naive_tau_b(rz, ry);
    if (!t) {
      CHECK(std::isnan(r.value(ev::rank_statistic::tau_b, k, 0)));
      ++undefined;
      continue;
    }
    CHECK(r.value(ev::rank_statistic::tau_b, k, 0) == Approx(*t).epsilon(1e-15).margin(1e-15));
    CHECK(r.value(ev::rank_statistic::tau_b, k, 1) == Approx(*tz).epsilon(1e-15).margin(1e-15));
    // and Knight's O(n log n) tau-b of ranking.hpp on the explicit vectors, bit for bit
    CHECK(r.value(ev::rank_statistic::tau_b, k, 0) == *ev::kendall_tau_b(rx, ry));
    CHECK(r.value(ev::rank_statistic::rho, k, 0) == Approx(*naive_rho(rx, ry)).epsilon(1e-14).margin(1e-15));
    CHECK(r.value(ev::rank_statistic::rho, k, 0) == *ev::spearman_rho(rx, ry));
    CHECK(r.value(ev::rank_statistic::rho, k, 1) == *ev::spearman_rho(rz, ry));
  }
  CHECK(undefined < 3);
}

TEST_CASE("weighted ranker with unit weights is tau-b / rho of the data", "[bootstrap][exact]") {
  const std::vector<double> x = noise(2000, 5, 50), y0 = noise(2000, 6, 30);
  std::vector<double> xr(x.size()), y(y0.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    xr[i] = std::round(x[i]); // many ties
    y[i] = std::round(y0[i] + xr[i]);
  }
  const ev::truth_ranks tr(y);
  const ev::weighted_ranker wr(xr, y, tr);
  const std::vector<std::uint32_t> ones(x.size(), 1);
  ev::truth_weights tw;
  tw.compute(tr, ones);
  std::vector<std::uint32_t> fen;
  const auto res = wr.evaluate(ones, tw, fen);
  CHECK(*res.tau_b == *ev::kendall_tau_b(xr, y));
  CHECK(*res.rho == *ev::spearman_rho(xr, y));
}

TEST_CASE("bootstrap: deterministic under a seed, independent of threads", "[bootstrap][seed]") {
  const std::vector<double> t = noise(500, 1), a = noise(500, 2), b = noise(500, 3);
  std::vector<double> good(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) good[i] = t[i] + 0.3 * a[i];
  const std::span<const double> scores[] = {good, b};
  ev::bootstrap_settings s;
  s.resamples = 200;
  s.seed = 9;
  s.threads = 1;
  const auto r1 = ev::paired_bootstrap(scores, t, s);
  s.threads = 3;
  const auto r3 = ev::paired_bootstrap(scores, t, s);
  CHECK(r1.tau_b == r3.tau_b);
  CHECK(r1.rho == r3.rho);
  const auto again = ev::paired_bootstrap(scores, t, s);
  CHECK(again.tau_b == r1.tau_b);
  s.seed = 10;
  const auto other = ev::paired_bootstrap(scores, t, s);
  CHECK(other.tau_b != r1.tau_b);
}

TEST_CASE("bootstrap: intervals contain the estimate, verdicts on constructed cases", "[bootstrap][verdict]") {
  const std::size_t n = 3000;
  const std::vector<double> truth = noise(n, 11), rnd = noise(n, 12), e = noise(n, 13);
  std::vector<double> strong(n), weak(n);
  for (std::size_t i = 0; i < n; ++i) {
    strong[i] = truth[i] + 0.2 * e[i];
    weak[i] = truth[i] + 2.0 * rnd[i];
  }
  ev::ranking_input in;
  in.score = strong;
  in.truth = truth;
  in.params = weak;
  in.flops = rnd;
  in.baselines = {{"random", rnd}, {"weak", weak}, {"self", strong}};
  ev::bootstrap_settings s;
  s.resamples = 400;
  const ev::ranking_report r = ev::rank_scores(in, s);
  REQUIRE(r.nsc_tau_b_ci);
  CHECK(r.nsc_tau_b_ci->interval[0] < *r.nsc.tau_b);
  CHECK(*r.nsc.tau_b < r.nsc_tau_b_ci->interval[1]);
  CHECK(r.nsc_tau_b_ci->interval[1] - r.nsc_tau_b_ci->interval[0] < 0.05);
  REQUIRE(r.baselines.size() == 3);
  for (const auto& b : r.baselines) {
    REQUIRE(b.tau_b_diff);
    REQUIRE(b.rho_diff);
    const double d = *r.nsc.tau_b - *b.summary.tau_b;
    CHECK(b.tau_b_diff->interval[0] <= d);
    CHECK(d <= b.tau_b_diff->interval[1]);
    CHECK(b.tau_b_diff->valid == 400);
  }
  CHECK(r.baselines[0].tau_b_diff->v == ev::verdict::better);
  CHECK(r.baselines[1].tau_b_diff->v == ev::verdict::better);
  CHECK(r.baselines[1].rho_diff->v == ev::verdict::better);
  CHECK(r.baselines[2].tau_b_diff->v == ev::verdict::tied); // NSC against itself: always 0
  CHECK(r.baselines[2].tau_b_diff->interval == std::array<double, 2>{0.0, 0.0});
  // the other way round: the random score is worse than the strong baseline
  ev::ranking_input flipped = in;
  flipped.score = rnd;
  flipped.baselines = {{"strong", strong}};
  const ev::ranking_report f = ev::rank_scores(flipped, s);
  CHECK(f.baselines[0].tau_b_diff->v == ev::verdict::worse);
  CHECK(std::string(ev::to_string(ev::verdict::worse)) == "worse");
  // a statistic undefined in every resample (constant score): no interval
  ev::ranking_input flat = in;
  flat.baselines = {{"constant", std::vector<double>(n, 1.0)}};
  const ev::ranking_report c = ev::rank_scores(flat, s);
  CHECK_FALSE(c.baselines[0].summary.tau_b);
  CHECK_FALSE(c.baselines[0].tau_b_diff);
}

TEST_CASE("percentile intervals interpolate like numpy's default", "[bootstrap][percentile]") {
  std::vector<double> v{5, 1, 4, 2, 3};
  CHECK(ev::percentile_interval(v, 0.5) == std::array<double, 2>{2.0, 4.0});
  std::vector<double> w{10, 0};
  const auto i = ev::percentile_interval(w, 0.9);
  CHECK(i[0] == Approx(0.5));
  CHECK(i[1] == Approx(9.5));
  std::vector<double> one{3};
  CHECK(ev::percentile_interval(one, 0.95) == std::array<double, 2>{3.0, 3.0});
}

TEST_CASE("bootstrap and rank_scores: argument checks", "[bootstrap][errors]") {
  const std::vector<double> a{1, 2, 3}, b{1, 2}, nan{1, NAN, 3};
  const std::span<const double> one[] = {a};
  ev::bootstrap_settings s;
  CHECK_THROWS_WITH(ev::paired_bootstrap(std::span<const std::span<const double>>(), a, s),
                    Contains("nsc::eval::paired_bootstrap: at least one score is required"));
  const std::span<const double> short_score[] = {b};
  CHECK_THROWS_WITH(ev::paired_bootstrap(short_score, a, s), Contains("must have the same length"));
  CHECK_THROWS_WITH(ev::paired_bootstrap(one, nan, s), Contains("truth must contain only finite values"));
  s.resamples = 0;
  CHECK_THROWS_WITH(ev::paired_bootstrap(one, a, s), Contains("resamples must be in [1, 10^7] (got 0)"));
  s.resamples = 10;
  s.confidence = 1;
  CHECK_THROWS_WITH(ev::paired_bootstrap(one, a, s), Contains("confidence must lie in (0, 1)"));
  const std::vector<double> single{1};
  const std::span<const double> s1[] = {single};
  CHECK_THROWS_WITH(ev::paired_bootstrap(s1, single, {}), Contains("at least 2 observations"));
  ev::ranking_input in;
  in.score = a;
  in.truth = a;
  in.params = a;
  in.flops = b;
  CHECK_THROWS_WITH(ev::rank_scores(in), Contains("nsc::eval::rank_scores: score and flops must have the same length"));
  in.flops = a;
  in.baselines = {{"", a}};
  CHECK_THROWS_WITH(ev::rank_scores(in), Contains("a baseline needs a name"));
  in.baselines = {{"x", nan}};
  CHECK_THROWS_WITH(ev::rank_scores(in), Contains("x must contain only finite values"));
}
