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
///     // several named costs per option (named_option::costs) and one budget per name:
///     auto m = nsc::search::search_groups_budgets(g, {.cost_names = {"kv_bytes", "params"},
///                                                     .budgets = {3072, 6e6}});
///     m.best->costs, m.front (Pareto set), m.top (k best), m.info.describe()
///
/// Costs are real numbers >= 0 on a grid of resolution `resolution` (default 1): each cost is
/// rounded UP to the grid and the budget DOWN (mck_quantize_cost / _budget), so every answer is
/// feasible in real units; with costs that are multiples of the resolution (integers for the
/// default) the answer is exactly optimal, otherwise its gap is bounded as in solve_mck(real).
/// Values are summed in group order from 0 (bitwise the DP's sum).
/// Tie-breaking: lowest option index at a DP cell, cheapest grid cost reaching the best value.
#ifndef NSC_SEARCH_GROUPS_HPP
#define NSC_SEARCH_GROUPS_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/search/budget_search.hpp>
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

/// One option: a name, its value (score) and its real cost (>= 0), or several named costs.
struct named_option {
  std::string name;
  double value = 0;
  double cost = 0;
  /// Several budgets (search_groups_budgets): one cost per cost name; empty: {cost}.
  std::vector<double> costs{};
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
    reachable = nsc::detail::checked_add(reachable, largest, fn, "the largest total grid cost");
  }
  groups_search_result out;
  out.stats.outer_configs = 1;
  if (s.budget && !(std::isfinite(*s.budget) && *s.budget >= 0))
    throw_invalid_argument(fn, "budget must be finite and >= 0", *s.budget);
  // A budget at or above every selection's cost constrains nothing: clamp it to the reachable
  // total instead of quantising it (budgets of 2^53 and more once hung mck_quantize_budget).
  const bool unconstrained =
      !s.budget || (long double)*s.budget >= (long double)s.resolution * (long double)reachable;
  out.grid_budget = unconstrained ? reachable : mck_quantize_budget(*s.budget, s.resolution);
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

/// Settings of search_groups_budgets.
struct groups_budgets_settings {
  std::vector<std::string> cost_names{"cost"};  ///< K names (each option has K costs)
  std::vector<std::optional<double>> budgets{};  ///< one per name (shorter: the rest unlimited)
  double resolution = 1;                         ///< cost grid (> 0), every dimension
  budget_search_settings search{};               ///< front, top, min_distance, engine settings
};

/// One selection under several budgets.
struct groups_budgets_candidate {
  std::vector<std::size_t> choice;     ///< option index per group
  double value = 0;                    ///< the chosen values summed in group order from 0
  std::vector<double> costs;           ///< per name: the sum of the chosen real costs
  std::vector<std::int64_t> grid_costs;///< per name: the sum of the rounded-up costs
};

/// Outcome of search_groups_budgets.
struct groups_budgets_result {
  std::optional<groups_budgets_candidate> best;  ///< nullopt: infeasible
  std::vector<groups_budgets_candidate> front;   ///< the Pareto set (with search.front)
  std::vector<groups_budgets_candidate> top;     ///< the k best (with search.top)
  std::vector<std::string> top_orderings;        ///< per top entry: count_orderings (decimal)
  std::vector<std::int64_t> grid_budget;         ///< per name, grid units (clamped to reachable)
  mmck_info info;
  double front_epsilon = 0;                      ///< the front's guarantee (0: exact; solve_mmck_front)
};

/// Named groups under K named budgets at once (search_groups for several costs): each option's
/// costs (named_option::costs, or {cost} when K = 1) are rounded UP to the grid, each budget DOWN
/// (a budget at or above the reachable total is unlimited), so every answer is feasible in real
/// units; exact for costs on the grid. The engine is solve_mmck (see multi_knapsack.hpp for the
/// algorithm choice and the tie rule) through search_budgets.
/// Errors: std::invalid_argument "nsc::search::search_groups_budgets: group <i> '<name>'[, option
/// <j> '<name>']: <rule> (got <v>)" as search_groups, plus "needs <K> costs (<names>)" and a
/// budget that is not finite and >= 0 (naming the cost); the engine's (memory caps).
inline groups_budgets_result search_groups_budgets(const std::vector<named_group>& groups,
                                                   const groups_budgets_settings& s) {
  constexpr std::string_view fn = "nsc::search::search_groups_budgets";
  const std::size_t K = s.cost_names.size();
  if (K < 1 || K > mmck_max_dims)
    throw_invalid_argument(fn, "needs 1 to " + std::to_string(mmck_max_dims) + " cost names", K);
  if (s.budgets.size() > K) throw_invalid_argument(fn, "more budgets than cost names", s.budgets.size());
  if (!(std::isfinite(s.resolution) && s.resolution > 0))
    throw_invalid_argument(fn, "resolution must be finite and > 0", s.resolution);
  std::string names;
  for (const auto& n : s.cost_names) names += (names.empty() ? "" : ", ") + n;
  mmck_groups<double> inst(groups.size());
  std::vector<std::int64_t> reachable(K, 0);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const named_group& grp = groups[g];
    const std::string gw = "group " + std::to_string(g) + (grp.name.empty() ? "" : " '" + grp.name + "'");
    if (grp.options.empty()) throw_invalid_argument(fn, gw + ": a group needs at least one option");
    std::vector<std::int64_t> largest(K, 0);
    for (std::size_t j = 0; j < grp.options.size(); ++j) {
      const named_option& o = grp.options[j];
      const std::string w = gw + ", option " + std::to_string(j) + (o.name.empty() ? "" : " '" + o.name + "'");
      if (!std::isfinite(o.value)) throw_invalid_argument(fn, w + ": value must be finite", o.value);
      const std::vector<double> cs = o.costs.empty() ? std::vector<double>{o.cost} : o.costs;
      if (cs.size() != K)
        throw_invalid_argument(fn, w + ": needs " + std::to_string(K) + " costs (" + names + ")", cs.size());
      mmck_option<double> x{o.value, std::vector<std::int64_t>(K)};
      for (std::size_t k = 0; k < K; ++k) {
        if (!(std::isfinite(cs[k]) && cs[k] >= 0))
          throw_invalid_argument(fn, w + ": cost '" + s.cost_names[k] + "' must be finite and >= 0", cs[k]);
        x.cost[k] = mck_quantize_cost(cs[k], s.resolution);
        largest[k] = std::max(largest[k], x.cost[k]);
      }
      inst[g].push_back(std::move(x));
    }
    for (std::size_t k = 0; k < K; ++k)
      reachable[k] = nsc::detail::checked_add(reachable[k], largest[k], fn,
                                              "the largest total grid cost '" + s.cost_names[k] + "'");
  }
  std::vector<std::optional<std::int64_t>> limits(K);
  for (std::size_t k = 0; k < s.budgets.size(); ++k) {
    if (!s.budgets[k]) continue;
    const double b = *s.budgets[k];
    if (!(std::isfinite(b) && b >= 0))
      throw_invalid_argument(fn, "budget '" + s.cost_names[k] + "' must be finite and >= 0", b);
    if ((long double)b >= (long double)s.resolution * (long double)reachable[k]) continue;  // unlimited
    limits[k] = mck_quantize_budget(b, s.resolution);
  }
  // ties: groups identical on the cost grid but not in their real costs are not interchangeable
  // (their totals differ): then positions count
  budget_search_settings bs = s.search;
  bool forced = false;
  for (const auto& c : identical_classes(inst))
    for (std::size_t i = 1; i < c.size() && !bs.positions; ++i)
      for (std::size_t j = 0; j < groups[c[0]].options.size(); ++j) {
        const named_option &a = groups[c[0]].options[j], &b = groups[c[i]].options[j];
        if (a.cost != b.cost || a.costs != b.costs) bs.positions = forced = true;
      }
  const auto r = search_budgets(inst, limits, bs);
  groups_budgets_result out;
  out.grid_budget = r.budget;
  out.info = r.info;
  out.front_epsilon = r.front_epsilon;
  auto make = [&](const budget_selection<double>& x) {
    groups_budgets_candidate c;
    c.choice = x.choice;
    c.grid_costs = x.cost;
    c.costs.assign(K, 0);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const named_option& o = groups[g].options[x.choice[g]];
      c.value = c.value + o.value;
      for (std::size_t k = 0; k < K; ++k) c.costs[k] += o.costs.empty() ? o.cost : o.costs[k];
    }
    return c;
  };
  if (r.best) out.best = make(*r.best);
  for (const auto& x : r.front) out.front.push_back(make(x));
  for (const auto& x : r.top) out.top.push_back(make(x));
  out.top_orderings = forced ? std::vector<std::string>(out.top.size(), "1") : r.top_orderings;
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_GROUPS_HPP
