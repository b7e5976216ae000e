/// \file nsc/search/common.hpp
/// What the architecture searches (transformer_xl.hpp, autoformer.hpp, lonas.hpp, nats_sss.hpp,
/// transformer_space.hpp, groups.hpp) share: work counters and budget conversions.
///
///     search_stats                 DP runs, cells, cell updates (the G * W * J work of each DP)
///     budget_floor(x, fn)          largest integer <= x (a real budget in integer units)
///     integer_band(centre, tol)    [ceil(c (1 - t)), floor(c (1 + t))] with a 1e-12 relative
///                                  guard, so 38.4e6 * 0.95 is 36,480,000 and not 36,480,001
///     identical_groups_lp_bound    LP-relaxation bound of L identical groups (branch and bound)
#ifndef NSC_SEARCH_COMMON_HPP
#define NSC_SEARCH_COMMON_HPP

#include <nsc/error_handling.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

namespace nsc::search {

/// Work done by a search, for reports and benchmarks. `cell_updates` is the number of
/// (group, cell, option) triples the knapsack recurrence visits, sum over DPs of G * W * J
/// (W the DP's cell count after its gcd / minimum-shift reductions, J the options per group):
/// the O(G B J) bound of math.md section 6 evaluated on the reduced instance.
struct search_stats {
  std::size_t outer_configs = 0; ///< outer configurations enumerated (depth, width, ...)
  std::size_t skipped = 0;       ///< outer configurations that cannot meet the budget (no DP)
  std::size_t bounded = 0;       ///< outer configurations skipped by a bound (cannot win; no DP)
  std::size_t dp_runs = 0;       ///< solve_mck calls (or chain DPs)
  std::uint64_t cells = 0;       ///< sum of the DPs' cell counts W
  std::uint64_t cell_updates = 0; ///< sum over DPs of sum_g W * J_g
  std::size_t layer_scores = 0;  ///< distinct per-layer (or per-part) scores computed (psi sums)
  std::size_t candidates = 0;    ///< architectures scored one by one (exhaustive searches)

  /// Adds one solved knapsack over `groups`.
  template <class Value>
  void add(const mck_result<Value>& r, const mck_groups<Value>& groups) {
    ++dp_runs;
    cells += r.cells();
    for (const auto& g : groups) cell_updates += std::uint64_t(r.cells()) * g.size();
  }

  search_stats& operator+=(const search_stats& o) {
    outer_configs += o.outer_configs;
    skipped += o.skipped;
    bounded += o.bounded;
    dp_runs += o.dp_runs;
    cells += o.cells;
    cell_updates += o.cell_updates;
    layer_scores += o.layer_scores;
    candidates += o.candidates;
    return *this;
  }
};

/// The largest integer <= x, for a real budget in integer cost units (exact: a double's value is
/// an exact rational, and 5.7e9 is exactly 5,700,000,000). No upward guard: an answer may never
/// cost more than its budget (a 1e-12 guard once turned 4,398,046,511,119 into ...123).
/// x must be finite and >= 0 and below 2^62; std::invalid_argument "<fn>: budget must be finite
/// and >= 0 (got x)".
inline std::int64_t budget_floor(double x, std::string_view fn) {
  if (!(std::isfinite(x) && x >= 0 && x < 0x1p62))
    throw_invalid_argument(fn, "budget must be finite, >= 0 and < 2^62", x);
  return static_cast<std::int64_t>(std::floor(x));
}

/// The integer band [ceil(centre (1 - tolerance)), floor(centre (1 + tolerance))] with the
/// same 1e-12 relative guard on both ends. Domain: centre finite > 0, tolerance in [0, 1).
inline std::pair<std::int64_t, std::int64_t> integer_band(double centre, double tolerance,
                                                          std::string_view fn) {
  if (!(std::isfinite(centre) && centre > 0 && centre < 0x1p61))
    throw_invalid_argument(fn, "the budget must be finite and > 0", centre);
  if (!(tolerance >= 0 && tolerance < 1))
    throw_invalid_argument(fn, "the tolerance must be in [0, 1)", tolerance);
  const double lo = centre * (1 - tolerance), hi = centre * (1 + tolerance);
  return {static_cast<std::int64_t>(std::ceil(lo - lo * 1e-12)),
          static_cast<std::int64_t>(std::floor(hi + hi * 1e-12))};
}

/// An upper bound on the best value of `L` (>= 1) identical groups of `options` with total
/// cost <= B:
/// the linear-programming relaxation, L times the upper concave envelope of the options'
/// (cost, value) points at the average cost B / L (every layer at the average is optimal for the
/// relaxation because the envelope is concave). -inf when even the cheapest option exceeds B / L.
/// Inflated by 1e-12 relative so that floating sums of real selections never exceed it.
inline double identical_groups_lp_bound(const std::vector<mck_option<double>>& options,
                                        std::int64_t L, std::int64_t B) {
  const double x = double(B) / double(L);
  double best = -std::numeric_limits<double>::infinity();
  for (const auto& a : options) {
    if (double(a.cost) <= x) best = std::max(best, a.value);
    for (const auto& b : options) {
      if (double(a.cost) <= x && x < double(b.cost)) {
        const double t = (x - double(a.cost)) / double(b.cost - a.cost);
        best = std::max(best, a.value + t * (b.value - a.value));
      }
    }
  }
  if (!(best > -std::numeric_limits<double>::infinity())) return best;
  const double v = best * double(L);
  return v + std::fabs(v) * 1e-12;
}

} // namespace nsc::search

#endif // NSC_SEARCH_COMMON_HPP
