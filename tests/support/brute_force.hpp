// Brute-force helpers shared by the knapsack tests: every selection of one option per group, a
// uniform integer draw, and the K-budget references (totals, Pareto set, optimum with the stated
// tie rule) computed by enumeration only.
#ifndef NSC_TESTS_SUPPORT_BRUTE_FORCE_HPP
#define NSC_TESTS_SUPPORT_BRUTE_FORCE_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace nsc_test {

/// A uniform integer in [lo, hi].
inline std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

/// Calls fn(choice) for every selection of one option per group (groups[g].size() options each).
template <class Groups, class Fn>
void for_each_selection(const Groups& groups, Fn&& fn) {
  std::vector<std::size_t> choice(groups.size(), 0);
  while (true) {
    fn(choice);
    std::size_t g = 0;
    while (g < groups.size()) {
      if (++choice[g] < groups[g].size()) break;
      choice[g] = 0;
      ++g;
    }
    if (g == groups.size()) return;
  }
}

using cost_vector = std::vector<std::int64_t>;

/// J random options (Option{value, costs}) with K costs each: a cost is 0 with probability 1/4,
/// else uniform in [0, cmax]; values uniform in [-vmax / 4, vmax] (a small vmax: many ties).
template <class Option>
std::vector<Option> random_options(std::mt19937_64& rng, std::size_t K, std::size_t J, std::int64_t cmax,
                                   std::int64_t vmax) {
  std::vector<Option> o;
  for (std::size_t j = 0; j < J; ++j) {
    cost_vector c(K);
    for (auto& x : c) x = uniform(rng, 0, 3) == 0 ? 0 : uniform(rng, 0, cmax);
    o.push_back({uniform(rng, -vmax / 4, vmax), c});
  }
  return o;
}

/// A random budget vector for G groups: uniform in [0, G spread + 2] per dimension, or (1 in 4)
/// binding in one dimension only (the others 1000), or (1 in 4) tight (uniform in [0, G]).
inline cost_vector random_budget(std::mt19937_64& rng, std::size_t K, std::size_t G, std::int64_t spread) {
  cost_vector b(K);
  const int mode = int(uniform(rng, 0, 3));
  for (std::size_t k = 0; k < K; ++k) b[k] = uniform(rng, 0, std::int64_t(G) * spread + 2);
  if (mode == 0) {  // binds in one dimension only
    for (auto& x : b) x = 1000;
    b[std::size_t(uniform(rng, 0, std::int64_t(K) - 1))] = uniform(rng, 0, std::int64_t(G) * 4);
  } else if (mode == 1) {  // tight: often infeasible
    for (auto& x : b) x = uniform(rng, 0, std::int64_t(G));
  }
  return b;
}

/// The K totals of a selection of K-cost options (option.cost[k]).
template <class Groups>
cost_vector selection_cost(const Groups& g, const std::vector<std::size_t>& ch, std::size_t K) {
  cost_vector c(K, 0);
  for (std::size_t i = 0; i < g.size(); ++i)
    for (std::size_t k = 0; k < K; ++k) c[k] += g[i][ch[i]].cost[k];
  return c;
}

/// The summed value of a selection, in group order.
template <class Groups>
auto selection_value(const Groups& g, const std::vector<std::size_t>& ch) {
  decltype(g[0][0].value) v{};
  for (std::size_t i = 0; i < g.size(); ++i) v = v + g[i][ch[i]].value;
  return v;
}

/// c <= b componentwise.
inline bool fits_within(const cost_vector& c, const cost_vector& b) {
  for (std::size_t k = 0; k < c.size(); ++k)
    if (c[k] > b[k]) return false;
  return true;
}

/// Every selection's (cost, value) of an integer-valued K-cost instance.
template <class Groups>
std::vector<std::pair<cost_vector, std::int64_t>> all_totals(const Groups& g, std::size_t K) {
  std::vector<std::pair<cost_vector, std::int64_t>> out;
  for_each_selection(g, [&](const std::vector<std::size_t>& ch) {
    out.push_back({selection_cost(g, ch, K), std::int64_t(selection_value(g, ch))});
  });
  return out;
}

/// The optimum under b with the stated tie rule: the largest value, then the lexicographically
/// smallest cost vector; nullopt when nothing fits.
inline std::optional<std::pair<std::int64_t, cost_vector>> brute_optimum(
    const std::vector<std::pair<cost_vector, std::int64_t>>& all, const cost_vector& b) {
  std::optional<std::pair<std::int64_t, cost_vector>> best;
  for (const auto& [c, v] : all) {
    if (!fits_within(c, b)) continue;
    if (!best || best->first < v || (best->first == v && c < best->second)) best = {v, c};
  }
  return best;
}

/// The Pareto set within B: per distinct cost the best value, then no other point with cost <=
/// and value >=; ascending lexicographic cost.
inline std::vector<std::pair<cost_vector, std::int64_t>> brute_pareto(
    const std::vector<std::pair<cost_vector, std::int64_t>>& all, const cost_vector& B) {
  std::map<cost_vector, std::int64_t> best;
  for (const auto& [c, v] : all) {
    if (!fits_within(c, B)) continue;
    auto it = best.find(c);
    if (it == best.end() || it->second < v) best[c] = v;
  }
  std::vector<std::pair<cost_vector, std::int64_t>> out;
  for (const auto& [c, v] : best) {
    bool dom = false;
    for (const auto& [c2, v2] : best)
      if (c2 != c && fits_within(c2, c) && v2 >= v) dom = true;
    if (!dom) out.push_back({c, v});
  }
  return out;
}

} // namespace nsc_test

#endif
