// solve_mck_classes (nsc/search/multiple_choice_knapsack.hpp): classes of identical groups
// solved as multisets by max-plus combinations. References: brute force over every selection of
// the materialised groups (integer values, so ties and sums are exact), and solve_mck over the
// materialised groups for instances too large to enumerate.
#include <nsc/search/multiple_choice_knapsack.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <vector>

namespace ns = nsc::search;
using Catch::Matchers::Contains;
using i64 = std::int64_t;

namespace {

template <class V>
ns::mck_groups<V> materialise(const std::vector<ns::mck_class<V>>& classes) {
  ns::mck_groups<V> g;
  for (const auto& c : classes)
    for (std::size_t t = 0; t < c.multiplicity; ++t) g.push_back(c.options);
  return g;
}

// Every selection's (cost, value): best value per exact cost.
std::map<i64, i64> brute_exact(const ns::mck_groups<i64>& g) {
  std::map<i64, i64> best;
  std::vector<std::size_t> pick(g.size(), 0);
  while (true) {
    i64 c = 0, v = 0;
    for (std::size_t k = 0; k < g.size(); ++k) c += g[k][pick[k]].cost, v += g[k][pick[k]].value;
    auto [it, fresh] = best.emplace(c, v);
    if (!fresh) it->second = std::max(it->second, v);
    std::size_t k = 0;
    while (k < g.size() && ++pick[k] == g[k].size()) pick[k++] = 0;
    if (k == g.size()) break;
  }
  return best;
}

// The choice is valid: one option per group, each class's part ascending (the canonical multiset).
template <class V>
void check_canonical(const std::vector<ns::mck_class<V>>& classes, const std::vector<std::size_t>& choice) {
  std::size_t groups = 0;
  for (const auto& c : classes) groups += c.multiplicity;
  REQUIRE(choice.size() == groups);
  std::size_t at = 0;
  for (const auto& c : classes) {
    for (std::size_t t = 0; t < c.multiplicity; ++t) {
      REQUIRE(choice[at + t] < c.options.size());
      if (t > 0) CHECK(choice[at + t - 1] <= choice[at + t]);
    }
    at += c.multiplicity;
  }
}

template <class V>
std::pair<i64, V> totals(const ns::mck_groups<V>& g, const std::vector<std::size_t>& choice) {
  i64 c = 0;
  V v{};
  for (std::size_t k = 0; k < g.size(); ++k) c += g[k][choice[k]].cost, v = v + g[k][choice[k]].value;
  return {c, v};
}

} // namespace

TEST_CASE("solve_mck_classes equals brute force on random multiset instances", "[mck][classes]") {
  std::mt19937_64 rng(20261202);
  auto uni = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); };
  int instances = 0;
  for (int it = 0; it < 800; ++it) {
    const std::size_t C = std::size_t(uni(1, 3));
    std::vector<ns::mck_class<i64>> classes(C);
    std::size_t G = 0;
    double space = 1;
    const i64 scale = uni(0, 3) == 0 ? 7 : 1;  // a common factor: the gcd reduction
    for (auto& c : classes) {
      c.multiplicity = std::size_t(uni(1, 5));
      const std::size_t J = std::size_t(uni(1, 4));
      // small value ranges: ties between different multisets are common
      for (std::size_t j = 0; j < J; ++j) c.options.push_back({uni(-6, 12), scale * uni(0, uni(0, 1) ? 3 : 40)});
      G += c.multiplicity;
      space *= std::pow(double(J), double(c.multiplicity));
    }
    if (space > 60000) continue;
    ++instances;
    const auto g = materialise(classes);
    const auto exact = brute_exact(g);
    i64 top = 0;
    for (const auto& grp : g) {
      i64 m = 0;
      for (const auto& o : grp) m = std::max(m, o.cost);
      top += m;
    }
    const i64 B = uni(0, 1) ? top : uni(0, top + 3);
    for (auto pruning : {ns::mck_pruning::same_cost, ns::mck_pruning::dominated}) {
      ns::mck_settings s;
      s.pruning = pruning;
      const auto r = ns::solve_mck_classes(classes, B, s);
      REQUIRE(r.group_count() == G);
      // every budget: the best value with cost <= b at the smallest exact cost reaching it
      for (i64 b = 0; b <= B; ++b) {
        std::optional<std::pair<i64, i64>> want;  // (cost, value)
        for (const auto& [c, v] : exact)
          if (c <= b && (!want || want->second < v)) want = {c, v};
        REQUIRE(r.status(b) == (want ? ns::mck_status::optimal : ns::mck_status::infeasible));
        if (!want) {
          CHECK_FALSE(r.best(b));
          CHECK_FALSE(r.choice(b));
          continue;
        }
        REQUIRE(*r.best(b) == want->second);
        REQUIRE(*r.best_cost(b) == want->first);
        const auto ch = *r.choice(b);
        check_canonical(classes, ch);
        const auto [cc, vv] = totals(g, ch);
        CHECK(cc == want->first);
        CHECK(vv == want->second);
      }
      if (pruning == ns::mck_pruning::same_cost) {
        for (i64 c = 0; c <= B; ++c) {
          const auto it2 = exact.find(c);
          const auto got = r.best_exact(c);
          REQUIRE(got.has_value() == (it2 != exact.end()));
          if (!got) continue;
          CHECK(*got == it2->second);
          const auto [cc, vv] = totals(g, *r.choice_exact(c));
          CHECK(cc == c);
          CHECK(vv == it2->second);
        }
      } else if (B > 0 || r.status(0) == ns::mck_status::optimal) {
        CHECK_THROWS_WITH(r.best_exact(0), Contains("exact-cost queries need mck_pruning::same_cost"));
      }
      // the front: brute-force non-dominated points
      std::vector<std::pair<i64, i64>> front;
      for (const auto& [c, v] : exact)
        if (c <= B && (front.empty() || front.back().second < v)) front.push_back({c, v});
      const auto f = r.front();
      REQUIRE(f.size() == front.size());
      for (std::size_t i = 0; i < f.size(); ++i) {
        CHECK(f[i].cost == front[i].first);
        CHECK(f[i].value == front[i].second);
      }
    }
  }
  CHECK(instances > 500);
}

TEST_CASE("solve_mck_classes equals solve_mck on the materialised groups (both plans)", "[mck][classes]") {
  std::mt19937_64 rng(7);
  auto uni = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); };
  std::uniform_real_distribution<double> val(0.0, 100.0);
#ifdef NSC_SANITIZED_BUILD
  const int trials = 40;  // the sanitizer job (-O0, ASan): a third of the instances
#else
  const int trials = 120;
#endif
  for (int it = 0; it < trials; ++it) {
    std::vector<ns::mck_class<double>> classes(std::size_t(uni(1, 3)));
    for (auto& c : classes) {
      // many copies of few small costs (doubling) or few copies of wide costs (one at a time)
      const bool many = uni(0, 1);
      c.multiplicity = std::size_t(many ? uni(8, 80) : uni(1, 4));
      const std::size_t J = std::size_t(uni(1, 12));
      for (std::size_t j = 0; j < J; ++j) c.options.push_back({val(rng), many ? 256 * uni(0, 6) : uni(0, 900)});
    }
    const auto g = ns::solve_mck(materialise(classes), std::numeric_limits<i64>::max() / 4);
    const auto front = g.front();
    const i64 B = front.back().cost;
    const auto r = ns::solve_mck_classes(classes, B);
    const auto f = r.front();
    const auto groups = materialise(classes);
    REQUIRE(f.size() == front.size());
    for (std::size_t i = 0; i < f.size(); ++i) {
      CHECK(f[i].cost == front[i].cost);
      CHECK(f[i].value == Approx(front[i].value).epsilon(1e-12));
      if (i % 7 != 0 && i + 1 != f.size()) continue;  // the choices of every 7th point and the last
      const auto ch = *r.choice(f[i].cost);
      check_canonical(classes, ch);
      const auto [cc, vv] = totals(groups, ch);
      CHECK(cc == f[i].cost);
      CHECK(vv == Approx(f[i].value).epsilon(1e-12));
    }
    for (i64 b : {i64(0), B / 3, B / 2, B}) {
      REQUIRE(r.best(b).has_value() == g.best(b).has_value());
      if (g.best(b)) CHECK(*r.best(b) == Approx(*g.best(b)).epsilon(1e-12).margin(1e-9));
    }
  }
}

TEST_CASE("solve_mck_classes: large multiplicities without copies", "[mck][classes]") {
  // 10^6 groups {cost 0: 1, cost 1: 3}: under budget b the best is b threes and the rest ones.
  const std::vector<ns::mck_class<i64>> one{{{{1, 0}, {3, 1}}, 1'000'000}};
  const auto r = ns::solve_mck_classes(one, 10);
  CHECK(*r.best(10) == 30 + (1'000'000 - 10));
  CHECK(*r.best_cost(7) == 7);
  const auto ch = *r.choice(10);
  REQUIRE(ch.size() == 1'000'000);
  CHECK(std::count(ch.begin(), ch.end(), 1u) == 10);
  CHECK(std::is_sorted(ch.begin(), ch.end()));
  // the doubling needs few combinations: far fewer pair updates than 10^6 copies one at a time
  CHECK(r.cell_updates() < 2'000);
  // two classes, the second's minimum cost shifts every total
  const std::vector<ns::mck_class<i64>> two{{{{5, 2}, {9, 4}}, 3}, {{{1, 10}, {4, 13}}, 2}};
  const auto q = ns::solve_mck_classes(two, 100);
  CHECK(q.cost_offset() == 3 * 2 + 2 * 10);
  CHECK(*q.best(100) == 3 * 9 + 2 * 4);
  CHECK(*q.choice(100) == std::vector<std::size_t>{1, 1, 1, 1, 1});
  CHECK(*q.choice(26) == std::vector<std::size_t>{0, 0, 0, 0, 0});
  CHECK(q.status(25) == ns::mck_status::infeasible);
}

TEST_CASE("solve_mck_classes: domain errors name the function and the rule", "[mck][classes]") {
  using V = std::vector<ns::mck_class<i64>>;
  CHECK_THROWS_WITH(ns::solve_mck_classes(V{{{{1, 0}}, 1}}, -1), Contains("nsc::solve_mck_classes: budget must be >= 0"));
  CHECK_THROWS_WITH(ns::solve_mck_classes(V{{{}, 2}}, 5), Contains("every class needs at least one option (got an empty class 0)"));
  CHECK_THROWS_WITH(ns::solve_mck_classes(V{{{{1, 0}}, 0}}, 5), Contains("every class needs multiplicity >= 1"));
  CHECK_THROWS_WITH(ns::solve_mck_classes(V{{{{1, 0}}, 1}, {{{1, -3}}, 1}}, 5),
                    Contains("option costs must be >= 0 (got -3 at class 1, option 0)"));
  CHECK_THROWS_WITH(ns::solve_mck_classes(std::vector<ns::mck_class<double>>{{{{std::nan(""), 0}}, 1}}, 5),
                    Contains("option values must be finite"));
  CHECK_THROWS_WITH(ns::solve_mck_classes(V{{{{i64(1) << 61, 0}}, 4}}, 5),
                    Contains("the sum over groups of the largest |value| must fit in the value type"));
  CHECK_THROWS_WITH(ns::solve_mck_classes(std::vector<ns::mck_class<double>>{{{{1e308, 0}}, 2}}, 5),
                    Contains("must be finite in the value type"));
  ns::mck_settings tight;
  tight.max_table_bytes = 4096;
  CHECK_THROWS_WITH(ns::solve_mck_classes(V{{{{1, 0}, {2, 1}}, 100}}, 1'000'000, tight),
                    Contains("more than max_table_bytes (got 4096)"));
  CHECK_THROWS_WITH(ns::solve_mck_classes(V{{{{1, 0}}, 1'000'000}}, 0, tight), Contains("the choices of 1000000 groups"));
  // bounded work: 2^20 groups under a budget of 26,368 cells (a fuzzer's input) examine
  // 1,037,984,061 pairs (0.8 s in Release): refused under a lower max_work, before the pairs
  ns::mck_settings capped;
  capped.max_work = 100'000'000;
  CHECK_THROWS_WITH(ns::solve_mck_classes(V{{{{1, 0}, {3, 1}}, std::size_t(1) << 20}}, 26368, capped),
                    Contains("the combinations need more than max_work = 100000000 pairs (1048576 groups in 1 classes over 26369 cells;"));
  ns::mck_settings little;
  little.max_work = 100;
  CHECK_THROWS_WITH(ns::solve_mck_classes(V{{{{1, 0}, {3, 1}}, 64}}, 64, little), Contains("need more than max_work = 100 pairs"));
  little.max_work = 100'000;
  CHECK(*ns::solve_mck_classes(V{{{{1, 0}, {3, 1}}, 64}}, 64, little).best(64) == 3 * 64);
  // zero classes: the empty selection; infeasible budgets are a status
  const auto e = ns::solve_mck_classes(V{}, 3);
  CHECK(*e.best(3) == 0);
  CHECK(e.choice(0)->empty());
  const auto inf = ns::solve_mck_classes(V{{{{1, 5}}, 3}}, 14);
  CHECK(inf.status(14) == ns::mck_status::infeasible);
  CHECK(inf.front().empty());
}
