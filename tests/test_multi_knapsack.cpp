// Tests for nsc/search/multi_knapsack.hpp (K-budget multiple-choice knapsack) and
// nsc/search/k_best.hpp. Every reference answer comes from brute force (all selections
// enumerated, then filtered / sorted), never from the solver under test.
#include <nsc/io/block_library.hpp>
#include <nsc/search/budget_search.hpp>
#include <nsc/search/k_best.hpp>
#include <nsc/search/multi_knapsack.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>

#include <catch2/catch.hpp>

#include "support/brute_force.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

using nsc::search::mck_status;
using nsc::search::mmck_groups;
using nsc::search::mmck_method;
using nsc::search::mmck_path;
using nsc::search::mmck_settings;
using nsc::search::solve_mmck;
using Catch::Contains;

namespace {

using i64 = std::int64_t;
using cost_v = std::vector<i64>;

constexpr auto uni = nsc_test::uniform;

using nsc_test::for_each_selection;

template <class Value>
cost_v cost_of(const mmck_groups<Value>& g, const std::vector<std::size_t>& ch, std::size_t K) {
  cost_v c(K, 0);
  for (std::size_t i = 0; i < g.size(); ++i)
    for (std::size_t k = 0; k < K; ++k) c[k] += g[i][ch[i]].cost[k];
  return c;
}
template <class Value>
Value value_of(const mmck_groups<Value>& g, const std::vector<std::size_t>& ch) {
  Value v{};
  for (std::size_t i = 0; i < g.size(); ++i) v = v + g[i][ch[i]].value;
  return v;
}
bool fits(const cost_v& c, const cost_v& b) {
  for (std::size_t k = 0; k < c.size(); ++k)
    if (c[k] > b[k]) return false;
  return true;
}

struct brute_sel {
  cost_v cost;
  i64 value;
  std::vector<std::size_t> choice;
};

std::vector<brute_sel> all_selections(const mmck_groups<i64>& g, std::size_t K) {
  std::vector<brute_sel> out;
  for_each_selection(g, [&](const std::vector<std::size_t>& ch) {
    out.push_back({cost_of(g, ch, K), value_of(g, ch), ch});
  });
  return out;
}

/// Brute-force Pareto set within B: per distinct cost the best value, then no other point with
/// cost <= and value >=. Sorted by cost (lexicographic).
std::vector<std::pair<cost_v, i64>> brute_front(const std::vector<brute_sel>& all, const cost_v& B) {
  std::map<cost_v, i64> best;
  for (const auto& s : all) {
    if (!fits(s.cost, B)) continue;
    auto it = best.find(s.cost);
    if (it == best.end() || it->second < s.value) best[s.cost] = s.value;
  }
  std::vector<std::pair<cost_v, i64>> out;
  for (const auto& [c, v] : best) {
    bool dom = false;
    for (const auto& [c2, v2] : best)
      if (c2 != c && fits(c2, c) && v2 >= v) dom = true;
    if (!dom) out.push_back({c, v});
  }
  return out;
}

std::optional<i64> brute_best(const std::vector<brute_sel>& all, const cost_v& b) {
  std::optional<i64> best;
  for (const auto& s : all)
    if (fits(s.cost, b) && (!best || *best < s.value)) best = s.value;
  return best;
}

mmck_groups<i64> random_instance(std::mt19937_64& rng, std::size_t K, bool identical) {
  const std::size_t G = std::size_t(uni(rng, 0, 5));
  const i64 cmax = uni(rng, 0, 1) ? 3 : 9;
  const i64 vmax = uni(rng, 0, 1) ? 3 : 100;  // small range: many ties
  mmck_groups<i64> g;
  for (std::size_t i = 0; i < G; ++i) {
    if (identical && i > 0 && uni(rng, 0, 2) > 0) {
      g.push_back(g[std::size_t(uni(rng, 0, i64(i) - 1))]);
      continue;
    }
    const std::size_t J = std::size_t(uni(rng, 1, 4));
    g.push_back(nsc_test::random_options<nsc::search::mmck_option<i64>>(rng, K, J, cmax, vmax));
  }
  return g;
}

cost_v random_budget(std::mt19937_64& rng, std::size_t K, std::size_t G) {
  return nsc_test::random_budget(rng, K, G, 6);
}

void check_instance(const mmck_groups<i64>& g, const cost_v& B, const mmck_settings& s,
                    std::mt19937_64& rng, const std::vector<brute_sel>& all) {
  const std::size_t K = B.size();
  const auto r = solve_mmck(g, B, s);
  INFO("path " << r.info().describe() << " G " << g.size() << " K " << K);
  const auto want = brute_best(all, B);
  REQUIRE(r.best(B) == want);
  REQUIRE((r.status(B) == mck_status::optimal) == want.has_value());
  if (want) {
    const auto ch = *r.choice(B);
    REQUIRE(ch.size() == g.size());
    REQUIRE(value_of(g, ch) == *want);
    REQUIRE(fits(cost_of(g, ch, K), B));
    REQUIRE(cost_of(g, ch, K) == *r.best_cost(B));
  } else {
    REQUIRE(!r.choice(B));
  }
  if (s.single_budget) return;
  // the front against brute-force non-dominated filtering
  const auto bf = brute_front(all, B);
  const auto& fr = r.front();
  REQUIRE(fr.size() == bf.size());
  for (std::size_t i = 0; i < fr.size(); ++i) {
    REQUIRE(fr[i].cost == bf[i].first);
    REQUIRE(fr[i].value == bf[i].second);
    const auto ch = r.front_choice(i);
    REQUIRE(cost_of(g, ch, K) == fr[i].cost);
    REQUIRE(value_of(g, ch) == fr[i].value);
  }
  // smaller budget vectors without re-solving
  for (int t = 0; t < 6; ++t) {
    cost_v b(K);
    for (std::size_t k = 0; k < K; ++k) b[k] = uni(rng, 0, B[k]);
    const auto w = brute_best(all, b);
    REQUIRE(r.best(b) == w);
    if (w) {
      const auto ch = *r.choice(b);
      REQUIRE(value_of(g, ch) == *w);
      REQUIRE(fits(cost_of(g, ch, K), b));
    }
  }
}

} // namespace

TEST_CASE("solve_mmck equals brute force for K = 1..4, every path", "[mmck][brute]") {
  std::mt19937_64 rng(20261201);
  int instances = 0;
  for (std::size_t K = 1; K <= 4; ++K) {
    for (int trial = 0; trial < 700; ++trial) {
      const auto g = random_instance(rng, K, trial % 2 == 0);
      const cost_v B = random_budget(rng, K, g.size());
      const auto all = all_selections(g, K);
      mmck_settings s;
      check_instance(g, B, s, rng, all);  // automatic
      s.method = mmck_method::dense;
      check_instance(g, B, s, rng, all);
      s.method = mmck_method::sparse;
      check_instance(g, B, s, rng, all);
      s.identical_groups = false;
      check_instance(g, B, s, rng, all);
      s.identical_groups = true;
      s.single_budget = true;
      check_instance(g, B, s, rng, all);  // sparse + Lagrangian bound
      s.bound = false;
      check_instance(g, B, s, rng, all);
      ++instances;
    }
  }
  REQUIRE(instances == 2800);
}

TEST_CASE("bounded single query (completion bound, heuristic beam, root best pair) equals brute force and the unbounded DP's choice",
          "[mmck][bound][brute]") {
  // real values on a 1/16 grid (sums exact in any order), identical groups, zero costs, K = 1..3;
  // the beam of the heuristic run at 1, 2 and the default: only the incumbent may change
#ifdef NSC_SANITIZED_BUILD
  const int trials = 200;
#else
  const int trials = 3000;
#endif
  std::mt19937_64 rng(20261202);
  int solved = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const std::size_t K = std::size_t(uni(rng, 1, 3));
    const std::size_t G = std::size_t(uni(rng, 1, 7));
    const i64 cmax = uni(rng, 0, 1) ? 3 : 9;
    mmck_groups<double> g;
    for (std::size_t i = 0; i < G; ++i) {
      if (i > 0 && uni(rng, 0, 2) > 0) {
        g.push_back(g[std::size_t(uni(rng, 0, i64(i) - 1))]);
        continue;
      }
      const std::size_t J = std::size_t(uni(rng, 1, 4));
      std::vector<nsc::search::mmck_option<double>> o;
      for (std::size_t j = 0; j < J; ++j) {
        cost_v c(K);
        for (auto& x : c) x = uni(rng, 0, 3) == 0 ? 0 : uni(rng, 0, cmax);
        o.push_back({double(uni(rng, -100, 1600)) / 16.0, c});
      }
      g.push_back(std::move(o));
    }
    const cost_v B = nsc_test::random_budget(rng, K, G, 6);
    std::optional<double> want;
    for_each_selection(g, [&](const std::vector<std::size_t>& ch) {
      if (fits(cost_of(g, ch, K), B) && (!want || *want < value_of(g, ch))) want = value_of(g, ch);
    });
    mmck_settings plain;
    plain.method = mmck_method::sparse;
    plain.single_budget = true;
    plain.bound = false;
    const auto ref = solve_mmck(g, B, plain);
    INFO("trial " << trial << " G " << G << " K " << K);
    REQUIRE(ref.best(B) == want);
    for (std::size_t beam : {std::size_t{1}, std::size_t{2}, std::size_t{256}}) {
      mmck_settings s = plain;
      s.bound = true;
      s.bound_beam = beam;
      const auto r = solve_mmck(g, B, s);
      INFO("beam " << beam << " path " << r.info().describe());
      REQUIRE(r.best(B) == want);
      REQUIRE(r.choice(B) == ref.choice(B));
      REQUIRE(r.best_cost(B) == ref.best_cost(B));
    }
    solved += want.has_value();
  }
  REQUIRE(solved > trials / 3);
}

TEST_CASE("bounded single query with many copies: equal-cost pairs of a self-merge met in one table, equal to brute force over multisets",
          "[mmck][bound][brute]") {
  // A class of 5..16 identical groups (its self-merges reach one multiset sum by many splits:
  // the pairs of one cost vector meet in the merge's table, the filter's first kept) and 0..2
  // distinct groups; costs 0..3 (many equal sums), values on a 1/16 grid (ties) or real (1/3
  // steps, sums rounded), maximised or negated (minimisation). Reference: every multiset of the
  // class with every choice of the distinct groups (brute force), and the unbounded DP's choice.
#ifdef NSC_SANITIZED_BUILD
  const int trials = 150;
#else
  const int trials = 2000;
#endif
  std::mt19937_64 rng(20261203);
  int solved = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const std::size_t K = std::size_t(uni(rng, 1, 3));
    const std::size_t m = std::size_t(uni(rng, 5, 16));
    const std::size_t J = std::size_t(uni(rng, 2, 4));
    const std::size_t D = std::size_t(uni(rng, 0, 2));
    const bool real = uni(rng, 0, 1) == 1, negate = uni(rng, 0, 1) == 1;
    auto option = [&]() {
      cost_v c(K);
      for (auto& x : c) x = uni(rng, 0, 3);
      const double v = real ? double(uni(rng, 0, 300)) / 3.0 : double(uni(rng, 0, 160)) / 16.0;
      return nsc::search::mmck_option<double>{negate ? -v : v, c};
    };
    std::vector<nsc::search::mmck_option<double>> cls;
    for (std::size_t j = 0; j < J; ++j) cls.push_back(option());
    mmck_groups<double> g(m, cls);
    for (std::size_t d = 0; d < D; ++d) {
      std::vector<nsc::search::mmck_option<double>> o;
      for (std::size_t j = 0, n = std::size_t(uni(rng, 1, 3)); j < n; ++j) o.push_back(option());
      g.push_back(std::move(o));
    }
    const cost_v B = nsc_test::random_budget(rng, K, m + D, 2);
    // brute force: multisets of the class (counts per option), every choice of the others
    std::optional<double> want;
    std::vector<std::size_t> count(J, 0);
    auto visit = [&](auto&& self, std::size_t j, std::size_t left) -> void {
      if (j + 1 == J) {
        count[j] = left;
        std::vector<std::size_t> ch;
        for (std::size_t t = 0; t < J; ++t) ch.insert(ch.end(), count[t], t);
        mmck_groups<double> rest(g.begin() + std::ptrdiff_t(m), g.end());
        for_each_selection(rest, [&](const std::vector<std::size_t>& r) {
          std::vector<std::size_t> all = ch;
          all.insert(all.end(), r.begin(), r.end());
          if (!fits(cost_of(g, all, K), B)) return;
          // the class's sum by counts (exact for the 1/16 grid; real values: compared with a tolerance)
          const double v = value_of(g, all);
          if (!want || *want < v) want = v;
        });
        return;
      }
      for (std::size_t c = 0; c <= left; ++c) {
        count[j] = c;
        self(self, j + 1, left - c);
      }
    };
    visit(visit, 0, m);
    mmck_settings plain;
    plain.method = mmck_method::sparse;
    plain.single_budget = true;
    plain.bound = false;
    const auto ref = solve_mmck(g, B, plain);
    mmck_settings s = plain;
    s.bound = true;
    const auto r = solve_mmck(g, B, s);
    INFO("trial " << trial << " m " << m << " J " << J << " D " << D << " K " << K << " real " << real);
    REQUIRE(r.best(B).has_value() == want.has_value());
    if (!want) continue;
    ++solved;
    REQUIRE(std::fabs(*r.best(B) - *want) <= 1e-9 * (1 + std::fabs(*want)));
    REQUIRE(r.choice(B) == ref.choice(B));
    REQUIRE(r.best_cost(B) == ref.best_cost(B));
    REQUIRE(fits(cost_of(g, *r.choice(B), K), B));
  }
  REQUIRE(solved > trials / 3);
}

TEST_CASE("dense, dense_1d and sparse give identical choices without identical groups",
          "[mmck][ties]") {
  std::mt19937_64 rng(7);
  for (std::size_t K = 1; K <= 3; ++K) {
    for (int trial = 0; trial < 400; ++trial) {
      const auto g = random_instance(rng, K, false);
      const cost_v B = random_budget(rng, K, g.size());
      mmck_settings d, sp;
      d.method = mmck_method::dense;
      sp.method = mmck_method::sparse;
      sp.identical_groups = d.identical_groups = false;
      const auto a = solve_mmck(g, B, d), b = solve_mmck(g, B, sp);
      REQUIRE(a.choice(B) == b.choice(B));
      REQUIRE(a.front().size() == b.front().size());
      for (std::size_t i = 0; i < a.front().size(); ++i) REQUIRE(a.front_choice(i) == b.front_choice(i));
      if (K == 1) {
        nsc::search::mck_groups<i64> one(g.size());
        for (std::size_t i = 0; i < g.size(); ++i)
          for (const auto& o : g[i]) one[i].push_back({o.value, o.cost[0]});
        const auto m = nsc::search::solve_mck(one, B[0]);
        for (i64 x = 0; x <= B[0]; ++x) {
          REQUIRE(m.choice(x) == b.choice({x}));
          REQUIRE(m.best_cost(x) == (b.best_cost({x}) ? std::optional<i64>((*b.best_cost({x}))[0]) : std::nullopt));
        }
      }
    }
  }
}

TEST_CASE("the stated tie rule: largest value, then lexicographically smallest cost", "[mmck][ties]") {
  // (2, 0) and (0, 2) both give value 5: the lexicographically smaller cost (0, 2) wins.
  mmck_groups<i64> g{{{5, {2, 0}}, {5, {0, 2}}, {1, {0, 0}}}};
  for (auto m : {mmck_method::dense, mmck_method::sparse}) {
    mmck_settings s;
    s.method = m;
    const auto r = solve_mmck(g, {2, 2}, s);
    REQUIRE(*r.best({2, 2}) == 5);
    REQUIRE(*r.best_cost({2, 2}) == cost_v{0, 2});
    REQUIRE(*r.choice({2, 2}) == std::vector<std::size_t>{1});
    REQUIRE(*r.choice({2, 1}) == std::vector<std::size_t>{0});
    REQUIRE(*r.best({1, 1}) == 1);
    REQUIRE(r.front().size() == 3);
  }
  // equal cost and value: the lowest option index (of the last group first)
  mmck_groups<i64> h{{{1, {1, 1}}, {1, {1, 1}}}, {{2, {0, 1}}, {2, {0, 1}}}};
  for (auto m : {mmck_method::dense, mmck_method::sparse}) {
    mmck_settings s;
    s.method = m;
    s.identical_groups = false;
    REQUIRE(*solve_mmck(h, {5, 5}, s).choice({5, 5}) == std::vector<std::size_t>{0, 0});
  }
}

TEST_CASE("identical groups: doubling reports the multiset in ascending option order",
          "[mmck][identical]") {
  // 7 identical layers: best under (10, 10) by brute force is checked in the random test; here
  // the reported layout is canonical and the path is reported.
  std::vector<nsc::search::mmck_option<i64>> layer{{0, {0, 0}}, {3, {2, 1}}, {5, {3, 3}}};
  mmck_groups<i64> g(7, layer);
  const auto r = solve_mmck(g, {10, 10});
  REQUIRE(r.info().path == mmck_path::sparse);
  REQUIRE(r.info().identical);
  REQUIRE(r.info().classes == 1);
  const auto ch = *r.choice({10, 10});
  REQUIRE(std::is_sorted(ch.begin(), ch.end()));
  const auto all = all_selections(g, 2);
  REQUIRE(*r.best({10, 10}) == *brute_best(all, {10, 10}));
  REQUIRE(r.info().describe() == "sparse (identical groups doubled)");
}

TEST_CASE("the algorithm used is reported, automatic follows the stated rule", "[mmck][path]") {
  mmck_groups<double> distinct{{{1.0, {1, 1}}, {2.0, {2, 3}}}, {{1.5, {1, 0}}, {0.5, {0, 0}}}};
  REQUIRE(solve_mmck(distinct, {3, 3}).info().path == mmck_path::dense);
  mmck_groups<double> one{{{1.0, {1}}, {2.0, {2}}}, {{1.5, {1}}}};
  REQUIRE(solve_mmck(one, {3}).info().path == mmck_path::dense_1d);
  mmck_settings single;
  single.single_budget = true;
  const auto b = solve_mmck(distinct, {3, 3}, single);
  REQUIRE(b.info().path == mmck_path::sparse);
  REQUIRE(b.info().bounded);
  REQUIRE(b.info().describe() == "sparse (Lagrangian bound)");
  REQUIRE_THROWS_WITH(b.best({2, 3}), Contains("single_budget solve answers only its own budget"));
  REQUIRE_THROWS_WITH(b.front(), Contains("not available from a single_budget solve"));
  // too large for the dense table: automatic falls back to sparse, forced dense refuses
  mmck_groups<double> wide{{{1.0, {0, 0}}, {2.0, {1, 1}}, {3.0, {1000000, 1000000}}}};
  mmck_settings cap;
  cap.max_table_bytes = 1 << 20;
  REQUIRE(solve_mmck(wide, {1000000, 1000000}, cap).info().path == mmck_path::sparse);
  cap.method = mmck_method::dense;
  REQUIRE_THROWS_WITH(solve_mmck(wide, {1000000, 1000000}, cap),
                      Contains("nsc::solve_mmck: the dense table needs") && Contains("max_table_bytes (got 1048576)"));
}

TEST_CASE("sparse memory is refused before allocating, with the size", "[mmck][memory]") {
  std::vector<nsc::search::mmck_option<double>> layer;
  for (int j = 0; j < 40; ++j) layer.push_back({double(j * j % 17), {j, 40 - j + (j % 3)}});
  mmck_groups<double> g(12, layer);
  mmck_settings s;
  s.method = mmck_method::sparse;
  s.max_table_bytes = 4096;
  REQUIRE_THROWS_WITH(solve_mmck(g, {480, 520}, s),
                      Contains("nsc::solve_mmck: the sparse Pareto-state DP needs") &&
                          Contains("more than max_table_bytes (got 4096)"));
}

TEST_CASE("infeasible budget vectors are a status, zero groups the empty selection", "[mmck][edge]") {
  mmck_groups<i64> g{{{1, {2, 0}}, {2, {0, 3}}}};
  for (auto m : {mmck_method::automatic, mmck_method::dense, mmck_method::sparse}) {
    mmck_settings s;
    s.method = m;
    const auto r = solve_mmck(g, {1, 2}, s);
    REQUIRE(r.status({1, 2}) == mck_status::infeasible);
    REQUIRE(!r.best({1, 2}));
    REQUIRE(r.front().empty());
  }
  const auto z = solve_mmck(mmck_groups<i64>{}, {0, 0});
  REQUIRE(*z.best({0, 0}) == 0);
  REQUIRE(z.choice({0, 0})->empty());
  REQUIRE(z.front().size() == 1);
  // sums of minima beyond int64: infeasible, no overflow
  const i64 big = std::numeric_limits<i64>::max() / 2 + 1;
  const auto o = solve_mmck(mmck_groups<i64>{{{1, {big, 0}}}, {{1, {big, 0}}}},
                            {std::numeric_limits<i64>::max(), 1});
  REQUIRE(o.status({std::numeric_limits<i64>::max(), 1}) == mck_status::infeasible);
}

TEST_CASE("every error path of solve_mmck names the function and the rule", "[mmck][errors]") {
  mmck_groups<double> ok{{{1.0, {1, 1}}}};
  REQUIRE_THROWS_WITH(solve_mmck(ok, {}), Contains("nsc::solve_mmck: the budget vector needs 1 to 8 entries (got 0)"));
  REQUIRE_THROWS_WITH(solve_mmck(ok, cost_v(9, 1)), Contains("(got 9)"));
  REQUIRE_THROWS_WITH(solve_mmck(ok, {1, -1}), Contains("budgets must be >= 0 (got -1 for budget 1)"));
  REQUIRE_THROWS_WITH(solve_mmck(ok, {1}), Contains("one cost per budget (1; got 2 at group 0, option 0)"));
  REQUIRE_THROWS_WITH(solve_mmck(mmck_groups<double>{{}}, {1}), Contains("empty group 0"));
  REQUIRE_THROWS_WITH(solve_mmck(mmck_groups<double>{{{1.0, {-1, 0}}}}, {1, 1}),
                      Contains("option costs must be >= 0 (got -1 for budget 0"));
  REQUIRE_THROWS_WITH(solve_mmck(mmck_groups<double>{{{std::nan(""), {0}}}}, {1}),
                      Contains("option values must be finite"));
  REQUIRE_THROWS_WITH(solve_mmck(mmck_groups<double>{{{1e308, {0}}}, {{1e308, {0}}}, {{-HUGE_VAL, {0}}}}, {1}),
                      Contains("option values must be finite"));
  const i64 big = std::numeric_limits<i64>::max() / 2 + 1;
  REQUIRE_THROWS_WITH(solve_mmck(mmck_groups<i64>{{{big, {0}}}, {{big, {0}}}}, {1}),
                      Contains("must fit in the value type"));
  const auto r = solve_mmck(ok, {2, 2});
  REQUIRE_THROWS_WITH(r.best({3, 0}), Contains("nsc::mmck_result::best: budget 0 must be in [0, 2] (got 3)"));
  REQUIRE_THROWS_WITH(r.choice({1}), Contains("nsc::mmck_result::choice: the budget vector needs 2 entries (got 1)"));
  REQUIRE_THROWS_WITH(r.front_choice(5), Contains("nsc::mmck_result::front_choice: index out of range (got 5 >= 1)"));
}

// ---- k best --------------------------------------------------------------------------------

TEST_CASE("k best equals brute-force sorting, with and without a Hamming distance", "[mmck][kbest]") {
  std::mt19937_64 rng(99);
  for (std::size_t K = 1; K <= 3; ++K) {
    for (int trial = 0; trial < 300; ++trial) {
      const auto g = random_instance(rng, K, trial % 2 == 0);
      const cost_v B = random_budget(rng, K, g.size());
      const auto all = all_selections(g, K);
      std::vector<i64> values;
      for (const auto& s : all)
        if (fits(s.cost, B)) values.push_back(s.value);
      std::sort(values.rbegin(), values.rend());
      const std::size_t k = std::size_t(uni(rng, 1, 12));
      nsc::search::k_best_settings ks;
      ks.k = k;
      ks.positions = true;  // positional selections (the multiset form: "[ties]" below)
      const auto top = nsc::search::k_best(g, B, ks);
      REQUIRE(top.size() == std::min(k, values.size()));
      std::vector<std::vector<std::size_t>> seen;
      for (std::size_t i = 0; i < top.size(); ++i) {
        REQUIRE(top[i].value == values[i]);
        REQUIRE(value_of(g, top[i].choice) == top[i].value);
        REQUIRE(cost_of(g, top[i].choice, K) == top[i].cost);
        REQUIRE(fits(top[i].cost, B));
        REQUIRE(std::find(seen.begin(), seen.end(), top[i].choice) == seen.end());
        seen.push_back(top[i].choice);
      }
      // greedy diverse pool: walk the brute-force order (value descending, ties in any order),
      // so compare values: the i-th accepted value is the best value at distance >= D from the
      // previously accepted selections (checked against every feasible selection).
      const std::size_t D = std::size_t(uni(rng, 2, 3));
      ks.min_distance = D;
      const auto pool = nsc::search::k_best(g, B, ks);
      auto dist = [](const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
        std::size_t d = 0;
        for (std::size_t i = 0; i < a.size(); ++i) d += a[i] != b[i];
        return d;
      };
      for (std::size_t i = 0; i < pool.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) REQUIRE(dist(pool[i].choice, pool[j].choice) >= D);
        std::optional<i64> best;
        for (const auto& s : all) {
          if (!fits(s.cost, B)) continue;
          bool far = true;
          for (std::size_t j = 0; j < i; ++j) far = far && dist(s.choice, pool[j].choice) >= D;
          if (far && (!best || *best < s.value)) best = s.value;
        }
        REQUIRE(best);
        REQUIRE(pool[i].value == *best);
      }
      if (pool.size() < k) {  // nothing else far enough
        for (const auto& s : all) {
          if (!fits(s.cost, B)) continue;
          bool far = true;
          for (const auto& p : pool) far = far && dist(s.choice, p.choice) >= D;
          REQUIRE(!far);
        }
      }
    }
  }
}

TEST_CASE("diverse pool member (best_far_from) equals brute force: integer and real values, minimisation",
          "[mmck][pool][brute]") {
  // random instances (identical groups, zero costs, ties), 1..3 earlier selections (random, or
  // the solver's own pool), D = 1..G+1; values integer, or real (minimisation = negated
  // measured values in [0, 1) with 3 decimals, as the block library passes them)
  std::mt19937_64 rng(2121);
  auto dist = [](const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
    std::size_t d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d += a[i] != b[i];
    return d;
  };
#ifdef NSC_SANITIZED_BUILD
  const int trials = 300;
#else
  const int trials = 4000;
#endif
  std::size_t nonempty = 0, rounds = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const std::size_t K = std::size_t(1 + trial % 3);
    auto gi = random_instance(rng, K, trial % 2 == 0);
    if (trial % 5 == 4) {  // larger: 6..8 groups of 2..3 options (the bound prunes, several rounds)
      gi.clear();
      const std::size_t G = std::size_t(uni(rng, 6, 8));
      for (std::size_t i = 0; i < G; ++i)
        gi.push_back(nsc_test::random_options<nsc::search::mmck_option<i64>>(rng, K, std::size_t(uni(rng, 2, 3)), 9, 100));
    }
    if (gi.empty()) continue;
    const cost_v B = random_budget(rng, K, gi.size());
    const bool real = trial % 4 >= 2;
    mmck_groups<double> gd;
    for (const auto& grp : gi) {
      gd.emplace_back();
      for (const auto& o : grp) gd.back().push_back({-double(uni(rng, 0, 999)) / 1000.0, o.cost});
    }
    const std::size_t G = gi.size();
    const std::size_t D = std::size_t(uni(rng, 1, i64(G) + 1));
    std::vector<std::vector<std::size_t>> earlier(std::size_t(uni(rng, 1, 3)));
    for (auto& e : earlier)
      for (std::size_t g = 0; g < G; ++g) e.push_back(std::size_t(uni(rng, 0, i64(gi[g].size()) - 1)));
    auto check = [&](const auto& groups) {
      using V = std::decay_t<decltype(groups[0][0].value)>;
      std::optional<V> best;
      for_each_selection(groups, [&](const std::vector<std::size_t>& ch) {
        if (!fits(cost_of(groups, ch, K), B)) return;
        for (const auto& e : earlier)
          if (dist(ch, e) < D) return;
        const V v = value_of(groups, ch);
        if (!best || *best < v) best = v;
      });
      nsc::search::far_info info;
      nsc::search::far_settings fs;
      fs.positions = true;
      const auto x = nsc::search::best_far_from(groups, B, earlier, D, fs, &info);
      rounds += info.rounds > 1;
      REQUIRE(x.has_value() == best.has_value());
      if (!x) return;
      ++nonempty;
      REQUIRE(x->value == *best);  // same summation order (group order): bitwise
      REQUIRE(value_of(groups, x->choice) == x->value);
      REQUIRE(cost_of(groups, x->choice, K) == x->cost);
      REQUIRE(fits(x->cost, B));
      for (const auto& e : earlier) REQUIRE(dist(x->choice, e) >= D);
    };
    if (real) check(gd);
    else check(gi);
  }
  REQUIRE(nonempty > std::size_t(trials) / 5);
  REQUIRE(rounds > std::size_t(trials) / 50);  // the threshold had to come down
}

namespace {
/// Brute-force classes of identical groups: groups with equal option lists (values and costs).
template <class Value>
std::vector<std::size_t> brute_class_of(const mmck_groups<Value>& g) {
  std::vector<std::size_t> cls(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    cls[i] = i;
    for (std::size_t j = 0; j < i; ++j) {
      bool same = g[i].size() == g[j].size();
      for (std::size_t o = 0; same && o < g[i].size(); ++o)
        same = g[i][o].value == g[j][o].value && g[i][o].cost == g[j][o].cost;
      if (same) {
        cls[i] = cls[j];
        break;
      }
    }
  }
  return cls;
}
/// The multiset key of a selection: per group, its class and the sorted options of its class.
std::vector<std::size_t> brute_multiset(const std::vector<std::size_t>& cls, const std::vector<std::size_t>& ch) {
  std::vector<std::size_t> key;
  for (std::size_t c = 0; c < ch.size(); ++c) {
    std::vector<std::size_t> o;
    for (std::size_t i = 0; i < ch.size(); ++i)
      if (cls[i] == c) o.push_back(ch[i]);
    std::sort(o.begin(), o.end());
    key.push_back(o.size());
    key.insert(key.end(), o.begin(), o.end());
  }
  return key;
}
/// Hamming distance minimised over the permutations of each class's positions (brute force).
std::size_t brute_multiset_distance(const std::vector<std::size_t>& cls, const std::vector<std::size_t>& a,
                                    const std::vector<std::size_t>& b) {
  std::size_t d = 0;
  for (std::size_t c = 0; c < a.size(); ++c) {
    std::vector<std::size_t> pa, pb;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (cls[i] == c) pa.push_back(a[i]), pb.push_back(b[i]);
    if (pa.empty()) continue;
    std::sort(pb.begin(), pb.end());
    std::size_t best = SIZE_MAX;
    do {
      std::size_t e = 0;
      for (std::size_t i = 0; i < pa.size(); ++i) e += pa[i] != pb[i];
      best = std::min(best, e);
    } while (std::next_permutation(pb.begin(), pb.end()));
    d += best;
  }
  return d;
}
}  // namespace

TEST_CASE("ties as ties: k best and pools over multisets of identical groups equal brute force", "[mmck][ties][brute]") {
  // random instances where many groups are copies (random_instance(identical)), K = 1..3, and
  // larger ones (4..7 groups, 2 or 3 distinct option lists); the reference enumerates every
  // positional selection, keys it by its multisets (classes found by comparing option lists),
  // counts the selections per key (the orderings), and walks the keys by value; distances are
  // Hamming distances minimised over permutations of each class's positions
  std::mt19937_64 rng(2122);
#ifdef NSC_SANITIZED_BUILD
  const int trials = 300;
#else
  const int trials = 2400;
#endif
  std::size_t collapsed = 0, pools = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const std::size_t K = std::size_t(1 + trial % 3);
    auto g = random_instance(rng, K, true);
    if (trial % 3 == 2) {
      g.clear();
      std::vector<std::vector<nsc::search::mmck_option<i64>>> kinds;
      for (int u = 0; u < int(uni(rng, 1, 3)); ++u)
        kinds.push_back(nsc_test::random_options<nsc::search::mmck_option<i64>>(rng, K, std::size_t(uni(rng, 2, 4)), 9, 30));
      for (std::size_t i = 0, G = std::size_t(uni(rng, 4, 7)); i < G; ++i) g.push_back(kinds[std::size_t(uni(rng, 0, i64(kinds.size()) - 1))]);
    }
    if (g.empty()) continue;
    const std::size_t G = g.size();
    const cost_v B = random_budget(rng, K, G);
    const auto cls = brute_class_of(g);
    struct key_sel {
      i64 value;
      cost_v cost;
      std::vector<std::size_t> choice;
      std::size_t orderings;
    };
    std::map<std::vector<std::size_t>, key_sel> keys;
    for_each_selection(g, [&](const std::vector<std::size_t>& ch) {
      const cost_v c = cost_of(g, ch, K);
      if (!fits(c, B)) return;
      auto [it, fresh] = keys.try_emplace(brute_multiset(cls, ch), key_sel{value_of(g, ch), c, ch, 0});
      ++it->second.orderings;
      (void)fresh;
    });
    std::vector<key_sel> all;
    for (auto& [k, v] : keys) all.push_back(v);
    // k best over multisets
    nsc::search::k_best_settings ks;
    ks.k = std::size_t(uni(rng, 1, 12));
    const std::size_t D = trial % 2 == 0 ? 1 : std::size_t(uni(rng, 1, i64(G)));
    ks.min_distance = D;
    const auto top = nsc::search::k_best(g, B, ks);
    std::vector<std::vector<std::size_t>> kept;
    for (std::size_t i = 0; i < top.size(); ++i) {
      INFO("trial " << trial << " G " << G << " K " << K << " D " << D << " i " << i);
      // the best multiset at distance >= D from every earlier one
      std::optional<i64> want;
      for (const auto& s : all) {
        bool far = true;
        for (const auto& e : kept) far = far && brute_multiset_distance(cls, s.choice, e) >= D;
        if (far && (!want || *want < s.value)) want = s.value;
      }
      REQUIRE(want);
      REQUIRE(top[i].value == *want);
      REQUIRE(value_of(g, top[i].choice) == top[i].value);
      REQUIRE(cost_of(g, top[i].choice, K) == top[i].cost);
      REQUIRE(fits(top[i].cost, B));
      for (const auto& e : kept) REQUIRE(brute_multiset_distance(cls, top[i].choice, e) >= D);
      // canonical: within each class, options ascending over ascending groups
      for (std::size_t a = 0; a < G; ++a)
        for (std::size_t b = a + 1; b < G; ++b)
          if (cls[a] == cls[b]) REQUIRE(top[i].choice[a] <= top[i].choice[b]);
      const auto& ref = keys.at(brute_multiset(cls, top[i].choice));
      REQUIRE(nsc::search::count_orderings(g, top[i].choice) == std::to_string(ref.orderings));
      collapsed += ref.orderings > 1;
      kept.push_back(top[i].choice);
    }
    if (top.size() < ks.k) {  // nothing else far enough
      for (const auto& s : all) {
        bool far = true;
        for (const auto& e : kept) far = far && brute_multiset_distance(cls, s.choice, e) >= D;
        REQUIRE(!far);
      }
    }
    pools += D > 1 && top.size() > 1;
    // one pool member from random (non-canonical) earlier selections, real values (minimisation)
    if (trial % 4 == 1) {
      mmck_groups<double> gd;
      std::map<std::size_t, std::vector<double>> vals;  // one value list per class: copies stay identical
      for (std::size_t i = 0; i < G; ++i) {
        auto& v = vals[cls[i]];
        if (v.empty())
          for (std::size_t o = 0; o < g[i].size(); ++o) v.push_back(-double(uni(rng, 0, 999)) / 1000.0);
        gd.emplace_back();
        for (std::size_t o = 0; o < g[i].size(); ++o) gd.back().push_back({v[o], g[i][o].cost});
      }
      std::vector<std::vector<std::size_t>> earlier(std::size_t(uni(rng, 1, 3)));
      for (auto& e : earlier)
        for (std::size_t i = 0; i < G; ++i) e.push_back(std::size_t(uni(rng, 0, i64(g[i].size()) - 1)));
      const std::size_t D2 = std::size_t(uni(rng, 1, i64(G) + 1));
      std::optional<double> want;
      for (const auto& s : all) {
        bool far = true;
        for (const auto& e : earlier) far = far && brute_multiset_distance(cls, s.choice, e) >= D2;
        if (far && (!want || *want < value_of(gd, s.choice))) want = value_of(gd, s.choice);
      }
      const auto x = nsc::search::best_far_from(gd, B, earlier, D2);
      REQUIRE(x.has_value() == want.has_value());
      if (x) {
        REQUIRE(x->value == Approx(*want).margin(1e-12));
        REQUIRE(value_of(gd, x->choice) == x->value);
        REQUIRE(fits(cost_of(gd, x->choice, K), B));
        for (const auto& e : earlier) REQUIRE(brute_multiset_distance(cls, x->choice, e) >= D2);
      }
    }
  }
  REQUIRE(collapsed > std::size_t(trials) / 4);  // many answers stand for several orderings
  REQUIRE(pools > std::size_t(trials) / 20);
}

TEST_CASE("count_orderings: multinomials past 2^64 exactly", "[mmck][ties]") {
  // 80 identical groups split 23 / 57 over two options: C(80, 23) (Python: math.comb(80, 23))
  mmck_groups<i64> g(80, {{1, {1}}, {2, {2}}});
  std::vector<std::size_t> ch(80, 1);
  for (std::size_t i = 0; i < 23; ++i) ch[i] = 0;
  REQUIRE(nsc::search::count_orderings(g, ch) == "68310851714568382400");
  // 80 distinct options each once: 80! (math.factorial(80))
  mmck_groups<i64> h(80);
  for (auto& grp : h)
    for (i64 j = 0; j < 80; ++j) grp.push_back({j, {j}});
  std::vector<std::size_t> all(80);
  std::iota(all.begin(), all.end(), std::size_t{0});
  REQUIRE(nsc::search::count_orderings(h, all) ==
          "71569457046263802294811533723186532165584657342365752577109445058227039255480148842668944867280814080000000000000000000");
  REQUIRE(nsc::search::count_orderings(h, std::vector<std::size_t>(80, 5)) == "1");
  // no identical groups: 1; two classes multiply: C(4, 2) x C(3, 1)
  mmck_groups<i64> m{{{1, {1}}, {2, {1}}}, {{1, {1}}, {2, {1}}}, {{3, {0}}, {4, {0}}}, {{1, {1}}, {2, {1}}},
                     {{3, {0}}, {4, {0}}}, {{1, {1}}, {2, {1}}}, {{3, {0}}, {4, {0}}}};
  REQUIRE(nsc::search::count_orderings(m, {0, 1, 0, 1, 1, 0, 1}) == "18");
  REQUIRE(nsc::search::count_orderings(mmck_groups<i64>{{{1, {1}}}, {{2, {1}}}}, {0, 0}) == "1");
}

TEST_CASE("diverse pool: errors and refusals", "[mmck][pool][errors]") {
  mmck_groups<i64> g{{{1, {1}}, {2, {2}}}, {{1, {1}}, {2, {2}}}};
  REQUIRE_THROWS_WITH(nsc::search::best_far_from(g, {4}, {{0}}, 1),
                      Contains("nsc::search::best_far_from: every earlier selection needs one option per group (got 1)"));
  REQUIRE_THROWS_WITH(nsc::search::best_far_from(g, {4}, {{0, 2}}, 1),
                      Contains("an earlier selection's option index must exist (got 2)"));
  REQUIRE(!nsc::search::best_far_from(g, {4}, {{0, 0}}, 3));
  REQUIRE(nsc::search::best_far_from(g, {4}, {{1, 1}}, 2)->value == 2);
  nsc::search::far_settings fs;
  fs.max_work = 1;
  REQUIRE_THROWS_WITH(nsc::search::best_far_from(g, {4}, {{1, 1}}, 1, fs), Contains("more than max_work = 1"));
}

TEST_CASE("k best: errors and limits", "[mmck][kbest][errors]") {
  mmck_groups<i64> g{{{1, {1}}, {2, {2}}}};
  nsc::search::k_best_settings s;
  s.k = 0;
  REQUIRE_THROWS_WITH(nsc::search::k_best(g, {2}, s), Contains("nsc::search::k_best: k must be in [1, 1000] (got 0)"));
  s.k = 1001;
  REQUIRE_THROWS_WITH(nsc::search::k_best(g, {2}, s), Contains("(got 1001)"));
  s.k = 5;
  REQUIRE(nsc::search::k_best(g, {2}, s).size() == 2);
  REQUIRE(nsc::search::k_best(g, {0}, s).empty());
}

TEST_CASE("cost model: a large lattice table waits for the sparse bounded DP, both paths equal brute force",
          "[mmck][costmodel][brute]") {
  // lattice_direct_bytes = 0 sends every lattice-eligible single query to the sparse bounded DP
  // first (within the lattice's estimated work); max_work = 1 makes that attempt fail at once, so
  // the lattice fallback answers. Both against brute force.
  std::mt19937_64 rng(20261202);
  int sparse_first = 0, fallback = 0;
  for (std::size_t K = 1; K <= 4; ++K) {
    for (int trial = 0; trial < 500; ++trial) {
      const auto g = random_instance(rng, K, true);
      if (!nsc::search::detail::mmck_has_identical(g)) continue;
      const cost_v B = random_budget(rng, K, g.size());
      const auto all = all_selections(g, K);
      mmck_settings s;
      s.single_budget = true;
      s.lattice_direct_bytes = 0;
      check_instance(g, B, s, rng, all);
      const auto r = solve_mmck(g, B, s);
      if (r.info().reason.find("sparse bounded DP first") != std::string::npos) {
        ++sparse_first;
        REQUIRE(r.info().path == mmck_path::sparse);
      }
      s.max_work = 1;
      check_instance(g, B, s, rng, all);
      const auto l = solve_mmck(g, B, s);
      if (l.info().reason.find("lattice") != std::string::npos && l.info().path == mmck_path::lattice) ++fallback;
    }
  }
  REQUIRE(sparse_first > 500);
  REQUIRE(fallback > 500);
}

TEST_CASE("the sparse path's work cap is a refusal naming max_work", "[mmck][costmodel][errors]") {
  const std::vector<nsc::search::mmck_option<i64>> opts{{1, {1, 2}}, {3, {2, 1}}, {4, {3, 3}}};
  mmck_groups<i64> g(6, opts);
  g[5].push_back({9, {0, 5}});  // not identical to the others: the plain sparse path
  mmck_settings s;
  s.method = mmck_method::sparse;
  s.max_work = 3;
  REQUIRE_THROWS_WITH(solve_mmck(g, cost_v{9, 9}, s), Contains("nsc::solve_mmck") && Contains("max_work (got 3)"));
}

TEST_CASE("epsilon_cover: every point within (1 + eps) in each cost of a kept point with >= its value",
          "[pareto][epsilon][brute]") {
  std::mt19937_64 rng(5);
  std::size_t kept = 0, total = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t K = std::size_t(uni(rng, 1, 3)), n = std::size_t(uni(rng, 0, 40));
    const double eps = std::vector<double>{0.01, 0.1, 0.5, 2.0}[std::size_t(uni(rng, 0, 3))];
    std::vector<cost_v> c(n, cost_v(K));
    std::vector<i64> v(n);
    const i64 cmax = uni(rng, 0, 1) ? 5 : 100000;
    for (std::size_t i = 0; i < n; ++i) {
      for (auto& x : c[i]) x = uni(rng, 0, cmax);
      v[i] = uni(rng, 0, 6);
    }
    const auto out = nsc::search::epsilon_cover(
        n, K, [&](std::size_t i, std::size_t k) { return c[i][k]; }, [&](std::size_t i) { return v[i]; }, eps);
    REQUIRE(std::is_sorted(out.begin(), out.end()));
    REQUIRE(std::adjacent_find(out.begin(), out.end()) == out.end());
    for (std::size_t i = 0; i < n; ++i) {
      bool covered = false;
      for (std::size_t r : out) {
        REQUIRE(r < n);
        bool ok = v[r] >= v[i];
        for (std::size_t k = 0; k < K && ok; ++k) ok = double(c[r][k]) <= (1 + eps) * double(c[i][k]);
        covered = covered || ok;
      }
      REQUIRE(covered);
    }
    kept += out.size();
    total += n;
  }
  REQUIRE(kept < total);  // it thins
  REQUIRE_THROWS_WITH(nsc::search::epsilon_cover(
                          1, 1, [](std::size_t, std::size_t) { return i64{1}; }, [](std::size_t) { return 0; }, 0.0),
                      Contains("nsc::search::epsilon_cover") && Contains("eps must be"));
}

TEST_CASE("front listing: refused past the memory cap with the epsilon that fits, the cover is a true cover",
          "[mmck][epsilon][memory]") {
  std::mt19937_64 rng(11);
  mmck_groups<i64> g;
  for (int i = 0; i < 6; ++i)
    g.push_back(nsc_test::random_options<nsc::search::mmck_option<i64>>(rng, 2, 6, 1000, 1000));
  const cost_v B{6000, 6000};
  const auto r = solve_mmck(g, B);
  const std::size_t n = r.front().size();
  REQUIRE(n > 20);
  const auto all = nsc::search::mmck_front_listing(r, 100, 0.0, 100 * n, "f");
  REQUIRE(all.size() == n);
  REQUIRE_THROWS_WITH(nsc::search::mmck_front_listing(r, 100, 0.0, 100 * n - 1, "f"),
                      Contains("f: listing the Pareto set needs") && Contains("more than the memory cap") &&
                          Contains("epsilon"));
  const auto cov = nsc::search::mmck_front_listing(r, 100, 0.2, 100 * n, "f");
  REQUIRE(cov.size() < n);
  const auto everything = all_selections(g, 2);
  for (const auto& s : everything) {  // every selection (not only the front) is covered
    if (!fits(s.cost, B)) continue;
    bool covered = false;
    for (std::size_t i : cov) {
      const auto& p = r.front()[i];
      covered = covered || (p.value >= s.value && double(p.cost[0]) <= 1.2 * double(s.cost[0]) &&
                            double(p.cost[1]) <= 1.2 * double(s.cost[1]));
    }
    REQUIRE(covered);
  }
}

namespace {

/// A random instance of the epsilon-front tests: G groups of 1..5 options (costs <= 40, values
/// <= 100), a third of them copies of an earlier group.
mmck_groups<i64> random_eps_instance(std::mt19937_64& rng, std::size_t K, std::size_t G) {
  mmck_groups<i64> g;
  for (std::size_t i = 0; i < G; ++i) {
    if (i > 0 && uni(rng, 0, 2) == 0) g.push_back(g[std::size_t(uni(rng, 0, i64(i) - 1))]);  // identical groups
    else g.push_back(nsc_test::random_options<nsc::search::mmck_option<i64>>(rng, K, std::size_t(uni(rng, 1, 5)), 40, 100));
  }
  return g;
}

/// The epsilon-front guarantee against brute force: every selection x with (1 + eps) c(x) <= B
/// has a point among `points` (indices into f) with value >= x's and cost_k <= (1 + eps) c_k(x);
/// returns how many selections were checked.
std::size_t check_eps_cover(const mmck_groups<i64>& g, std::size_t K, const cost_v& B, double eps,
                            const std::vector<nsc::search::mmck_point<i64>>& f, const std::vector<std::size_t>& points) {
  std::size_t checked = 0;
  for (const auto& x : all_selections(g, K)) {
    bool inside = true;
    for (std::size_t k = 0; k < K; ++k) inside = inside && (1.0L + eps) * (long double)x.cost[k] <= (long double)B[k];
    if (!inside) continue;
    ++checked;
    bool covered = false;
    for (std::size_t i : points) {
      bool ok = f[i].value >= x.value;
      for (std::size_t k = 0; k < K && ok; ++k) ok = (long double)f[i].cost[k] <= (1.0L + eps) * (long double)x.cost[k];
      covered = covered || ok;
    }
    REQUIRE(covered);
  }
  return checked;
}

} // namespace

TEST_CASE("in-DP epsilon-front: every selection whose costs x (1 + eps) fit is covered, on random instances",
          "[mmck][epsilon][brute]") {
  // Brute force lists every selection; the guarantee is checked for each one against the
  // returned points, and every returned point is reconstructed as a real selection.
  std::mt19937_64 rng(2124);
#ifdef NSC_SANITIZED_BUILD
  const int trials = 300;
#else
  const int trials = 3000;
#endif
  std::size_t trimmed = 0, checked = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const std::size_t K = std::size_t(1 + trial % 3), G = std::size_t(uni(rng, 1, 6));
    const mmck_groups<i64> g = random_eps_instance(rng, K, G);
    const cost_v B = nsc_test::random_budget(rng, K, G, 40);
    const double eps = std::array<double, 4>{0.02, 0.1, 0.5, 2.0}[std::size_t(trial / 3) % 4];
    mmck_settings st;
    st.epsilon = eps;
    st.identical_groups = trial % 5 != 0;
    const auto r = solve_mmck(g, B, st);
    const auto& f = r.front();
    if (f.empty()) continue;
    REQUIRE(r.info().epsilon == eps);
    REQUIRE(r.info().path == mmck_path::sparse);
    trimmed += r.info().trimmed;
    for (std::size_t i = 0; i < f.size(); ++i) {  // real selections within the budget
      const auto ch = r.front_choice(i);
      REQUIRE(cost_of(g, ch, K) == f[i].cost);
      REQUIRE(value_of(g, ch) == f[i].value);
      REQUIRE(fits(f[i].cost, B));
    }
    std::vector<std::size_t> all_points(f.size());
    std::iota(all_points.begin(), all_points.end(), std::size_t{0});
    checked += check_eps_cover(g, K, B, eps, f, all_points);
  }
  CHECK(trimmed > 0);  // the trimming did drop states (the check is not vacuous)
  CHECK(checked > 1000);
}

TEST_CASE("epsilon-front root merge: max_root_boxes stops exactly when the nested cover would pass it, and the cover's guarantee holds against brute force",
          "[mmck][epsilon][brute]") {
  // The cover boxes nest the trim boxes, so the cover of the front has a point in every cover box
  // the root merge's kept states reached: with max_root_boxes = that count the solve runs to its
  // end (the same front), one less stops it at the root merge. Every selection x with (1 + E)
  // c(x) <= B has a listed point within (1 + E) in each cost with >= its value (E = (1 + dp)^2 - 1).
  std::mt19937_64 rng(2127);
#ifdef NSC_SANITIZED_BUILD
  const int trials = 300;
#else
  const int trials = 2500;
#endif
  std::size_t stopped = 0, checked = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const std::size_t K = std::size_t(1 + trial % 3), G = std::size_t(uni(rng, 2, 6));
    const mmck_groups<i64> g = random_eps_instance(rng, K, G);
    const cost_v B = nsc_test::random_budget(rng, K, G, 40);
    const double E = std::array<double, 4>{0.02, 0.1, 0.5, 2.0}[std::size_t(trial / 3) % 4];
    const double dp = double(std::sqrt(1.0L + E) - 1.0L);
    mmck_settings st;
    st.epsilon = dp;
    st.identical_groups = trial % 5 != 0;
    const auto r = solve_mmck(g, B, st);
    const auto& f = r.front();
    if (f.empty()) continue;
    const auto listing = nsc::search::mmck_front_cover(r, dp);
    // the cover boxes of the front's points (what the root merge counted)
    std::map<cost_v, int> boxes;
    for (const auto& p : f) {
      cost_v key(K);
      for (std::size_t k = 0; k < K; ++k)
        key[k] = nsc::search::detail::mmck_cover_box(p.cost[k], r.info().trim_width, r.info().trim_depth);
      boxes[key]++;
    }
    INFO("trial " << trial << " K " << K << " G " << G << " E " << E);
    REQUIRE(r.info().trim_width > 0);
    REQUIRE(listing.size() >= boxes.size());
    mmck_settings lim = st;
    lim.max_root_boxes = boxes.size();
    const auto r2 = solve_mmck(g, B, lim);
    REQUIRE(r2.front().size() == f.size());
    for (std::size_t i = 0; i < f.size(); ++i) REQUIRE((r2.front()[i].cost == f[i].cost && r2.front()[i].value == f[i].value));
    if (boxes.size() >= 2) {
      lim.max_root_boxes = boxes.size() - 1;  // G >= 2: the root is a merge
      REQUIRE_THROWS_WITH(solve_mmck(g, B, lim), Contains("more than max_root_boxes (got " + std::to_string(boxes.size() - 1) + ")"));
      ++stopped;
    }
    checked += check_eps_cover(g, K, B, E, f, listing);
  }
  CHECK(stopped > std::size_t(trials) / 4);  // the refusal is exercised
  CHECK(checked > 1000);
}

TEST_CASE("solve_mmck_front: exact when it fits, else the first epsilon that does, with its guarantee, refusals",
          "[mmck][epsilon][memory]") {
  std::mt19937_64 rng(2125);
  mmck_groups<i64> g;
  for (int i = 0; i < 7; ++i) g.push_back(nsc_test::random_options<nsc::search::mmck_option<i64>>(rng, 2, 6, 1000, 1000));
  const cost_v B{7000, 7000};
  mmck_settings sp;  // the sparse path in every attempt: what it holds does not depend on the cap
  sp.method = mmck_method::sparse;
  const auto exact = solve_mmck(g, B, sp);
  const std::size_t n = exact.front().size();
  REQUIRE(n > 50);
  // the cap counts what the solve holds (its tables and points) beside the listing
  const std::size_t held = exact.info().peak_bytes + n * (sizeof(nsc::search::mmck_point<i64>) + 2 * 8 + 24);
  // fits: the exact set, every point listed
  const auto a = nsc::search::solve_mmck_front(g, B, sp, 0.0, 100, held + 100 * n, 0, "f");
  REQUIRE(a.epsilon == 0);
  REQUIRE(a.exact_refusal.empty());
  REQUIRE(a.listing.size() == n);
  // the listing does not fit: an epsilon-front, its guarantee checked against brute force
  const auto b = nsc::search::solve_mmck_front(g, B, sp, 0.0, 100, held + 100 * (n * 3 / 4), 0, "f");
  REQUIRE(b.epsilon > 0);
  REQUIRE(b.result.info().peak_bytes + b.result.front().size() * (sizeof(nsc::search::mmck_point<i64>) + 2 * 8 + 24) +
              100 * b.listing.size() <= held + 100 * (n * 3 / 4));
  CHECK_THAT(b.exact_refusal, Contains("listing needs more than the memory cap"));
  // the exact DP passes its work cap: the same, the refusal names max_work
  mmck_settings sparse;  // the work cap counts the sparse path's candidates
  sparse.method = mmck_method::sparse;
  sparse.max_work = 1000000;  // the epsilon attempts' cap; the exact one gets 50
  const auto c = nsc::search::solve_mmck_front(g, B, sparse, 0.0, 100, 4 * held + 100 * n, 50, "f");
  REQUIRE(c.epsilon > 0);
  CHECK_THAT(c.exact_refusal, Contains("max_work"));
  // the root merge stops once its kept states (never dropped) pass max_root_states: at n
  // points the exact set is solved, at n - 1 refused, with the same front otherwise
  mmck_settings rs = sp;
  rs.max_root_states = n;
  REQUIRE(solve_mmck(g, B, rs).front().size() == n);
  rs.max_root_states = n - 1;
  REQUIRE_THROWS_WITH(solve_mmck(g, B, rs), Contains("stopped after") && Contains("more than max_root_states (got " +
                                                                                   std::to_string(n - 1) + ")"));
  rs.epsilon = 0.01;  // an epsilon-front is not limited (its listing is a cover of its points)
  REQUIRE_NOTHROW(solve_mmck(g, B, rs));
  // solve_mmck_front sets it to the most points whose listing can fit: a listing of large
  // points that cannot fit stops the exact attempt at its root merge, then an epsilon-front
  const std::size_t big = 10000;
  const auto st = nsc::search::solve_mmck_front(g, B, sp, 0.0, big, held + big * (n / 2), 0, "f");
  REQUIRE(st.epsilon > 0);
  CHECK_THAT(st.exact_refusal, Contains("listing needs more than the memory cap") && Contains("max_root_states"));
  REQUIRE(st.result.info().peak_bytes + st.result.front().size() * (sizeof(nsc::search::mmck_point<i64>) + 2 * 8 + 24) +
              big * st.listing.size() <= held + big * (n / 2));
  for (const auto* x : {&b, &c, &st}) {
    const double e = x->epsilon;
    REQUIRE(std::fabs((1 + x->dp_epsilon) * (1 + x->cover_epsilon) - (1 + e)) < 1e-12);
    const auto& f = x->result.front();
    for (const auto& s : all_selections(g, 2)) {
      if (!((1 + e) * double(s.cost[0]) <= double(B[0]) && (1 + e) * double(s.cost[1]) <= double(B[1]))) continue;
      bool covered = false;
      for (std::size_t i : x->listing)
        covered = covered || (f[i].value >= s.value && (long double)f[i].cost[0] <= (1.0L + e) * s.cost[0] &&
                              (long double)f[i].cost[1] <= (1.0L + e) * s.cost[1]);
      REQUIRE(covered);
    }
  }
  // a given epsilon runs the epsilon-front directly
  const auto d = nsc::search::solve_mmck_front(g, B, {}, 0.3, 100, 4 * held + 100 * n, 0, "f");
  REQUIRE(d.epsilon == 0.3);
  REQUIRE(d.exact_refusal.empty());
  REQUIRE(d.result.info().epsilon > 0);
  // nothing fits: every attempt named
  REQUIRE_THROWS_WITH(nsc::search::solve_mmck_front(g, B, {}, 0.0, 100, 99, 0, "f"),
                      Contains("f: no front fits") && Contains("eps 1.00"));
  REQUIRE_THROWS_WITH(nsc::search::solve_mmck_front(g, B, {}, 0.05, 1000000000, 4 * held + 99, 0, "f"),
                      Contains("f: listing the epsilon-front needs"));
  REQUIRE_THROWS_WITH(nsc::search::solve_mmck_front(g, B, {}, 0.05, 100, 99, 0, "f"), Contains("max_table_bytes (got 75)"));
  REQUIRE_THROWS_WITH(nsc::search::solve_mmck_front(g, B, {}, -1.0, 100, 99, 0, "f"), Contains("epsilon must be"));
}

TEST_CASE("dominance filter for K >= 3 (Bentley-Saxe K-D trees) equals the quadratic scan on large point sets",
          "[mmck][filter][brute]") {
  std::mt19937_64 rng(2126);
#ifdef NSC_SANITIZED_BUILD
  const int trials = 6;
#else
  const int trials = 24;
#endif
  for (int trial = 0; trial < trials; ++trial) {
    const std::size_t K = std::size_t(3 + trial % 3), n = std::size_t(uni(rng, 100, 2000));
    const i64 span = trial % 2 ? 30 : 100000;  // many equal coordinates, or few
    std::vector<i64> cost(n * K);
    std::vector<double> value(n);
    for (std::size_t i = 0; i < n; ++i) {
      i64 sum = 0;
      for (std::size_t k = 0; k < K; ++k) sum += cost[i * K + k] = uni(rng, 0, span);
      // correlated values (larger costs, larger values) keep many points non-dominated
      value[i] = double(sum) + double(uni(rng, 0, span));
    }
    const auto got = nsc::search::detail::mmck_pareto_indices(cost, value, K);
    // reference: i is kept iff no j has cost <= and value >= with (cost, value, index) preferred
    std::vector<std::uint32_t> want;
    for (std::size_t i = 0; i < n; ++i) {
      bool dominated = false;
      for (std::size_t j = 0; j < n && !dominated; ++j) {
        if (j == i) continue;
        bool le = value[j] >= value[i], eq = value[j] == value[i];
        for (std::size_t k = 0; k < K && le; ++k) {
          le = cost[j * K + k] <= cost[i * K + k];
          eq = eq && cost[j * K + k] == cost[i * K + k];
        }
        dominated = le && (!eq || j < i);  // identical points: the first index is kept
      }
      if (!dominated) want.push_back(std::uint32_t(i));
    }
    auto sorted = got;
    std::sort(sorted.begin(), sorted.end());
    REQUIRE(sorted == want);
    REQUIRE(want.size() > 40);
  }
}

TEST_CASE("block libraries: real-valued costs, ranges and minimisation equal brute force in exact decimals",
          "[library][brute]") {
  // Costs are generated as integer hundredths and written as decimal text ("12.34"); brute force
  // decides feasibility on the integers, the library reader on its own decimal scaling.
  std::mt19937_64 rng(31);
  const auto dir = std::filesystem::temp_directory_path() / ("nsc_lib_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "lib.json";
  int solved = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const std::size_t L = std::size_t(uni(rng, 1, 5)), F = std::size_t(uni(rng, 1, 2));
    std::vector<std::vector<std::vector<i64>>> c(L);  // [layer][variant][field], hundredths
    std::vector<std::vector<i64>> obj(L);             // thousandths
    std::string text = "{";
    for (std::size_t l = 0; l < L; ++l) {
      const std::size_t V = std::size_t(uni(rng, 1, 4));
      if (l) text += ',';
      text += '"';
      text += std::to_string(l);
      text += "\":{";
      for (std::size_t v = 0; v < V; ++v) {
        c[l].emplace_back();
        std::string stats;
        for (std::size_t f = 0; f < F; ++f) {
          const i64 x = uni(rng, -300, 3000);
          c[l][v].push_back(x);
          const i64 a = x < 0 ? -x : x;
          if (f) stats += ',';
          stats += "\"f";
          stats += std::to_string(f);
          stats += "\":";
          if (x < 0) stats += '-';
          stats += std::to_string(a / 100);
          stats += a % 100 < 10 ? ".0" : ".";
          stats += std::to_string(a % 100);
        }
        obj[l].push_back(uni(rng, 0, 50));
        if (v) text += ',';
        text += "\"v";
        text += std::to_string(v);
        text += "\":{\"stats\":{";
        text += stats;
        text += "},\"metrics\":{\"kl\":";
        text += std::to_string(obj[l][v]);
        text += "}}";
      }
      text += "}";
    }
    text += "}";
    {
      std::ofstream o(path);
      o << text;
    }
    // bounds in hundredths: an upper bound per field, a lower bound on field 0 half of the time
    std::vector<std::optional<i64>> lo(F), hi(F);
    std::vector<nsc::io::library_budget> budgets;
    auto dec = [&](i64 x) {  // hundredths as decimal text, or in exponent form
      if (uni(rng, 0, 1)) return std::to_string(x) + "e-2";
      const i64 a = x < 0 ? -x : x;
      std::string t = x < 0 ? "-" : "";
      t += std::to_string(a / 100);
      t += a % 100 < 10 ? ".0" : ".";
      t += std::to_string(a % 100);
      return t;
    };
    for (std::size_t f = 0; f < F; ++f) {
      nsc::io::library_budget b;
      b.field = "stats.f" + std::to_string(f);
      if (uni(rng, 0, 3) > 0) {
        hi[f] = uni(rng, -200, i64(L) * 2000);
        b.hi = dec(*hi[f]);
      }
      if (f == 0 && uni(rng, 0, 1)) {
        lo[f] = uni(rng, -300, i64(L) * 1500);
        b.lo = dec(*lo[f]);
      }
      if (b.lo || b.hi) budgets.push_back(b);
    }
    const bool minimize = uni(rng, 0, 1) == 1;
    const auto p = nsc::io::read_block_library(path, "metrics.kl", minimize, budgets);
    // brute force over every selection (variants in file order = name order here: v0 < v1 < ...)
    std::optional<i64> want;
    std::vector<std::size_t> ch(L, 0);
    while (true) {
      bool ok = true;
      for (std::size_t f = 0; f < F; ++f) {
        i64 t = 0;
        for (std::size_t l = 0; l < L; ++l) t += c[l][ch[l]][f];
        if (hi[f] && t > *hi[f]) ok = false;
        if (lo[f] && t < *lo[f]) ok = false;
      }
      if (ok) {
        i64 t = 0;
        for (std::size_t l = 0; l < L; ++l) t += obj[l][ch[l]];
        if (!want || (minimize ? t < *want : t > *want)) want = t;
      }
      std::size_t l = 0;
      while (l < L && ++ch[l] == c[l].size()) ch[l++] = 0;
      if (l == L) break;
    }
    bool feasible = true;
    for (i64 b : p.budget) feasible = feasible && b >= 0;
    std::optional<i64> got;
    if (feasible) {
      std::vector<std::optional<i64>> lim(p.budget.begin(), p.budget.end());
      const auto r = nsc::search::search_budgets(p.groups, lim);
      if (r.best) got = std::llround(p.objective_total(r.best->choice));
    }
    INFO(text);
    REQUIRE(got == want);
    solved += want.has_value();
  }
  std::filesystem::remove_all(dir);
  REQUIRE(solved > 500);
  // exactness at the boundary: 0.1 + 0.2 <= 0.3 holds in decimals (not in doubles)
  {
    std::ofstream o(path.parent_path().string() + "_b.json");
    o << R"({"0": {"a": {"s": {"t": 0.1}, "m": {"k": 1}}, "b": {"s": {"t": 0.0}, "m": {"k": 0}}},
             "1": {"a": {"s": {"t": 0.2}, "m": {"k": 1}}, "b": {"s": {"t": 0.0}, "m": {"k": 0}}}})";
  }
  const auto q = nsc::io::read_block_library(path.parent_path().string() + "_b.json", "m.k", false,
                                             {{"s.t", std::nullopt, std::string("0.3")}});
  const auto r = nsc::search::search_budgets(q.groups, {q.budget[0]});
  REQUIRE(r.best->value == 2.0);  // both "a" variants: 0.1 + 0.2 = 0.3 exactly
  REQUIRE_THROWS_WITH(nsc::io::read_block_library(path.parent_path().string() + "_b.json", "m.missing", false, {}),
                      Contains("nsc::io::read_block_library") && Contains("layer 0: variant a: has no field m.missing"));
  std::filesystem::remove(path.parent_path().string() + "_b.json");
}
