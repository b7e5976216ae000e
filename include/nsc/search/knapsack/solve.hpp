/// \file nsc/search/knapsack/solve.hpp
/// solve_mmck: the instance checked, then the cost model that chooses the algorithm (dense_1d,
/// dense, sparse, bounded, lattice) from the table sizes and work estimates before anything is
/// allocated, and reports the choice (mmck_info::reason).
/// Part of the K-budget knapsack engine (nsc/search/multi_knapsack.hpp: the file comment there
/// describes every algorithm, the choice rule, ties, accuracy and memory).
#ifndef NSC_SEARCH_KNAPSACK_SOLVE_HPP
#define NSC_SEARCH_KNAPSACK_SOLVE_HPP

#include <nsc/search/knapsack/dense.hpp>
#include <nsc/search/knapsack/lattice.hpp>
#include <nsc/search/knapsack/sparse.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace nsc::search {

namespace detail {

/// Checks an instance: 1 <= K <= mmck_max_dims, budgets >= 0, groups non-empty with at most
/// 2^32 - 1 options, K costs >= 0 per option, finite values, integral sums that fit.
template <class Value>
void mmck_validate(const mmck_groups<Value>& groups, const std::vector<std::int64_t>& budget) {
  const std::size_t K = budget.size();
  if (K < 1 || K > mmck_max_dims)
    mmck_fail("the budget vector needs 1 to ", mmck_max_dims, " entries (got ", K, ")");
  for (std::size_t k = 0; k < K; ++k)
    if (budget[k] < 0) mmck_fail("budgets must be >= 0 (got ", budget[k], " for budget ", k, ")");
  [[maybe_unused]] std::uintmax_t total = 0;
  [[maybe_unused]] bool overflow = false;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty()) mmck_fail("every group needs at least one option (got an empty group ", g, ")");
    if (groups[g].size() > 0xffffffffu)
      mmck_fail("at most 2^32 - 1 options per group (got ", groups[g].size(), " in group ", g, ")");
    [[maybe_unused]] std::uintmax_t largest = 0;
    for (std::size_t j = 0; j < groups[g].size(); ++j) {
      const auto& o = groups[g][j];
      if (o.cost.size() != K)
        mmck_fail("every option needs one cost per budget (", K, "; got ", o.cost.size(),
                  " at group ", g, ", option ", j, ")");
      for (std::size_t k = 0; k < K; ++k)
        if (o.cost[k] < 0)
          mmck_fail("option costs must be >= 0 (got ", o.cost[k], " for budget ", k, " at group ", g,
                    ", option ", j, ")");
      if (mck_nonfinite(o.value))
        mmck_fail("option values must be finite (got ", mck_describe(o.value), " at group ", g,
                  ", option ", j, ")");
      if constexpr (std::is_integral_v<Value>) largest = std::max(largest, mck_magnitude(o.value));
    }
    if constexpr (std::is_integral_v<Value>) {
      if (total > std::numeric_limits<std::uintmax_t>::max() - largest) overflow = true;
      total += largest;
    }
  }
  if constexpr (std::is_integral_v<Value>) {
    const auto limit = static_cast<std::uintmax_t>(std::numeric_limits<Value>::max());
    if (overflow || total > limit)
      mmck_fail("the sum over groups of the largest |value| must fit in the value type (got ",
                overflow ? std::string("more than 2^64") : std::to_string(total), " > ", limit, ")");
  }
  if (!groups.empty()) mck_check_value_sum("nsc::solve_mmck", groups, [](const auto& o) -> const Value& { return o.value; });
}

/// The classes of identical groups (identical = false: one class per group) as lattice input:
/// (options, ascending group positions with stride 1), in order of first appearance.
template <class Value>
mmck_lattice_input<Value> mmck_lattice_classes_of(const mmck_groups<Value>& g, bool identical) {
  const std::size_t G = g.size();
  std::vector<std::size_t> rep(G);
  std::iota(rep.begin(), rep.end(), std::size_t{0});
  if (identical) {
    const std::vector<std::size_t> order = mmck_group_order(g);
    for (std::size_t i = 0; i < G;) {
      std::size_t j = i + 1;
      while (j < G && mmck_same_group(g[order[i]], g[order[j]])) ++j;
      std::size_t low = order[i];
      for (std::size_t t = i; t < j; ++t) low = std::min(low, order[t]);
      for (std::size_t t = i; t < j; ++t) rep[order[t]] = low;
      i = j;
    }
  }
  mmck_lattice_input<Value> out;
  std::vector<std::size_t> cls(G, SIZE_MAX);
  for (std::size_t i = 0; i < G; ++i) {
    if (cls[rep[i]] == SIZE_MAX) {
      cls[rep[i]] = out.size();
      out.push_back({g[i], {}});
    }
    out[cls[rep[i]]].second.push_back({i, 1});
  }
  return out;
}

/// Whether any two groups are identical (O(G log G) comparisons of groups).
template <class Value>
bool mmck_has_identical(const mmck_groups<Value>& g) {
  const auto order = mmck_group_order(g);
  for (std::size_t i = 1; i < order.size(); ++i)
    if (mmck_same_group(g[order[i - 1]], g[order[i]])) return true;
  return false;
}

} // namespace detail

namespace detail {

/// The sparse path on a fresh copy of `base` (the result shell solve_mmck prepared).
template <class Value>
mmck_result<Value> mmck_run_sparse(const mmck_groups<Value>& groups, const std::vector<std::int64_t>& budget,
                                   const mmck_settings& settings, const mmck_result<Value>& base) {
  const std::size_t K = budget.size();
  mmck_result<Value> r = base;
  r.info_.path = mmck_path::sparse;
  mmck_sparse_solver<Value> solver(groups, budget, settings, r.info_);
  r.sparse_ = solver.run();
  r.info_.work = r.info_.candidates;
  const auto& root = r.sparse_->nodes[r.sparse_->root];
  for (std::size_t i = 0; i < root.count(); ++i) {
    r.front_.push_back({std::vector<std::int64_t>(root.cost.begin() + std::ptrdiff_t(i * K),
                                                  root.cost.begin() + std::ptrdiff_t((i + 1) * K)),
                        root.value[i]});
    r.handle_.push_back(i);
  }
  return r;
}

} // namespace detail

/// Solves the K-budget multiple-choice knapsack (see the file comment) for every budget vector
/// b <= budget (componentwise), or for `budget` alone when settings.single_budget.
///
/// Domain: 1 <= K = budget.size() <= mmck_max_dims, budgets >= 0, every group non-empty (at
/// most 2^32 - 1 options), every option with K costs >= 0 and a finite value; integral Value:
/// the sum over groups of the largest |value| fits. Zero groups: the empty selection (cost 0,
/// value Value{}) is optimal everywhere.
/// Errors: std::invalid_argument "nsc::solve_mmck: <rule> (got ...)"; the memory refusals
/// (dense with method == dense, sparse stages) name the bytes needed and max_table_bytes.
template <mck_value Value>
mmck_result<Value> solve_mmck(const mmck_groups<Value>& groups,
                              const std::vector<std::int64_t>& budget,
                              const mmck_settings& settings = {}) {
  detail::mmck_validate(groups, budget);
  if (!(settings.epsilon >= 0 && settings.epsilon <= 1e6))
    detail::mmck_fail("settings.epsilon must be in [0, 1e6] (got ", settings.epsilon, ")");
  const std::size_t K = budget.size(), G = groups.size();
  mmck_result<Value> r;
  r.groups_ = G;
  r.budget_ = budget;
  r.single_ = settings.single_budget;
  r.info_.dims = K;
  r.info_.single = settings.single_budget;
  // infeasible everywhere when some dimension's sum of minima exceeds its budget
  for (std::size_t k = 0; k < K; ++k) {
    std::int64_t M = 0;
    bool over = false;
    for (const auto& g : groups) {
      std::int64_t m = g[0].cost[k];
      for (const auto& o : g) m = std::min(m, o.cost[k]);
      if (!detail::mmck_add(M, m, M)) over = true;
    }
    if (over || M > budget[k]) {
      r.info_.path = settings.method == mmck_method::lattice ? mmck_path::lattice
                     : K == 1                                ? mmck_path::dense_1d
                                                             : mmck_path::sparse;
      return r;
    }
  }
  if (G == 0) {
    r.info_.path = mmck_path::sparse;
    r.front_.push_back({std::vector<std::int64_t>(K, 0), Value{}});
    r.handle_.push_back(0);
    r.sparse_.emplace();
    r.sparse_->nodes.emplace_back();
    return r;
  }
  if (settings.epsilon > 0 && !settings.single_budget) return detail::mmck_run_sparse(groups, budget, settings, r);
  if (settings.method == mmck_method::lattice ||
      (settings.method == mmck_method::automatic && settings.identical_groups)) {
    const auto in = detail::mmck_lattice_classes_of(groups, settings.identical_groups);
    std::size_t most = 0;
    for (const auto& c : in) most = std::max(most, c.second.size());
    const std::size_t need = settings.single_budget ? 2 : std::max<std::size_t>(2, settings.lattice_min_multiplicity);
    if (settings.method == mmck_method::lattice || most >= need) {
      // Cost model (automatic, single_budget): a lattice table above lattice_direct_bytes is
      // built only when the sparse bounded DP cannot finish within the lattice's own work.
      const bool weigh = settings.method == mmck_method::automatic && settings.single_budget;
      long double lattice_work = 0, lattice_bytes = 0;
      if (auto l = detail::mmck_solve_lattice(in, G, budget, settings, settings.method == mmck_method::lattice,
                                              weigh ? &lattice_work : nullptr, &lattice_bytes))
        return std::move(*l);
      if (lattice_work > 0) {
        mmck_settings ts = settings;
        // a sparse candidate (heap or sort step, dominance check) costs several table updates
        // (one array update each): the attempt gets a quarter of the lattice's updates
        const long double cap = std::max(lattice_work / 4, (long double)(std::uint64_t{1} << 20));
        ts.max_work = settings.max_work != 0 && (long double)settings.max_work < cap ? settings.max_work
                                                                                   : std::uint64_t(std::min(cap, 1e18L));
        char why[160];
        try {
          mmck_result<Value> t = detail::mmck_run_sparse(groups, budget, ts, r);
          std::snprintf(why, sizeof why, "lattice tables %.3g bytes > %zu: sparse bounded DP first, done within %.3g work",
                        (double)lattice_bytes, settings.lattice_direct_bytes, (double)cap);
          t.info_.reason = why;
          return t;
        } catch (const std::invalid_argument& e) {
          const std::string_view w = e.what();
          if (w.find("max_work") == std::string_view::npos && w.find("max_table_bytes") == std::string_view::npos)
            throw;
        }
        if (auto l = detail::mmck_solve_lattice(in, G, budget, settings, false)) {
          std::snprintf(why, sizeof why, "sparse bounded DP passed %.3g work (a quarter of the lattice's %.3g updates): lattice",
                        (double)cap, (double)lattice_work);
          l->info_.reason = why;
          return std::move(*l);
        }
      }
    }
  }
  const bool identical = settings.identical_groups && detail::mmck_has_identical(groups);
  mmck_method m = settings.method;
  if (m == mmck_method::automatic) {
    if (identical) m = mmck_method::sparse;
    else if (K == 1) m = mmck_method::dense;
    else if (settings.single_budget) m = mmck_method::sparse;
  }
  if (m != mmck_method::sparse) {
    if (K == 1) {
      mck_groups<Value> one(G);
      for (std::size_t g = 0; g < G; ++g)
        for (const auto& o : groups[g]) one[g].push_back({o.value, o.cost[0]});
      std::optional<mck_result<Value>> res;
      mck_settings ms;
      ms.max_table_bytes = settings.max_table_bytes;
      ms.pruning = mck_pruning::dominated;
      if (settings.method == mmck_method::dense) {
        res.emplace(solve_mck(one, budget[0], ms));
      } else {
        try {
          res.emplace(solve_mck(one, budget[0], ms));
        } catch (const std::invalid_argument& e) {
          if (std::string_view(e.what()).find("max_table_bytes") == std::string_view::npos) throw;
        }
      }
      if (res) {
        r.info_.path = mmck_path::dense_1d;
        r.info_.cells = res->cells();
        for (const auto& g : one) r.info_.work += std::uint64_t(res->cells()) * g.size();
        r.info_.peak_bytes = res->table_bytes();
        for (const auto& p : res->front()) {
          r.front_.push_back({std::vector<std::int64_t>{p.cost}, p.value});
          r.handle_.push_back(0);
        }
        r.one_ = std::move(res);
        return r;
      }
    } else if (auto d = detail::mmck_solve_dense(groups, budget, settings, m == mmck_method::dense)) {
      d->single_ = settings.single_budget;
      return std::move(*d);
    }
  }
  return detail::mmck_run_sparse(groups, budget, settings, r);
}

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_SOLVE_HPP
