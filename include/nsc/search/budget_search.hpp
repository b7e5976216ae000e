/// \file nsc/search/budget_search.hpp
/// Several named budgets over one set of groups: the glue between a space (groups of options
/// with K named integer costs) and solve_mmck / k_best, shared by search_groups_budgets
/// (groups.hpp) and search_transformer_space (transformer_space.hpp).
///
///     auto r = nsc::search::search_budgets(groups, {std::nullopt, 4096}, {.front = true});
///     r.best->choice, r.best->value, r.best->cost     // cost: one total per dimension
///     r.front (the Pareto set), r.top (k best), r.budget (the vector solved), r.info
///
/// A dimension without a limit (nullopt) gets the sum of its largest costs (every selection
/// fits, so it constrains nothing). Limits above that sum are clamped to it (so a budget of
/// 2^63 - 1 is no harder than the reachable total). Without `front` the solve is single_budget
/// (the Lagrangian bound may prune); with it, every budget vector up to the solved one is answered
/// and the whole Pareto set returned.
#ifndef NSC_SEARCH_BUDGET_SEARCH_HPP
#define NSC_SEARCH_BUDGET_SEARCH_HPP

#include <nsc/error_handling.hpp>
#include <nsc/search/k_best.hpp>
#include <nsc/search/multi_knapsack.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::search {

/// Settings of search_budgets.
struct budget_search_settings {
  bool front = false;             ///< also return the Pareto set (every budget vector <= B)
  std::size_t top = 0;            ///< also return the `top` best selections (0: none; <= 1000)
  std::size_t min_distance = 0;   ///< Hamming distance between the top selections
  /// > 0: an epsilon-front (solve_mmck_front: in-DP trimming, then an epsilon-cover): every
  /// selection x with (1 + eps) cost_k(x) <= B_k has a listed one within (1 + eps) in each cost
  /// with >= its value. 0: the exact set when it is solved within front_exact_work and listed
  /// within mmck.max_table_bytes, otherwise the first epsilon of 0.01, 0.05, 0.2, 1 that fits.
  double front_epsilon = 0;
  /// Work cap (DP candidates) of the exact front attempt (0: none); mmck.max_work if smaller.
  std::uint64_t front_exact_work = 100000000;
  mmck_settings mmck{};
  /// top: false (default) lists the k best up to permuting identical groups (k_best's ties: one
  /// selection per multiset, top_orderings its count); true: every position assignment.
  bool positions = false;
};

/// One selection.
template <class Value>
struct budget_selection {
  std::vector<std::size_t> choice;  ///< option index per group
  Value value{};
  std::vector<std::int64_t> cost;   ///< total per dimension
};

/// Outcome of search_budgets.
template <class Value>
struct budget_search_result {
  std::optional<budget_selection<Value>> best;  ///< nullopt: infeasible
  std::vector<budget_selection<Value>> front;   ///< Pareto set, lexicographic cost order
  std::vector<budget_selection<Value>> top;     ///< value descending
  std::vector<std::string> top_orderings;       ///< per top selection: count_orderings (decimal)
  std::size_t front_points = 0;                 ///< points the front's DP returned (exact: the Pareto set)
  double front_epsilon = 0;                     ///< the front's guarantee (0: exact; solve_mmck_front)
  double front_dp_epsilon = 0;                  ///< its in-DP trimming share
  std::string front_exact_refusal;              ///< why the exact set is not listed (empty: it is)
  double front_exact_seconds = 0;               ///< time spent on the exact attempt first
  std::vector<std::int64_t> budget;             ///< the vector solved (limits, clamped)
  mmck_info info;                               ///< the best's solve
  mmck_info front_info;                         ///< the front's DP
};

/// The per-dimension sum of the groups' largest costs, saturated at INT64_MAX.
template <class Value>
std::vector<std::int64_t> budget_reachable(const mmck_groups<Value>& groups, std::size_t K) {
  std::vector<std::int64_t> out(K, 0);
  for (const auto& g : groups) {
    for (std::size_t k = 0; k < K; ++k) {
      std::int64_t m = 0;
      for (const auto& o : g) m = std::max(m, o.cost.at(k));
      out[k] = detail::mck_saturating_add(out[k], m);
    }
  }
  return out;
}

/// Solves the instance under `limits` (one per dimension; see the file comment).
/// Errors: std::invalid_argument "nsc::search::search_budgets: ..." for a negative limit, and
/// those of solve_mmck / k_best.
template <mck_value Value>
budget_search_result<Value> search_budgets(const mmck_groups<Value>& groups,
                                           const std::vector<std::optional<std::int64_t>>& limits,
                                           const budget_search_settings& s = {}) {
  constexpr std::string_view fn = "nsc::search::search_budgets";
  const std::size_t K = limits.size();
  budget_search_result<Value> out;
  const auto reach = budget_reachable(groups, K);
  out.budget.resize(K);
  for (std::size_t k = 0; k < K; ++k) {
    if (limits[k] && *limits[k] < 0) throw_invalid_argument(fn, "budgets must be >= 0", *limits[k]);
    out.budget[k] = limits[k] ? std::min(*limits[k], reach[k]) : reach[k];
  }
  mmck_settings ms = s.mmck;
  ms.single_budget = !s.front;
  const std::size_t per = (groups.size() + K) * 8 + sizeof(Value) + 96;
  std::optional<mmck_front_solution<Value>> fs;
  if (s.front)
    fs = solve_mmck_front(groups, out.budget, s.mmck, s.front_epsilon, per, s.mmck.max_table_bytes, s.front_exact_work, fn);
  std::optional<mmck_result<Value>> single;  // the best: from an exact front, else one exact query
  if (!fs || fs->epsilon > 0) {
    ms.single_budget = true;
    single = solve_mmck(groups, out.budget, ms);
  }
  const mmck_result<Value>& r = single ? *single : fs->result;
  out.info = r.info();
  auto make = [&](const std::vector<std::size_t>& ch, const Value& v) {
    budget_selection<Value> x;
    x.choice = ch;
    x.value = v;
    x.cost.assign(K, 0);
    for (std::size_t g = 0; g < groups.size(); ++g)
      for (std::size_t k = 0; k < K; ++k) x.cost[k] += groups[g][ch[g]].cost[k];  // <= budget
    return x;
  };
  if (const auto ch = r.choice(out.budget)) out.best = make(*ch, *r.best(out.budget));
  if (fs) {
    const mmck_result<Value>& fr = fs->result;
    mmck_front_summary(out, *fs);
    for (std::size_t i : fs->listing) out.front.push_back(make(fr.front_choice(i), fr.front()[i].value));
  }
  if (s.top > 0) {
    k_best_settings ks;
    ks.k = s.top;
    ks.min_distance = s.min_distance;
    ks.mmck = s.mmck;
    ks.positions = s.positions;
    const auto classes = identical_classes(groups);
    for (auto& t : k_best(groups, out.budget, ks)) {
      out.top_orderings.push_back(count_orderings(classes, t.choice));
      out.top.push_back({t.choice, t.value, t.cost});
    }
  }
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_BUDGET_SEARCH_HPP
