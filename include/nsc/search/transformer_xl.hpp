/// \file nsc/search/transformer_xl.hpp
/// NSC-DP on the paper's Transformer-XL space (reference-conventions.md, "The searches").
///
/// Synopsis
/// --------
///     auto r = nsc::search::search_transformer_xl();              // the paper's space and band
///     r.best->d_model, r.best->d_inner, r.best->params, r.best->nsc
///     search_transformer_xl(space, {.front = true}).front          // merged Pareto front
///
/// Description
/// -----------
/// Outer enumeration over d_model x n_layer (d in {128, ..., 1024}, L in {12, 14, 16, 18} for
/// presets::transformer_xl_reference_search_space()); for each pair one multiple-choice knapsack
/// with L identical groups, one option per d_inner value (21 values): value
/// presets::transformer_xl_search_layer_score(d, d_inner) (psi_.02, merged QKV), cost
/// presets::transformer_xl_search_layer_params(d, d_inner), i.e. the search's own count
/// L (4 d^2 + 9 d) + sum_l d_inner_l (2 d + 1). The layer scores are tabulated once per
/// (d, d_inner) and reused for every L.
///
/// The budget is a band [ceil(B (1 - t)), floor(B (1 + t))] (38.4M +- 5%): each DP is solved up
/// to the band's top and its exact-cost table answers "best selection whose cost lies in the
/// band" (mck_result::best_in_band). Outer configurations that cannot reach the band are
/// skipped (no DP). Without the front, configurations are visited in descending order of an
/// upper bound (the LP relaxation: L times the concave envelope of the layer options' (params,
/// NSC) points at the average budget per layer) and a configuration whose bound is below the
/// incumbent is skipped too (branch and bound; exact: no selection of it can win).
///
/// With `front`, the front of every DP (best NSC for every budget up to the band's top) is
/// shifted into total units and the fronts are merged across outer configurations
/// (merge_fronts): the NSC-optimal architecture for every parameter budget <= floor(B (1 + t)).
///
/// Tie-breaking (deterministic): outer configurations are numbered d-major in the space's order
/// (d_model list, then n_layer list) and the lower number wins an exact tie in NSC, whatever
/// order they are visited in; inside a DP
/// the lowest d_inner index wins an exact tie at a cell and the band answer is the smallest exact
/// cost achieving the best value. Layers are identical groups, so permutations of one multiset
/// score the same (up to the order of floating additions): compare multisets, not orders.
///
/// Known answer (tests): d = 512, L = 18, d_inner = 1152 in every layer, 40,211,712 params,
/// NSC 12391.756.
///
/// Complexity: |d| |d_inner| layer scores (4 psi each) and, per outer configuration,
/// O(L * W * 21) with W <= L * 28 + 1 cells (costs reduced by 128 (2 d + 1)).
#ifndef NSC_SEARCH_TRANSFORMER_XL_HPP
#define NSC_SEARCH_TRANSFORMER_XL_HPP

#include <nsc/error_handling.hpp>
#include <nsc/presets/transformer_xl.hpp>
#include <nsc/search/common.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>
#include <nsc/search/pareto.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace nsc::search {

/// One Transformer-XL of the search with its exact parameter count and NSC (search convention).
struct transformer_xl_candidate {
  std::int64_t d_model = 0;
  std::vector<std::int64_t> d_inner; ///< one per layer (n_layer = size)
  std::int64_t params = 0;           ///< presets::transformer_xl_search_params
  double nsc = 0;                    ///< presets::transformer_xl_search_nsc
  std::size_t n_layer() const noexcept { return d_inner.size(); }
  presets::transformer_xl_search_arch arch() const { return {d_model, d_inner}; }
};

/// Settings of search_transformer_xl.
struct transformer_xl_search_settings {
  /// Also compute the merged Pareto front (NSC against params) for every budget up to the
  /// band's top (runs the DP of every configuration whose cheapest member fits).
  bool front = false;
  /// Knapsack settings (memory cap). The pruning is always mck_pruning::same_cost: the band
  /// query needs the exact-cost table.
  mck_settings mck{};
};

/// Outcome of search_transformer_xl.
struct transformer_xl_search_result {
  std::int64_t band_lo = 0; ///< ceil(budget (1 - tolerance))
  std::int64_t band_hi = 0; ///< floor(budget (1 + tolerance))
  /// The NSC-optimal architecture whose params lie in [band_lo, band_hi]; nullopt if none.
  std::optional<transformer_xl_candidate> best;
  /// With settings.front: ascending params and strictly ascending NSC, params <= band_hi.
  std::vector<transformer_xl_candidate> front;
  search_stats stats;
};

namespace detail {

inline void check_txl_space(const presets::transformer_xl_search_space& s, std::string_view fn) {
  if (s.d_model.empty()) throw_invalid_argument(fn, "the space needs at least one d_model");
  if (s.n_layer.empty()) throw_invalid_argument(fn, "the space needs at least one n_layer");
  if (s.d_inner.empty()) throw_invalid_argument(fn, "the space needs at least one d_inner");
  for (std::int64_t d : s.d_model)
    if (d < 1) throw_invalid_argument(fn, "d_model values must be >= 1", d);
  for (std::int64_t l : s.n_layer)
    if (l < 1) throw_invalid_argument(fn, "n_layer values must be >= 1", l);
  for (std::int64_t f : s.d_inner)
    if (f < 1) throw_invalid_argument(fn, "d_inner values must be >= 1", f);
  if (s.d_inner.size() > 255)
    throw_invalid_argument(fn, "at most 255 d_inner values are supported", s.d_inner.size());
}

/// The candidate of `choice` (option index per layer); NSC and params summed from the layer
/// table in layer order, bitwise presets::transformer_xl_search_nsc / _params.
inline transformer_xl_candidate txl_candidate(std::int64_t d,
                                              const std::vector<std::int64_t>& d_inner_values,
                                              const std::vector<mck_option<double>>& table,
                                              const std::vector<std::size_t>& choice) {
  transformer_xl_candidate c;
  c.d_model = d;
  c.d_inner.reserve(choice.size());
  double v = 0;
  for (std::size_t j : choice) {
    c.d_inner.push_back(d_inner_values[j]);
    v += table[j].value;
    c.params += table[j].cost;
  }
  c.nsc = v;
  return c;
}

} // namespace detail

/// NSC-DP over a Transformer-XL search space (see the file comment). Errors:
/// std::invalid_argument "nsc::search::search_transformer_xl: ..." for an empty or non-positive
/// list, a budget that is not finite and > 0 or a tolerance outside [0, 1); the knapsack's
/// errors (memory cap). An empty band (nothing fits) is a result with best == nullopt.
inline transformer_xl_search_result search_transformer_xl(
    const presets::transformer_xl_search_space& space =
        presets::transformer_xl_reference_search_space(),
    const transformer_xl_search_settings& settings = {}) {
  constexpr std::string_view fn = "nsc::search::search_transformer_xl";
  detail::check_txl_space(space, fn);
  transformer_xl_search_result out;
  const auto [lo, hi] = integer_band(space.budget, space.tolerance, fn);
  out.band_lo = lo;
  out.band_hi = hi;
  mck_settings ms = settings.mck;
  ms.pruning = mck_pruning::same_cost;

  // Front points carry (position in `solved`, exact cost); choices are reconstructed only for
  // the points that survive the merge.
  struct tag {
    std::size_t solved;
    std::int64_t cost;
  };
  std::vector<std::vector<pareto_point<double, tag>>> fronts;
  std::vector<std::pair<std::size_t, mck_result<double>>> solved; // (d index, DP) with front
  struct incumbent {
    double value;
    std::size_t di;
    std::vector<std::size_t> choice;
  };
  std::optional<incumbent> best;

  // Per-d layer tables (scores and params of every d_inner), computed once and reused for
  // every n_layer.
  const std::size_t J = space.d_inner.size();
  std::vector<std::vector<mck_option<double>>> table(space.d_model.size());
  for (std::size_t di = 0; di < space.d_model.size(); ++di) {
    for (std::int64_t f : space.d_inner)
      table[di].push_back({presets::transformer_xl_search_layer_score(space.d_model[di], f),
                           presets::transformer_xl_search_layer_params(space.d_model[di], f)});
    out.stats.layer_scores += J;
  }
  struct config {
    std::size_t index, di;
    std::int64_t L, cheapest, dearest;
    double bound; ///< no selection of this configuration within the band top exceeds it
  };
  std::vector<config> configs;
  for (std::size_t di = 0; di < space.d_model.size(); ++di) {
    std::int64_t lo_layer = table[di][0].cost, hi_layer = table[di][0].cost;
    double top = table[di][0].value;
    for (const auto& o : table[di]) {
      lo_layer = std::min(lo_layer, o.cost);
      hi_layer = std::max(hi_layer, o.cost);
      top = std::max(top, o.value);
    }
    for (std::int64_t L : space.n_layer)
      configs.push_back({configs.size(), di, L, L * lo_layer, L * hi_layer,
                         std::min(double(L) * top * (1 + 1e-12),
                                  identical_groups_lp_bound(table[di], L, hi))});
  }
  // Band only: visit the most promising configurations first and skip those whose bound cannot
  // beat the incumbent (branch and bound; ties still go to the earlier configuration).
  std::vector<config> order = configs;
  if (!settings.front)
    std::stable_sort(order.begin(), order.end(),
                     [](const config& x, const config& y) { return y.bound < x.bound; });
  std::size_t best_index = 0;
  for (const config& c : order) {
    ++out.stats.outer_configs;
    if (c.cheapest > hi || (!settings.front && c.dearest < lo)) {
      ++out.stats.skipped;
      continue;
    }
    if (!settings.front && best && c.bound < best->value) {
      ++out.stats.bounded;
      continue;
    }
    const mck_groups<double> groups(static_cast<std::size_t>(c.L), table[c.di]);
    mck_result<double> r = solve_mck(groups, hi, ms);
    out.stats.add(r, groups);
    if (const auto p = r.best_in_band(lo, hi)) {
      if (!best || best->value < p->value || (best->value == p->value && c.index < best_index)) {
        best = incumbent{p->value, c.di, *r.choice_exact(p->cost)};
        best_index = c.index;
      }
    }
    if (settings.front) {
      std::vector<pareto_point<double, tag>> f;
      for (const auto& p : r.front()) f.push_back({p.cost, p.value, tag{solved.size(), p.cost}});
      fronts.push_back(std::move(f));
      solved.emplace_back(c.di, std::move(r));
    }
  }
  if (best)
    out.best = detail::txl_candidate(space.d_model[best->di], space.d_inner, table[best->di],
                                     best->choice);
  if (settings.front) {
    for (const auto& p : merge_fronts(std::move(fronts))) {
      const auto& [di, r] = solved[p.tag.solved];
      out.front.push_back(detail::txl_candidate(space.d_model[di], space.d_inner, table[di],
                                                *r.choice(p.tag.cost)));
    }
  }
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_TRANSFORMER_XL_HPP
