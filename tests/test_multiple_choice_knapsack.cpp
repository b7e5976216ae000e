// Tests for nsc/search/multiple_choice_knapsack.hpp and nsc/search/pareto.hpp.
// Reference answers come from brute force (every selection enumerated), never from the DP.
#include <nsc/search/multi_knapsack.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>
#include <nsc/search/pareto.hpp>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <catch2/catch.hpp>

#include "support/brute_force.hpp"

#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <tuple>
#include <vector>

using nsc::search::mck_groups;
using nsc::search::mck_option;
using nsc::search::mck_pruning;
using nsc::search::mck_result;
using nsc::search::mck_settings;
using nsc::search::mck_status;
using nsc::search::pareto_point;
using nsc::search::solve_mck;
using Catch::Contains;

namespace {

using i64 = std::int64_t;

using nsc_test::uniform;

using nsc_test::for_each_selection;

template <class Value>
i64 selection_cost(const mck_groups<Value>& groups, const std::vector<std::size_t>& choice) {
  i64 c = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) c += groups[g][choice[g]].cost;
  return c;
}

// Summed from Value{} in group order, exactly as the DP sums.
template <class Value>
Value selection_value(const mck_groups<Value>& groups, const std::vector<std::size_t>& choice) {
  Value v{};
  for (std::size_t g = 0; g < groups.size(); ++g) v = v + groups[g][choice[g]].value;
  return v;
}

template <class Value>
struct brute_table {
  std::vector<std::optional<Value>> exact;      // best value with cost exactly c, c = 0..B
  std::vector<std::optional<Value>> upto;       // best value with cost <= b
  std::vector<std::optional<i64>> upto_cost;    // smallest exact cost achieving upto[b]
  // prefix[g][c]: best value of the first g groups with cost exactly c (enumerated).
  std::vector<std::vector<std::optional<Value>>> prefix;
};

template <class Value>
brute_table<Value> brute_force(const mck_groups<Value>& groups, i64 budget) {
  brute_table<Value> t;
  const auto n = static_cast<std::size_t>(budget + 1);
  t.exact.assign(n, std::nullopt);
  for_each_selection(groups, [&](const std::vector<std::size_t>& ch) {
    const i64 c = selection_cost(groups, ch);
    if (c > budget) return;
    const Value v = selection_value(groups, ch);
    auto& e = t.exact[static_cast<std::size_t>(c)];
    if (!e || *e < v) e = v;
  });
  t.upto.assign(n, std::nullopt);
  t.upto_cost.assign(n, std::nullopt);
  std::optional<Value> best;
  std::optional<i64> cost;
  for (std::size_t c = 0; c < n; ++c) {
    if (t.exact[c] && (!best || *best < *t.exact[c])) {
      best = t.exact[c];
      cost = static_cast<i64>(c);
    }
    t.upto[c] = best;
    t.upto_cost[c] = cost;
  }
  for (std::size_t g = 0; g <= groups.size(); ++g) {
    const mck_groups<Value> first(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(g));
    std::vector<std::optional<Value>> row(n);
    for_each_selection(first, [&](const std::vector<std::size_t>& ch) {
      const i64 c = selection_cost(first, ch);
      if (c > budget) return;
      const Value v = selection_value(first, ch);
      auto& e = row[static_cast<std::size_t>(c)];
      if (!e || *e < v) e = v;
    });
    t.prefix.push_back(std::move(row));
  }
  return t;
}

// The documented tie rule, from the enumerated prefix tables: walking back from the last
// group at exact cost c, take the LOWEST original index j whose predecessor cost c - c_j is
// reachable with prefix[g][c - c_j] + v_j == prefix[g + 1][c].
template <class Value>
std::vector<std::size_t> expected_choice(const mck_groups<Value>& groups,
                                         const brute_table<Value>& t, i64 c) {
  std::vector<std::size_t> out(groups.size());
  for (std::size_t g = groups.size(); g-- > 0;) {
    const Value target = *t.prefix[g + 1][static_cast<std::size_t>(c)];
    bool found = false;
    for (std::size_t j = 0; j < groups[g].size() && !found; ++j) {
      const i64 p = c - groups[g][j].cost;
      if (p < 0) continue;
      const auto& before = t.prefix[g][static_cast<std::size_t>(p)];
      if (before && *before + groups[g][j].value == target) {
        out[g] = j;
        c = p;
        found = true;
      }
    }
    REQUIRE(found);
  }
  return out;
}

// Every query of r against brute force, for every budget / exact cost / band in [0, B].
template <class Value>
void check_against_brute(const mck_groups<Value>& groups, i64 budget, const mck_result<Value>& r,
                         bool with_bands) {
  const brute_table<Value> bt = brute_force(groups, budget);
  for (i64 b = 0; b <= budget; ++b) {
    const auto k = static_cast<std::size_t>(b);
    const auto best = r.best(b);
    REQUIRE(best.has_value() == bt.upto[k].has_value());
    REQUIRE((r.status(b) == mck_status::optimal) == bt.upto[k].has_value());
    const auto ch = r.choice(b);
    REQUIRE(ch.has_value() == best.has_value());
    if (!best) continue;
    REQUIRE(*best == *bt.upto[k]);
    REQUIRE(r.best_cost(b) == bt.upto_cost[k]);
    REQUIRE(ch->size() == groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) REQUIRE((*ch)[g] < groups[g].size());
    REQUIRE(selection_cost(groups, *ch) == *bt.upto_cost[k]);
    REQUIRE(selection_cost(groups, *ch) <= b);
    REQUIRE(selection_value(groups, *ch) == *best);
    REQUIRE(*ch == expected_choice(groups, bt, *bt.upto_cost[k]));
  }
  for (i64 c = 0; c <= budget; ++c) {
    const auto k = static_cast<std::size_t>(c);
    const auto e = r.best_exact(c);
    REQUIRE(e.has_value() == bt.exact[k].has_value());
    const auto ch = r.choice_exact(c);
    REQUIRE(ch.has_value() == e.has_value());
    if (!e) continue;
    REQUIRE(*e == *bt.exact[k]);
    REQUIRE(selection_cost(groups, *ch) == c);
    REQUIRE(selection_value(groups, *ch) == *e);
    REQUIRE(*ch == expected_choice(groups, bt, c));
  }
  // Front: brute-force front, strictly increasing in cost and value.
  std::vector<std::pair<i64, Value>> expected;
  for (i64 c = 0; c <= budget; ++c) {
    const auto& e = bt.exact[static_cast<std::size_t>(c)];
    if (e && (expected.empty() || expected.back().second < *e)) expected.emplace_back(c, *e);
  }
  const auto front = r.front();
  REQUIRE(front.size() == expected.size());
  for (std::size_t i = 0; i < front.size(); ++i) {
    REQUIRE(front[i].cost == expected[i].first);
    REQUIRE(front[i].value == expected[i].second);
    if (i > 0) {
      REQUIRE(front[i - 1].cost < front[i].cost);
      REQUIRE(front[i - 1].value < front[i].value);
    }
    const auto* p = nsc::search::best_within(front, front[i].cost);
    REQUIRE(p == &front[i]);
  }
  if (!with_bands) return;
  for (i64 lo = 0; lo <= budget; ++lo) {
    for (i64 hi = lo; hi <= budget; ++hi) {
      std::optional<std::pair<i64, Value>> want;
      for (i64 c = lo; c <= hi; ++c) {
        const auto& e = bt.exact[static_cast<std::size_t>(c)];
        if (e && (!want || want->second < *e)) want = std::make_pair(c, *e);
      }
      const auto got = r.best_in_band(lo, hi);
      REQUIRE(got.has_value() == want.has_value());
      if (!got) continue;
      REQUIRE(got->cost == want->first);
      REQUIRE(got->value == want->second);
    }
  }
}

struct instance_shape {
  i64 max_groups = 4;
  i64 max_options = 4;
  i64 max_cost = 5;
};

// Random groups: costs incl. 0 and duplicates, sometimes scaled or shifted per group (so the
// gcd and min-shift reductions are exercised); values from value_of(rng) (ties included).
template <class Value, class ValueFn>
mck_groups<Value> random_groups(std::mt19937_64& rng, ValueFn value_of, instance_shape s = {}) {
  const i64 groups = uniform(rng, 0, s.max_groups);
  const i64 scale = std::array<i64, 4>{1, 1, 2, 3}[static_cast<std::size_t>(uniform(rng, 0, 3))];
  mck_groups<Value> out(static_cast<std::size_t>(groups));
  for (auto& g : out) {
    const i64 options = uniform(rng, 1, s.max_options);
    const i64 offset = uniform(rng, 0, 3) == 0 ? uniform(rng, 1, 9) : 0;
    for (i64 j = 0; j < options; ++j) {
      g.push_back(mck_option<Value>{value_of(rng), offset + scale * uniform(rng, 0, s.max_cost)});
    }
  }
  return out;
}

template <class Value>
i64 max_total_cost(const mck_groups<Value>& groups) {
  i64 total = 0;
  for (const auto& g : groups) {
    i64 m = 0;
    for (const auto& o : g) m = std::max(m, o.cost);
    total += m;
  }
  return total;
}

i64 int_value(std::mt19937_64& rng) { return uniform(rng, -6, 6); }

double double_value(std::mt19937_64& rng) {
  if (uniform(rng, 0, 1) == 0) {
    static constexpr std::array<double, 6> few{-1.0, -0.5, 0.0, 0.5, 1.0, 1.5};
    return few[static_cast<std::size_t>(uniform(rng, 0, 5))];
  }
  return std::uniform_real_distribution<double>(-3.0, 3.0)(rng);
}

// ---- every instance of this file also goes through the K-budget engine (K = 1) ------------
// solve_mmck with one budget must give solve_mck's answers: dense_1d (automatic), the sparse
// Pareto-state DP (identical groups off: the same choices; on: the same values), and the
// bounded single-budget solve at the budget itself.
int cross_checked = 0;

template <class Value>
void cross_check_engine(const mck_groups<Value>& groups, i64 budget, const mck_result<Value>& r,
                        std::size_t max_bytes) {
  nsc::search::mmck_groups<Value> g(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i)
    for (const auto& o : groups[i]) g[i].push_back({o.value, {o.cost}});
  std::vector<i64> probes{0, budget, budget / 2, budget / 3};
  for (const auto& p : r.front()) probes.push_back(p.cost);
  if (budget <= 64)
    for (i64 b = 0; b <= budget; ++b) probes.push_back(b);
  for (int variant = 0; variant < 4; ++variant) {
    nsc::search::mmck_settings s;
    s.max_table_bytes = std::max<std::size_t>(max_bytes, std::size_t(1) << 26);
    if (variant >= 1) s.method = nsc::search::mmck_method::sparse;
    s.identical_groups = variant == 2;
    s.single_budget = variant == 3;
    const auto m = nsc::search::solve_mmck(g, {budget}, s);
    for (i64 b : probes) {
      if (s.single_budget && b != budget) continue;
      const auto want = r.best(b);
      const auto got = m.best({b});
      REQUIRE(got.has_value() == want.has_value());
      if (!want) continue;
      if (variant == 2 && !std::numeric_limits<Value>::is_integer) {
        REQUIRE(static_cast<double>(*got) == Approx(static_cast<double>(*want)).epsilon(1e-12).margin(1e-12));
      } else {
        REQUIRE(*got == *want);
        REQUIRE(m.choice({b}) == r.choice(b));
        REQUIRE((*m.best_cost({b}))[0] == *r.best_cost(b));
      }
    }
    if (!s.single_budget && variant != 2) {
      const auto f = r.front();
      REQUIRE(m.front().size() == f.size());
      for (std::size_t i = 0; i < f.size(); ++i) {
        REQUIRE(m.front()[i].cost[0] == f[i].cost);
        REQUIRE(m.front()[i].value == f[i].value);
      }
    }
  }
}

template <class Value, std::integral Budget>
mck_result<Value> checked_solve_mck(const mck_groups<Value>& groups, Budget budget,
                                    const mck_settings& settings = {}) {
  auto r = solve_mck(groups, i64(budget), settings);
  ++cross_checked;
  cross_check_engine(groups, i64(budget), r, settings.max_table_bytes);
  return r;
}
template <class... A>
auto checked_solve_mck(const A&... a) {
  return solve_mck(a...);
}

} // namespace

TEST_CASE("solve_mck equals brute force on random integer instances", "[mck][brute]") {
  std::mt19937_64 rng(20240601);
  for (int trial = 0; trial < 3000; ++trial) {
    const auto groups = random_groups<i64>(rng, int_value);
    const i64 budget = uniform(rng, 0, max_total_cost(groups) + 3);
    INFO("trial " << trial << ", budget " << budget);
    const auto r = checked_solve_mck(groups, budget);
    REQUIRE(r.group_count() == groups.size());
    REQUIRE(r.budget() == budget);
    check_against_brute(groups, budget, r, trial % 3 == 0);
  }
}

TEST_CASE("solve_mck equals brute force on random double instances", "[mck][brute]") {
  std::mt19937_64 rng(777);
  for (int trial = 0; trial < 2000; ++trial) {
    const auto groups = random_groups<double>(rng, double_value);
    const i64 budget = uniform(rng, 0, max_total_cost(groups) + 3);
    INFO("trial " << trial << ", budget " << budget);
    check_against_brute(groups, budget, checked_solve_mck(groups, budget), trial % 3 == 0);
  }
}

TEST_CASE("larger random instances: more options per group, wider costs", "[mck][brute]") {
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 300; ++trial) {
    const auto groups = random_groups<i64>(rng, int_value, {3, 9, 25});
    const i64 budget = uniform(rng, 0, max_total_cost(groups) + 3);
    INFO("trial " << trial << ", budget " << budget);
    check_against_brute(groups, budget, checked_solve_mck(groups, budget), false);
  }
}

TEST_CASE("tie-breaking is deterministic and documented", "[mck][ties]") {
  SECTION("equal options: the lowest original index wins") {
    const mck_groups<i64> g{{{5, 1}, {5, 1}, {5, 1}}, {{2, 0}, {2, 0}}};
    const auto r = checked_solve_mck(g, 3);
    REQUIRE(*r.choice(3) == std::vector<std::size_t>{0, 0});
    REQUIRE(*r.choice_exact(1) == std::vector<std::size_t>{0, 0});
  }
  SECTION("equal value in one cell from different predecessors: the lowest index wins") {
    const mck_groups<i64> g{{{0, 0}, {1, 1}}, {{5, 1}, {6, 2}}};
    const auto r = checked_solve_mck(g, 3);
    REQUIRE(*r.best_exact(2) == 6);  // 1 + 5 and 0 + 6
    REQUIRE(*r.choice_exact(2) == std::vector<std::size_t>{1, 0});
    const mck_groups<i64> h{{{0, 0}, {1, 1}}, {{6, 2}, {5, 1}}};
    REQUIRE(*checked_solve_mck(h, 3).choice_exact(2) == std::vector<std::size_t>{0, 0});
  }
  SECTION("equal value at different costs: best(b) uses the smallest exact cost") {
    const mck_groups<i64> g{{{5, 2}, {5, 1}, {4, 0}}};
    const auto r = checked_solve_mck(g, 2);
    REQUIRE(*r.best(2) == 5);
    REQUIRE(*r.best_cost(2) == 1);
    REQUIRE(*r.choice(2) == std::vector<std::size_t>{1});
    REQUIRE(*r.best_exact(2) == 5);
    REQUIRE(*r.choice_exact(2) == std::vector<std::size_t>{0});
    const auto band = r.best_in_band(0, 2);
    REQUIRE(band->cost == 1);
    REQUIRE(band->value == 5);
  }
  SECTION("identical results on repeated solves") {
    std::mt19937_64 rng(99);
    for (int trial = 0; trial < 50; ++trial) {
      const auto groups = random_groups<i64>(rng, [](std::mt19937_64& r) { return uniform(r, 0, 1); });
      const i64 budget = max_total_cost(groups);
      const auto a = checked_solve_mck(groups, budget);
      const auto b = checked_solve_mck(groups, budget);
      for (i64 x = 0; x <= budget; ++x) REQUIRE(a.choice(x) == b.choice(x));
    }
  }
}

TEST_CASE("zero groups, zero budget, infeasible budgets", "[mck][edge]") {
  SECTION("zero groups: the empty selection, cost 0, value 0, for every budget") {
    const mck_groups<double> none;
    const auto r = checked_solve_mck(none, 4);
    for (i64 b = 0; b <= 4; ++b) {
      REQUIRE(r.status(b) == mck_status::optimal);
      REQUIRE(*r.best(b) == 0.0);
      REQUIRE(*r.best_cost(b) == 0);
      REQUIRE(r.choice(b)->empty());
    }
    REQUIRE(*r.best_exact(0) == 0.0);
    REQUIRE_FALSE(r.best_exact(1));
    REQUIRE(r.front().size() == 1);
    REQUIRE(r.cells() == 1);
  }
  SECTION("zero budget") {
    const mck_groups<i64> g{{{3, 0}, {9, 2}}, {{-1, 0}}};
    const auto r = checked_solve_mck(g, 0);
    REQUIRE(*r.best(0) == 2);
    REQUIRE(*r.choice(0) == std::vector<std::size_t>{0, 0});
    const mck_groups<i64> h{{{3, 1}}};
    REQUIRE(checked_solve_mck(h, 0).status(0) == mck_status::infeasible);
  }
  SECTION("budget below the cheapest selection: a status, not an exception") {
    const mck_groups<i64> g{{{1, 4}, {2, 6}}, {{1, 3}}};
    const auto r = checked_solve_mck(g, 6);
    REQUIRE(r.cost_offset() == 7);
    REQUIRE(r.cells() == 0);
    for (i64 b = 0; b <= 6; ++b) {
      REQUIRE(r.status(b) == mck_status::infeasible);
      REQUIRE_FALSE(r.best(b));
      REQUIRE_FALSE(r.best_cost(b));
      REQUIRE_FALSE(r.choice(b));
      REQUIRE_FALSE(r.best_exact(b));
      REQUIRE_FALSE(r.choice_exact(b));
    }
    REQUIRE_FALSE(r.best_in_band(0, 6));
    REQUIRE(r.front().empty());
  }
  SECTION("huge costs with a small gcd-reduced table solve without allocating much") {
    const i64 big = i64{1} << 40;
    const mck_groups<i64> g{{{0, 3 * big}, {5, 5 * big}}, {{1, big}, {2, 2 * big}, {7, 9 * big}}};
    const auto r = checked_solve_mck(g, std::numeric_limits<i64>::max());
    REQUIRE(r.cost_unit() == big);
    REQUIRE(r.cost_offset() == 4 * big);
    REQUIRE(r.cells() == 11);
    REQUIRE(*r.best(std::numeric_limits<i64>::max()) == 12);
    REQUIRE(*r.best(14 * big - 1) == 7);  // 5 + 2 at cost 7 big beats 0 + 7 at 12 big
    REQUIRE(*r.best_cost(14 * big - 1) == 7 * big);
    REQUIRE(*r.choice(14 * big - 1) == std::vector<std::size_t>{1, 1});
    REQUIRE(*r.choice_exact(12 * big) == std::vector<std::size_t>{0, 2});
    REQUIRE_FALSE(r.best_exact(12 * big + 1));
    const auto band = r.best_in_band(13 * big, std::numeric_limits<i64>::max());
    REQUIRE(band->cost == 14 * big);
    REQUIRE(band->value == 12);
    REQUIRE_FALSE(r.best_in_band(13 * big, 14 * big - 1));  // 13 big is unreachable
    REQUIRE(r.best_in_band(3 * big, 5 * big)->cost == 5 * big);  // 0 + 2 beats 0 + 1 at 4 big
    REQUIRE(r.best_in_band(3 * big, 5 * big - 1)->cost == 4 * big);
  }
}

TEST_CASE("min-shift and gcd reductions are exact: scaled instances give the same choices",
          "[mck][reduction]") {
  std::mt19937_64 rng(31337);
  for (int trial = 0; trial < 500; ++trial) {
    const auto groups = random_groups<i64>(rng, int_value);
    const i64 budget = uniform(rng, 0, max_total_cost(groups) + 2);
    const i64 k = uniform(rng, 2, 7);
    auto scaled = groups;
    i64 shift = 0;
    for (auto& g : scaled) {
      const i64 o = uniform(rng, 0, 11);
      shift += o;
      for (auto& opt : g) opt.cost = k * opt.cost + o;
    }
    const i64 scaled_budget = k * budget + shift + uniform(rng, 0, k - 1);
    INFO("trial " << trial << ", k " << k);
    const auto r = checked_solve_mck(groups, budget);
    const auto s = checked_solve_mck(scaled, scaled_budget);
    REQUIRE(s.cells() == r.cells());
    // d = 1 by convention when every shifted cost is 0 (or nothing is feasible).
    REQUIRE((s.cost_unit() == k * r.cost_unit() || (s.cost_unit() == 1 && r.cost_unit() == 1)));
    REQUIRE(s.cost_offset() == k * r.cost_offset() + shift);
    for (i64 b = 0; b <= budget; ++b) {
      const i64 sb = k * b + shift;
      REQUIRE(s.best(sb) == r.best(b));
      REQUIRE(s.choice(sb) == r.choice(b));
      if (sb + k - 1 <= scaled_budget) REQUIRE(s.choice(sb + k - 1) == r.choice(b));  // floor
      REQUIRE(s.best_exact(sb) == r.best_exact(b));
      REQUIRE(s.choice_exact(sb) == r.choice_exact(b));
      if (r.best_cost(b)) REQUIRE(*s.best_cost(sb) == k * *r.best_cost(b) + shift);
    }
    // Off-lattice exact costs are unreachable.
    for (i64 c = shift; c <= std::min(scaled_budget, shift + 3 * k); ++c) {
      if ((c - shift) % k != 0) REQUIRE_FALSE(s.best_exact(c));
    }
    const i64 small_budget = std::min<i64>(scaled_budget, 60);
    check_against_brute(scaled, small_budget, checked_solve_mck(scaled, small_budget), false);
  }
}

TEST_CASE("dominance pruning does not change budget answers", "[mck][pruning]") {
  std::mt19937_64 rng(5150);
  const mck_settings dominated{std::size_t{1} << 30, mck_pruning::dominated};
  std::size_t fewer_cells = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const bool use_int = trial % 2 == 0;
    auto run = [&](auto groups) {
      const i64 budget = uniform(rng, 0, max_total_cost(groups) + 2);
      INFO("trial " << trial);
      const auto a = checked_solve_mck(groups, budget);
      const auto b = checked_solve_mck(groups, budget, dominated);
      REQUIRE(b.pruning() == mck_pruning::dominated);
      if (b.cells() < a.cells()) ++fewer_cells;
      for (i64 x = 0; x <= budget; ++x) {
        REQUIRE(a.status(x) == b.status(x));
        REQUIRE(a.best(x) == b.best(x));
        REQUIRE(a.best_cost(x) == b.best_cost(x));
        REQUIRE(a.choice(x) == b.choice(x));
      }
      const auto fa = a.front();
      const auto fb = b.front();
      REQUIRE(fa.size() == fb.size());
      for (std::size_t i = 0; i < fa.size(); ++i) {
        REQUIRE(fa[i].cost == fb[i].cost);
        REQUIRE(fa[i].value == fb[i].value);
      }
    };
    if (use_int) {
      run(random_groups<i64>(rng, int_value, {4, 6, 5}));
    } else {
      run(random_groups<double>(rng, double_value, {4, 6, 5}));
    }
  }
  REQUIRE(fewer_cells > 0);  // pruning did shrink some tables (gcd grew)

  SECTION("same_cost pruning keeps exact-cost answers that full dominance would lose") {
    const mck_groups<i64> g{{{5, 0}, {3, 1}}};
    REQUIRE(*checked_solve_mck(g, 1).best_exact(1) == 3);
    REQUIRE(checked_solve_mck(g, 1).best_in_band(1, 1)->value == 3);
    const auto d = checked_solve_mck(g, 1, dominated);
    REQUIRE(*d.best(1) == 5);
    REQUIRE_THROWS_WITH(d.best_exact(1), Contains("nsc::mck_result::best_exact") &&
                                             Contains("mck_pruning::same_cost"));
    REQUIRE_THROWS_WITH(d.choice_exact(1), Contains("nsc::mck_result::choice_exact"));
    REQUIRE_THROWS_WITH(d.best_in_band(0, 1), Contains("nsc::mck_result::best_in_band"));
  }
}

TEST_CASE("quantized real costs: feasible in real units, within the documented gap",
          "[mck][quantize]") {
  using nsc::search::mck_quantize_budget;
  using nsc::search::mck_quantize_cost;
  using nsc::search::mck_real_groups;
  using nsc::search::mck_real_option;

  SECTION("exact ceil and floor of the real quotient, no tolerance") {
    REQUIRE(mck_quantize_cost(0.0, 0.1) == 0);
    REQUIRE(mck_quantize_cost(3.0, 1.0) == 3);
    REQUIRE(mck_quantize_cost(3.5, 1.0) == 4);
    REQUIRE(mck_quantize_cost(0.3, 0.1) == 3);        // 0.3 < 3 * 0.1 in exact arithmetic
    REQUIRE(mck_quantize_cost(0.1 + 0.2, 0.1) == 4);  // 0.30000000000000004 > 3 * 0.1
    REQUIRE(mck_quantize_cost(38.4e6, 1e3) == 38400);
    REQUIRE(mck_quantize_budget(0.3, 0.1) == 2);      // 3 * 0.1 > 0.3
    REQUIRE(mck_quantize_budget(1.0, 0.25) == 4);
    REQUIRE(mck_quantize_budget(0.0, 0.7) == 0);
    std::mt19937_64 rng(8);
    for (int i = 0; i < 20000; ++i) {
      const double c = std::uniform_real_distribution<double>(0.0, 50.0)(rng);
      const double d = std::uniform_real_distribution<double>(0.01, 3.0)(rng);
      const auto q = static_cast<double>(mck_quantize_cost(c, d));
      REQUIRE(std::fma(q, d, -c) >= 0);
      REQUIRE(std::fma(q - 1, d, -c) < 0);
      const auto k = static_cast<double>(mck_quantize_budget(c, d));
      REQUIRE(std::fma(k, d, -c) <= 0);
      REQUIRE(std::fma(k + 1, d, -c) > 0);
    }
  }

  SECTION("random instances against the brute-force real optimum") {
    std::mt19937_64 rng(1234567);
    constexpr std::array<double, 5> deltas{0.1, 0.25, 0.3, 0.7, 1.0};
    int compared_lower = 0;
    for (int trial = 0; trial < 1500; ++trial) {
      const i64 groups_n = uniform(rng, 0, 4);
      mck_real_groups<double> groups(static_cast<std::size_t>(groups_n));
      double max_total = 0;
      for (auto& g : groups) {
        const i64 j = uniform(rng, 1, 4);
        double m = 0;
        for (i64 x = 0; x < j; ++x) {
          const double c = uniform(rng, 0, 4) == 0
                               ? static_cast<double>(uniform(rng, 0, 3))
                               : std::uniform_real_distribution<double>(0.0, 4.0)(rng);
          g.push_back(mck_real_option<double>{double_value(rng), c});
          m = std::max(m, c);
        }
        max_total += m;
      }
      const double delta = deltas[static_cast<std::size_t>(uniform(rng, 0, 4))];
      const double budget = std::uniform_real_distribution<double>(0.0, max_total + 0.5)(rng);
      INFO("trial " << trial << ", delta " << delta << ", budget " << budget);
      const auto r = checked_solve_mck(groups, budget, delta);
      const i64 kb = mck_quantize_budget(budget, delta);
      REQUIRE(r.budget() == kb);

      // Brute force over real costs: OPT(B) and OPT(B - G delta).
      const double lower_budget = budget - static_cast<double>(groups.size()) * delta;
      std::optional<double> opt, opt_lower;
      std::vector<std::size_t> ch(groups.size(), 0);
      while (true) {
        double c = 0, v = 0;
        for (std::size_t g = 0; g < groups.size(); ++g) {
          c += groups[g][ch[g]].cost;
          v = v + groups[g][ch[g]].value;
        }
        if (c <= budget && (!opt || *opt < v)) opt = v;
        if (c <= lower_budget && (!opt_lower || *opt_lower < v)) opt_lower = v;
        std::size_t g = 0;
        while (g < groups.size() && ++ch[g] == groups[g].size()) ch[g++] = 0;
        if (g == groups.size()) break;
      }
      const auto best = r.best(kb);
      if (opt_lower) {
        ++compared_lower;
        REQUIRE(best.has_value());
        REQUIRE(*opt_lower <= *best);
      }
      if (!best) continue;
      REQUIRE(opt.has_value());
      REQUIRE(*best <= *opt);
      const auto choice = *r.choice(kb);
      double real_cost = 0, value = 0;
      long double exact_cost = 0;
      for (std::size_t g = 0; g < groups.size(); ++g) {
        real_cost += groups[g][choice[g]].cost;
        exact_cost += static_cast<long double>(groups[g][choice[g]].cost);
        value = value + groups[g][choice[g]].value;
      }
      REQUIRE(value == *best);
      REQUIRE(real_cost <= budget);
      REQUIRE(exact_cost <= static_cast<long double>(budget));
    }
    REQUIRE(compared_lower > 500);
  }
}

TEST_CASE("every throw path names the function and the rule", "[mck][errors]") {
  const mck_groups<double> ok{{{1.0, 1}, {2.0, 3}}};
  SECTION("malformed instances") {
    REQUIRE_THROWS_AS(checked_solve_mck(mck_groups<double>(1), 3), std::invalid_argument);
    REQUIRE_THROWS_WITH(checked_solve_mck(mck_groups<double>{{{1.0, 0}}, {}}, 3),
                        Contains("nsc::solve_mck") && Contains("at least one option") &&
                            Contains("group 1"));
    REQUIRE_THROWS_WITH(checked_solve_mck(mck_groups<double>{{{1.0, 0}, {2.0, -2}}}, 3),
                        Contains("nsc::solve_mck") && Contains("costs must be >= 0") &&
                            Contains("got -2"));
    REQUIRE_THROWS_WITH(checked_solve_mck(ok, -1),
                        Contains("nsc::solve_mck") && Contains("budget must be >= 0") &&
                            Contains("got -1"));
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (double bad : {nan, inf, -inf}) {
      REQUIRE_THROWS_WITH(checked_solve_mck(mck_groups<double>{{{0.0, 0}}, {{1.0, 0}, {bad, 1}}}, 3),
                          Contains("nsc::solve_mck") && Contains("values must be finite") &&
                              Contains("group 1, option 1"));
    }
    const long double linf = std::numeric_limits<long double>::infinity();
    REQUIRE_THROWS_WITH(checked_solve_mck(mck_groups<long double>{{{linf, 0}}}, 3),
                        Contains("values must be finite"));
    // Large finite values and zero are fine.
    REQUIRE(*checked_solve_mck(mck_groups<double>{{{std::numeric_limits<double>::max(), 0}}}, 0).best(0) ==
            std::numeric_limits<double>::max());
    const i64 big = std::numeric_limits<i64>::max() / 2 + 1;
    REQUIRE_THROWS_WITH(checked_solve_mck(mck_groups<i64>{{{big, 0}}, {{-big, 0}}}, 1),
                        Contains("nsc::solve_mck") && Contains("must fit in the value type"));
    REQUIRE_THROWS_WITH(checked_solve_mck(mck_groups<i64>{{{std::numeric_limits<i64>::min(), 0}}}, 1),
                        Contains("must fit in the value type"));
    REQUIRE(*checked_solve_mck(mck_groups<i64>{{{big - 1, 0}}, {{big - 1, 0}}}, 1).best(0) == 2 * (big - 1));
  }
  SECTION("memory cap: refused before allocating, with the needed bytes") {
    const mck_groups<double> g{{{1.0, 0}, {2.0, 1}}, {{1.0, 0}, {2.0, 1000}}};
    const auto r = checked_solve_mck(g, 1001);
    REQUIRE(r.cells() == 1002);
    mck_settings cap;
    cap.max_table_bytes = r.table_bytes();
    REQUIRE_NOTHROW(checked_solve_mck(g, 1001, cap));
    cap.max_table_bytes = r.table_bytes() - 1;
    REQUIRE_THROWS_WITH(checked_solve_mck(g, 1001, cap),
                        Contains("nsc::solve_mck") && Contains("max_table_bytes") &&
                            Contains(std::to_string(r.table_bytes()) + " bytes") &&
                            Contains("got " + std::to_string(r.table_bytes() - 1)));
    // 2^62 cells: refused with the default 1 GiB cap, never allocated.
    const mck_groups<double> huge{{{1.0, 0}, {2.0, 1}}, {{1.0, 0}, {2.0, i64{1} << 62}}};
    REQUIRE_THROWS_WITH(checked_solve_mck(huge, i64{1} << 62), Contains("max_table_bytes"));
    REQUIRE_THROWS_WITH(checked_solve_mck(huge, std::numeric_limits<i64>::max()),
                        Contains("max_table_bytes"));
  }
  SECTION("queries outside [0, B]") {
    const auto r = checked_solve_mck(ok, 5);
    REQUIRE_THROWS_WITH(r.best(-1), Contains("nsc::mck_result::best") && Contains("got -1"));
    REQUIRE_THROWS_WITH(r.best(6), Contains("nsc::mck_result::best") && Contains("[0, B = 5]"));
    REQUIRE_THROWS_WITH(r.status(6), Contains("nsc::mck_result::status"));
    REQUIRE_THROWS_WITH(r.best_cost(6), Contains("nsc::mck_result::best_cost"));
    REQUIRE_THROWS_WITH(r.choice(6), Contains("nsc::mck_result::choice"));
    REQUIRE_THROWS_WITH(r.best_exact(6), Contains("nsc::mck_result::best_exact"));
    REQUIRE_THROWS_WITH(r.choice_exact(-3), Contains("nsc::mck_result::choice_exact"));
    REQUIRE_THROWS_WITH(r.best_in_band(3, 2),
                        Contains("nsc::mck_result::best_in_band") && Contains("lo <= hi"));
    REQUIRE_THROWS_WITH(r.best_in_band(0, 6), Contains("nsc::mck_result::best_in_band"));
  }
  SECTION("quantization") {
    using nsc::search::mck_quantize_budget;
    using nsc::search::mck_quantize_cost;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (double d : {0.0, -1.0, nan, inf}) {
      REQUIRE_THROWS_WITH(mck_quantize_cost(1.0, d),
                          Contains("nsc::mck_quantize") && Contains("delta must be finite and > 0"));
      REQUIRE_THROWS_WITH(mck_quantize_budget(1.0, d), Contains("delta must be finite and > 0"));
    }
    for (double c : {-1.0, nan, inf}) {
      REQUIRE_THROWS_WITH(mck_quantize_cost(c, 1.0),
                          Contains("nsc::mck_quantize") && Contains("costs must be finite and >= 0"));
      REQUIRE_THROWS_WITH(mck_quantize_budget(c, 1.0),
                          Contains("nsc::mck_quantize") && Contains("budget must be finite"));
    }
    REQUIRE_THROWS_WITH(mck_quantize_cost(1e30, 1.0), Contains("cost / delta must be < 2^53"));
    REQUIRE_THROWS_WITH(mck_quantize_budget(1e30, 1e-3), Contains("budget / delta must be < 2^53"));
    // issue 13: at 2^53, k + 1 == k in double and the correction loop never ended
    REQUIRE_THROWS_WITH(mck_quantize_budget(9007199254740992.0, 1.0), Contains("budget / delta must be < 2^53"));
    REQUIRE_THROWS_WITH(mck_quantize_cost(9007199254740992.0, 1.0), Contains("cost / delta must be < 2^53"));
    REQUIRE(mck_quantize_budget(9007199254740000.0, 1.0) == 9007199254740000);
    // issue 13: values whose sum overflows to inf are refused (the DP sum would print null)
    REQUIRE_THROWS_WITH(solve_mck(mck_groups<double>{{{1e308, 0}}, {{1e308, 0}}}, 1),
                        Contains("nsc::solve_mck: the sum over groups of the largest |value| must be finite"));
    REQUIRE(*solve_mck(mck_groups<double>{{{1e307, 0}}, {{1e307, 0}}}, 1).best(1) == 2e307);
    const nsc::search::mck_real_groups<double> g{{{1.0, 0.5}, {2.0, -0.5}}};
    REQUIRE_THROWS_WITH(checked_solve_mck(g, 1.0, 0.1), Contains("nsc::mck_quantize"));
  }
  SECTION("merge_fronts and solve_outer") {
    using P = pareto_point<double>;
    std::vector<std::vector<P>> fronts{{P{0, 1.0, {}}}, {P{1, std::nan(""), {}}}};
    REQUIRE_THROWS_WITH(nsc::search::merge_fronts(fronts),
                        Contains("nsc::merge_fronts") && Contains("NaN"));
    using I = nsc::search::mck_instance<double>;
    const std::vector<int> outer{0, 1};
    REQUIRE_THROWS_WITH(nsc::search::solve_outer(outer, [](int) { return I{}; }, -1),
                        Contains("nsc::solve_outer") && Contains("budget must be >= 0"));
    REQUIRE_THROWS_WITH(
        nsc::search::solve_outer(outer, [](int o) { return I{{}, o == 1 ? -5 : 0, 0.0}; }, 10),
        Contains("nsc::solve_outer") && Contains("fixed_cost must be >= 0") &&
            Contains("outer configuration 1"));
    REQUIRE_THROWS_WITH(
        nsc::search::solve_outer(outer,
                                 [](int) { return I{{}, 0, std::numeric_limits<double>::infinity()}; },
                                 10),
        Contains("nsc::solve_outer") && Contains("fixed_value must be finite"));
    // A malformed instance is reported even when its fixed cost alone exceeds the budget.
    REQUIRE_THROWS_WITH(
        nsc::search::solve_outer(outer, [](int) { return I{mck_groups<double>(1), 100, 0.0}; }, 10),
        Contains("nsc::solve_mck") && Contains("at least one option"));
    using J = nsc::search::mck_instance<i64>;
    const i64 big = std::numeric_limits<i64>::max() / 2 + 1;
    REQUIRE_THROWS_WITH(
        nsc::search::solve_outer(outer, [&](int) { return J{{{{big, 0}}}, 0, big}; }, 10),
        Contains("must fit in the value type"));
  }
}

TEST_CASE("other value types: cpp_bin_float_50, long double, ranges of ranges",
          "[mck][generic]") {
  using boost::multiprecision::cpp_bin_float_50;
  SECTION("cpp_bin_float_50 against brute force") {
    std::mt19937_64 rng(50);
    for (int trial = 0; trial < 40; ++trial) {
      const auto groups = random_groups<cpp_bin_float_50>(rng, [](std::mt19937_64& r) {
        return cpp_bin_float_50(uniform(r, -20, 20)) / 3;  // thirds: not exact in binary
      });
      const i64 budget = uniform(rng, 0, max_total_cost(groups) + 2);
      check_against_brute(groups, budget, checked_solve_mck(groups, budget), trial % 4 == 0);
    }
    const mck_groups<cpp_bin_float_50> nan_value{{{cpp_bin_float_50(std::numeric_limits<double>::quiet_NaN()), 0}}};
    REQUIRE_THROWS_WITH(checked_solve_mck(nan_value, 0), Contains("values must be finite"));
    const mck_groups<cpp_bin_float_50> inf_value{{{std::numeric_limits<cpp_bin_float_50>::infinity(), 0}}};
    REQUIRE_THROWS_WITH(checked_solve_mck(inf_value, 0), Contains("values must be finite"));
  }
  SECTION("long double") {
    std::mt19937_64 rng(51);
    for (int trial = 0; trial < 100; ++trial) {
      const auto groups = random_groups<long double>(rng, [](std::mt19937_64& r) {
        return static_cast<long double>(double_value(r));
      });
      const i64 budget = uniform(rng, 0, max_total_cost(groups) + 2);
      check_against_brute(groups, budget, checked_solve_mck(groups, budget), false);
    }
  }
  SECTION("an array of spans") {
    const std::vector<mck_option<i64>> a{{1, 0}, {4, 2}};
    const std::vector<mck_option<i64>> b{{2, 1}, {3, 3}};
    const std::array<std::span<const mck_option<i64>>, 2> groups{a, b};
    const auto r = checked_solve_mck(groups, 5);
    const auto s = checked_solve_mck(mck_groups<i64>{a, b}, 5);
    for (i64 x = 0; x <= 5; ++x) REQUIRE(r.choice(x) == s.choice(x));
    REQUIRE(*r.best(5) == 7);
  }
}

TEST_CASE("merge_fronts is the upper envelope, earlier fronts win exact ties", "[pareto]") {
  using Tag = std::pair<std::size_t, std::size_t>;  // (front, position)
  using P = pareto_point<i64, Tag>;
  std::mt19937_64 rng(2718);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<std::vector<P>> fronts(static_cast<std::size_t>(uniform(rng, 0, 4)));
    for (std::size_t f = 0; f < fronts.size(); ++f) {
      const i64 n = uniform(rng, 0, 5);
      for (i64 i = 0; i < n; ++i) {
        fronts[f].push_back(
            P{uniform(rng, 0, 12), uniform(rng, -3, 6), Tag{f, static_cast<std::size_t>(i)}});
      }
    }
    const auto merged = nsc::search::merge_fronts(fronts);
    // Brute force: scan budgets; a point enters when the best value strictly increases; it
    // is the (front, position)-smallest point with that cost and value.
    std::vector<P> want;
    for (i64 b = 0; b <= 12; ++b) {
      std::optional<P> pick;
      for (const auto& f : fronts) {
        for (const auto& p : f) {
          if (p.cost != b) continue;
          if (!pick || pick->value < p.value ||
              (pick->value == p.value && p.tag < pick->tag)) {
            pick = p;
          }
        }
      }
      if (pick && (want.empty() || want.back().value < pick->value)) want.push_back(*pick);
    }
    INFO("trial " << trial);
    REQUIRE(merged.size() == want.size());
    for (std::size_t i = 0; i < merged.size(); ++i) {
      REQUIRE(merged[i].cost == want[i].cost);
      REQUIRE(merged[i].value == want[i].value);
      REQUIRE(merged[i].tag == want[i].tag);
    }
    for (i64 b = -1; b <= 13; ++b) {
      std::optional<i64> best;
      for (const auto& f : fronts) {
        for (const auto& p : f) {
          if (p.cost <= b && (!best || *best < p.value)) best = p.value;
        }
      }
      const auto* p = nsc::search::best_within(merged, b);
      REQUIRE((p != nullptr) == best.has_value());
      if (p) REQUIRE(p->value == *best);
    }
  }
}

TEST_CASE("solve_outer equals brute force over the outer x inner product", "[pareto][outer]") {
  using I = nsc::search::mck_instance<i64>;
  std::mt19937_64 rng(161803);
  for (int trial = 0; trial < 400; ++trial) {
    // Outer configurations: e.g. (depth, width); each builds its own groups.
    std::vector<I> built(static_cast<std::size_t>(uniform(rng, 0, 4)));
    for (auto& inst : built) {
      inst.groups = random_groups<i64>(rng, int_value, {3, 3, 4});
      inst.fixed_cost = uniform(rng, 0, 8);
      inst.fixed_value = uniform(rng, -3, 3);
    }
    std::vector<std::size_t> outer(built.size());
    for (std::size_t i = 0; i < outer.size(); ++i) outer[i] = i;
    const i64 budget = uniform(rng, 0, 30);
    INFO("trial " << trial << ", budget " << budget);
    std::size_t builds = 0;
    const auto res = nsc::search::solve_outer(
        outer, [&](std::size_t o) { ++builds; return built[o]; }, budget);
    REQUIRE(builds == outer.size());

    // Brute force: every (outer, selection) pair.
    struct entry {
      i64 cost;
      i64 value;
      std::size_t outer;
    };
    std::vector<entry> all;
    for (std::size_t o = 0; o < built.size(); ++o) {
      for_each_selection(built[o].groups, [&](const std::vector<std::size_t>& ch) {
        all.push_back(entry{built[o].fixed_cost + selection_cost(built[o].groups, ch),
                            built[o].fixed_value + selection_value(built[o].groups, ch), o});
      });
    }
    std::optional<i64> running;
    std::size_t point = 0;
    for (i64 b = 0; b <= budget; ++b) {
      std::optional<i64> best;
      for (const auto& e : all) {
        if (e.cost <= b && (!best || *best < e.value)) best = e.value;
      }
      const auto* p = nsc::search::best_within(res.front, b);
      REQUIRE((p != nullptr) == best.has_value());
      if (!p) continue;
      REQUIRE(p->value == *best);
      REQUIRE(p->cost <= b);
      // The tag reconstructs the point.
      const auto& inst = built[p->tag.outer];
      REQUIRE(inst.fixed_cost + selection_cost(inst.groups, p->tag.choice) == p->cost);
      REQUIRE(inst.fixed_value + selection_value(inst.groups, p->tag.choice) == p->value);
      if (!running || *running < *best) {
        // A new front point: smallest cost, earliest outer configuration on exact ties.
        REQUIRE(p->cost == b);
        std::size_t first_outer = built.size();
        for (const auto& e : all) {
          if (e.cost == b && e.value == *best) first_outer = std::min(first_outer, e.outer);
        }
        REQUIRE(p->tag.outer == first_outer);
        REQUIRE(&res.front[point] == p);
        ++point;
        running = best;
      }
    }
    REQUIRE(point == res.front.size());
    REQUIRE(res.best.has_value() == !res.front.empty());
    if (res.best) {
      REQUIRE(res.best->cost == res.front.back().cost);
      REQUIRE(res.best->value == res.front.back().value);
      REQUIRE(res.best->tag.choice == res.front.back().tag.choice);
    }
  }
}

// Hidden from the per-test-case ctest entries (each runs one case in its own process, where the
// counter is 0): ctest runs it as `test_multiple_choice_knapsack "*,[count]"`, i.e. after every
// other case of this file in the same process (Catch runs cases in declaration order; this one is
// last), see tests/CMakeLists.txt.
TEST_CASE("every solve_mck instance of this file went through solve_mmck too", "[.][count]") {
  REQUIRE(cross_checked > 9000);
}
