/// \file nsc/search/k_best.hpp
/// The k best distinct selections of a K-budget multiple-choice knapsack, exactly, optionally
/// at a minimum Hamming distance from each other (a diverse pool to train or evaluate).
///
/// Synopsis
/// --------
///     auto top = nsc::search::k_best(groups, {B_1, ..., B_K}, {.k = 10, .min_distance = 0});
///     top[i].choice, top[i].value, top[i].cost          // value descending
///
/// Method: Lawler's partition of the selection space. The optimum x of a subproblem (groups
/// 0..p-1 fixed, some options of group p excluded) is reported; its children are, for
/// i = p..G-1, "groups 0..i-1 as in x, option x_i excluded from group i" (the exclusions of
/// group p carried over when i = p). The children partition the subproblem minus x, so every
/// selection is reached exactly once, in non-increasing value; each child is one exact
/// solve_mmck (single_budget, Lagrangian bound). Work: up to G solves per reported selection.
///
/// Distance (a diverse pool, Puzzle's sequential definition): with min_distance D >= 2 the i-th
/// selection is the best one differing from each of the first i - 1 in at least D groups.
/// Method: the first is the optimum (solve_mmck); each next one is best_far_from
/// (nsc/search/diverse_pool.hpp: a Lagrangian-bounded DP over the groups whose states carry the
/// distance to each earlier selection, capped at D), exact, within mmck.max_work and
/// mmck.max_table_bytes. (D above the number of groups leaves the best selection alone.)
///
/// Ties: equal values come out in the order their subproblems were created (deterministic).
#ifndef NSC_SEARCH_K_BEST_HPP
#define NSC_SEARCH_K_BEST_HPP

#include <nsc/error_handling.hpp>
#include <nsc/search/diverse_pool.hpp>
#include <nsc/search/multi_knapsack.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <queue>
#include <string_view>
#include <vector>

namespace nsc::search {

/// Settings of k_best.
struct k_best_settings {
  std::size_t k = 10;               ///< how many selections, 1..1000
  std::size_t min_distance = 0;     ///< minimum number of groups two kept selections differ in
  std::size_t max_enumerated = 200000; ///< selections examined before giving up (distance > 1)
  mmck_settings mmck{};             ///< for the subproblems (single_budget is forced)
};

/// One of the k best selections (choice: original option index per group; cost: total per budget).
template <class Value>
using k_best_selection = mmck_selection<Value>;

/// The k best distinct selections with cost <= budget (see the file comment), value
/// descending; fewer when fewer selections fit (none: empty). Domain as solve_mmck.
/// Errors: std::invalid_argument "nsc::search::k_best: k must be in [1, 1000] (got k)",
/// "... examined max_enumerated = N
/// selections ...", and those of solve_mmck.
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

  struct sub {
    std::vector<std::size_t> prefix;   ///< fixed choices of groups 0..p-1
    std::vector<std::size_t> excluded; ///< excluded options of group p
  };
  struct entry {
    Value value;
    std::size_t seq;
    sub problem;
    std::vector<std::size_t> choice;
    std::vector<std::int64_t> cost;
  };
  auto solve = [&](const sub& p) -> std::optional<entry> {
    const std::size_t P = p.prefix.size();
    mmck_groups<Value> g(G);
    std::vector<std::size_t> map_p;
    for (std::size_t i = 0; i < G; ++i) {
      if (i < P) {
        g[i].push_back(groups[i][p.prefix[i]]);
      } else if (i == P) {
        for (std::size_t j = 0; j < groups[i].size(); ++j) {
          bool ex = false;
          for (std::size_t e : p.excluded) ex = ex || e == j;
          if (!ex) {
            g[i].push_back(groups[i][j]);
            map_p.push_back(j);
          }
        }
        if (g[i].empty()) return std::nullopt;
      } else {
        g[i] = groups[i];
      }
    }
    const auto r = solve_mmck(g, budget, ms);
    const auto ch = r.choice(budget);
    if (!ch) return std::nullopt;
    entry e{*r.best(budget), 0, p, *ch, std::vector<std::int64_t>(K, 0)};
    for (std::size_t i = 0; i < G; ++i) {
      if (i < P) e.choice[i] = p.prefix[i];
      else if (i == P) e.choice[i] = map_p[(*ch)[i]];
      for (std::size_t k = 0; k < K; ++k) e.cost[k] += groups[i][e.choice[i]].cost[k];
    }
    return e;
  };
  auto later = [](const entry& a, const entry& b) {
    if (a.value < b.value) return true;
    if (b.value < a.value) return false;
    return a.seq > b.seq;
  };
  if (s.min_distance >= 2) {
    // each member the exact best at distance >= D from the earlier ones (diverse_pool.hpp)
    std::vector<k_best_selection<Value>> out;
    far_settings fs;
    fs.max_work = s.mmck.max_work;
    fs.max_table_bytes = s.mmck.max_table_bytes;
    if (auto e = solve(sub{})) out.push_back({e->choice, e->value, e->cost});
    std::vector<std::vector<std::size_t>> earlier;
    while (!out.empty() && out.size() < s.k) {
      earlier.push_back(out.back().choice);
      auto x = best_far_from(groups, budget, earlier, s.min_distance, fs);
      if (!x) break;
      out.push_back(std::move(*x));
    }
    return out;
  }
  std::priority_queue<entry, std::vector<entry>, decltype(later)> heap(later);
  std::size_t seq = 0;
  if (auto e = solve(sub{})) {
    e->seq = seq++;
    heap.push(std::move(*e));
  }
  std::vector<k_best_selection<Value>> out;
  std::size_t examined = 0;
  while (!heap.empty() && out.size() < s.k) {
    entry top = heap.top();
    heap.pop();
    if (++examined > s.max_enumerated)
      throw_invalid_argument(fn, "examined max_enumerated = " + std::to_string(s.max_enumerated) +
                                     " selections and found only " + std::to_string(out.size()) +
                                     " at distance >= " + std::to_string(s.min_distance) +
                                     "; raise max_enumerated or lower min_distance",
                             s.k);
    bool far = true;
    for (const auto& o : out) {
      std::size_t d = 0;
      for (std::size_t i = 0; i < G; ++i) d += o.choice[i] != top.choice[i];
      if (d < s.min_distance) {
        far = false;
        break;
      }
    }
    if (far) out.push_back({top.choice, top.value, top.cost});
    if (out.size() == s.k) break;
    const std::size_t P = top.problem.prefix.size();
    for (std::size_t i = P; i < G; ++i) {
      sub c;
      c.prefix.assign(top.choice.begin(), top.choice.begin() + std::ptrdiff_t(i));
      if (i == P) c.excluded = top.problem.excluded;
      c.excluded.push_back(top.choice[i]);
      if (auto e = solve(c)) {
        e->seq = seq++;
        heap.push(std::move(*e));
      }
    }
  }
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_K_BEST_HPP
