/// \file nsc/search/knapsack/k_best.hpp
/// The k best distinct selections of a K-budget multiple-choice knapsack, exactly, optionally
/// at a minimum Hamming distance from each other (a diverse pool to train or evaluate).
///
/// Synopsis
/// --------
///     auto top = nsc::search::k_best(groups, {B_1, ..., B_K}, {.k = 10, .min_distance = 0});
///     top[i].choice, top[i].value, top[i].cost          // value descending
///
/// Definition (Puzzle's, sequential): the i-th selection is the best one differing from each of
/// the first i - 1 in at least D = max(min_distance, 1) groups; D = 1 gives the k best distinct
/// selections (in non-increasing value), D >= 2 a diverse pool. (D above the number of groups
/// leaves the best selection alone.)
///
/// Method: the first is the optimum (solve_mmck, single_budget); each next one is
/// best_far_from (nsc/search/diverse_pool.hpp: a Lagrangian-bounded DP over the groups whose
/// states carry the distance to each earlier selection, capped at D), exact, within
/// mmck.max_work and mmck.max_table_bytes. (It replaces Lawler's partition, which re-solved up
/// to G subproblems per selection: top-10 of an 80-layer library 10.7 s -> 0.49 s.)
///
/// Ties: identical groups (the same options, values and costs: e.g. the layers of an LLM) are
/// interchangeable unless settings.positions: a selection is then the multiset of options each
/// class of identical groups takes (listed in canonical_choice form: ascending options over the
/// class's groups), the distance is counted between multisets (best_far_from's file comment),
/// and count_orderings(groups, choice) says how many positional selections each one stands for
/// (they tie in value and every cost). positions = true: two identical groups swapped are two
/// selections. Among equal values, the smallest cost vector first, then the DP's order.
#ifndef NSC_SEARCH_KNAPSACK_K_BEST_HPP
#define NSC_SEARCH_KNAPSACK_K_BEST_HPP

#include <nsc/error_handling.hpp>
#include <nsc/search/knapsack/diverse_pool.hpp>
#include <nsc/search/multi_knapsack.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace nsc::search {

/// Settings of k_best.
struct k_best_settings {
  std::size_t k = 10;               ///< how many selections, 1..1000
  std::size_t min_distance = 0;     ///< minimum number of groups two kept selections differ in
  std::size_t max_enumerated = 200000; ///< unused (Lawler's enumeration bound; kept for the API)
  mmck_settings mmck{};             ///< max_work, max_table_bytes, method of the first solve
  bool positions = false;           ///< true: identical groups' positions count (see Ties above)
};

/// One of the k best selections (choice: original option index per group; cost: total per budget).
template <class Value>
using k_best_selection = mmck_selection<Value>;

/// The k best selections with cost <= budget (see the file comment), value non-increasing;
/// fewer when fewer selections fit (none: empty). Domain as solve_mmck.
/// Errors: std::invalid_argument "nsc::search::k_best: k must be in [1, 1000] (got k)", and
/// those of solve_mmck and best_far_from (work and memory refusals).
template <mck_value Value>
std::vector<k_best_selection<Value>> k_best(const mmck_groups<Value>& groups,
                                            const std::vector<std::int64_t>& budget,
                                            const k_best_settings& s = {}) {
  constexpr std::string_view fn = "nsc::search::k_best";
  if (s.k < 1 || s.k > 1000) throw_invalid_argument(fn, "k must be in [1, 1000]", s.k);
  detail::mmck_validate(groups, budget);
  const std::size_t G = groups.size(), K = budget.size();
  mmck_settings ms = s.mmck;
  ms.single_budget = true;
  std::vector<k_best_selection<Value>> out;
  const auto classes = s.positions ? std::vector<std::vector<std::size_t>>{} : identical_classes(groups);
  {
    const auto r = solve_mmck(groups, budget, ms);
    const auto ch = r.choice(budget);
    if (!ch) return out;
    k_best_selection<Value> x{canonical_choice(classes, *ch), *r.best(budget), std::vector<std::int64_t>(K, 0)};
    for (std::size_t i = 0; i < G; ++i)
      for (std::size_t k = 0; k < K; ++k) x.cost[k] += groups[i][x.choice[i]].cost[k];
    out.push_back(std::move(x));
  }
  far_settings fs;
  fs.max_work = s.mmck.max_work;
  fs.max_table_bytes = s.mmck.max_table_bytes;
  fs.positions = s.positions;
  std::vector<std::vector<std::size_t>> earlier;
  while (out.size() < s.k) {
    earlier.push_back(out.back().choice);
    auto x = best_far_from(groups, budget, earlier, std::max<std::size_t>(s.min_distance, 1), fs);
    if (!x) break;
    out.push_back(std::move(*x));
  }
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_K_BEST_HPP
