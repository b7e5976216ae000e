// Tests of nsc/eval/ranking.hpp: reference values from tests/reference/gen_ranking_reference.py
// (scipy + brute force + exact rational checks), unit tests, brute-force comparisons, throws.
#include <nsc/eval/ranking.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nsc::eval::window_algorithm;
using vec = std::vector<double>;

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  return out;
}

double to_double(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

struct dataset {
  vec x, y, c1, c2;
};

struct expected {
  std::size_t n = 0;
  double rel = 0.0;
  double tau_b = 0.0, rho = 0.0, pw_tau = 0.0, partial_c1 = 0.0, partial_c1c2 = 0.0, accuracy = 0.0;
};

std::map<std::string, dataset> read_data() {
  std::ifstream in(std::string(NSC_TEST_DATA_DIR) + "/ranking_reference_data.csv");
  REQUIRE(in.good());
  std::map<std::string, dataset> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const auto c = split_csv(line);
    REQUIRE(c.size() == 5);
    auto& d = out[c[0]];
    d.x.push_back(to_double(c[1]));
    d.y.push_back(to_double(c[2]));
    d.c1.push_back(to_double(c[3]));
    d.c2.push_back(to_double(c[4]));
  }
  return out;
}

std::map<std::string, expected> read_values() {
  std::ifstream in(std::string(NSC_TEST_DATA_DIR) + "/ranking_reference_values.csv");
  REQUIRE(in.good());
  std::map<std::string, expected> out;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const auto c = split_csv(line);
    REQUIRE(c.size() == 9);
    expected e;
    e.n = static_cast<std::size_t>(std::stoul(c[1]));
    e.rel = to_double(c[2]);
    e.tau_b = to_double(c[3]);
    e.rho = to_double(c[4]);
    e.pw_tau = to_double(c[5]);
    e.partial_c1 = to_double(c[6]);
    e.partial_c1c2 = to_double(c[7]);
    e.accuracy = to_double(c[8]);
    out[c[0]] = e;
  }
  return out;
}

/// "nan" in the reference means undefined: an empty optional. Otherwise |got - want| <= tol.
void check(const std::string& what, const std::optional<double>& got, double want, double tol,
           double& worst) {
  INFO(what << ": expected " << want << ", got " << (got ? std::to_string(*got) : "empty"));
  if (std::isnan(want)) {
    CHECK_FALSE(got.has_value());
    return;
  }
  REQUIRE(got.has_value());
  const double err = std::abs(*got - want);
  worst = std::max(worst, err);
  CHECK(err <= tol);
}

/// Naive O(n^2) tau-b straight from the definition.
std::optional<double> naive_tau_b(const vec& x, const vec& y) {
  long long s = 0, n0 = 0, tx = 0, ty = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      const int sx = (x[j] > x[i]) - (x[j] < x[i]);
      const int sy = (y[j] > y[i]) - (y[j] < y[i]);
      s += sx * sy;
      ++n0;
      tx += sx == 0;
      ty += sy == 0;
    }
  }
  if (n0 == tx || n0 == ty) return std::nullopt;
  return static_cast<double>(s) /
         std::sqrt(static_cast<double>(n0 - tx) * static_cast<double>(n0 - ty));
}

/// Naive O(n^2) windowed tau straight from the definition in the header.
std::optional<double> naive_windowed(const vec& x, const vec& y, const vec& c, double rel) {
  long long s = 0, p = 0, tx = 0, ty = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      if (!(std::abs(c[i] - c[j]) < rel * std::max(std::abs(c[i]), std::abs(c[j])))) continue;
      const int sx = (x[j] > x[i]) - (x[j] < x[i]);
      const int sy = (y[j] > y[i]) - (y[j] < y[i]);
      s += sx * sy;
      ++p;
      tx += sx == 0;
      ty += sy == 0;
    }
  }
  if (p == tx || p == ty) return std::nullopt;
  return static_cast<double>(s) /
         std::sqrt(static_cast<double>(p - tx) * static_cast<double>(p - ty));
}

vec random_ints(std::mt19937_64& rng, std::size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  vec v(n);
  for (double& e : v) e = d(rng);
  return v;
}

vec random_normal(std::mt19937_64& rng, std::size_t n) {
  std::normal_distribution<double> d;
  vec v(n);
  for (double& e : v) e = d(rng);
  return v;
}

}  // namespace

TEST_CASE("ranking statistics match the scipy / brute-force reference", "[ranking][reference]") {
  // Tolerances. tau-b, the windowed tau and the pairwise accuracy come from exact integer
  // pair counts on both sides and differ only in the final rounding (scipy divides by two
  // roots, we by the root of a product): a few ulp of values in [-1, 1], so 2e-15.
  // rho (n-term sums) and the partial tau (residuals of a least-squares fit; the generator
  // checked that their order and ties do not depend on rounding) are compared at 4e-12:
  // n eps-sized summation differences for n <= 2000 stay well below it, while any real
  // error (one pair miscounted moves tau by >= 1/n0 ~ 5e-7 for the largest set) is far above.
  const auto data = read_data();
  const auto values = read_values();
  REQUIRE(values.size() >= 10);
  double worst_exact = 0.0;
  double worst_fit = 0.0;
  for (const auto& [name, e] : values) {
    INFO("dataset " << name);
    const auto it = data.find(name);
    REQUIRE(it != data.end());
    const dataset& d = it->second;
    REQUIRE(d.x.size() == e.n);
    check("tau_b", nsc::eval::kendall_tau_b(d.x, d.y), e.tau_b, 2e-15, worst_exact);
    check("rho", nsc::eval::spearman_rho(d.x, d.y), e.rho, 4e-12, worst_fit);
    for (auto alg : {window_algorithm::automatic, window_algorithm::enumerate_pairs,
                     window_algorithm::divide_and_conquer}) {
      check("pw_tau", nsc::eval::windowed_kendall_tau(d.x, d.y, d.c1, e.rel, alg), e.pw_tau, 2e-15,
            worst_exact);
    }
    check("partial c1", nsc::eval::partial_kendall_tau(d.x, d.y, {d.c1}), e.partial_c1, 4e-12,
          worst_fit);
    check("partial c1 c2", nsc::eval::partial_kendall_tau(d.x, d.y, {d.c1, d.c2}), e.partial_c1c2,
          4e-12, worst_fit);
    check("pairwise accuracy", nsc::eval::pairwise_accuracy(d.x, d.y), e.accuracy, 2e-15,
          worst_exact);
    if (std::abs(e.rel - 0.10) < 1e-15) {
      const auto s = nsc::eval::summarize(d.x, d.y, d.c1, d.c2);
      CHECK(s.n == e.n);
      check("summary tau_b", s.tau_b, e.tau_b, 2e-15, worst_exact);
      check("summary rho", s.rho, e.rho, 4e-12, worst_fit);
      check("summary pw10", s.pw10_tau, e.pw_tau, 2e-15, worst_exact);
      check("summary partial", s.partial_tau, e.partial_c1c2, 4e-12, worst_fit);
    }
  }
  WARN("worst |difference| vs reference: counts-based " << worst_exact << ", rho/partial "
                                                         << worst_fit);
}

TEST_CASE("average_ranks matches rankdata 'average'", "[ranking]") {
  const vec x{3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0};
  const vec want{4.5, 1.5, 6.0, 1.5, 8.0, 11.0, 3.0, 10.0, 8.0, 4.5, 8.0};
  CHECK(nsc::eval::average_ranks(x) == want);
  CHECK(nsc::eval::average_ranks(vec{}).empty());
  CHECK(nsc::eval::average_ranks(vec{-0.0, 0.0}) == vec{1.5, 1.5});  // -0 == +0
}

TEST_CASE("small cases, ties and perfect orders", "[ranking]") {
  using namespace nsc::eval;
  SECTION("n = 2") {
    CHECK(*kendall_tau_b(vec{1, 2}, vec{5, 7}) == 1.0);
    CHECK(*kendall_tau_b(vec{1, 2}, vec{7, 5}) == -1.0);
    CHECK(*spearman_rho(vec{1, 2}, vec{7, 5}) == -1.0);
    CHECK(*pairwise_accuracy(vec{1, 2}, vec{5, 7}) == 1.0);
    CHECK(*pairwise_accuracy(vec{1, 1}, vec{5, 7}) == 0.5);
    CHECK_FALSE(kendall_tau_b(vec{1, 1}, vec{5, 7}).has_value());
    CHECK_FALSE(pairwise_accuracy(vec{1, 2}, vec{5, 5}).has_value());
  }
  SECTION("ties by hand") {
    // x = (1, 2, 2, 3), y = (1, 3, 2, 3): n0 = 6, n1 = 1, n2 = 1, n3 = 0;
    // pairs: (1,2)+ (1,3)+ (1,4)+ (2,3) x-tie (2,4) y-tie (3,4)+ -> C = 4, D = 0.
    const vec x{1, 2, 2, 3};
    const vec y{1, 3, 2, 3};
    CHECK(*kendall_tau_b(x, y) == Approx(4.0 / 5.0).epsilon(1e-15));
    // truth-distinct pairs: 5; concordant 4, the x-tied pair (2,3) counts 1/2.
    CHECK(*pairwise_accuracy(x, y) == Approx(4.5 / 5.0).epsilon(1e-15));
  }
  SECTION("perfect and reversed orders give +-1") {
    std::mt19937_64 rng(7);
    const vec x = random_normal(rng, 1000);
    vec up(x.size()), down(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      up[i] = std::exp(x[i]);
      down[i] = -3.0 * x[i];
    }
    CHECK(*kendall_tau_b(x, up) == 1.0);  // exactly, see tau_from_counts
    CHECK(*kendall_tau_b(x, down) == -1.0);
    CHECK(*spearman_rho(x, up) == Approx(1.0).margin(1e-15));
    CHECK(*spearman_rho(x, down) == Approx(-1.0).margin(1e-15));
    CHECK(*pairwise_accuracy(x, up) == 1.0);
    CHECK(*pairwise_accuracy(down, x) == 0.0);
    const vec c = random_ints(rng, x.size(), 90, 110);
    CHECK(*windowed_kendall_tau(x, up, c) == 1.0);
    CHECK(*windowed_kendall_tau(x, down, c) == -1.0);
  }
  SECTION("constant inputs are undefined") {
    const vec k(10, 4.0);
    const vec v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    CHECK_FALSE(kendall_tau_b(k, v).has_value());
    CHECK_FALSE(kendall_tau_b(v, k).has_value());
    CHECK_FALSE(spearman_rho(k, v).has_value());
    CHECK_FALSE(spearman_rho(v, k).has_value());
    CHECK_FALSE(windowed_kendall_tau(k, v, v, 0.5).has_value());
    CHECK_FALSE(partial_kendall_tau(k, v, {v}).has_value());
    CHECK_FALSE(pairwise_accuracy(v, k).has_value());
    CHECK(*pairwise_accuracy(k, v) == 0.5);  // a constant score is a coin flip
  }
  SECTION("empty window, zero and opposite-sign controls") {
    const vec x{1, 2, 3, 4};
    const vec y{4, 3, 1, 2};
    CHECK_FALSE(windowed_kendall_tau(x, y, vec{1, 2, 4, 8}, 0.1).has_value());
    CHECK_FALSE(windowed_kendall_tau(x, y, vec{0, 0, 0, 0}, 0.1).has_value());
    CHECK_FALSE(windowed_kendall_tau(x, y, vec{-1, 1, -2, 2}, 0.1).has_value());
    // only (1,3) [-1, -1.05] and (2,4) [1, 1.05] pair: both discordant
    CHECK(*windowed_kendall_tau(x, y, vec{-1, 1, -1.05, 1.05}, 0.1) == -1.0);
    CHECK(*windowed_kendall_tau(x, y, vec{-1, 1, -1.05, 1.05}, 0.1,
                                window_algorithm::divide_and_conquer) == -1.0);
  }
  SECTION("window boundary is strict: |c_i - c_j| < rel max") {
    // 0.5 * 2 = 1 = |2 - 1|: not in the window; 1.5 is.
    CHECK_FALSE(windowed_kendall_tau(vec{1, 2}, vec{1, 2}, vec{1, 2}, 0.5).has_value());
    CHECK(*windowed_kendall_tau(vec{1, 2}, vec{1, 2}, vec{1.5, 2}, 0.5) == 1.0);
  }
}

TEST_CASE("O(n log n) tau-b equals the naive O(n^2) loop", "[ranking]") {
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 5; ++trial) {
    const std::size_t n = 500;
    const vec x = random_ints(rng, n, 0, 4 + 10 * trial);
    vec y = random_ints(rng, n, 0, 6);
    for (std::size_t i = 0; i < n; ++i) y[i] += 0.3 * x[i];
    const auto fast = nsc::eval::kendall_tau_b(x, y);
    const auto slow = naive_tau_b(x, y);
    REQUIRE(fast.has_value());
    REQUIRE(slow.has_value());
    CHECK(*fast == *slow);  // same exact counts, same final formula
  }
  const vec cx = random_normal(rng, 777);
  const vec cy = random_normal(rng, 777);
  CHECK(*nsc::eval::kendall_tau_b(cx, cy) == *naive_tau_b(cx, cy));
}

TEST_CASE("windowed tau: enumeration, divide and conquer and the naive loop agree", "[ranking]") {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 8; ++trial) {
    const std::size_t n = 100 + 150 * static_cast<std::size_t>(trial);
    const vec x = random_ints(rng, n, 0, 3 + trial);
    const vec y = trial % 2 == 0 ? random_ints(rng, n, 0, 5) : random_normal(rng, n);
    vec c = random_ints(rng, n, trial % 3 == 0 ? -40 : 1, 40);  // negative / zero controls too
    if (trial % 4 == 1) {
      for (double& v : c) v = 1.0 + v / 400.0;  // many ties, wide windows
    }
    const double rel = trial % 2 == 0 ? 0.10 : 0.25;
    const auto a = nsc::eval::windowed_kendall_tau(x, y, c, rel, window_algorithm::enumerate_pairs);
    const auto b =
        nsc::eval::windowed_kendall_tau(x, y, c, rel, window_algorithm::divide_and_conquer);
    const auto naive = naive_windowed(x, y, c, rel);
    INFO("trial " << trial);
    REQUIRE(naive.has_value());
    REQUIRE(a.has_value());
    REQUIRE(b.has_value());
    CHECK(*a == *b);  // identical integer counts
    CHECK(*a == *naive);
  }
}

TEST_CASE("partial tau", "[ranking]") {
  std::mt19937_64 rng(2024);
  const std::size_t n = 400;
  const vec params = random_ints(rng, n, 1, 60);
  vec flops(n), score(n), truth(n);
  const vec noise1 = random_normal(rng, n);
  const vec noise2 = random_normal(rng, n);
  for (std::size_t i = 0; i < n; ++i) {
    flops[i] = 3.0 * params[i] + std::floor(4.0 * std::abs(noise1[i]));
    score[i] = std::log(params[i]) + 0.3 * noise1[i];
    truth[i] = params[i] + 5.0 * noise2[i];
  }
  SECTION("a score that is a control is degenerate") {
    CHECK_FALSE(nsc::eval::partial_kendall_tau(params, truth, {params}).has_value());
    CHECK_FALSE(nsc::eval::partial_kendall_tau(params, truth, {params, flops}).has_value());
    CHECK_FALSE(nsc::eval::partial_kendall_tau(flops, truth, {params, flops}).has_value());
    vec neg(n);
    for (std::size_t i = 0; i < n; ++i) neg[i] = -2.0 * params[i];  // affine in the ranks
    CHECK_FALSE(nsc::eval::partial_kendall_tau(neg, truth, {params}).has_value());
    // but controlling for the other variable only is defined
    CHECK(nsc::eval::partial_kendall_tau(params, truth, {flops}).has_value());
    const auto s = nsc::eval::summarize(params, truth, params, flops);
    CHECK_FALSE(s.partial_tau.has_value());
    CHECK(s.tau_b.has_value());
    CHECK(s.pw10_tau.has_value());
  }
  SECTION("duplicate and constant controls change nothing") {
    const auto one = nsc::eval::partial_kendall_tau(score, truth, {params});
    const auto dup = nsc::eval::partial_kendall_tau(score, truth, {params, params});
    const vec k(n, 1.0);
    const auto con = nsc::eval::partial_kendall_tau(score, truth, {params, k});
    REQUIRE(one.has_value());
    REQUIRE(dup.has_value());
    REQUIRE(con.has_value());
    CHECK(*dup == Approx(*one).margin(1e-12));
    CHECK(*con == Approx(*one).margin(1e-12));
  }
  SECTION("identical rows keep bitwise-tied residuals") {
    // x, y and the control take few values: many identical rows, whose residual ties must
    // survive rounding. Exact tie count: the pairs of identical (x, control) rows.
    const vec x = random_ints(rng, n, 0, 3);
    const vec y = random_ints(rng, n, 0, 3);
    const vec c = random_ints(rng, n, 0, 2);
    const auto q = nsc::eval::detail::control_basis(
        std::vector<std::span<const double>>{std::span<const double>(c)});
    const auto ex = nsc::eval::detail::rank_residuals(x, q);
    REQUIRE(ex.has_value());
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        if (x[i] == x[j] && c[i] == c[j]) CHECK((*ex)[i] == (*ex)[j]);
      }
    }
  }
}

TEST_CASE("bad input throws std::invalid_argument naming the function", "[ranking][errors]") {
  using namespace nsc::eval;
  using Catch::Contains;
  const vec a{1, 2, 3, 4, 5};
  const vec b{1, 2, 3, 4};
  const vec one{1};
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  const vec has_nan{1, nan, 3, 4, 5};
  const vec has_inf{1, 2, -inf, 4, 5};

  REQUIRE_THROWS_WITH(kendall_tau_b(a, b),
                      "nsc::kendall_tau_b: x and y must have the same length (got 5 and 4)");
  REQUIRE_THROWS_AS(kendall_tau_b(a, b), std::invalid_argument);
  REQUIRE_THROWS_WITH(kendall_tau_b(one, one), Contains("nsc::kendall_tau_b") && Contains("at least 2"));
  REQUIRE_THROWS_WITH(kendall_tau_b(has_nan, a), Contains("nsc::kendall_tau_b") && Contains("x must contain only finite") && Contains("index 1"));
  REQUIRE_THROWS_WITH(kendall_tau_b(a, has_inf), Contains("nsc::kendall_tau_b") && Contains("y must contain only finite") && Contains("index 2"));

  REQUIRE_THROWS_WITH(spearman_rho(a, b), Contains("nsc::spearman_rho") && Contains("same length"));
  REQUIRE_THROWS_WITH(spearman_rho(one, one), Contains("nsc::spearman_rho") && Contains("at least 2"));
  REQUIRE_THROWS_WITH(spearman_rho(a, has_nan), Contains("nsc::spearman_rho") && Contains("finite"));

  REQUIRE_THROWS_WITH(average_ranks(has_inf), Contains("nsc::average_ranks") && Contains("finite"));

  REQUIRE_THROWS_WITH(windowed_kendall_tau(a, b, a), Contains("nsc::windowed_kendall_tau") && Contains("x and y"));
  REQUIRE_THROWS_WITH(windowed_kendall_tau(a, a, b), Contains("nsc::windowed_kendall_tau") && Contains("x and control must have the same length (got 5 and 4)"));
  REQUIRE_THROWS_WITH(windowed_kendall_tau(one, one, one), Contains("nsc::windowed_kendall_tau") && Contains("at least 2"));
  REQUIRE_THROWS_WITH(windowed_kendall_tau(has_nan, a, a), Contains("nsc::windowed_kendall_tau") && Contains("finite"));
  REQUIRE_THROWS_WITH(windowed_kendall_tau(a, has_nan, a), Contains("nsc::windowed_kendall_tau") && Contains("finite"));
  REQUIRE_THROWS_WITH(windowed_kendall_tau(a, a, has_inf), Contains("nsc::windowed_kendall_tau") && Contains("control must contain only finite"));
  for (double rel : {0.0, 1.0, -0.1, 1.5, nan, inf}) {
    REQUIRE_THROWS_WITH(windowed_kendall_tau(a, a, a, rel), Contains("nsc::windowed_kendall_tau: rel must lie in (0, 1)"));
  }

  REQUIRE_THROWS_WITH(partial_kendall_tau(a, b, {a}), Contains("nsc::partial_kendall_tau") && Contains("x and y"));
  REQUIRE_THROWS_WITH(partial_kendall_tau(a, a, {a, b}), Contains("nsc::partial_kendall_tau") && Contains("x and control 1 must have the same length (got 5 and 4)"));
  REQUIRE_THROWS_WITH(partial_kendall_tau(one, one, {one}), Contains("nsc::partial_kendall_tau") && Contains("at least 2"));
  REQUIRE_THROWS_WITH(partial_kendall_tau(a, a, {has_nan}), Contains("nsc::partial_kendall_tau") && Contains("control 0 must contain only finite"));
  REQUIRE_THROWS_WITH(partial_kendall_tau(has_inf, a, {a}), Contains("nsc::partial_kendall_tau") && Contains("finite"));
  REQUIRE_THROWS_WITH(partial_kendall_tau(a, a, std::span<const std::span<const double>>{}), Contains("nsc::partial_kendall_tau: at least one control"));

  REQUIRE_THROWS_WITH(pairwise_accuracy(a, b), Contains("nsc::pairwise_accuracy") && Contains("score and truth must have the same length"));
  REQUIRE_THROWS_WITH(pairwise_accuracy(one, one), Contains("nsc::pairwise_accuracy") && Contains("at least 2"));
  REQUIRE_THROWS_WITH(pairwise_accuracy(a, has_nan), Contains("nsc::pairwise_accuracy") && Contains("truth must contain only finite"));

  REQUIRE_THROWS_WITH(summarize(a, b, a, a), Contains("nsc::summarize") && Contains("score and truth"));
  REQUIRE_THROWS_WITH(summarize(a, a, b, a), Contains("nsc::summarize") && Contains("score and params"));
  REQUIRE_THROWS_WITH(summarize(a, a, a, b), Contains("nsc::summarize") && Contains("score and flops"));
  REQUIRE_THROWS_WITH(summarize(one, one, one, one), Contains("nsc::summarize") && Contains("at least 2"));
  REQUIRE_THROWS_WITH(summarize(a, a, has_nan, a), Contains("nsc::summarize") && Contains("params must contain only finite"));
  REQUIRE_THROWS_WITH(summarize(a, a, a, has_inf), Contains("nsc::summarize") && Contains("flops must contain only finite"));
}
