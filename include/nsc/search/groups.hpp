/// \file nsc/search/groups.hpp
/// The generic NSC-DP: named groups of named options whose values and costs the caller supplies
/// directly (e.g. from a SPACE.json, nsc/io/search_space.hpp). Exactly one option per group;
/// maximise the sum of values subject to the sum of costs <= budget.
///
/// Synopsis
/// --------
///     std::vector<nsc::search::named_group> g = {{"layer0", {{"small", 1.0, 10}, {"big", 1.5, 20}}}, ...};
///     auto r = nsc::search::search_groups(g, {.budget = 50, .front = true});
///     r.best->choice, r.best->value, r.best->cost, r.front
///
/// Costs are real numbers >= 0 on a grid of resolution `resolution` (default 1): each cost is
/// rounded UP to the grid and the budget DOWN (mck_quantize_cost / _budget), so every answer is
/// feasible in real units; with costs that are multiples of the resolution (integers for the
/// default) the answer is exactly optimal, otherwise its gap is bounded as in solve_mck(real).
/// Values are summed in group order from 0 (bitwise the DP's sum).
/// Tie-breaking: lowest option index at a DP cell, cheapest grid cost reaching the best value.
#ifndef NSC_SEARCH_GROUPS_HPP
#define NSC_SEARCH_GROUPS_HPP

#include <nsc/error_handling.hpp>
#include <nsc/search/common.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>
#include <nsc/search/pareto.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::search {

/// One option: a name, its value (score) and its real cost (>= 0).
struct named_option {
  std::string name;
  double value = 0;
  double cost = 0;
};

/// One group: a name and its options (at least one).
struct named_group {
  std::string name;
  std::vector<named_option> options;
};

/// Settings of search_groups.
struct groups_search_settings {
  std::optional<double> budget; ///< upper bound on the cost sum; nullopt: unconstrained
  double resolution = 1;        ///< cost grid (> 0)
  bool front = false;           ///< also return the Pareto front up to the budget
  mck_settings mck{};
};

/// One selection.
struct groups_candidate {
  std::vector<std::size_t> choice; ///< option index per group
  double value = 0;                ///< sum of the chosen values, group order
  double cost = 0;                 ///< sum of the chosen real costs
  std::int64_t grid_cost = 0;      ///< sum of the rounded-up costs, in units of the resolution
};

/// Outcome of search_groups.
struct groups_search_result {
  std::optional<groups_candidate> best; ///< nullopt: the budget is below the cheapest selection
  std::vector<groups_candidate> front;  ///< ascending cost, strictly ascending value
  std::int64_t grid_budget = 0;         ///< the budget in grid units (floor)
  search_stats stats;
};

/// Solves the instance (see the file comment). Errors: std::invalid_argument
/// "nsc::search::search_groups: group <i> '<name>'[, option <j> '<name>']: <rule> (got <v>)" for an
/// empty group, a non-finite value, a negative or non-finite cost, a resolution that is not finite and
/// > 0, a budget that is not finite and >= 0; the knapsack's errors (memory cap).
inline groups_search_result search_groups(const std::vector<named_group>& groups,
                                          const groups_search_settings& s = {}) {
  constexpr std::string_view fn = "nsc::search::search_groups";
  if (!(std::isfinite(s.resolution) && s.resolution > 0))
    throw_invalid_argument(fn, "resolution must be finite and > 0", s.resolution);
  auto where = [](const named_group& g, std::size_t gi, const named_option* o, std::size_t oi) {
    std::string w = "group " + std::to_string(gi) + (g.name.empty() ? "" : " '" + g.name + "'");
    if (o) w += ", option " + std::to_string(oi) + (o->name.empty() ? "" : " '" + o->name + "'");
    return w;
  };
  mck_groups<double> inst(groups.size());
  std::int64_t reachable = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].options.empty())
      throw_invalid_argument(fn, where(groups[g], g, nullptr, 0) + ": a group needs at least one option");
    if (groups[g].options.size() > 65535)
      throw_invalid_argument(fn, where(groups[g], g, nullptr, 0) + ": at most 65535 options per group",
                             groups[g].options.size());
    std::int64_t largest = 0;
    for (std::size_t j = 0; j < groups[g].options.size(); ++j) {
      const named_option& o = groups[g].options[j];
      if (!std::isfinite(o.value))
        throw_invalid_argument(fn, where(groups[g], g, &o, j) + ": value must be finite", o.value);
      if (!(std::isfinite(o.cost) && o.cost >= 0))
        throw_invalid_argument(fn, where(groups[g], g, &o, j) + ": cost must be finite and >= 0",
                               o.cost);
      const std::int64_t c = mck_quantize_cost(o.cost, s.resolution);
      inst[g].push_back({o.value, c});
      largest = std::max(largest, c);
    }
    reachable += largest;
  }
  groups_search_result out;
  out.stats.outer_configs = 1;
  if (s.budget && !(std::isfinite(*s.budget) && *s.budget >= 0))
    throw_invalid_argument(fn, "budget must be finite and >= 0", *s.budget);
  out.grid_budget = s.budget ? mck_quantize_budget(*s.budget, s.resolution) : reachable;
  const mck_result<double> r = solve_mck(inst, out.grid_budget, s.mck);
  out.stats.add(r, inst);
  auto make = [&](const std::vector<std::size_t>& choice) {
    groups_candidate c;
    c.choice = choice;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      c.value = c.value + groups[g].options[choice[g]].value;
      c.cost += groups[g].options[choice[g]].cost;
      c.grid_cost += inst[g][choice[g]].cost;
    }
    return c;
  };
  if (const auto ch = r.choice(out.grid_budget)) out.best = make(*ch);
  if (s.front)
    for (const auto& p : r.front()) out.front.push_back(make(*r.choice(p.cost)));
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_GROUPS_HPP
