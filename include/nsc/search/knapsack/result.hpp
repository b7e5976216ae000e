/// \file nsc/search/knapsack/result.hpp
/// The solution of a K-budget instance (mmck_result: best, choice, front for any budget vector up
/// to the solved one) and the tables each algorithm leaves in it (sparse nodes, dense table,
/// lattice classes).
/// Part of the K-budget knapsack engine (nsc/search/multi_knapsack.hpp: the file comment there
/// describes every algorithm, the choice rule, ties, accuracy and memory).
#ifndef NSC_SEARCH_KNAPSACK_RESULT_HPP
#define NSC_SEARCH_KNAPSACK_RESULT_HPP

#include <nsc/search/knapsack/problem.hpp>

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

using mmck_cost = std::array<std::int64_t, mmck_max_dims>;

/// A list of states (one per non-dominated cost vector), sorted lexicographically by cost.
template <class Value>
struct mmck_node {
  bool leaf = true;
  std::size_t cls = 0;               ///< leaf: its class
  std::size_t left = 0, right = 0;   ///< combined nodes
  std::size_t size = 0;              ///< groups covered
  std::vector<std::int64_t> cost;    ///< n * K
  std::vector<Value> value;
  std::vector<std::uint32_t> a, b;   ///< leaf: a = original option index; else child indices
  std::vector<double> loss;          ///< bounded: Lagrangian loss of each state
  std::size_t count() const { return value.size(); }
};

/// The sparse engine: classes of identical groups, nodes, the root.
template <class Value>
struct mmck_sparse {
  std::size_t K = 0;
  std::vector<std::size_t> group_class;              ///< class of each group
  std::vector<std::vector<std::size_t>> class_groups;///< positions of each class, ascending
  std::vector<mmck_node<Value>> nodes;
  std::size_t root = 0;
};

/// The dense engine's tables.
template <class Value>
struct mmck_dense {
  std::size_t K = 0;
  std::array<std::int64_t, mmck_max_dims> offset{}, unit{};
  std::array<std::size_t, mmck_max_dims> extent{}, stride{};
  std::size_t cells = 0;
  std::vector<std::vector<std::size_t>> original;   ///< kept options per group
  std::vector<std::vector<std::size_t>> shift;      ///< linear offset of each kept option
  std::vector<std::vector<std::array<std::size_t, mmck_max_dims>>> step;
  std::vector<std::uint16_t> bp16;
  std::vector<std::uint32_t> bp32;
  bool wide = false;
};

__extension__ typedef __int128 mmck_i128;

/// One class of the lattice engine: `slots` interchangeable (group position, option stride)
/// pairs (identical groups, or one factor of identical product groups), its options after
/// same-cost pruning with their lattice coordinates, and the multiset table (exact cost ->
/// best value of `slots.size()` options) with one back-pointer per copy and cell.
template <class Value>
struct mmck_lclass {
  std::vector<std::pair<std::size_t, std::size_t>> slots;  ///< (group, stride), ascending group
  std::vector<mmck_option<Value>> options;                 ///< the class's (sub-)options
  std::vector<std::uint32_t> kept;        ///< kept option indices (same-cost pruning)
  std::size_t r = 0;                      ///< lattice rank
  std::vector<std::int64_t> basis;        ///< r x K: cost = c0 + sum_i y_i basis_i per copy
  std::vector<mmck_i128> c0;              ///< K
  std::vector<std::int64_t> y;            ///< kept x r coordinates (>= 0)
  std::vector<std::size_t> extent, step;  ///< box of slots.size() copies; linear strides
  std::vector<std::size_t> shift;         ///< linear offset of each kept option
  std::size_t cells = 1;
  std::vector<std::uint32_t> bp;          ///< copies x cells: kept index chosen at copy t
  /// doubling (max-plus powers) instead of one copy at a time: op t combines tables x and y
  /// (-1: one copy), op_bp[t][cell] = x's cell; the last op is the full multiset
  bool doubled = false;
  std::vector<std::pair<std::int32_t, std::int32_t>> ops;
  std::vector<std::vector<std::uint32_t>> op_bp;
  std::vector<std::pair<std::size_t, std::uint32_t>> leaf;  ///< (shift, kept index), ascending
  // points: the reachable cells of the full multiset within the caps
  std::vector<std::uint32_t> cell;
  std::vector<Value> value;
  std::vector<std::int64_t> cost;         ///< points x K
  std::size_t count() const { return value.size(); }
  std::size_t mult() const { return slots.size(); }
};

/// The lattice engine's solution: the classes and the fold that combines their points. Fold
/// level 0 is class order[0]'s points; level t >= 1 keeps, per point, its index in level t - 1
/// (fa) and in class order[t]'s points (fb). The front (or the single answer) is the last level.
template <class Value>
struct mmck_lattice {
  std::size_t K = 0;
  std::vector<mmck_lclass<Value>> classes;
  std::vector<std::size_t> order;
  std::vector<std::vector<std::uint32_t>> fa, fb;  ///< per level (level 0 empty)

  /// The selection of last-level point i: per class, its multiset in ascending option index
  /// over the class's slots (the groups are interchangeable).
  std::vector<std::size_t> choice(std::size_t i, std::size_t groups) const {
    std::vector<std::size_t> out(groups, 0);
    if (order.empty()) return out;
    std::vector<std::uint32_t> picks;
    std::size_t idx = i;
    for (std::size_t t = order.size(); t-- > 0;) {
      std::size_t p = idx;
      if (t > 0) {
        p = fb[t][idx];
        idx = fa[t][idx];
      }
      const mmck_lclass<Value>& c = classes[order[t]];
      std::size_t cell = c.cell[p];
      picks.clear();
      if (c.doubled) {
        std::vector<std::pair<std::int32_t, std::size_t>> todo{{std::int32_t(c.ops.size()) - 1, cell}};
        while (!todo.empty()) {
          const auto [op, at] = todo.back();
          todo.pop_back();
          if (op < 0) {
            const auto it = std::lower_bound(c.leaf.begin(), c.leaf.end(), std::make_pair(at, std::uint32_t{0}));
            picks.push_back(c.kept[it->second]);
            continue;
          }
          const std::size_t x = c.op_bp[std::size_t(op)][at];
          todo.push_back({c.ops[std::size_t(op)].first, x});
          todo.push_back({c.ops[std::size_t(op)].second, at - x});
        }
      } else {
        for (std::size_t copy = c.mult(); copy-- > 0;) {
          const std::uint32_t j = c.bp[copy * c.cells + cell];
          picks.push_back(c.kept[j]);
          cell -= c.shift[j];
        }
      }
      std::sort(picks.begin(), picks.end());
      for (std::size_t u = 0; u < picks.size(); ++u)
        out[c.slots[u].first] += std::size_t(picks[u]) * c.slots[u].second;
    }
    return out;
  }
};

template <class... Parts>
[[noreturn]] void mmck_fail(const Parts&... parts) {
  mck_fail("nsc::solve_mmck", parts...);
}

inline bool mmck_add(std::int64_t a, std::int64_t b, std::int64_t& r) {
  return !__builtin_add_overflow(a, b, &r);
}

} // namespace detail

/// The solution of one K-budget instance (see the file comment). Budget vectors given to the
/// queries must have K entries, each in [0, B_k]; answers are in the caller's units and original
/// option indices. Errors: std::invalid_argument "nsc::mmck_result::<query>: ...".
template <class Value>
class mmck_result {
public:
  using value_type = Value;

  std::size_t dims() const noexcept { return info_.dims; }
  std::size_t group_count() const noexcept { return groups_; }
  /// The budget vector the instance was solved for.
  const std::vector<std::int64_t>& budget() const noexcept { return budget_; }
  const mmck_info& info() const noexcept { return info_; }

  /// optimal if some selection has cost <= b in every dimension, else infeasible.
  mck_status status(const std::vector<std::int64_t>& b) const {
    return pick(b, "nsc::mmck_result::status") ? mck_status::optimal : mck_status::infeasible;
  }
  /// The largest value over selections with cost <= b, or nullopt.
  std::optional<Value> best(const std::vector<std::int64_t>& b) const {
    const auto p = pick(b, "nsc::mmck_result::best");
    if (!p) return std::nullopt;
    return front_[*p].value;
  }
  /// The cost vector of the selection choice(b) (lexicographically smallest among the optima).
  std::optional<std::vector<std::int64_t>> best_cost(const std::vector<std::int64_t>& b) const {
    const auto p = pick(b, "nsc::mmck_result::best_cost");
    if (!p) return std::nullopt;
    return front_[*p].cost;
  }
  /// An optimal selection under b (original option index per group), or nullopt.
  std::optional<std::vector<std::size_t>> choice(const std::vector<std::int64_t>& b) const {
    const auto p = pick(b, "nsc::mmck_result::choice");
    if (!p) return std::nullopt;
    return front_choice(*p);
  }
  /// The Pareto set: every (cost vector, value) not dominated by another selection (cost <= in
  /// every dimension and value >=, one of them strictly), one selection per cost vector, in
  /// lexicographically ascending cost. Throws for single_budget solves (the bound drops points).
  const std::vector<mmck_point<Value>>& front() const {
    if (single_)
      detail::mck_fail("nsc::mmck_result::front",
                       "the Pareto set is not available from a single_budget solve (got "
                       "single_budget = true)");
    return front_;
  }
  /// The selection of front point i (original option index per group). O(G).
  std::vector<std::size_t> front_choice(std::size_t i) const {
    if (i >= front_.size())
      detail::mck_fail("nsc::mmck_result::front_choice", "index out of range (got ", i, " >= ",
                       front_.size(), ")");
    if (one_) return *one_->choice(front_[i].cost[0]);
    if (dense_) return dense_choice(handle_[i]);
    if (lattice_) return lattice_->choice(handle_[i], groups_);
    return sparse_choice(handle_[i]);
  }

  // Construction (used by solve_mmck).
  std::size_t groups_ = 0;
  std::vector<std::int64_t> budget_;
  mmck_info info_;
  bool single_ = false;
  std::vector<mmck_point<Value>> front_;
  std::vector<std::size_t> handle_;                 ///< root state / dense cell of each point
  std::optional<mck_result<Value>> one_;
  std::optional<detail::mmck_dense<Value>> dense_;
  std::optional<detail::mmck_sparse<Value>> sparse_;
  std::optional<detail::mmck_lattice<Value>> lattice_;

private:
  /// The front point answering b, or nullopt (infeasible).
  std::optional<std::size_t> pick(const std::vector<std::int64_t>& b, std::string_view fn) const {
    if (b.size() != budget_.size())
      detail::mck_fail(fn, "the budget vector needs ", budget_.size(), " entries (got ", b.size(),
                       ")");
    for (std::size_t k = 0; k < b.size(); ++k)
      if (b[k] < 0 || b[k] > budget_[k])
        detail::mck_fail(fn, "budget ", k, " must be in [0, ", budget_[k], "] (got ", b[k], ")");
    if (single_ && b != budget_)
      detail::mck_fail(fn, "a single_budget solve answers only its own budget vector");
    if (one_) {
      const auto c = one_->best_cost(b[0]);
      if (!c) return std::nullopt;
      auto it = std::lower_bound(front_.begin(), front_.end(), *c,
                                 [](const mmck_point<Value>& p, std::int64_t x) { return p.cost[0] < x; });
      return static_cast<std::size_t>(it - front_.begin());
    }
    std::optional<std::size_t> arg;
    for (std::size_t i = 0; i < front_.size(); ++i) {
      bool fits = true;
      for (std::size_t k = 0; k < b.size() && fits; ++k) fits = front_[i].cost[k] <= b[k];
      if (fits && (!arg || front_[*arg].value < front_[i].value)) arg = i;
    }
    return arg;
  }

  std::vector<std::size_t> dense_choice(std::size_t cell) const {
    const auto& d = *dense_;
    std::vector<std::size_t> out(groups_);
    for (std::size_t g = groups_; g-- > 0;) {
      const std::size_t j = d.wide ? d.bp32[g * d.cells + cell] : d.bp16[g * d.cells + cell];
      out[g] = d.original[g][j];
      cell -= d.shift[g][j];
    }
    return out;
  }

  std::vector<std::size_t> sparse_choice(std::size_t state) const {
    if (groups_ == 0) return {};
    const auto& s = *sparse_;
    if (s.class_groups.size() == 1) {  // all groups identical: the sorted multiset
      std::vector<std::size_t> out;
      out.reserve(groups_);
      std::size_t todo[256];
      std::size_t idx[256];
      std::size_t top = 0;
      todo[top] = s.root, idx[top++] = state;
      while (top) {
        --top;
        const auto& node = s.nodes[todo[top]];
        const std::size_t i = idx[top];
        if (node.leaf) {
          out.push_back(node.a[i]);
        } else {  // doubling trees are O(log G) deep: at most 2 entries per level on the stack
          todo[top] = node.left, idx[top++] = node.a[i];
          todo[top] = node.right, idx[top++] = node.b[i];
        }
      }
      std::sort(out.begin(), out.end());
      return out;
    }
    // leaves reached, as (class, option); then per class ascending option over its positions
    std::vector<std::pair<std::size_t, std::size_t>> leaves;
    leaves.reserve(groups_);
    std::vector<std::pair<std::size_t, std::size_t>> todo;
    todo.reserve(64);
    todo.push_back({s.root, state});
    while (!todo.empty()) {
      const auto [n, i] = todo.back();
      todo.pop_back();
      const auto& node = s.nodes[n];
      if (node.leaf) {
        leaves.push_back({node.cls, node.a[i]});
      } else {
        todo.push_back({node.left, node.a[i]});
        todo.push_back({node.right, node.b[i]});
      }
    }
    std::sort(leaves.begin(), leaves.end());
    std::vector<std::size_t> out(groups_);
    for (std::size_t t = 0; t < leaves.size();) {
      const std::size_t c = leaves[t].first;
      for (std::size_t u = 0; u < s.class_groups[c].size(); ++u, ++t)
        out[s.class_groups[c][u]] = leaves[t].second;
    }
    return out;
  }
};

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_RESULT_HPP
