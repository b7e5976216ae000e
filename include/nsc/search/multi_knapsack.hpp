/// \file nsc/search/multi_knapsack.hpp
/// Exact multiple-choice knapsack under K budgets at once (K = 1..mmck_max_dims), generic over
/// the value type: the Pareto set of (cost vector, value) selections, the optimum under every
/// budget vector up to the solved one, infeasibility as a status.
///
/// Synopsis
/// --------
///     groups[g][j] = {value v_gj, integer costs c_gj = (c_gj1, ..., c_gjK), every c >= 0}
///     maximise sum_g v_{g,j_g}  subject to  sum_g c_{g,j_g,k} <= B_k for every k
///
///     auto r = nsc::search::solve_mmck(groups, {B_1, ..., B_K});
///     r.status(b), r.best(b), r.best_cost(b), r.choice(b)   // any b <= B componentwise
///     r.front(), r.front_choice(i)                          // the Pareto set, reconstructible
///     r.info().path, r.info().describe()                    // which algorithm ran
///
/// Algorithms (all exact; the one used is reported in info()):
///  * dense_1d (K = 1): solve_mck itself (min shift, gcd, same-cost pruning, one table); every
///    answer of solve_mck is kept, at its speed.
///  * dense (K >= 2): one table over the reduced cost lattice: per dimension the group minima
///    are subtracted and the shifted costs divided by their gcd, W_k = min(floor((B_k - M_k) /
///    d_k), sum_g max shifted / d_k) + 1 cells per dimension, prod_k W_k cells. One pass per group
///    with back-pointers; then a K-dimensional prefix maximum answers every budget vector and
///    gives the Pareto set (a reachable cell whose value exceeds the best strictly below it).
///  * sparse: Pareto-state DP. States are non-dominated (cost vector, value) partial selections,
///    kept sorted by cost (lexicographic); adding a group merges the |options| shifted copies of
///    the state list (a heap merge, streaming) and keeps a candidate only if no kept state has
///    cost <= and value >= (dominance pruning) and its costs leave room for the cheapest
///    completion (cost_k + sum of the remaining groups' minima <= B_k).
///    Identical groups (same options, same order: e.g. every layer of an LLM) are combined
///    without repeating work: the group's own Pareto set P_1 is doubled (P_2m = Pareto(P_m +
///    P_m)) and the powers of two of the multiplicity are merged, O(log m) merges instead of m.
///  * bounded (settings.single_budget, sparse only): for a query of the solved budget vector
///    alone, a Lagrangian upper bound (multipliers lambda >= 0 of the LP relaxation, found by
///    projected subgradient steps) and a greedy incumbent drop every state whose bound cannot
///    reach the incumbent: with reduced values r_gj = v_gj - lambda . c_gj / B, a state's loss
///    sum over its groups of (max_j r_gj - r_chosen) is at most UB - v(x) for every feasible
///    completion x, so states with loss > UB - incumbent (plus a rounding slack of 1e-9 of the
///    value scale) cannot be part of any selection worth the incumbent. Candidate pairs are
///    enumerated in ascending loss, so the work is proportional to what survives. A merge also
///    drops a pair whose completion bound v + min over l in L of (phi_rest(l) + l . (B - c) / B)
///    (the groups outside the merge, L = lambda and its variants with one dimension zeroed,
///    halved or doubled, l_k = 0 where the rest costs nothing) is below the incumbent: the same
///    rule with several multipliers, monotone in (cost, value), so the kept states are the
///    unpruned DP's with bound >= the incumbent and the choice is the same. The incumbent comes
///    from a heuristic run of the same DP keeping settings.bound_beam states per merge (those of
///    the largest completion bound). The root merge keeps only its best pair (no Pareto set).
///    The pairs that pass are met per cost vector in a hash table (a self-merge of identical
///    groups reaches one multiset sum by many splits: 278k pairs, 1,379 cost vectors on the
///    70B per-layer query), keeping the one the filter would take first; only those are sorted.
///  * lattice (classes of identical groups as multisets): product groups (options = every pair
///    (i, j) of two smaller lists, row-major, with cost A_i + F_j and value a_i + f_j exactly in
///    Value arithmetic) are split into their factors (settings.split_products), identical
///    factors merged. Per class of m groups: an integer basis of the lattice of its option cost
///    differences (Euclid's row reduction; shears y_i -= s y_l that shrink the coordinate box),
///    then the exact-cost table of its m-option multiset sums over the box (prod_i (m max y_i +
///    1) cells, one back-pointer per copy and cell, or per max-plus doubling op when the box
///    estimate says doubling is cheaper). Classes are combined by Pareto merges (sorted
///    candidate pairs, or a dense grid over the sums' per-dimension lattice when smaller). A
///    single_budget solve keeps the class with the most points last and answers, for every point
///    a of the others (best value first, stopping when it cannot reach the incumbent), the
///    dominance range maximum max {v_f : c_f <= B - c_a} with a K-D tree (subtree best values and
///    bounding boxes, pruned against the incumbent). Every class table is checked against
///    max_table_bytes before it is allocated.
/// Choice rule (settings.method == automatic): the lattice path when settings.identical_groups,
/// some class has >= 2 identical groups (single_budget) or >= settings.lattice_min_multiplicity
/// (Pareto-set solves), and every class table fits max_table_bytes; otherwise K = 1 without
/// identical groups: dense_1d; K >= 2 without identical groups whose dense table fits
/// max_table_bytes: dense; otherwise sparse (identical groups combined when
/// settings.identical_groups; bounded when single_budget). method = lattice forces it (also
/// without identical groups) and refuses, with the bytes, what does not fit.
/// Cost model (automatic, single_budget, lattice eligible): the class tables are sized first;
/// up to settings.lattice_direct_bytes they are built; above, the sparse bounded DP runs first
/// with settings.max_work set to a quarter of the lattice's estimated table updates (cells x
/// copies x options per class; a sparse candidate costs several array updates), and the lattice
/// runs only when that attempt passes it (or the memory cap). info().reason states the choice.
/// settings.max_work (0: none) caps the sparse path's candidates everywhere (a refusal).
///
/// Tie-breaking (deterministic, stated): best(b) is the largest value over selections with cost
/// <= b; among selections of that value, the one whose cost vector is lexicographically
/// smallest (for K = 1: the smallest cost, as solve_mck); at equal cost vectors the one chosen
/// by the per-cell rule of solve_mck: the last group's lowest original option index achieving
/// the value, then recursively the earlier groups. dense, dense_1d and sparse without identical
/// groups give identical choices (tested). With identical groups combined, the options chosen
/// in a class of identical groups are reported in ascending option index over that class's
/// positions (a canonical member of the multiset; the layers are interchangeable), and values
/// are summed as a balanced tree instead of in group order (bitwise equal for integers).
/// The lattice path keeps the first two rules (largest value, then lexicographically smallest cost
/// vector); among selections equal in both it takes the first in its own enumeration order, and
/// it reports each class's multiset (each factor of a split product on its own) in ascending
/// option index over the class's groups; values are summed per class table, then across
/// classes (bitwise equal to group order for integers).
///
/// Accuracy: exact in Value arithmetic (floating additions are monotone, so dominance pruning
/// never drops a state an optimal selection needs). Costs are summed in std::int64_t with
/// overflow checks (a sum that overflows exceeds every budget and is dropped).
///
/// Memory: the dense table is checked against settings.max_table_bytes before allocating; the
/// sparse DP checks every stage before allocating it; a refusal is std::invalid_argument
/// "nsc::solve_mmck: ... need N bytes ... more than max_table_bytes (got M)".
#ifndef NSC_SEARCH_MULTI_KNAPSACK_HPP
#define NSC_SEARCH_MULTI_KNAPSACK_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>
#include <nsc/search/pareto.hpp>

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

/// Largest number of cost dimensions solve_mmck accepts.
inline constexpr std::size_t mmck_max_dims = 8;

/// One option of a group: its value and its K integer costs (each >= 0).
template <class Value>
struct mmck_option {
  Value value;
  std::vector<std::int64_t> cost;
};

/// The groups of a K-budget instance; exactly one option is chosen per group.
template <class Value>
using mmck_groups = std::vector<std::vector<mmck_option<Value>>>;

/// Which algorithm to run (automatic: the rule in the file comment).
enum class mmck_method { automatic, dense, sparse, lattice };

/// Which algorithm ran.
enum class mmck_path { dense_1d, dense, sparse, lattice };

constexpr std::string_view to_string(mmck_path p) noexcept {
  return p == mmck_path::dense_1d ? "dense_1d"
         : p == mmck_path::dense  ? "dense"
         : p == mmck_path::sparse ? "sparse"
                                  : "lattice";
}

/// Settings of solve_mmck.
struct mmck_settings {
  /// Refuse (before allocating) tables or state sets needing more bytes than this.
  std::size_t max_table_bytes = std::size_t{1} << 30;
  mmck_method method = mmck_method::automatic;
  /// Combine identical groups by doubling their Pareto set (sparse path).
  bool identical_groups = true;
  /// Only the solved budget vector will be queried: enables the Lagrangian bound (sparse path);
  /// best/choice at any other vector and front() then throw.
  bool single_budget = false;
  /// Use the Lagrangian bound when single_budget (off: plain sparse DP, for comparisons).
  bool bound = true;
  /// Bounded path: states kept per merge by the heuristic run that finds the incumbent first
  /// (0: no heuristic run, the greedy incumbent); it only sets the gap, the answer is exact.
  std::size_t bound_beam = 256;
  /// Lattice path: split product groups (options = every pair of two smaller option lists with
  /// additive costs and values, detected exactly) into their factors.
  bool split_products = true;
  /// Automatic choice for Pareto-set solves (not single_budget): the lattice path when some
  /// class of identical groups has at least this many groups (single_budget solves: 2).
  std::size_t lattice_min_multiplicity = 8;
  /// Work cap of the sparse path (candidate states and candidate pairs examined; 0: none): a
  /// refusal "... more than max_work ..." when passed. The automatic rule sets it itself when it
  /// tries the sparse path before a costlier lattice table (see the file comment).
  std::uint64_t max_work = 0;
  /// Automatic choice for single_budget solves with identical groups: a lattice table of at
  /// most this many bytes runs directly; a larger one runs only when the sparse bounded DP
  /// passes a work cap equal to the lattice's estimated table updates.
  std::size_t lattice_direct_bytes = std::size_t{64} << 20;
  /// Pareto-set solves (not single_budget) only: > 0 runs the sparse path with in-DP trimming
  /// to an epsilon-front (see the file comment): every selection x with (1 + epsilon) c_k(x)
  /// <= B_k for all k has a returned point r with value(r) >= value(x) and c_k(r) <= (1 +
  /// epsilon) c_k(x) for every k. 0: exact.
  double epsilon = 0;
  /// Exact Pareto-set solves (not single_budget, epsilon = 0), sparse path: > 0 refuses the
  /// root merge as soon as it has kept more than this many states ("... max_root_states ...").
  /// The streaming filter never drops a kept state, so the front would have more points:
  /// solve_mmck_front sets it to the most points whose listing can fit its memory cap.
  std::size_t max_root_states = 0;
  /// Epsilon-front solves (epsilon > 0) only: > 0 refuses the root merge as soon as its kept
  /// states fall in more than this many cover boxes (mmck_cover_box: trim_depth trim boxes per
  /// dimension, nested). Trimming keeps a state in every trim box that had one, so the front
  /// has a point in each of those boxes and its cover (mmck_front_cover) lists at least one per
  /// box: solve_mmck_front sets it to the most points whose listing can fit its memory cap.
  std::size_t max_root_boxes = 0;
};

/// What a solve did, for reports and benchmarks.
struct mmck_info {
  mmck_path path = mmck_path::sparse;
  std::size_t dims = 0;
  bool identical = false;          ///< identical groups combined by doubling
  bool bounded = false;            ///< Lagrangian bound pruning used
  std::size_t classes = 0;         ///< distinct groups (classes of identical groups)
  bool single = false;             ///< single_budget solve
  std::uint64_t cells = 0;         ///< dense: table cells
  std::uint64_t states = 0;        ///< sparse: states kept over all stages
  std::uint64_t candidates = 0;    ///< sparse: candidate states examined
  std::uint64_t work = 0;          ///< dense: cell updates (cells x options); sparse: candidates
  std::size_t peak_bytes = 0;      ///< largest memory held by the tables / stages
  double upper_bound = 0;          ///< bounded: the Lagrangian bound of the optimum
  double incumbent = 0;            ///< bounded: the greedy selection's value
  bool products = false;           ///< lattice: some product group split into its factors
  bool grid = false;               ///< lattice: a merge ran on a dense grid over its sums' lattice
  std::size_t lattice_rank = 0;    ///< lattice: the largest class lattice rank
  double epsilon = 0;              ///< > 0: an epsilon-front (settings.epsilon), not the exact set
  std::size_t trim_depth = 0;      ///< epsilon: trims on the longest leaf-to-root path
  double trim_factor = 0;          ///< epsilon: each trim's factor 1 + delta, (1 + delta)^depth <= 1 + epsilon
  double trim_width = 0;           ///< epsilon: a trim box's width in log cost (mmck_trim_box)
  std::uint64_t trimmed = 0;       ///< epsilon: states dropped by trimming
  /// Why the automatic rule took this path (empty: the fixed rule of the file comment), e.g.
  /// "lattice tables 948 MB > 64 MB: sparse bounded DP first, within 1.2e9 work".
  std::string reason;

  /// "sparse (identical groups doubled, Lagrangian bound)" etc.
  std::string describe() const {
    std::string s(to_string(path));
    std::string extra;
    if (path == mmck_path::lattice) {
      extra += "identical groups as multiset tables";
      if (products) extra += ", products split";
      if (single) extra += ", range-max query";
    } else if (identical) {
      extra += "identical groups doubled";
    }
    if (bounded) extra += std::string(extra.empty() ? "" : ", ") + "Lagrangian bound";
    if (epsilon > 0) extra += std::string(extra.empty() ? "" : ", ") + "epsilon-trimmed";
    if (!extra.empty()) s += " (" + extra + ")";
    return s;
  }
};

/// One point of the Pareto set: total costs (caller's units) and the value.
template <class Value>
struct mmck_point {
  std::vector<std::int64_t> cost;
  Value value;
};

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

namespace detail {

/// True when two groups are equal option by option (value ==, same costs).
template <class Value>
bool mmck_same_group(const std::vector<mmck_option<Value>>& a,
                     const std::vector<mmck_option<Value>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t j = 0; j < a.size(); ++j)
    if (!(a[j].value == b[j].value) || a[j].cost != b[j].cost) return false;
  return true;
}

/// The group indices sorted so that identical groups are adjacent (by size, then option by
/// option value and costs; ties by index).
template <class Value>
std::vector<std::size_t> mmck_group_order(const mmck_groups<Value>& g) {
  std::vector<std::size_t> order(g.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const auto &a = g[x], &b = g[y];
    if (a.size() != b.size()) return a.size() < b.size();
    for (std::size_t j = 0; j < a.size(); ++j) {
      if (a[j].value < b[j].value) return true;
      if (b[j].value < a[j].value) return false;
      if (a[j].cost != b[j].cost) return a[j].cost < b[j].cost;
    }
    return x < y;
  });
  return order;
}

/// The in-DP epsilon-front's trim box of a cost: floor(log c / width); cost 0 its own box (-1).
inline std::int64_t mmck_trim_box(std::int64_t c, double width) {
  return c <= 0 ? std::int64_t(-1) : std::int64_t(std::floor(std::log(double(c)) / width));
}

/// The cover box of a cost: `depth` consecutive trim boxes, floor(trim box / depth) (trim
/// boxes of costs >= 1 are >= 0); cost 0 its own box. Nested: costs of one trim box share their
/// cover box. Costs in one cover box are within exp(depth x width) <= 1 + epsilon of each other
/// when width is the solve's trim_width and depth its trim_depth (width is 1e-6 narrower than
/// log(1 + delta), (1 + delta)^depth = 1 + epsilon).
inline std::int64_t mmck_cover_box(std::int64_t c, double width, std::size_t depth) {
  if (c <= 0) return std::numeric_limits<std::int64_t>::min();
  return mmck_trim_box(c, width) / std::int64_t(depth);
}

/// A set of K-vectors of box indices (open addressing): insert() says whether it was new.
class mmck_box_set {
public:
  explicit mmck_box_set(std::size_t K) : K_(K), slots_(1024, std::uint32_t(-1)) {}
  bool insert(const std::int64_t* key) {
    for (std::size_t h = hash(key) & (slots_.size() - 1);; h = (h + 1) & (slots_.size() - 1)) {
      const std::uint32_t i = slots_[h];
      if (i == std::uint32_t(-1)) break;
      if (std::equal(key, key + K_, keys_.begin() + std::ptrdiff_t(std::size_t(i) * K_))) return false;
    }
    keys_.insert(keys_.end(), key, key + K_);
    place(std::uint32_t(size() - 1));
    if (2 * size() > slots_.size()) {
      slots_.assign(2 * slots_.size(), std::uint32_t(-1));
      for (std::uint32_t i = 0; i < size(); ++i) place(i);
    }
    return true;
  }
  std::size_t size() const { return keys_.size() / K_; }

private:
  std::size_t hash(const std::int64_t* key) const {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    for (std::size_t k = 0; k < K_; ++k) h = (h ^ std::uint64_t(key[k])) * 0xff51afd7ed558ccdull, h ^= h >> 32;
    return std::size_t(h);
  }
  void place(std::uint32_t i) {
    std::size_t h = hash(keys_.data() + std::size_t(i) * K_) & (slots_.size() - 1);
    while (slots_[h] != std::uint32_t(-1)) h = (h + 1) & (slots_.size() - 1);
    slots_[h] = i;
  }
  std::size_t K_;
  std::vector<std::int64_t> keys_;
  std::vector<std::uint32_t> slots_;
};

/// Lexicographic comparison of two K-cost rows.
inline int mmck_cmp(const std::int64_t* x, const std::int64_t* y, std::size_t K) {
  for (std::size_t k = 0; k < K; ++k)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

/// Sorts option indices by lexicographic cost, then largest value, then lowest index (the order
/// the dominance filter and same-cost pruning expect).
template <class Value, class Index>
void mmck_sort_options(const std::vector<mmck_option<Value>>& opts, std::size_t K, std::vector<Index>& order) {
  std::sort(order.begin(), order.end(), [&](Index x, Index y) {
    const int r = mmck_cmp(opts[x].cost.data(), opts[y].cost.data(), K);
    if (r != 0) return r < 0;
    if (opts[y].value < opts[x].value) return true;
    if (opts[x].value < opts[y].value) return false;
    return x < y;
  });
}

/// Dynamic dominance index over kept states for K >= 3 (dimensions 1..K-1; dimension 0 is the
/// stream order): dominated(c, v) is true when some inserted state i has value_i >= v and
/// cost_ik <= c_k for k = 1..K-1, the linear scan's rule. Bentley-Saxe levels of static K-D
/// trees (level j holds 0 or 2^j x 32 states; subtree bounding boxes and best values), plus a
/// buffer of up to 32 scanned linearly: insertion O(log^2 n) amortised, a query visits only
/// subtrees whose box meets {x <= c} and whose best value reaches v.
template <class Value>
class mmck_dominance_index {
public:
  mmck_dominance_index(std::size_t K, const std::vector<std::int64_t>& cost, const std::vector<Value>& value)
      : K_(K), cost_(cost), value_(value) {}

  void insert(std::uint32_t i) {
    buffer_.push_back(i);
    if (buffer_.size() < chunk) return;
    std::vector<std::uint32_t> carry;
    carry.swap(buffer_);
    std::size_t j = 0;
    for (; j < levels_.size() && !levels_[j].idx.empty(); ++j) {
      carry.insert(carry.end(), levels_[j].idx.begin(), levels_[j].idx.end());
      levels_[j] = {};
    }
    if (j == levels_.size()) levels_.emplace_back();
    levels_[j].idx = std::move(carry);
    build(levels_[j], 0, levels_[j].idx.size());
  }

  bool dominated(const std::int64_t* c, const Value& v) const {
    for (std::uint32_t i : buffer_)
      if (covers(i, c, v)) return true;
    for (const tree& t : levels_)
      if (!t.idx.empty() && query(t, c, v)) return true;
    return false;
  }

private:
  static constexpr std::size_t chunk = 32;
  struct node {
    mmck_cost mn{}, mx{};
    std::uint32_t best = 0;  // index of a state with the largest value in the subtree
    std::uint32_t lo = 0, hi = 0, left = 0, right = 0;
    bool inner = false;
  };
  struct tree {
    std::vector<std::uint32_t> idx;
    std::vector<node> nodes;
  };
  bool covers(std::uint32_t i, const std::int64_t* c, const Value& v) const {
    if (value_[i] < v) return false;
    const std::int64_t* q = cost_.data() + std::size_t(i) * K_;
    for (std::size_t k = 1; k < K_; ++k)
      if (q[k] > c[k]) return false;
    return true;
  }
  std::uint32_t build(tree& t, std::size_t lo, std::size_t hi) {
    const auto id = std::uint32_t(t.nodes.size());
    t.nodes.emplace_back();
    node nd;
    nd.lo = std::uint32_t(lo);
    nd.hi = std::uint32_t(hi);
    nd.best = t.idx[lo];
    for (std::size_t k = 1; k < K_; ++k) nd.mn[k] = nd.mx[k] = cost_[std::size_t(t.idx[lo]) * K_ + k];
    for (std::size_t u = lo; u < hi; ++u) {
      const std::uint32_t p = t.idx[u];
      if (value_[nd.best] < value_[p]) nd.best = p;
      for (std::size_t k = 1; k < K_; ++k) {
        nd.mn[k] = std::min(nd.mn[k], cost_[std::size_t(p) * K_ + k]);
        nd.mx[k] = std::max(nd.mx[k], cost_[std::size_t(p) * K_ + k]);
      }
    }
    if (hi - lo > 8) {
      std::size_t dim = 1;
      for (std::size_t k = 2; k < K_; ++k)
        if (nd.mx[k] - nd.mn[k] > nd.mx[dim] - nd.mn[dim]) dim = k;
      if (nd.mx[dim] > nd.mn[dim]) {
        const std::size_t mid = lo + (hi - lo) / 2;
        std::nth_element(t.idx.begin() + std::ptrdiff_t(lo), t.idx.begin() + std::ptrdiff_t(mid),
                         t.idx.begin() + std::ptrdiff_t(hi), [&](std::uint32_t x, std::uint32_t y) {
                           return cost_[std::size_t(x) * K_ + dim] < cost_[std::size_t(y) * K_ + dim];
                         });
        nd.inner = true;
        nd.left = build(t, lo, mid);
        nd.right = build(t, mid, hi);
      }
    }
    t.nodes[id] = nd;
    return id;
  }
  bool query(const tree& t, const std::int64_t* c, const Value& v) const {
    std::uint32_t stack[128];
    std::size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const node& nd = t.nodes[stack[--top]];
      if (value_[nd.best] < v) continue;
      bool meets = true, inside = true;
      for (std::size_t k = 1; k < K_; ++k) {
        meets = meets && nd.mn[k] <= c[k];
        inside = inside && nd.mx[k] <= c[k];
      }
      if (!meets) continue;
      if (inside) return true;  // every state here fits, and the best reaches v
      if (nd.inner) {
        stack[top++] = nd.left;
        stack[top++] = nd.right;
      } else {
        for (std::uint32_t u = nd.lo; u < nd.hi; ++u)
          if (covers(t.idx[u], c, v)) return true;
      }
    }
    return false;
  }

  std::size_t K_;
  const std::vector<std::int64_t>& cost_;
  const std::vector<Value>& value_;
  std::vector<std::uint32_t> buffer_;
  std::vector<tree> levels_;
};

/// Streaming dominance filter: candidates arrive in lexicographic cost order, same costs
/// adjacent with the preferred one (largest value, then smallest key) first. K = 1: the best
/// value so far; K = 2: a staircase (map c1 -> value); K >= 3: mmck_dominance_index.
template <class Value>
class mmck_filter {
public:
  mmck_filter(std::size_t K, mmck_node<Value>& out) : K_(K), out_(out) {}

  /// Offers a candidate; returns true if kept.
  bool offer(const std::int64_t* c, const Value& v, std::uint32_t a, std::uint32_t b) {
    const std::size_t n = out_.count();
    if (have_last_ && mmck_cmp(c, last_.data(), K_) == 0) return false;  // same cost: first wins
    std::copy(c, c + K_, last_.begin());
    have_last_ = true;
    if (dominated(c, v)) return false;
    out_.cost.insert(out_.cost.end(), c, c + K_);
    out_.value.push_back(v);
    out_.a.push_back(a);
    out_.b.push_back(b);
    insert(n);
    return true;
  }

private:
  bool dominated(const std::int64_t* c, const Value& v) {
    if (K_ == 1) return best_ && !(*best_ < v);
    if (K_ == 2) {
      // stair: c1 ascending -> value strictly ascending; max value with c1' <= c1
      auto it = stair_.upper_bound(c[1]);
      if (it == stair_.begin()) return false;
      --it;
      return !(out_.value[it->second] < v);
    }
    return index_.dominated(c, v);  // q[0] <= c[0] by the stream order
  }
  void insert(std::size_t i) {
    const Value& v = out_.value[i];
    if (K_ == 1) {
      best_ = v;
      return;
    }
    if (K_ == 2) {
      const std::int64_t c1 = out_.cost[i * 2 + 1];
      auto it = stair_.lower_bound(c1);
      while (it != stair_.end() && !(v < out_.value[it->second])) it = stair_.erase(it);
      stair_[c1] = i;
      return;
    }
    index_.insert(std::uint32_t(i));
  }

  std::size_t K_;
  mmck_node<Value>& out_;
  mmck_cost last_{};
  bool have_last_ = false;
  std::optional<Value> best_;
  std::map<std::int64_t, std::size_t> stair_;
  mmck_dominance_index<Value> index_{K_, out_.cost, out_.value};
};


/// The sparse engine (see the file comment).
template <class Value>
class mmck_sparse_solver {
public:
  mmck_sparse_solver(const mmck_groups<Value>& groups, const std::vector<std::int64_t>& budget,
                     const mmck_settings& s, mmck_info& info)
      : g_(groups), B_(budget), s_(s), info_(info), K_(budget.size()) {}

  mmck_sparse<Value> run() {
    mmck_sparse<Value> out;
    out.K = K_;
    classify(out);
    rep_for(out);
    info_.classes = out.class_groups.size();
    // minima per class and in total
    cls_min_.assign(out.class_groups.size(), std::vector<std::int64_t>(K_, 0));
    total_min_.assign(K_, 0);
    for (std::size_t c = 0; c < out.class_groups.size(); ++c) {
      const auto& opts = g_[out.class_groups[c][0]];
      for (std::size_t k = 0; k < K_; ++k) {
        std::int64_t m = opts[0].cost[k];
        for (const auto& o : opts) m = std::min(m, o.cost[k]);
        cls_min_[c][k] = m;
        // minima of feasible instances never overflow: m * count <= B (checked by caller)
        std::int64_t t = 0;
        if (__builtin_mul_overflow(m, std::int64_t(out.class_groups[c].size()), &t) ||
            !mmck_add(total_min_[k], t, total_min_[k]))
          total_min_[k] = std::numeric_limits<std::int64_t>::max();
      }
    }
    if (s_.single_budget && s_.bound) setup_bound(out);
    if (!s_.single_budget && s_.epsilon > 0) setup_trim(out);
    if (bounded_ && gap_ > 2 * slack_ && s_.bound_beam != 0) {
      // Sharpen the incumbent first: the same DP keeping at most `beam` states per merge (those
      // of the largest completion bound; a heuristic: it may miss the optimum) gives a feasible
      // selection, often optimal, which shrinks the exact run's gap.
      const double wide = gap_ - slack_;
      double incumbent = ub_ - wide;
      mmck_sparse<Value> trial;
      trial.K = out.K;
      trial.group_class = out.group_class;
      trial.class_groups = out.class_groups;
      beam_ = s_.bound_beam;
      try {
        build(trial);
        const auto& root = trial.nodes[trial.root];
        for (std::size_t i = 0; i < root.count(); ++i)
          incumbent = std::max(incumbent, double((long double)root.value[i]));
      } catch (const std::invalid_argument&) {
        // the heuristic run needed more than a cap: keep the incumbent
      }
      beam_ = 0;
      reset_nodes();
      gap_ = std::max(0.0, ub_ - incumbent) + slack_;
      info_.incumbent = incumbent;
    }
    build(out);
    return out;
  }

private:
  void reset_nodes() {
    key_.clear();
    node_cls_min_.clear();
    node_phi_.clear();
    node_maxc_.clear();
    bytes_ = 0;
  }

  /// One node per class (doubling), then the chain in class order; out.root set.
  void build(mmck_sparse<Value>& out) {
    nodes_ = &out.nodes;
    // the merges to come; the last one is the root's (single_budget: only its best pair is kept)
    merges_left_ = out.class_groups.empty() ? 0 : out.class_groups.size() - 1;
    for (const auto& cg : out.class_groups) {
      const std::size_t m = cg.size();
      if (m == 1 || !s_.identical_groups) merges_left_ += m - 1;
      else merges_left_ += std::size_t(std::popcount(m)) - 1 + std::size_t(std::bit_width(m)) - 1;
    }
    std::optional<std::size_t> root;
    for (std::size_t c = 0; c < out.class_groups.size(); ++c) {
      const std::size_t m = out.class_groups[c].size();
      const std::size_t leaf = make_leaf(c);
      std::size_t node;
      if (m == 1 || !s_.identical_groups) {
        node = leaf;
        for (std::size_t t = 1; t < m; ++t) node = combine(node, leaf, false);
      } else {
        info_.identical = true;
        std::optional<std::size_t> acc;
        std::size_t power = leaf;
        std::size_t rest = m;
        while (true) {
          if (rest & 1) acc = acc ? combine(*acc, power, false) : power;
          rest >>= 1;
          if (!rest) break;
          power = combine(power, power, true);
        }
        node = *acc;
      }
      root = root ? combine(*root, node, false) : node;
      if (!s_.single_budget && s_.max_table_bytes != 0 && c + 1 < out.class_groups.size()) {
        // a chain's states are all kept and its nodes rarely shrink: refuse early when the
        // merges still to come, each as large as this one, would pass the cap
        const std::size_t per = K_ * 8 + sizeof(Value) + 12;
        const long double ahead = (long double)(out.class_groups.size() - 1 - c) * (long double)(*nodes_)[*root].count() * per;
        if ((long double)bytes_ + ahead > (long double)s_.max_table_bytes)
          mmck_fail("the sparse Pareto-state DP needs about ", (unsigned long long)((long double)bytes_ + ahead),
                    " bytes (", bytes_, " held after ", c + 1, " of ", out.class_groups.size(), " classes, and ",
                    out.class_groups.size() - 1 - c, " merges to come of ", (*nodes_)[*root].count(),
                    " states each), more than max_table_bytes (got ", s_.max_table_bytes, ")");
      }
    }
    out.root = *root;
  }

  void classify(mmck_sparse<Value>& out) {
    const std::size_t G = g_.size();
    out.group_class.assign(G, 0);
    if (!s_.identical_groups) {
      for (std::size_t i = 0; i < G; ++i) {
        out.group_class[i] = i;
        out.class_groups.push_back({i});
      }
      return;
    }
    const std::vector<std::size_t> order = mmck_group_order(g_);
    auto same = [&](std::size_t x, std::size_t y) { return mmck_same_group(g_[x], g_[y]); };
    std::vector<std::size_t> rep(G);  // class representative = smallest index
    for (std::size_t i = 0; i < G;) {
      std::size_t j = i + 1;
      while (j < G && same(order[i], order[j])) ++j;
      for (std::size_t t = i; t < j; ++t) rep[order[t]] = order[i];
      i = j;
    }
    std::vector<std::size_t> cls_of_rep(G, SIZE_MAX);
    for (std::size_t i = 0; i < G; ++i) {
      const std::size_t r = rep[i];
      if (cls_of_rep[r] == SIZE_MAX) {
        cls_of_rep[r] = out.class_groups.size();
        out.class_groups.emplace_back();
      }
      out.group_class[i] = cls_of_rep[r];
      out.class_groups[cls_of_rep[r]].push_back(i);
    }
  }

  /// Per-dimension cap of a node covering `min` of the minima: B_k - (total_min_k - min_k).
  void caps(const std::vector<std::int64_t>& covered_min, std::vector<std::int64_t>& cap) const {
    cap.resize(K_);
    for (std::size_t k = 0; k < K_; ++k) cap[k] = B_[k] - (total_min_[k] - covered_min[k]);
  }

  /// Counts n units of work (candidates, candidate pairs) against settings.max_work.
  void tick(std::uint64_t n) {
    work_ += n;
    if (s_.max_work != 0 && work_ > s_.max_work)
      mmck_fail("the sparse Pareto-state DP examined ", work_, " candidates, more than max_work (got ",
                s_.max_work, ")");
  }

  void account(std::size_t n) {
    const std::size_t per = K_ * 8 + sizeof(Value) + 12 + (s_.single_budget ? 8 : 0);  // + a, b, key
    bytes_ += n * per;
    info_.peak_bytes = std::max(info_.peak_bytes, bytes_);
  }
  void check_room(std::uint64_t states, std::string_view what) const {
    const std::size_t per = K_ * 8 + sizeof(Value) + 12 + (s_.single_budget ? 8 : 0);  // + a, b, key
    const long double need = (long double)bytes_ + (long double)states * (long double)per;
    if (need > (long double)s_.max_table_bytes)
      mmck_fail("the sparse Pareto-state DP needs ", (unsigned long long)need,
                " bytes (", what, ": up to ", states, " states of ", per,
                " bytes on top of ", bytes_, " held), more than max_table_bytes (got ",
                s_.max_table_bytes, ")");
  }

  std::size_t make_leaf(std::size_t c) {
    const auto& opts = g_[cls_groups_rep(c)];
    mmck_node<Value> n;
    n.leaf = true;
    n.cls = c;
    n.size = 1;
    std::vector<std::int64_t> cap;
    caps(cls_min_[c], cap);
    std::vector<std::size_t> order;
    for (std::size_t j = 0; j < opts.size(); ++j) {
      bool fits = true;
      for (std::size_t k = 0; k < K_ && fits; ++k) fits = opts[j].cost[k] <= cap[k];
      if (fits && (!bounded_ || option_loss(c, j) <= gap_)) order.push_back(j);
    }
    mmck_sort_options(opts, K_, order);
    check_room(order.size(), "one group");
    mmck_filter<Value> f(K_, n);
    tick(order.size());
    for (std::size_t j : order) {
      info_.candidates++;
      f.offer(opts[j].cost.data(), opts[j].value, std::uint32_t(j), 0);
    }
    if (bounded_) {
      for (std::size_t i = 0; i < n.count(); ++i) n.loss.push_back(option_loss(c, n.a[i]));
    }
    trim(n);
    key_.push_back(std::vector<std::uint32_t>(n.a.begin(), n.a.end()));
    node_cls_min_.push_back(cls_min_[c]);
    if (!lams_.empty()) {
      const std::size_t P = lams_.size();
      node_phi_.emplace_back(cls_phi_.begin() + std::ptrdiff_t(c * P), cls_phi_.begin() + std::ptrdiff_t((c + 1) * P));
      node_maxc_.emplace_back(cls_maxc_.begin() + std::ptrdiff_t(c * K_), cls_maxc_.begin() + std::ptrdiff_t((c + 1) * K_));
    }
    account(n.count());
    info_.states += n.count();
    nodes_->push_back(std::move(n));
    return nodes_->size() - 1;
  }

  std::size_t cls_groups_rep(std::size_t c) const { return rep_of_class_[c]; }

  std::size_t combine(std::size_t L, std::size_t R, bool self) {
    const bool final_merge = --merges_left_ == 0;
    const bool last = final_merge && s_.single_budget;
    // an exact front's root: refused once its kept states (never dropped) pass max_root_states
    const std::size_t root_limit = final_merge && !s_.single_budget && !(s_.epsilon > 0) ? s_.max_root_states : 0;
    // an epsilon-front's root: refused once its kept states pass max_root_boxes cover boxes
    const std::size_t box_limit = final_merge && !s_.single_budget && trimming_ ? s_.max_root_boxes : 0;
    std::optional<mmck_box_set> root_boxes;
    if (box_limit != 0) root_boxes.emplace(K_);
    std::array<std::int64_t, mmck_max_dims> cover_key{};
    auto note_box = [&](const mmck_node<Value>& n) {  // the state just kept
      const std::int64_t* c = n.cost.data() + (n.count() - 1) * K_;
      for (std::size_t k = 0; k < K_; ++k) cover_key[k] = mmck_cover_box(c[k], width_, trim_depth_);
      if (root_boxes->insert(cover_key.data()) && root_boxes->size() > box_limit)
        mmck_fail("the root merge of the epsilon-trimmed Pareto-state DP (", (*nodes_)[L].count(), " x ",
                  (*nodes_)[R].count(), " states) stopped after ", info_.candidates, " candidates with ", n.count(),
                  " states kept in ", root_boxes->size(), " cover boxes, more than max_root_boxes (got ", box_limit,
                  "): its cover would list at least that many points");
    };
    const mmck_node<Value>& A = (*nodes_)[L];
    const mmck_node<Value>& Bn = (*nodes_)[R];
    std::vector<std::int64_t> covered(K_);
    for (std::size_t k = 0; k < K_; ++k) covered[k] = node_cls_min_[L][k] + node_cls_min_[R][k];
    std::vector<std::int64_t> cap;
    caps(covered, cap);
    // the completion bound of the groups outside this node under each multiplier of lams_
    std::vector<long double> cov_phi, rest_phi;
    std::vector<mmck_i128> cov_maxc;
    std::array<bool, mmck_max_dims> rest_free{};  // the rest costs nothing in this dimension
    if (!lams_.empty()) {
      const std::size_t P = lams_.size();
      cov_phi.resize(P);
      rest_phi.resize(P);
      for (std::size_t p = 0; p < P; ++p) {
        cov_phi[p] = node_phi_[L][p] + node_phi_[R][p];
        rest_phi[p] = total_phi_[p] - cov_phi[p];
      }
      cov_maxc.resize(K_);
      for (std::size_t k = 0; k < K_; ++k) {
        cov_maxc[k] = node_maxc_[L][k] + node_maxc_[R][k];
        rest_free[k] = cov_maxc[k] == total_maxc_[k];
      }
    }
    mmck_node<Value> n;
    n.leaf = false;
    n.left = L;
    n.right = R;
    n.size = A.size + Bn.size;
    const std::size_t na = A.count(), nb = Bn.count();
    const auto& keyA = key_[L];
    const auto& keyB = key_[R];
    mmck_filter<Value> f(K_, n);
    mmck_cost sum{};
    auto make = [&](std::size_t a, std::size_t b) {
      for (std::size_t k = 0; k < K_; ++k) {
        if (!mmck_add(A.cost[a * K_ + k], Bn.cost[b * K_ + k], sum[k]) || sum[k] > cap[k])
          return false;
      }
      return true;
    };
    // can a candidate (cost `sum`, value v) be part of a selection worth the incumbent? Each
    // multiplier l >= 0 bounds the rest's best completion within B - sum by
    // rest_phi(l) + l . (B - sum) / scale; a dimension the rest costs nothing in takes l_k = 0
    const long double threshold = (long double)ub_ - (long double)gap_;  // the incumbent less the slack
    auto bound_of = [&](const Value& v, const std::int64_t* c) {
      long double out = std::numeric_limits<long double>::infinity();
      for (std::size_t p = 0; p < lams_.size(); ++p) {
        long double bnd = (long double)v + rest_phi[p];
        for (std::size_t k = 0; k < K_; ++k)
          if (!rest_free[k]) bnd += (long double)lams_[p][k] * (long double)(B_[k] - c[k]) / (long double)scale_[k];
        out = std::min(out, bnd);
        if (out < threshold) break;
      }
      return out;
    };
    std::int64_t unit = 0, lo = 0, hi = 0;
    bool bucket = false;
    if (!bounded_ && K_ == 1 && na > 0 && nb > 0) {
      // one dimension on a small lattice: a bucket per reachable total (exact, O(na nb + span))
      lo = A.cost[0] + Bn.cost[0];
      hi = std::min(cap[0], A.cost[na - 1] > cap[0] - Bn.cost[nb - 1] ? cap[0] : A.cost[na - 1] + Bn.cost[nb - 1]);
      for (std::size_t a = 0; a < na; ++a) unit = std::gcd(unit, A.cost[a] - A.cost[0]);
      for (std::size_t b = 0; b < nb; ++b) unit = std::gcd(unit, Bn.cost[b] - Bn.cost[0]);
      if (unit == 0) unit = 1;
      bucket = lo <= hi && (hi - lo) / unit <= std::int64_t(4 * na * nb + 1024);
    }
    if (last) {
      // the root of a single_budget solve: only the best pair is asked for, no Pareto set. The
      // filter's answer exactly: the largest value, then the lexicographically smallest cost
      // vector, then the smallest (key B, key A); bounded: the pairs within the gap (any
      // selection worth the incumbent is among them)
      std::vector<std::size_t> ob(nb);
      std::iota(ob.begin(), ob.end(), std::size_t{0});
      if (bounded_)
        std::sort(ob.begin(), ob.end(), [&](std::size_t x, std::size_t y) { return Bn.loss[x] < Bn.loss[y]; });
      std::optional<std::pair<std::size_t, std::size_t>> best;
      Value bv{};
      mmck_cost bc{};
      for (std::size_t a = 0; a < na; ++a) {
        const double room = bounded_ ? gap_ - A.loss[a] : 0;
        std::size_t t = 0;
        for (; t < nb && (!bounded_ || Bn.loss[ob[t]] <= room); ++t) {
          const std::size_t b = ob[t];
          if (self && a < b) continue;
          if (!make(a, b)) continue;
          Value v = A.value[a] + Bn.value[b];
          bool take = !best || bv < v;
          if (!take && !(v < bv)) {
            const int r = mmck_cmp(sum.data(), bc.data(), K_);
            take = r < 0 || (r == 0 && (keyB[b] < keyB[best->second] ||
                                        (keyB[b] == keyB[best->second] && keyA[a] < keyA[best->first])));
          }
          if (take) {
            best = {a, b};
            bv = std::move(v);
            bc = sum;
          }
        }
        info_.candidates += t;
        tick(t + 1);
      }
      if (best) {
        f.offer(bc.data(), bv, std::uint32_t(best->first), std::uint32_t(best->second));
        if (bounded_) n.loss.push_back(A.loss[best->first] + Bn.loss[best->second]);
      }
    } else if (bucket) {
      const std::size_t span = std::size_t((hi - lo) / unit) + 1;
      check_room(span, "a merge");
      struct slot {
        std::uint32_t a = 0, b = 0;
        bool has = false;
      };
      std::vector<slot> at(span);
      std::vector<Value> val(span);
      for (std::size_t b = 0; b < nb; ++b) {
        const std::int64_t cb = Bn.cost[b];
        for (std::size_t a = self ? b : 0; a < na; ++a) {
          std::int64_t c;
          if (!mmck_add(A.cost[a], cb, c) || c > hi) break;
          info_.candidates++;
          if ((info_.candidates & 4095) == 0) tick(4096);
          const std::size_t i = std::size_t((c - lo) / unit);
          Value v = A.value[a] + Bn.value[b];
          slot& x = at[i];
          bool take = !x.has || val[i] < v;
          if (!take && !(v < val[i]))
            take = keyB[b] < keyB[x.b] || (keyB[b] == keyB[x.b] && keyA[a] < keyA[x.a]);
          if (take) {
            val[i] = std::move(v);
            x = {std::uint32_t(a), std::uint32_t(b), true};
          }
        }
      }
      for (std::size_t i = 0; i < span; ++i) {
        if (!at[i].has) continue;
        sum[0] = lo + std::int64_t(i) * unit;
        if (f.offer(sum.data(), val[i], at[i].a, at[i].b) && root_boxes) note_box(n);
      }
    } else if (!bounded_) {
      // heap merge of the shifted copies A + B[b] (each sorted by cost)
      // streaming: memory grows only with the kept states, checked as they are kept
      if (s_.max_work != 0) {
        // the work before it starts: the pairs within the first cap (A is sorted by it) bound
        // the candidates; a merge past max_work is refused before any is examined
        std::uint64_t pairs = 0;
        for (std::size_t b = 0; b < nb; ++b) {
          const std::int64_t room0 = cap[0] - Bn.cost[b * K_];
          std::size_t from = self ? b : 0, to = na;
          const std::size_t first = from;
          while (from < to) {
            const std::size_t mid = from + (to - from) / 2;
            if (A.cost[mid * K_] <= room0) from = mid + 1;
            else to = mid;
          }
          pairs += from - first;
        }
        if (work_ + pairs > s_.max_work)
          mmck_fail("the sparse Pareto-state DP needs up to ", work_ + pairs, " candidates (a merge of ", na, " x ", nb,
                    " states has ", pairs, " pairs within the first budget, after ", work_,
                    " examined), more than max_work (got ", s_.max_work, ")");
      }
      const std::size_t per = K_ * 8 + sizeof(Value) + 12;
      const std::size_t room = (s_.max_table_bytes > bytes_ ? s_.max_table_bytes - bytes_ : 0) / per;
      struct cursor {  // the pair and its sum's first two costs and value (cached for the heap)
        std::int64_t c0, c1;
        Value v;
        std::size_t a, b;
      };
      auto worse = [&](const cursor& x, const cursor& y) {  // heap: true if x after y
        if (x.c0 != y.c0) return x.c0 > y.c0;
        if (x.c1 != y.c1) return x.c1 > y.c1;
        for (std::size_t k = 2; k < K_; ++k) {
          const std::int64_t cx = A.cost[x.a * K_ + k] + Bn.cost[x.b * K_ + k];
          const std::int64_t cy = A.cost[y.a * K_ + k] + Bn.cost[y.b * K_ + k];
          if (cx != cy) return cx > cy;
        }
        if (x.v < y.v) return true;
        if (y.v < x.v) return false;
        if (keyB[x.b] != keyB[y.b]) return keyB[x.b] > keyB[y.b];
        return keyA[x.a] > keyA[y.a];
      };
      std::priority_queue<cursor, std::vector<cursor>, decltype(worse)> heap(worse);
      auto push_valid = [&](cursor c) {
        // skip a-positions that overflow or exceed the caps; costs ascend along a in dim 0,
        // so a first-dimension excess ends the list
        while (c.a < na) {
          if (make(c.a, c.b)) {
            c.c0 = sum[0];
            c.c1 = K_ > 1 ? sum[1] : 0;
            c.v = A.value[c.a] + Bn.value[c.b];
            heap.push(c);
            return;
          }
          std::int64_t s0;
          if (!mmck_add(A.cost[c.a * K_], Bn.cost[c.b * K_], s0) || s0 > cap[0]) return;
          ++c.a;
        }
      };
      for (std::size_t b = 0; b < nb; ++b) push_valid({0, 0, Value{}, self ? b : 0, b});
      while (!heap.empty()) {
        const cursor c = heap.top();
        heap.pop();
        info_.candidates++;
        if ((info_.candidates & 4095) == 0) tick(4096);
        make(c.a, c.b);
        if (f.offer(sum.data(), c.v, std::uint32_t(c.a), std::uint32_t(c.b))) {
          if (n.count() > room)
            check_room(n.count(), "a merge of " + std::to_string(na) + " x " + std::to_string(nb) +
                                      " states, refused when its kept states pass the cap");
          if (root_boxes) note_box(n);
        }
        if (root_limit != 0 && n.count() > root_limit) root_refusal(na, nb, n.count());
        push_valid({0, 0, Value{}, c.a + 1, c.b});
      }
    } else {
      // pairs in ascending loss, within the gap
      std::vector<std::size_t> ob(nb);
      std::iota(ob.begin(), ob.end(), std::size_t{0});
      std::sort(ob.begin(), ob.end(), [&](std::size_t x, std::size_t y) { return Bn.loss[x] < Bn.loss[y]; });
      // the completion bound split per state: bound_p(a, b) = base_p + part_p(a) + part_p(b) with
      // part_p(x) = v_x - sum_k l_pk c_xk / scale_k (k outside rest_free) and base_p =
      // rest_phi_p + sum_k l_pk B_k / scale_k, bound_of's sum regrouped. Each part is rounded to
      // double once (base_p folded into A's): a pair is dropped only when its double sum is
      // below the threshold by more than 4 ulps of the largest magnitude involved (two roundings
      // of the parts and one of the sum, each at most half an ulp), so it drops only pairs whose
      // exact bound is below the threshold (P additions per pair instead of P x K products).
      const std::size_t P = lams_.size();
      std::vector<double> partA(na * P), partB(nb * P);
      double margin = 0;
      if (P != 0) {
        std::vector<long double> base(P);
        for (std::size_t p = 0; p < P; ++p) {
          base[p] = rest_phi[p];
          for (std::size_t k = 0; k < K_; ++k)
            if (!rest_free[k]) base[p] += (long double)lams_[p][k] * (long double)B_[k] / (long double)scale_[k];
        }
        double big = std::fabs(double(threshold));
        auto part = [&](const mmck_node<Value>& N, std::size_t x, const long double* add, double* to) {
          for (std::size_t p = 0; p < P; ++p) {
            long double r = (long double)N.value[x] + (add ? add[p] : 0.0L);
            for (std::size_t k = 0; k < K_; ++k)
              if (!rest_free[k]) r -= (long double)lams_[p][k] * (long double)N.cost[x * K_ + k] / (long double)scale_[k];
            to[p] = double(r);
            big = std::max(big, std::fabs(to[p]));
          }
        };
        double bigA = 0;
        for (std::size_t a = 0; a < na; ++a) part(A, a, base.data(), partA.data() + a * P);
        bigA = big;
        big = 0;
        for (std::size_t b = 0; b < nb; ++b) part(Bn, b, nullptr, partB.data() + b * P);
        margin = 4 * std::numeric_limits<double>::epsilon() * (bigA + big + std::fabs(double(threshold)));
      }
      const double bound_cut = double(threshold) - margin;
      // Pairs of one cost vector (a self-merge of identical groups makes many: the multisets
      // of 2m copies reached by many splits into m + m) meet in an open-addressing table keyed
      // by the cost vector, which keeps the filter's first of them (the largest value, then the
      // smallest key B, then key A); the filter ignores the others (same cost: the first wins),
      // so offering the table's pairs in cost order keeps the same states.
      struct pair_rep {
        std::uint32_t a, b;
      };
      std::vector<pair_rep> reps;
      std::vector<std::int64_t> rep_cost;
      std::vector<std::uint32_t> slots(1024, std::uint32_t(-1));
      const std::size_t per_rep = sizeof(pair_rep) + K_ * 8 + 8;  // a rep, its costs, two slots
      const std::size_t rep_cap = (s_.max_table_bytes > bytes_ ? s_.max_table_bytes - bytes_ : 0) / per_rep;
      auto hash_of = [&](const std::int64_t* c) {
        std::uint64_t h = 0x9e3779b97f4a7c15ull;
        for (std::size_t k = 0; k < K_; ++k) h = (h ^ std::uint64_t(c[k])) * 0xff51afd7ed558ccdull, h ^= h >> 32;
        return h;
      };
      auto better = [&](std::uint32_t a, std::uint32_t b, const pair_rep& r) {  // at equal cost
        const Value v = A.value[a] + Bn.value[b];
        const Value w = A.value[r.a] + Bn.value[r.b];
        if (w < v) return true;
        if (v < w) return false;
        if (keyB[b] != keyB[r.b]) return keyB[b] < keyB[r.b];
        return keyA[a] < keyA[r.a];
      };
      auto place = [&](std::uint32_t i) {
        const std::size_t mask = slots.size() - 1;
        std::size_t h = std::size_t(hash_of(rep_cost.data() + std::size_t(i) * K_)) & mask;
        while (slots[h] != std::uint32_t(-1)) h = (h + 1) & mask;
        slots[h] = i;
      };
      std::uint64_t passed = 0;
      for (std::size_t a = 0; a < na; ++a) {
        const double room = gap_ - A.loss[a];
        const double* pa = partA.data() + a * P;
        std::size_t t = 0;
        for (; t < nb && Bn.loss[ob[t]] <= room; ++t) {
          const std::size_t b = ob[t];
          if (self && a < b) continue;
          if (!make(a, b)) continue;
          if (P != 0) {
            const double* pb = partB.data() + b * P;
            bool below = false;
            for (std::size_t p = 0; p < P && !below; ++p) below = pa[p] + pb[p] < bound_cut;
            if (below) continue;
          }
          ++passed;
          const std::size_t mask = slots.size() - 1;
          std::size_t h = std::size_t(hash_of(sum.data())) & mask;
          for (;; h = (h + 1) & mask) {
            const std::uint32_t i = slots[h];
            if (i == std::uint32_t(-1)) {
              if (reps.size() >= rep_cap)  // refused before growing past the cap
                mmck_fail("the bounded Pareto-state DP needs more than ", s_.max_table_bytes, " bytes (a merge of ", na,
                          " x ", nb, " states has more than ", rep_cap, " candidate cost vectors within the bound's gap ",
                          gap_, "), more than max_table_bytes (got ", s_.max_table_bytes, ")");
              slots[h] = std::uint32_t(reps.size());
              reps.push_back({std::uint32_t(a), std::uint32_t(b)});
              rep_cost.insert(rep_cost.end(), sum.begin(), sum.begin() + std::ptrdiff_t(K_));
              if (2 * reps.size() > slots.size()) {
                slots.assign(2 * slots.size(), std::uint32_t(-1));
                for (std::uint32_t r = 0; r < reps.size(); ++r) place(r);
              }
              break;
            }
            if (mmck_cmp(rep_cost.data() + std::size_t(i) * K_, sum.data(), K_) == 0) {
              if (better(std::uint32_t(a), std::uint32_t(b), reps[i])) reps[i] = {std::uint32_t(a), std::uint32_t(b)};
              break;
            }
          }
        }
        tick(t + 1);
      }
      info_.candidates += passed;
      check_room(reps.size(), "a merge");
      std::vector<std::uint32_t> order(reps.size());
      std::iota(order.begin(), order.end(), std::uint32_t{0});
      std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        return mmck_cmp(rep_cost.data() + std::size_t(x) * K_, rep_cost.data() + std::size_t(y) * K_, K_) < 0;
      });
      for (std::uint32_t i : order) {
        const auto [a, b] = reps[i];
        if (f.offer(rep_cost.data() + std::size_t(i) * K_, A.value[a] + Bn.value[b], a, b))
          n.loss.push_back(A.loss[a] + Bn.loss[b]);
      }
      if (beam_ != 0 && !lams_.empty() && n.count() > beam_) {
        // the heuristic run: the beam_ states of the largest completion bound, in their order
        std::vector<long double> bnd(n.count());
        for (std::size_t i = 0; i < n.count(); ++i) bnd[i] = bound_of(n.value[i], n.cost.data() + i * K_);
        std::vector<long double> sorted = bnd;
        std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(beam_ - 1), sorted.end(), std::greater<>());
        const long double cut = sorted[beam_ - 1];
        std::size_t w = 0;
        for (std::size_t i = 0; i < n.count() && w < beam_; ++i) {
          if (bnd[i] < cut) continue;
          std::copy(n.cost.begin() + std::ptrdiff_t(i * K_), n.cost.begin() + std::ptrdiff_t((i + 1) * K_),
                    n.cost.begin() + std::ptrdiff_t(w * K_));
          n.value[w] = n.value[i];
          n.a[w] = n.a[i];
          n.b[w] = n.b[i];
          n.loss[w] = n.loss[i];
          ++w;
        }
        n.cost.resize(w * K_);
        n.value.resize(w);
        n.a.resize(w);
        n.b.resize(w);
        n.loss.resize(w);
      }
    }
    if (root_limit != 0 && n.count() > root_limit) root_refusal(na, nb, n.count());
    trim(n);
    // held until the end (reconstruction): no growth slack beyond what account() counts
    n.cost.shrink_to_fit();
    n.value.shrink_to_fit();
    n.a.shrink_to_fit();
    n.b.shrink_to_fit();
    n.loss.shrink_to_fit();
    std::vector<std::uint32_t> keys(n.count());
    std::iota(keys.begin(), keys.end(), std::uint32_t{0});
    key_.push_back(std::move(keys));
    node_cls_min_.push_back(covered);
    if (!lams_.empty()) {
      node_phi_.push_back(std::move(cov_phi));
      node_maxc_.push_back(std::move(cov_maxc));
    }
    account(n.count());
    info_.states += n.count();
    nodes_->push_back(std::move(n));
    return nodes_->size() - 1;
  }

  [[noreturn]] void root_refusal(std::size_t na, std::size_t nb, std::size_t kept) const {
    mmck_fail("the root merge of the exact Pareto-state DP (", na, " x ", nb, " states) stopped after ",
              info_.candidates, " candidates with ", kept, " states kept, more than max_root_states (got ",
              s_.max_root_states, ")");
  }

  // ---- epsilon trimming -------------------------------------------------------------------

  /// The trims on the longest leaf-to-root path of build()'s tree (a leaf counts one), and from
  /// it each trim's factor: (1 + delta)^depth <= 1 + epsilon.
  void setup_trim(const mmck_sparse<Value>& out) {
    std::size_t root = 0;
    for (std::size_t c = 0; c < out.class_groups.size(); ++c) {
      const std::size_t m = out.class_groups[c].size();
      std::size_t node = 1;
      if (m == 1 || !s_.identical_groups) {
        node = m;  // the leaf, then m - 1 combines in a chain
      } else {
        std::size_t acc = 0, power = 1, rest = m;
        while (true) {
          if (rest & 1) acc = acc ? std::max(acc, power) + 1 : power;
          rest >>= 1;
          if (!rest) break;
          power += 1;
        }
        node = acc;
      }
      root = root ? std::max(root, node) + 1 : node;
    }
    trim_depth_ = std::max<std::size_t>(root, 1);
    const long double delta = std::expm1(std::log1p((long double)s_.epsilon) / (long double)trim_depth_);
    // bucket width in log space, 1e-6 narrower than log(1 + delta): rounding in log() cannot put
    // two costs further apart than 1 + delta into one bucket
    width_ = double(std::log1p(delta) * (1.0L - 1e-6L));
    trimming_ = width_ > 0;
    info_.epsilon = s_.epsilon;
    info_.trim_depth = trim_depth_;
    info_.trim_factor = double(1.0L + delta);
    info_.trim_width = width_;
  }

  /// Keeps one state per box {floor(log c_k / width)} (cost 0 its own box per dimension): the
  /// largest value (then the first in cost order). A kept state's costs are within (1 + delta)
  /// of every state of its box, its value >= theirs; the node stays sorted and non-dominated.
  void trim(mmck_node<Value>& n) {
    if (!trimming_ || n.count() < 2) return;
    const std::size_t cnt = n.count();
    std::vector<std::int64_t> box(cnt * K_);
    for (std::size_t i = 0; i < cnt; ++i)
      for (std::size_t k = 0; k < K_; ++k) {
        const std::int64_t c = n.cost[i * K_ + k];
        box[i * K_ + k] = mmck_trim_box(c, width_);
      }
    std::vector<std::uint32_t> order(cnt);
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
      const int r = mmck_cmp(box.data() + std::size_t(x) * K_, box.data() + std::size_t(y) * K_, K_);
      return r != 0 ? r < 0 : x < y;
    });
    std::vector<unsigned char> keep(cnt, 0);
    for (std::size_t i = 0; i < cnt;) {
      std::size_t j = i + 1, best = order[i];
      while (j < cnt && mmck_cmp(box.data() + std::size_t(order[i]) * K_, box.data() + std::size_t(order[j]) * K_, K_) == 0) {
        if (n.value[best] < n.value[order[j]]) best = order[j];
        ++j;
      }
      keep[best] = 1;
      i = j;
    }
    std::size_t w = 0;
    for (std::size_t i = 0; i < cnt; ++i) {
      if (!keep[i]) continue;
      if (w != i) {
        std::copy(n.cost.begin() + std::ptrdiff_t(i * K_), n.cost.begin() + std::ptrdiff_t((i + 1) * K_),
                  n.cost.begin() + std::ptrdiff_t(w * K_));
        n.value[w] = n.value[i];
        n.a[w] = n.a[i];
        n.b[w] = n.b[i];
        if (!n.loss.empty()) n.loss[w] = n.loss[i];
      }
      ++w;
    }
    info_.trimmed += cnt - w;
    n.cost.resize(w * K_);
    n.value.resize(w);
    n.a.resize(w);
    n.b.resize(w);
    if (!n.loss.empty()) n.loss.resize(w);
    n.cost.shrink_to_fit();
    n.value.shrink_to_fit();
    n.b.shrink_to_fit();
  }

  // ---- the Lagrangian bound --------------------------------------------------------------

  double option_loss(std::size_t c, std::size_t j) const {
    return phi_[c] - reduced(g_[rep_of_class_[c]][j], lambda_);
  }
  double reduced(const mmck_option<Value>& o, const std::vector<double>& lam) const {
    long double r = (long double)(o.value);
    for (std::size_t k = 0; k < K_; ++k) r -= (long double)lam[k] * (long double)o.cost[k] / scale_[k];
    return double(r);
  }

  /// A feasible selection's value, or nullopt: every group starts at its cheapest option by the
  /// priced cost sum_k prices_k c_k / B_k, then moves up the upper concave envelope of its
  /// (priced cost, value) points, best value-per-price step first (a heap over the groups),
  /// skipping steps that break a budget; finally each group takes the best option that still
  /// fits. The classic near-LP greedy of the multiple-choice knapsack (its gap is at most one
  /// group's value range); O(G J log J + steps log G).
  std::optional<Value> greedy_incumbent(const std::vector<double>& prices) const {
    const std::size_t G = g_.size();
    if (G == 0) return Value{};
    std::vector<std::vector<std::size_t>> hull(rep_of_class_.size());
    std::vector<std::vector<long double>> wcost(rep_of_class_.size());
    for (std::size_t c = 0; c < rep_of_class_.size(); ++c) {
      const auto& opts = g_[rep_of_class_[c]];
      auto& w = wcost[c];
      w.resize(opts.size());
      for (std::size_t j = 0; j < opts.size(); ++j) {
        long double t = 0;
        for (std::size_t k = 0; k < K_; ++k) t += (long double)prices[k] * (long double)opts[j].cost[k] / scale_[k];
        w[j] = t;
      }
      std::vector<std::size_t> order(opts.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        if (w[x] != w[y]) return w[x] < w[y];
        return (long double)opts[y].value < (long double)opts[x].value;
      });
      auto& h = hull[c];
      for (std::size_t j : order) {
        const long double v = (long double)opts[j].value;
        if (!h.empty() && !((long double)opts[h.back()].value < v)) continue;  // not higher
        while (h.size() >= 2) {  // keep the envelope concave
          const std::size_t p = h[h.size() - 2], q = h.back();
          const long double s1 = ((long double)opts[q].value - (long double)opts[p].value) * (w[j] - w[q]);
          const long double s2 = (v - (long double)opts[q].value) * (w[q] - w[p]);
          if (s2 >= s1) h.pop_back();
          else break;
        }
        h.push_back(j);
      }
    }
    std::vector<std::size_t> pos(G, 0), pick(G);
    std::vector<std::int64_t> used(K_, 0);
    for (std::size_t g = 0; g < G; ++g) {
      const std::size_t c = cls_of_group_[g];
      pick[g] = hull[c][0];
      for (std::size_t k = 0; k < K_; ++k)
        if (!mmck_add(used[k], g_[g][pick[g]].cost[k], used[k])) return std::nullopt;
    }
    for (std::size_t k = 0; k < K_; ++k)
      if (used[k] > B_[k]) return std::nullopt;
    using step = std::pair<long double, std::size_t>;  // (value per priced cost, group)
    std::priority_queue<step> heap;
    auto push = [&](std::size_t g) {
      const std::size_t c = cls_of_group_[g];
      if (pos[g] + 1 >= hull[c].size()) return;
      const std::size_t a = hull[c][pos[g]], b = hull[c][pos[g] + 1];
      const auto& opts = g_[g];
      const long double dw = wcost[c][b] - wcost[c][a];
      const long double dv = (long double)opts[b].value - (long double)opts[a].value;
      heap.push({dw > 0 ? dv / dw : std::numeric_limits<long double>::infinity(), g});
    };
    for (std::size_t g = 0; g < G; ++g) push(g);
    auto fits_swap = [&](std::size_t g, std::size_t j) {
      for (std::size_t k = 0; k < K_; ++k) {
        const std::int64_t x = used[k] - g_[g][pick[g]].cost[k];
        std::int64_t y;
        if (!mmck_add(x, g_[g][j].cost[k], y) || y > B_[k]) return false;
      }
      return true;
    };
    auto swap = [&](std::size_t g, std::size_t j) {
      for (std::size_t k = 0; k < K_; ++k) used[k] += g_[g][j].cost[k] - g_[g][pick[g]].cost[k];
      pick[g] = j;
    };
    while (!heap.empty()) {
      const std::size_t g = heap.top().second;
      heap.pop();
      const std::size_t c = cls_of_group_[g];
      const std::size_t next = hull[c][pos[g] + 1];
      if (!fits_swap(g, next)) continue;  // this group stops here
      swap(g, next);
      ++pos[g];
      push(g);
    }
    for (std::size_t g = 0; g < G; ++g) {
      std::size_t best = pick[g];
      for (std::size_t j = 0; j < g_[g].size(); ++j)
        if (g_[g][best].value < g_[g][j].value && fits_swap(g, j)) best = j;
      if (best != pick[g]) swap(g, best);
    }
    Value inc{};
    for (std::size_t g = 0; g < G; ++g) inc = inc + g_[g][pick[g]].value;
    return inc;
  }

  void setup_bound(const mmck_sparse<Value>& out) {
    if constexpr (!std::is_convertible_v<Value, long double> && !std::is_arithmetic_v<Value>) {
      return;
    } else {
      const std::size_t C = out.class_groups.size();
      scale_.assign(K_, 1);
      for (std::size_t k = 0; k < K_; ++k) scale_[k] = double(std::max<std::int64_t>(B_[k], 1));
      // incumbent: the greedy of greedy_incumbent with uniform prices, improved below with the
      // Lagrangian prices
      std::optional<Value> inc_v = greedy_incumbent(std::vector<double>(K_, 1.0));
      if (!inc_v) return;  // no incumbent found: no pruning (the DP decides feasibility)
      double incumbent = double((long double)*inc_v);
      // value scale for the rounding slack
      long double vscale = 0;
      for (std::size_t g = 0; g < g_.size(); ++g) {
        long double m = 0;
        for (const auto& o : g_[g]) m = std::max(m, std::fabs((long double)o.value));
        vscale += m;
      }
      // multipliers: projected subgradient on UB(lambda)
      std::vector<double> lam(K_, 0), best_lam(K_, 0);
      double best_ub = std::numeric_limits<double>::infinity();
      std::vector<double> phi(C);
      auto evaluate = [&](const std::vector<double>& l, std::vector<double>& grad) {
        long double ub = 0;
        grad.assign(K_, 1.0);  // d/dlambda_k of lambda . B / scale = B_k / scale_k
        for (std::size_t k = 0; k < K_; ++k) {
          grad[k] = double(B_[k]) / scale_[k];
          ub += (long double)l[k] * grad[k];
        }
        for (std::size_t c = 0; c < C; ++c) {
          const auto& opts = g_[rep_of_class_[c]];
          std::size_t arg = 0;
          double m = -std::numeric_limits<double>::infinity();
          for (std::size_t j = 0; j < opts.size(); ++j) {
            const double r = reduced(opts[j], l);
            if (r > m) m = r, arg = j;
          }
          phi[c] = m;
          const double mult = double(out.class_groups[c].size());
          ub += (long double)m * mult;
          for (std::size_t k = 0; k < K_; ++k) grad[k] -= mult * double(opts[arg].cost[k]) / scale_[k];
        }
        return double(ub);
      };
      std::vector<double> grad;
      // Polyak steps towards the incumbent, the factor halved after 25 steps without progress
      double factor = 1.0;
      int stall = 0;
      for (int it = 0; it < 3000 && factor > 1e-7; ++it) {
        const double ub = evaluate(lam, grad);
        if (!(best_ub < std::numeric_limits<double>::infinity()) || ub < best_ub - 1e-12 * std::fabs(best_ub)) {
          best_ub = ub, best_lam = lam, stall = 0;
        } else if (++stall >= 25) {
          factor *= 0.5, stall = 0, lam = best_lam;
          continue;
        }
        double norm = 0;
        for (std::size_t k = 0; k < K_; ++k) {
          if (lam[k] <= 0 && grad[k] > 0) grad[k] = 0;  // projection
          norm += grad[k] * grad[k];
        }
        if (norm == 0 || best_ub - incumbent <= 0) break;
        const double step = factor * (ub - incumbent) / norm;
        for (std::size_t k = 0; k < K_; ++k) lam[k] = std::max(0.0, lam[k] - step * grad[k]);
      }
      lambda_ = best_lam;
      {
        std::vector<double> prices = lambda_;
        bool any = false;
        for (double x : prices) any = any || x > 0;
        if (any) {
          for (double& x : prices) x = std::max(x, 1e-9 * *std::max_element(lambda_.begin(), lambda_.end()));
          if (auto v = greedy_incumbent(prices)) incumbent = std::max(incumbent, double((long double)*v));
        }
      }
      const double ub = evaluate(lambda_, grad);
      phi_ = phi;
      long double lscale = 0;
      for (std::size_t k = 0; k < K_; ++k) lscale += (long double)lambda_[k] * (1.0L + (long double)g_.size());
      const double slack = double(1e-9L * (vscale + lscale + 1e-300L) + 1e-12L);
      gap_ = ub - incumbent + slack;
      ub_ = ub;
      slack_ = slack;
      bounded_ = true;
      info_.bounded = true;
      info_.upper_bound = ub;
      info_.incumbent = incumbent;
      setup_multipliers(out);
    }
  }

  /// The multipliers of the per-merge completion bound: lambda and its variants with one
  /// dimension zeroed, halved or doubled (any l >= 0 gives a valid bound; the smallest over them
  /// is used, so lambda's own rule, loss <= gap, is the weakest case); per class and multiplier
  /// the largest reduced value, per class and dimension the largest cost.
  void setup_multipliers(const mmck_sparse<Value>& out) {
    lams_.assign(1, lambda_);
    for (std::size_t k = 0; k < K_; ++k) {
      if (!(lambda_[k] > 0)) continue;
      for (double f : {0.0, 0.5, 2.0}) {
        lams_.push_back(lambda_);
        lams_.back()[k] = lambda_[k] * f;
      }
    }
    const std::size_t C = out.class_groups.size(), P = lams_.size();
    cls_phi_.assign(C * P, 0);
    total_phi_.assign(P, 0);
    cls_maxc_.assign(C * K_, 0);
    total_maxc_.assign(K_, 0);
    for (std::size_t c = 0; c < C; ++c) {
      const auto& opts = g_[rep_of_class_[c]];
      const long double m = (long double)out.class_groups[c].size();
      for (std::size_t p = 0; p < P; ++p) {
        long double best = -std::numeric_limits<long double>::infinity();
        for (const auto& o : opts) {
          long double r = (long double)o.value;
          for (std::size_t k = 0; k < K_; ++k) r -= (long double)lams_[p][k] * (long double)o.cost[k] / (long double)scale_[k];
          best = std::max(best, r);
        }
        cls_phi_[c * P + p] = best;
        total_phi_[p] += m * best;
      }
      for (std::size_t k = 0; k < K_; ++k) {
        std::int64_t mx = 0;
        for (const auto& o : opts) mx = std::max(mx, o.cost[k]);
        cls_maxc_[c * K_ + k] = mx;
        total_maxc_[k] += mmck_i128(mx) * mmck_i128(out.class_groups[c].size());
      }
    }
  }

  void rep_for(const mmck_sparse<Value>& out) {
    rep_of_class_.clear();
    for (const auto& cg : out.class_groups) rep_of_class_.push_back(cg[0]);
    cls_of_group_ = out.group_class;
  }

  const mmck_groups<Value>& g_;
  const std::vector<std::int64_t>& B_;
  const mmck_settings& s_;
  mmck_info& info_;
  std::size_t K_;
  std::vector<std::vector<std::int64_t>> cls_min_;
  std::vector<std::int64_t> total_min_;
  std::vector<std::size_t> rep_of_class_;
  std::vector<std::size_t> cls_of_group_;
  std::vector<std::vector<std::uint32_t>> key_;
  std::vector<std::vector<std::int64_t>> node_cls_min_;
  // the completion bound (bounded path): multipliers, per class its largest reduced value under
  // each (classes x multipliers) and its largest cost per dimension (classes x K); per node the
  // sums over the groups it covers
  std::vector<std::vector<double>> lams_;
  std::size_t beam_ = 0;  ///< > 0: the heuristic run (at most beam_ states per merge)
  std::vector<long double> cls_phi_, total_phi_;
  std::vector<mmck_i128> cls_maxc_, total_maxc_;
  std::vector<std::vector<long double>> node_phi_;
  std::vector<std::vector<mmck_i128>> node_maxc_;
  std::vector<mmck_node<Value>>* nodes_ = nullptr;
  std::size_t bytes_ = 0;
  std::uint64_t work_ = 0;
  std::size_t merges_left_ = 0;
  // epsilon trimming
  bool trimming_ = false;
  std::size_t trim_depth_ = 0;
  double width_ = 0;
  // bound
  bool bounded_ = false;
  std::vector<double> lambda_, phi_, scale_;
  double gap_ = 0, ub_ = 0, slack_ = 0;
};

} // namespace detail

namespace detail {

/// Product detection: options = p x q (row-major) with cost(i q + j) = A_i + F_j and value(i q +
/// j) == a_i + f_j exactly in Value arithmetic (a_i = value(i q), f_j = value(j) - value(0)).
/// Appends the factors (options, stride factor), recursively; a group that is no product is
/// appended whole.
template <class Value>
void mmck_split_products(const std::vector<mmck_option<Value>>& opts, std::size_t stride,
                         std::size_t K,
                         std::vector<std::pair<std::vector<mmck_option<Value>>, std::size_t>>& out) {
  const std::size_t J = opts.size();
  for (std::size_t p = 2; p * 2 <= J; ++p) {
    if (J % p != 0) continue;
    const std::size_t q = J / p;
    std::vector<mmck_option<Value>> A(p), F(q);
    bool ok = true;
    for (std::size_t k = 0; k < K && ok; ++k) {
      std::int64_t fmin = 0;
      for (std::size_t j = 0; j < q; ++j) fmin = std::min(fmin, opts[j].cost[k] - opts[0].cost[k]);
      for (std::size_t j = 0; j < q; ++j) F[j].cost.push_back(opts[j].cost[k] - opts[0].cost[k] - fmin);
      for (std::size_t i = 0; i < p && ok; ++i) {
        const std::int64_t a = opts[i * q].cost[k] + fmin;  // >= 0 when the product holds
        if (a < 0) ok = false;
        A[i].cost.push_back(a);
        for (std::size_t j = 0; j < q && ok; ++j) {
          std::int64_t c;
          ok = mmck_add(a, F[j].cost[k], c) && c == opts[i * q + j].cost[k];
        }
      }
    }
    if (!ok) continue;
    for (std::size_t i = 0; i < p; ++i) A[i].value = opts[i * q].value;
    for (std::size_t j = 0; j < q && ok; ++j) {
      if constexpr (std::is_integral_v<Value>) {
        ok = !__builtin_sub_overflow(opts[j].value, opts[0].value, &F[j].value);
      } else {
        F[j].value = opts[j].value - opts[0].value;
      }
    }
    for (std::size_t i = 0; i < p && ok; ++i)
      for (std::size_t j = 0; j < q && ok; ++j) {
        if constexpr (std::is_integral_v<Value>) {
          Value t{};
          ok = !__builtin_add_overflow(A[i].value, F[j].value, &t) && t == opts[i * q + j].value;
        } else {
          ok = A[i].value + F[j].value == opts[i * q + j].value;
        }
      }
    if (!ok) continue;
    mmck_split_products(A, stride * q, K, out);
    mmck_split_products(F, stride, K, out);
    return;
  }
  out.push_back({opts, stride});
}

/// The classes of the lattice engine from (options, slots) pairs: products split when asked,
/// identical factors merged (their slots concatenated, ascending group).
template <class Value>
std::vector<mmck_lclass<Value>> mmck_make_classes(
    std::vector<std::pair<std::vector<mmck_option<Value>>, std::vector<std::pair<std::size_t, std::size_t>>>> in,
    std::size_t K, bool split, bool& products) {
  std::vector<mmck_lclass<Value>> out;
  products = false;
  for (auto& [opts, slots] : in) {
    std::vector<std::pair<std::vector<mmck_option<Value>>, std::size_t>> parts;
    if (split) mmck_split_products(opts, 1, K, parts);
    else parts.push_back({opts, 1});
    if (parts.size() > 1) products = true;
    for (auto& [po, ps] : parts) {
      mmck_lclass<Value>* into = nullptr;
      for (auto& c : out)
        if (mmck_same_group(c.options, po)) into = &c;
      if (!into) {
        out.emplace_back();
        into = &out.back();
        into->options = std::move(po);
      }
      for (const auto& [g, st] : slots) into->slots.push_back({g, st * ps});
    }
  }
  for (auto& c : out) std::sort(c.slots.begin(), c.slots.end());
  return out;
}

inline mmck_i128 mmck_abs(mmck_i128 x) { return x < 0 ? -x : x; }

/// Integer lattice basis (echelon, by Euclid's row reduction) of the option cost differences
/// and every kept option's coordinates in it, reduced by shears (y_i -= k y_l) that shrink the
/// coordinate box, then shifted to start at 0. false when an entry passes 2^62 (then the class
/// is not run on the lattice path).
template <class Value>
bool mmck_lattice_coordinates(mmck_lclass<Value>& c, std::size_t K) {
  const mmck_i128 lim = mmck_i128(1) << 62;
  const std::size_t n = c.kept.size();
  const auto& ref = c.options[c.kept[0]].cost;
  std::vector<std::vector<mmck_i128>> rows;
  for (std::size_t t = 1; t < n; ++t) {
    std::vector<mmck_i128> d(K);
    bool zero = true;
    for (std::size_t k = 0; k < K; ++k) {
      d[k] = mmck_i128(c.options[c.kept[t]].cost[k]) - ref[k];
      zero = zero && d[k] == 0;
    }
    if (!zero) rows.push_back(std::move(d));
  }
  std::vector<std::vector<mmck_i128>> basis;
  std::vector<std::size_t> pivot;
  for (std::size_t k = 0; k < K && !rows.empty(); ++k) {
    while (true) {
      std::size_t piv = SIZE_MAX;
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i][k] != 0 && (piv == SIZE_MAX || mmck_abs(rows[i][k]) < mmck_abs(rows[piv][k]))) piv = i;
      if (piv == SIZE_MAX) break;
      bool more = false;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i == piv || rows[i][k] == 0) continue;
        const mmck_i128 q = rows[i][k] / rows[piv][k];
        for (std::size_t t = k; t < K; ++t) {
          rows[i][t] -= q * rows[piv][t];
          if (mmck_abs(rows[i][t]) > lim) return false;
        }
        more = more || rows[i][k] != 0;
      }
      if (!more) {
        basis.push_back(rows[piv]);
        pivot.push_back(k);
        rows.erase(rows.begin() + std::ptrdiff_t(piv));
        break;
      }
    }
    std::erase_if(rows, [](const std::vector<mmck_i128>& r) {
      return std::all_of(r.begin(), r.end(), [](mmck_i128 x) { return x == 0; });
    });
  }
  const std::size_t r = basis.size();
  std::vector<std::vector<mmck_i128>> y(n, std::vector<mmck_i128>(r, 0));
  for (std::size_t t = 0; t < n; ++t) {
    std::vector<mmck_i128> d(K);
    for (std::size_t k = 0; k < K; ++k) d[k] = mmck_i128(c.options[c.kept[t]].cost[k]) - ref[k];
    for (std::size_t i = 0; i < r; ++i) {
      const mmck_i128 b = basis[i][pivot[i]];
      if (d[pivot[i]] % b != 0) return false;  // not in the lattice: cannot happen
      y[t][i] = d[pivot[i]] / b;
      for (std::size_t k = 0; k < K; ++k) d[k] -= y[t][i] * basis[i][k];
    }
    for (std::size_t k = 0; k < K; ++k)
      if (d[k] != 0) return false;
  }
  // shears: y_i -= s y_l (basis_l += s basis_i) while the coordinate box shrinks
  auto range = [&](std::size_t i, std::size_t l, mmck_i128 s) {
    mmck_i128 lo = 0, hi = 0;
    for (std::size_t t = 0; t < n; ++t) {
      const mmck_i128 v = y[t][i] - s * y[t][l];
      if (t == 0 || v < lo) lo = v;
      if (t == 0 || v > hi) hi = v;
    }
    return hi - lo;
  };
  for (int round = 0; round < 8 && r > 1; ++round) {
    bool improved = false;
    for (std::size_t i = 0; i < r; ++i) {
      for (std::size_t l = 0; l < r; ++l) {
        if (i == l) continue;
        mmck_i128 best_s = 0, best = range(i, l, 0);
        std::size_t tried = 0;
        for (std::size_t t = 0; t < n && tried < 64; ++t) {
          if (y[t][l] == 0) continue;
          ++tried;
          const mmck_i128 q = y[t][i] / y[t][l];
          for (mmck_i128 s : {q - 1, q, q + 1}) {
            if (s == 0 || mmck_abs(s) > lim) continue;
            const mmck_i128 w = range(i, l, s);
            if (w < best) best = w, best_s = s;
          }
        }
        if (best_s == 0) continue;
        for (std::size_t k = 0; k < K; ++k) {
          basis[l][k] += best_s * basis[i][k];
          if (mmck_abs(basis[l][k]) > lim) return false;
        }
        for (std::size_t t = 0; t < n; ++t) y[t][i] -= best_s * y[t][l];
        improved = true;
      }
    }
    if (!improved) break;
  }
  c.r = r;
  c.basis.assign(r * K, 0);
  c.c0.assign(K, 0);
  for (std::size_t k = 0; k < K; ++k) c.c0[k] = ref[k];
  c.y.assign(n * r, 0);
  for (std::size_t i = 0; i < r; ++i) {
    mmck_i128 lo = 0;
    for (std::size_t t = 0; t < n; ++t) lo = t == 0 ? y[t][i] : std::min(lo, y[t][i]);
    for (std::size_t k = 0; k < K; ++k) {
      c.basis[i * K + k] = std::int64_t(basis[i][k]);
      c.c0[k] += lo * basis[i][k];
    }
    for (std::size_t t = 0; t < n; ++t) {
      const mmck_i128 v = y[t][i] - lo;
      if (v > lim) return false;
      c.y[t * r + i] = std::int64_t(v);
    }
  }
  return true;
}

/// Same-cost pruning of a class (one option per cost vector: the largest value, lowest index),
/// its lattice and box for its multiplicity; the bytes its table needs (0: not representable).
template <class Value>
long double mmck_lattice_prepare(mmck_lclass<Value>& c, std::size_t K) {
  const auto& o = c.options;
  std::vector<std::uint32_t> order(o.size());
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  mmck_sort_options(o, K, order);
  c.kept.clear();
  for (std::size_t t = 0; t < order.size(); ++t)
    if (t == 0 || mmck_cmp(o[order[t]].cost.data(), o[order[t - 1]].cost.data(), K) != 0)
      c.kept.push_back(order[t]);
  std::sort(c.kept.begin(), c.kept.end());  // ascending index: lowest index wins exact ties
  if (!mmck_lattice_coordinates(c, K)) return 0;
  const long double m = (long double)c.mult();
  long double cells = 1;
  c.extent.assign(c.r, 1);
  c.step.assign(c.r, 1);
  for (std::size_t i = 0; i < c.r; ++i) {
    std::int64_t hi = 0;
    for (std::size_t t = 0; t < c.kept.size(); ++t) hi = std::max(hi, c.y[t * c.r + i]);
    const long double e = m * (long double)hi + 1;
    cells *= e;
    if (cells > 1e15L) return 0;
    c.extent[i] = std::size_t(e);
  }
  for (std::size_t i = c.r; i-- > 0;) c.step[i] = i + 1 == c.r ? 1 : c.step[i + 1] * c.extent[i + 1];
  c.cells = std::size_t(cells);
  c.shift.assign(c.kept.size(), 0);
  for (std::size_t t = 0; t < c.kept.size(); ++t)
    for (std::size_t i = 0; i < c.r; ++i) c.shift[t] += std::size_t(c.y[t * c.r + i]) * c.step[i];
  if (cells > 4294967295.0L) return 0;
  return cells * (m * 4.0L + 2.0L * (long double)sizeof(Value) + 20.0L);
}

/// The multiset table of class c (one copy at a time, every option, reachable cells only) and
/// its points: the full-multiplicity cells whose cost is within `cap`. Work added to `work`.
/// Cells of the box of i copies (an upper bound of the reachable cells).
template <class Value>
long double mmck_box_cells(const mmck_lclass<Value>& c, std::size_t i) {
  long double b = 1;
  for (std::size_t d = 0; d < c.r; ++d) b *= (long double)((c.extent[d] - 1) / c.mult() * i + 1);
  return b;
}

/// The multiset table by max-plus doubling: powers P_1, P_2 = P_1 + P_1, ... and the powers
/// of the multiplicity's set bits combined; every op keeps its first operand's cell per cell.
template <class Value>
void mmck_lattice_doubling(mmck_lclass<Value>& c, std::vector<Value>& final_value,
                           std::vector<std::size_t>& final_reach, std::uint64_t& work) {
  const std::size_t m = c.mult(), n = c.kept.size();
  struct table {
    std::vector<Value> v;
    std::vector<std::size_t> reach;  // ascending
  };
  std::vector<table> tabs;  // tabs[t + 1] = output of op t, tabs[0] = one copy
  table one;
  one.v.resize(c.cells);
  c.leaf.clear();
  for (std::size_t t = 0; t < n; ++t) {
    one.v[c.shift[t]] = c.options[c.kept[t]].value;
    one.reach.push_back(c.shift[t]);
    c.leaf.push_back({c.shift[t], std::uint32_t(t)});
  }
  std::sort(one.reach.begin(), one.reach.end());
  std::sort(c.leaf.begin(), c.leaf.end());
  tabs.push_back(std::move(one));
  std::vector<unsigned char> seen(c.cells, 0);
  auto combine = [&](std::int32_t x, std::int32_t y) {
    const table& X = tabs[std::size_t(x + 1)];
    const table& Y = tabs[std::size_t(y + 1)];
    table out;
    out.v.resize(c.cells);
    std::vector<std::uint32_t> bp(c.cells, 0);
    const bool self = x == y;
    for (std::size_t ia = 0; ia < X.reach.size(); ++ia) {
      const std::size_t a = X.reach[ia];
      for (std::size_t ib = self ? ia : 0; ib < Y.reach.size(); ++ib) {
        const std::size_t b = Y.reach[ib];
        const std::size_t d = a + b;
        Value cand = X.v[a] + Y.v[b];
        if (!seen[d]) {
          seen[d] = 1;
          out.reach.push_back(d);
          out.v[d] = std::move(cand);
          bp[d] = std::uint32_t(a);
        } else if (out.v[d] < cand) {
          out.v[d] = std::move(cand);
          bp[d] = std::uint32_t(a);
        }
      }
      work += Y.reach.size() - (self ? ia : 0);
    }
    for (std::size_t d : out.reach) seen[d] = 0;
    std::sort(out.reach.begin(), out.reach.end());
    c.ops.push_back({x, y});
    c.op_bp.push_back(std::move(bp));
    tabs.push_back(std::move(out));
    return std::int32_t(c.ops.size()) - 1;
  };
  c.ops.clear();
  c.op_bp.clear();
  std::int32_t power = -1;
  std::optional<std::int32_t> acc;
  std::size_t rest = m;
  while (true) {
    if (rest & 1) acc = acc ? combine(*acc, power) : power;
    rest >>= 1;
    if (!rest) break;
    power = combine(power, power);
  }
  if (*acc < 0) {  // one copy: an identity op keeps the reconstruction uniform
    c.ops.push_back({-1, -1});
    c.op_bp.emplace_back();
  }
  table& last = tabs.back();
  if (*acc < 0) {
    final_value = tabs[0].v;
    final_reach = tabs[0].reach;
    c.ops.clear();
    c.op_bp.clear();
    c.doubled = false;  // a single copy: the per-copy layout below
    c.bp.assign(c.cells, 0);
    for (std::size_t t = 0; t < n; ++t) c.bp[c.shift[t]] = std::uint32_t(t);
    return;
  }
  final_value.swap(last.v);
  final_reach.swap(last.reach);
}

template <class Value>
void mmck_lattice_table(mmck_lclass<Value>& c, std::size_t K, const std::vector<std::int64_t>& cap,
                        std::uint64_t& work) {
  const std::size_t m = c.mult(), n = c.kept.size();
  // plan: one copy at a time (sum over copies of reach x options) or doubling (sum of reach
  // products of the powers), estimated on the boxes
  long double linear = 0, doubling = 0;
  for (std::size_t i = 0; i < m; ++i) linear += mmck_box_cells(c, i) * (long double)n;
  {
    std::size_t p = 1, acc = 0, rest = m;
    while (true) {
      if (rest & 1) {
        if (acc) doubling += mmck_box_cells(c, acc) * mmck_box_cells(c, p);
        acc += p;
      }
      rest >>= 1;
      if (!rest) break;
      doubling += mmck_box_cells(c, p) * mmck_box_cells(c, p) / 2;
      p *= 2;
    }
  }
  std::vector<Value> cur;
  std::vector<std::size_t> reach;
  c.doubled = m > 1 && doubling < linear;
  if (c.doubled) {
    mmck_lattice_doubling(c, cur, reach, work);
  } else {
  c.bp.assign(m * c.cells, 0);
  cur.assign(c.cells, Value{});
  std::vector<Value> next(c.cells);
  std::vector<unsigned char> cur_r(c.cells, 0), next_r(c.cells, 0);
  std::vector<std::size_t> reach_next;
  reach.assign(1, 0);
  cur_r[0] = 1;
  for (std::size_t copy = 0; copy < m; ++copy) {
    reach_next.clear();
    std::uint32_t* bp = c.bp.data() + copy * c.cells;
    for (std::size_t t = 0; t < n; ++t) {
      const Value& v = c.options[c.kept[t]].value;
      const std::size_t sh = c.shift[t];
      for (std::size_t src : reach) {
        const std::size_t dst = src + sh;
        Value cand = cur[src] + v;
        if (!next_r[dst]) {
          next_r[dst] = 1;
          reach_next.push_back(dst);
          next[dst] = std::move(cand);
          bp[dst] = std::uint32_t(t);
        } else if (next[dst] < cand) {
          next[dst] = std::move(cand);
          bp[dst] = std::uint32_t(t);
        }
      }
      work += reach.size();
    }
    for (std::size_t x : reach) cur_r[x] = 0;
    cur.swap(next);
    cur_r.swap(next_r);
    reach.swap(reach_next);
  }
  std::sort(reach.begin(), reach.end());
  }
  c.cell.clear();
  c.value.clear();
  c.cost.clear();
  std::vector<std::int64_t> coord(c.r);
  for (std::size_t x : reach) {
    std::size_t rest = x;
    for (std::size_t i = 0; i < c.r; ++i) coord[i] = std::int64_t(rest / c.step[i]), rest %= c.step[i];
    bool fits = true;
    const std::size_t at = c.cost.size();
    for (std::size_t k = 0; k < K && fits; ++k) {
      mmck_i128 v = c.c0[k] * mmck_i128(m);
      for (std::size_t i = 0; i < c.r; ++i) v += mmck_i128(coord[i]) * c.basis[i * K + k];
      fits = v >= 0 && v <= cap[k];
      c.cost.push_back(std::int64_t(fits ? v : 0));
    }
    if (!fits) {
      c.cost.resize(at);
      continue;
    }
    c.cell.push_back(std::uint32_t(x));
    c.value.push_back(cur[x]);
  }
}

/// Pareto filter of points (cost n x K, value): indices kept, in lexicographic cost order.
template <class Value>
std::vector<std::uint32_t> mmck_pareto_indices(const std::vector<std::int64_t>& cost,
                                               const std::vector<Value>& value, std::size_t K) {
  std::vector<std::uint32_t> order(value.size());
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const int r = mmck_cmp(cost.data() + x * K, cost.data() + y * K, K);
    if (r != 0) return r < 0;
    if (value[y] < value[x]) return true;
    if (value[x] < value[y]) return false;
    return x < y;
  });
  mmck_node<Value> tmp;
  mmck_filter<Value> f(K, tmp);
  for (std::uint32_t i : order) f.offer(cost.data() + i * K, value[i], i, 0);
  return tmp.a;
}

/// K-D tree over points (cost, value) for the dominance range maximum: the best point (largest
/// value, then lexicographically smallest cost) with cost <= q, pruned against an incumbent.
template <class Value>
class mmck_kdtree {
public:
  mmck_kdtree(const std::vector<std::int64_t>& cost, const std::vector<Value>& value, std::size_t K)
      : cost_(cost), value_(value), K_(K), idx_(value.size()) {
    std::iota(idx_.begin(), idx_.end(), std::uint32_t{0});
    if (!idx_.empty()) build(0, idx_.size());
  }
  bool empty() const { return idx_.empty(); }
  std::uint32_t root_best() const { return nodes_[0].best; }

  /// Offers every point f with cost_f <= q: (va + v_f, ca + c_f) replaces (inc_v, inc_c) when
  /// better (larger value, then lexicographically smaller cost); returns the f taken or -1.
  std::int64_t query(const std::int64_t* ca, const Value& va, const std::int64_t* q, bool& has,
                     Value& inc_v, std::vector<std::int64_t>& inc_c, std::uint64_t& visits) {
    ca_ = ca, va_ = &va, q_ = q, has_ = &has, inc_v_ = &inc_v, inc_c_ = &inc_c, visits_ = &visits;
    taken_ = -1;
    if (!idx_.empty()) visit(0);
    return taken_;
  }

private:
  struct node {
    std::size_t lo = 0, hi = 0;
    std::size_t left = SIZE_MAX, right = SIZE_MAX;
    std::uint32_t best = 0;
    mmck_cost mn{}, mx{};
  };
  bool better(std::uint32_t x, std::uint32_t y) const {
    if (value_[y] < value_[x]) return true;
    if (value_[x] < value_[y]) return false;
    return mmck_cmp(cost_.data() + x * K_, cost_.data() + y * K_, K_) < 0;
  }
  std::size_t build(std::size_t lo, std::size_t hi) {
    const std::size_t id = nodes_.size();
    node nd;
    nd.lo = lo;
    nd.hi = hi;
    nd.best = idx_[lo];
    nodes_.push_back(nd);
    for (std::size_t k = 0; k < K_; ++k) nd.mn[k] = nd.mx[k] = cost_[idx_[lo] * K_ + k];
    for (std::size_t t = lo; t < hi; ++t) {
      const std::uint32_t p = idx_[t];
      if (better(p, nd.best)) nd.best = p;
      for (std::size_t k = 0; k < K_; ++k) {
        nd.mn[k] = std::min(nd.mn[k], cost_[p * K_ + k]);
        nd.mx[k] = std::max(nd.mx[k], cost_[p * K_ + k]);
      }
    }
    if (hi - lo > 8) {
      std::size_t dim = 0;
      for (std::size_t k = 1; k < K_; ++k)
        if (nd.mx[k] - nd.mn[k] > nd.mx[dim] - nd.mn[dim]) dim = k;
      if (nd.mx[dim] > nd.mn[dim]) {
        const std::size_t mid = lo + (hi - lo) / 2;
        std::nth_element(idx_.begin() + std::ptrdiff_t(lo), idx_.begin() + std::ptrdiff_t(mid),
                         idx_.begin() + std::ptrdiff_t(hi), [&](std::uint32_t x, std::uint32_t y) {
                           return cost_[x * K_ + dim] < cost_[y * K_ + dim];
                         });
        nd.left = build(lo, mid);
        nd.right = build(mid, hi);
      }
    }
    nodes_[id] = nd;
    return id;
  }
  bool fits(const mmck_cost& c) const {
    for (std::size_t k = 0; k < K_; ++k)
      if (c[k] > q_[k]) return false;
    return true;
  }
  /// Whether va + value (at total cost ca + c) beats the incumbent.
  bool beats(const Value& sum, const std::int64_t* c) const {
    if (!*has_) return true;
    if (*inc_v_ < sum) return true;
    if (sum < *inc_v_) return false;
    for (std::size_t k = 0; k < K_; ++k) {
      const std::int64_t t = ca_[k] + c[k];
      if (t != (*inc_c_)[k]) return t < (*inc_c_)[k];
    }
    return false;
  }
  void take(std::uint32_t p) {
    const Value sum = *va_ + value_[p];
    if (!beats(sum, cost_.data() + p * K_)) return;
    *has_ = true;
    *inc_v_ = sum;
    for (std::size_t k = 0; k < K_; ++k) (*inc_c_)[k] = ca_[k] + cost_[p * K_ + k];
    taken_ = std::int64_t(p);
  }
  void visit(std::size_t id) {
    ++*visits_;
    const node& nd = nodes_[id];
    for (std::size_t k = 0; k < K_; ++k)
      if (nd.mn[k] > q_[k]) return;
    if (!beats(*va_ + value_[nd.best], nd.mn.data())) return;  // no point here can win
    if (fits(nd.mx)) {
      take(nd.best);
      return;
    }
    if (nd.left == SIZE_MAX) {
      for (std::size_t t = nd.lo; t < nd.hi; ++t) {
        const std::uint32_t p = idx_[t];
        bool ok = true;
        for (std::size_t k = 0; k < K_ && ok; ++k) ok = cost_[p * K_ + k] <= q_[k];
        if (ok) take(p);
      }
      return;
    }
    const bool left_first = better(nodes_[nd.left].best, nodes_[nd.right].best);
    visit(left_first ? nd.left : nd.right);
    visit(left_first ? nd.right : nd.left);
  }

  const std::vector<std::int64_t>& cost_;
  const std::vector<Value>& value_;
  std::size_t K_;
  std::vector<std::uint32_t> idx_;
  std::vector<node> nodes_;
  const std::int64_t* ca_ = nullptr;
  const Value* va_ = nullptr;
  const std::int64_t* q_ = nullptr;
  bool* has_ = nullptr;
  Value* inc_v_ = nullptr;
  std::vector<std::int64_t>* inc_c_ = nullptr;
  std::uint64_t* visits_ = nullptr;
  std::int64_t taken_ = -1;
};

/// Pareto set of {a + b : a in (ac, av), b in (bc, bv), a + b <= cap} on a dense grid over the
/// reduced lattice of the sums (per dimension: minimum subtracted, gcd divided out), when it
/// needs fewer bytes than `limit` (else false, nothing allocated). The cell keeps the first
/// best pair in (a, b) order (the pair path's rule); the kept points come out in lexicographic
/// cost order with their a (fa) and b (fb) indices. Work (pairs) added to `work`.
template <class Value>
bool mmck_grid_merge(const std::vector<std::int64_t>& ac, const std::vector<Value>& av,
                     const std::vector<std::int64_t>& bc, const std::vector<Value>& bv,
                     const std::vector<std::int64_t>& cap, std::size_t K, long double limit,
                     std::vector<std::int64_t>& oc, std::vector<Value>& ov, std::vector<std::uint32_t>& fa,
                     std::vector<std::uint32_t>& fb, std::uint64_t& work, std::size_t& used) {
  const std::size_t na = av.size(), nb = bv.size();
  if (na == 0 || nb == 0) return false;
  std::vector<std::int64_t> amin(K), bmin(K), unit(K, 0), ext(K);
  std::vector<std::size_t> stride(K);
  long double cells = 1;
  for (std::size_t k = 0; k < K; ++k) {
    std::int64_t lo = ac[k], hi = ac[k], lo2 = bc[k], hi2 = bc[k];
    for (std::size_t a = 0; a < na; ++a) lo = std::min(lo, ac[a * K + k]), hi = std::max(hi, ac[a * K + k]);
    for (std::size_t b = 0; b < nb; ++b) lo2 = std::min(lo2, bc[b * K + k]), hi2 = std::max(hi2, bc[b * K + k]);
    for (std::size_t a = 0; a < na; ++a) unit[k] = std::gcd(unit[k], ac[a * K + k] - lo);
    for (std::size_t b = 0; b < nb; ++b) unit[k] = std::gcd(unit[k], bc[b * K + k] - lo2);
    if (unit[k] == 0) unit[k] = 1;
    amin[k] = lo, bmin[k] = lo2;
    const mmck_i128 top = std::min<mmck_i128>(mmck_i128(cap[k]), mmck_i128(hi) + hi2) - lo - lo2;
    if (top < 0) return false;
    ext[k] = std::int64_t(top / unit[k]) + 1;
    cells *= (long double)ext[k];
  }
  const long double need = cells * (2.0L * sizeof(Value) + 6.0L);
  if (need > limit || cells > 4294967295.0L) return false;
  used = std::size_t(need);
  for (std::size_t k = K; k-- > 0;) stride[k] = k + 1 == K ? 1 : stride[k + 1] * std::size_t(ext[k + 1]);
  const std::size_t n = std::size_t(cells);
  std::vector<std::int64_t> acoord(na * K), bcoord(nb * K);
  std::vector<std::size_t> alin(na, 0), blin(nb, 0);
  for (std::size_t a = 0; a < na; ++a)
    for (std::size_t k = 0; k < K; ++k) {
      acoord[a * K + k] = (ac[a * K + k] - amin[k]) / unit[k];
      alin[a] += std::size_t(acoord[a * K + k]) * stride[k];
    }
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t k = 0; k < K; ++k) {
      bcoord[b * K + k] = (bc[b * K + k] - bmin[k]) / unit[k];
      blin[b] += std::size_t(bcoord[b * K + k]) * stride[k];
    }
  std::vector<Value> val(n);
  std::vector<std::uint32_t> from(n);
  std::vector<unsigned char> reach(n, 0);
  for (std::size_t a = 0; a < na; ++a) {
    for (std::size_t b = 0; b < nb; ++b) {
      bool in = true;
      for (std::size_t k = 0; k < K && in; ++k) in = acoord[a * K + k] + bcoord[b * K + k] < ext[k];
      if (!in) continue;
      const std::size_t c = alin[a] + blin[b];
      Value v = av[a] + bv[b];
      if (!reach[c] || val[c] < v) {
        val[c] = std::move(v);
        from[c] = std::uint32_t(a);
        reach[c] = 1;
      }
    }
    work += nb;
  }
  // prefix maximum over every dimension; a reachable cell is Pareto when it beats the best
  // strictly below it
  std::vector<Value> pv = val;
  std::vector<unsigned char> ph = reach;
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t c = 0; c < n; ++c) {
      if ((c / stride[k]) % std::size_t(ext[k]) == 0) continue;
      const std::size_t p = c - stride[k];
      if (ph[p] && (!ph[c] || pv[c] < pv[p])) pv[c] = pv[p], ph[c] = 1;
    }
  std::vector<std::uint32_t> kept;
  for (std::size_t c = 0; c < n; ++c) {
    if (!reach[c]) continue;
    bool pareto = true;
    for (std::size_t k = 0; k < K && pareto; ++k)
      if ((c / stride[k]) % std::size_t(ext[k]) > 0 && ph[c - stride[k]] && !(pv[c - stride[k]] < val[c])) pareto = false;
    if (pareto) kept.push_back(std::uint32_t(c));
  }
  std::vector<Value>().swap(pv);
  std::vector<unsigned char>().swap(ph);
  // b of a kept cell: the b whose cost is the cell's minus a's (b costs are distinct)
  std::vector<std::uint32_t> border(nb);
  std::iota(border.begin(), border.end(), std::uint32_t{0});
  std::sort(border.begin(), border.end(),
            [&](std::uint32_t x, std::uint32_t y) { return mmck_cmp(bc.data() + x * K, bc.data() + y * K, K) < 0; });
  oc.clear(), ov.clear(), fa.clear(), fb.clear();
  oc.reserve(kept.size() * K), ov.reserve(kept.size()), fa.reserve(kept.size()), fb.reserve(kept.size());
  std::vector<std::int64_t> want(K);
  for (std::uint32_t c : kept) {
    const std::uint32_t a = from[c];
    for (std::size_t k = 0; k < K; ++k) {
      const std::int64_t q = std::int64_t((c / stride[k]) % std::size_t(ext[k]));
      want[k] = bmin[k] + (q - acoord[a * K + k]) * unit[k];
    }
    const auto it = std::lower_bound(border.begin(), border.end(), want, [&](std::uint32_t x, const std::vector<std::int64_t>& w) {
      return mmck_cmp(bc.data() + x * K, w.data(), K) < 0;
    });
    for (std::size_t k = 0; k < K; ++k) oc.push_back(ac[a * K + k] + want[k]);
    ov.push_back(val[c]);
    fa.push_back(a);
    fb.push_back(*it);
  }
  return true;
}

/// Input of the lattice engine: (options, slots) per class, slots = (group position, stride 1).
template <class Value>
using mmck_lattice_input =
    std::vector<std::pair<std::vector<mmck_option<Value>>, std::vector<std::pair<std::size_t, std::size_t>>>>;

/// The lattice path (see the file comment): nullopt when a class table does not fit
/// max_table_bytes (or its lattice is not representable) and !force; with force, a refusal is
/// an error naming the bytes.
template <class Value>
std::optional<mmck_result<Value>> mmck_solve_lattice(const mmck_lattice_input<Value>& in,
                                                     std::size_t G, const std::vector<std::int64_t>& B,
                                                     const mmck_settings& s, bool force,
                                                     long double* defer_work = nullptr,
                                                     long double* defer_bytes = nullptr) {
  const std::size_t K = B.size();
  mmck_result<Value> r;
  r.groups_ = G;
  r.budget_ = B;
  r.single_ = s.single_budget;
  r.info_.path = mmck_path::lattice;
  r.info_.dims = K;
  r.info_.single = s.single_budget;
  r.info_.identical = true;
  mmck_lattice<Value> L;
  L.K = K;
  bool products = false;
  L.classes = mmck_make_classes(in, K, s.split_products, products);
  if constexpr (std::is_integral_v<Value>) {
    // split factors may hold larger |values| than the groups: keep every sum in range
    if (products) {
      long double total = 0;
      for (const auto& c : L.classes) {
        long double big = 0;
        for (const auto& o : c.options) big = std::max(big, std::fabs((long double)o.value));
        total += big * (long double)c.mult();
      }
      if (total > (long double)std::numeric_limits<Value>::max() / 2)
        L.classes = mmck_make_classes(in, K, false, products);
    }
  }
  r.info_.products = products;
  const std::size_t C = L.classes.size();
  r.info_.classes = C;
  if (C == 0) {  // no groups: the empty selection
    r.front_.push_back({std::vector<std::int64_t>(K, 0), Value{}});
    r.handle_.push_back(0);
    r.lattice_ = std::move(L);
    return r;
  }
  long double bytes = 0;
  for (std::size_t c = 0; c < C; ++c) {
    const long double need = mmck_lattice_prepare(L.classes[c], K);
    r.info_.lattice_rank = std::max(r.info_.lattice_rank, L.classes[c].r);
    bytes += need;
    if (need == 0 || bytes > (long double)s.max_table_bytes) {
      if (!force) return std::nullopt;
      if (need == 0)
        mmck_fail("the lattice path cannot represent class ", c, " (", L.classes[c].options.size(),
                  " options): its coordinate box passes 2^32 cells or its lattice basis 2^62");
      mmck_fail("the lattice path needs ", (unsigned long long)bytes, " bytes (class ", c, ": ",
                L.classes[c].mult(), " groups of ", L.classes[c].options.size(), " options over ",
                L.classes[c].cells, " lattice cells), more than max_table_bytes (got ", s.max_table_bytes, ")");
    }
    r.info_.cells += L.classes[c].cells;
  }
  if (defer_work != nullptr && bytes > (long double)s.lattice_direct_bytes) {
    // the cost model: table updates ~ cells x copies x options per class
    long double w = 0;
    for (const auto& c : L.classes)
      w += (long double)c.cells * (long double)c.mult() * (long double)std::max<std::size_t>(1, c.kept.size());
    *defer_work = std::max(w, 1.0L);
    if (defer_bytes != nullptr) *defer_bytes = bytes;
    return std::nullopt;
  }
  // caps: B minus the other classes' cheapest totals (infeasible when negative)
  std::vector<std::vector<mmck_i128>> cmin(C, std::vector<mmck_i128>(K, 0));
  std::vector<mmck_i128> tmin(K, 0);
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t k = 0; k < K; ++k) {
      std::int64_t m = std::numeric_limits<std::int64_t>::max();
      for (const auto& o : L.classes[c].options) m = std::min(m, o.cost[k]);
      cmin[c][k] = mmck_i128(m) * mmck_i128(L.classes[c].mult());
      tmin[k] += cmin[c][k];
    }
  for (std::size_t k = 0; k < K; ++k)
    if (tmin[k] > B[k]) {
      r.lattice_ = std::move(L);
      return r;
    }
  std::uint64_t work = 0;
  for (std::size_t c = 0; c < C; ++c) {
    std::vector<std::int64_t> cap(K);
    for (std::size_t k = 0; k < K; ++k) cap[k] = std::int64_t(B[k] - (tmin[k] - cmin[c][k]));
    mmck_lattice_table(L.classes[c], K, cap, work);
    r.info_.states += L.classes[c].count();
  }
  r.info_.peak_bytes = std::size_t(bytes);
  // fold order: ascending point count (the largest class is the query side of a single solve)
  L.order.resize(C);
  std::iota(L.order.begin(), L.order.end(), std::size_t{0});
  std::stable_sort(L.order.begin(), L.order.end(),
                   [&](std::size_t x, std::size_t y) { return L.classes[x].count() < L.classes[y].count(); });
  auto filter_class = [&](mmck_lclass<Value>& c) {
    const auto keep = mmck_pareto_indices(c.cost, c.value, K);
    std::vector<std::uint32_t> cell;
    std::vector<Value> value;
    std::vector<std::int64_t> cost;
    for (std::uint32_t i : keep) {
      cell.push_back(c.cell[i]);
      value.push_back(c.value[i]);
      cost.insert(cost.end(), c.cost.begin() + std::ptrdiff_t(i * K), c.cost.begin() + std::ptrdiff_t((i + 1) * K));
    }
    c.cell.swap(cell);
    c.value.swap(value);
    c.cost.swap(cost);
  };
  const bool single = s.single_budget;
  const std::size_t folds = single ? C - 1 : C;  // classes folded into the Pareto levels
  // Pareto-filter what is merged (every class of a front; a single solve's fold classes when
  // K <= 2 or there is more than one; the query class is searched by the K-D tree as it is)
  for (std::size_t t = 0; t < C; ++t)
    if (!single || (t + 1 < C && (K <= 2 || C >= 3))) filter_class(L.classes[L.order[t]]);
  L.fa.assign(1, {});
  L.fb.assign(1, {});
  // level arrays
  std::vector<std::int64_t> lc = L.classes[L.order[0]].cost;
  std::vector<Value> lv = L.classes[L.order[0]].value;
  std::size_t held = 0;
  for (std::size_t t = 1; t < folds; ++t) {
    const auto& P = L.classes[L.order[t]];
    std::vector<std::int64_t> cap(K);
    for (std::size_t k = 0; k < K; ++k) {
      mmck_i128 rest = 0;
      for (std::size_t u = t + 1; u < C; ++u) rest += cmin[L.order[u]][k];
      cap[k] = std::int64_t(B[k] - rest);
    }
    const std::size_t na = lv.size(), nb = P.count();
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    std::uint64_t count = 0;
    auto fits = [&](std::size_t a, std::size_t b) {
      for (std::size_t k = 0; k < K; ++k) {
        std::int64_t x;
        if (!mmck_add(lc[a * K + k], P.cost[b * K + k], x) || x > cap[k]) return false;
      }
      return true;
    };
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t b = 0; b < nb; ++b) count += fits(a, b);
    const long double per_pair = 8.0L + 8.0L * K + (long double)sizeof(Value) + 4.0L;
    if (nb <= 1 || na <= 1) {  // one point (e.g. a factor of zero costs): a shift keeps the order
      std::vector<std::int64_t> nc;
      std::vector<Value> nv;
      L.fa.emplace_back();
      L.fb.emplace_back();
      for (std::size_t u = 0; na > 0 && nb > 0 && u < std::max(na, nb); ++u) {
        const std::size_t a = na == 1 ? 0 : u, b = na == 1 ? u : 0;
        if (!fits(a, b)) continue;
        for (std::size_t k = 0; k < K; ++k) nc.push_back(lc[a * K + k] + P.cost[b * K + k]);
        nv.push_back(lv[a] + P.value[b]);
        L.fa.back().push_back(std::uint32_t(a));
        L.fb.back().push_back(std::uint32_t(b));
      }
      work += std::max(na, nb);
      r.info_.candidates += std::max(na, nb);
      lc.swap(nc);
      lv.swap(nv);
      held += lv.size() * (K * 8 + sizeof(Value) + 8);
      r.info_.states += lv.size();
      continue;
    }
    {  // a dense grid over the sums' lattice when it is smaller than the candidate pairs
      const long double room = (long double)s.max_table_bytes - (long double)bytes - (long double)held;
      std::vector<std::int64_t> nc;
      std::vector<Value> nv;
      std::vector<std::uint32_t> ga, gb;
      std::size_t used = 0;
      if (count > 0 && mmck_grid_merge(lc, lv, P.cost, P.value, cap, K, std::min(room, (long double)count * per_pair),
                                       nc, nv, ga, gb, work, used)) {
        r.info_.candidates += count;
        r.info_.grid = true;
        r.info_.peak_bytes = std::max(r.info_.peak_bytes, std::size_t(bytes + held + used));
        L.fa.push_back(std::move(ga));
        L.fb.push_back(std::move(gb));
        lc.swap(nc);
        lv.swap(nv);
        held += lv.size() * (K * 8 + sizeof(Value) + 8);
        r.info_.states += lv.size();
        continue;
      }
    }
    const long double need = (long double)bytes + (long double)held + (long double)count * per_pair;
    if (need > (long double)s.max_table_bytes) {
      if (!force) return std::nullopt;
      mmck_fail("the lattice path needs ", (unsigned long long)need, " bytes (a merge of ", na, " x ", nb,
                " class points with ", count, " candidate pairs within the budgets), more than "
                "max_table_bytes (got ", s.max_table_bytes, ")");
    }
    pairs.reserve(count);
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t b = 0; b < nb; ++b)
        if (fits(a, b)) pairs.push_back({std::uint32_t(a), std::uint32_t(b)});
    work += count;
    r.info_.candidates += count;
    std::vector<std::int64_t> sum(pairs.size() * K);
    std::vector<Value> val(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      for (std::size_t k = 0; k < K; ++k) sum[i * K + k] = lc[pairs[i].first * K + k] + P.cost[pairs[i].second * K + k];
      val[i] = lv[pairs[i].first] + P.value[pairs[i].second];
    }
    const auto keep = mmck_pareto_indices(sum, val, K);
    std::vector<std::int64_t> nc;
    std::vector<Value> nv;
    L.fa.emplace_back();
    L.fb.emplace_back();
    for (std::uint32_t i : keep) {
      nc.insert(nc.end(), sum.begin() + std::ptrdiff_t(i * K), sum.begin() + std::ptrdiff_t((i + 1) * K));
      nv.push_back(val[i]);
      L.fa.back().push_back(pairs[i].first);
      L.fb.back().push_back(pairs[i].second);
    }
    lc.swap(nc);
    lv.swap(nv);
    held += lv.size() * (K * 8 + sizeof(Value) + 8);
    r.info_.states += lv.size();
    r.info_.peak_bytes = std::max(r.info_.peak_bytes, std::size_t(bytes + held + (long double)count * (8 + 8 * K + sizeof(Value))));
  }
  if (!single || C == 1) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < lv.size(); ++i) {
      if (!single) {
        r.front_.push_back({std::vector<std::int64_t>(lc.begin() + std::ptrdiff_t(i * K), lc.begin() + std::ptrdiff_t((i + 1) * K)), lv[i]});
        r.handle_.push_back(i);
      } else if (!best || lv[*best] < lv[i] ||
                 (!(lv[i] < lv[*best]) && mmck_cmp(lc.data() + i * K, lc.data() + *best * K, K) < 0)) {
        best = i;
      }
    }
    if (best) {
      r.front_.push_back({std::vector<std::int64_t>(lc.begin() + std::ptrdiff_t(*best * K), lc.begin() + std::ptrdiff_t((*best + 1) * K)), lv[*best]});
      r.handle_.push_back(*best);
    }
  } else {
    // the last class answers a dominance range maximum per point of the fold
    const auto& F = L.classes[L.order[C - 1]];
    mmck_kdtree<Value> tree(F.cost, F.value, K);
    std::vector<std::uint32_t> byv(lv.size());
    std::iota(byv.begin(), byv.end(), std::uint32_t{0});
    std::sort(byv.begin(), byv.end(), [&](std::uint32_t x, std::uint32_t y) {
      if (lv[y] < lv[x]) return true;
      if (lv[x] < lv[y]) return false;
      return x < y;
    });
    bool has = false;
    Value inc{};
    std::vector<std::int64_t> inc_c(K, 0);
    std::uint32_t best_a = 0, best_f = 0;
    std::uint64_t visits = 0;
    std::vector<std::int64_t> q(K);
    if (!tree.empty()) {
      const Value fmax = F.value[tree.root_best()];
      for (std::uint32_t a : byv) {
        if (has && lv[a] + fmax < inc) break;
        for (std::size_t k = 0; k < K; ++k) q[k] = B[k] - lc[a * K + k];
        const std::int64_t f = tree.query(lc.data() + a * K, lv[a], q.data(), has, inc, inc_c, visits);
        if (f >= 0) best_a = a, best_f = std::uint32_t(f);
      }
    }
    work += visits;
    r.info_.candidates += visits;
    L.fa.push_back({best_a});
    L.fb.push_back({best_f});
    if (has) {
      r.front_.push_back({inc_c, inc});
      r.handle_.push_back(0);
    }
  }
  r.info_.work = work;
  r.lattice_ = std::move(L);
  return r;
}

} // namespace detail

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

/// The dense K-dimensional table (see the file comment); nullopt when it does not fit and
/// !force (force: the memory refusal is an error).
template <class Value>
std::optional<mmck_result<Value>> mmck_solve_dense(const mmck_groups<Value>& groups,
                                                   const std::vector<std::int64_t>& B,
                                                   const mmck_settings& s, bool force) {
  const std::size_t K = B.size(), G = groups.size();
  mmck_dense<Value> d;
  d.K = K;
  d.original.resize(G);
  // in-group pruning: one option per cost vector (largest value, lowest index), no dominated
  std::vector<std::int64_t> minimum(G * K), largest(G * K, 0);
  for (std::size_t g = 0; g < G; ++g) {
    const auto& opts = groups[g];
    std::vector<std::size_t> order(opts.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    mmck_sort_options(opts, K, order);
    mmck_node<Value> tmp;
    mmck_filter<Value> f(K, tmp);
    for (std::size_t j : order) f.offer(opts[j].cost.data(), opts[j].value, std::uint32_t(j), 0);
    d.original[g].assign(tmp.a.begin(), tmp.a.end());
    std::sort(d.original[g].begin(), d.original[g].end());
    for (std::size_t k = 0; k < K; ++k) {
      std::int64_t m = std::numeric_limits<std::int64_t>::max();
      for (const auto& o : opts) m = std::min(m, o.cost[k]);
      minimum[g * K + k] = m;
    }
  }
  std::size_t per_cell = 3 * sizeof(Value) + 3;
  std::uint64_t cells = 1;
  bool huge = false;
  for (std::size_t k = 0; k < K; ++k) {
    std::int64_t M = 0, unit = 0, reach = 0;
    for (std::size_t g = 0; g < G; ++g) {
      M += minimum[g * K + k];  // fits: the caller checked sum of minima <= B
      std::int64_t big = 0;
      for (std::size_t j : d.original[g]) {
        const std::int64_t sh = groups[g][j].cost[k] - minimum[g * K + k];
        unit = std::gcd(unit, sh);
        big = std::max(big, sh);
      }
      reach = mck_saturating_add(reach, big);
    }
    if (unit == 0) unit = 1;
    d.offset[k] = M;
    d.unit[k] = unit;
    const std::int64_t last = std::min((B[k] - M) / unit, reach / unit);
    d.extent[k] = static_cast<std::size_t>(last) + 1;
    if (__builtin_mul_overflow(cells, std::uint64_t(d.extent[k]), &cells)) huge = true;
  }
  std::size_t maxj = 1;
  for (const auto& o : d.original) maxj = std::max(maxj, o.size());
  d.wide = maxj > 65535;
  const std::size_t bpw = d.wide ? 4 : 2;
  long double bytes = (long double)cells * (long double)(per_cell + G * bpw);
  if (huge || bytes > (long double)s.max_table_bytes) {
    if (!force) return std::nullopt;
    std::string shape;
    for (std::size_t k = 0; k < K; ++k) shape += (k ? " x " : "") + std::to_string(d.extent[k]);
    mmck_fail("the dense table needs ", huge ? std::string("more than 2^64") : std::to_string((unsigned long long)bytes),
              " bytes (", G, " groups x ", shape, " cells x ", bpw, " back-pointer bytes + ", per_cell,
              " bytes per cell), more than max_table_bytes (got ", s.max_table_bytes, ")");
  }
  d.cells = static_cast<std::size_t>(cells);
  for (std::size_t k = K; k-- > 0;) d.stride[k] = k + 1 == K ? 1 : d.stride[k + 1] * d.extent[k + 1];
  d.shift.resize(G);
  d.step.resize(G);
  for (std::size_t g = 0; g < G; ++g) {
    for (std::size_t j : d.original[g]) {
      std::array<std::size_t, mmck_max_dims> st{};
      std::size_t lin = 0;
      bool fits = true;
      for (std::size_t k = 0; k < K; ++k) {
        const auto q = static_cast<std::uint64_t>((groups[g][j].cost[k] - minimum[g * K + k]) / d.unit[k]);
        if (q >= d.extent[k]) fits = false, st[k] = d.extent[k];
        else st[k] = static_cast<std::size_t>(q), lin += st[k] * d.stride[k];
      }
      d.step[g].push_back(st);
      d.shift[g].push_back(fits ? lin : std::size_t(-1));
    }
  }
  if (d.wide) d.bp32.assign(G * d.cells, 0);
  else d.bp16.assign(G * d.cells, 0);
  std::vector<Value> cur(d.cells), next(d.cells);
  std::vector<unsigned char> cur_r(d.cells, 0), next_r(d.cells, 0);
  cur_r[0] = 1;
  std::uint64_t work = 0;
  const std::size_t inner_dim = K - 1;
  for (std::size_t g = 0; g < G; ++g) {
    std::fill(next_r.begin(), next_r.end(), static_cast<unsigned char>(0));
    for (std::size_t jj = 0; jj < d.original[g].size(); ++jj) {
      if (d.shift[g][jj] == std::size_t(-1)) continue;
      const auto& st = d.step[g][jj];
      const Value& v = groups[g][d.original[g][jj]].value;
      const std::size_t run = d.extent[inner_dim] - st[inner_dim];
      std::array<std::size_t, mmck_max_dims> idx{};
      while (true) {
        std::size_t base = 0;
        for (std::size_t k = 0; k < inner_dim; ++k) base += idx[k] * d.stride[k];
        const std::size_t dst0 = base + d.shift[g][jj];
        for (std::size_t t = 0; t < run; ++t) {
          const std::size_t src = base + t, dst = dst0 + t;
          if (!cur_r[src]) continue;
          Value cand = cur[src] + v;
          if (!next_r[dst] || next[dst] < cand) {
            next[dst] = std::move(cand);
            next_r[dst] = 1;
            if (d.wide) d.bp32[g * d.cells + dst] = std::uint32_t(jj);
            else d.bp16[g * d.cells + dst] = std::uint16_t(jj);
          }
        }
        work += run;
        std::size_t k = inner_dim;
        while (k-- > 0) {
          if (++idx[k] < d.extent[k] - st[k]) break;
          idx[k] = 0;
        }
        if (k == std::size_t(-1)) break;
      }
    }
    cur.swap(next);
    cur_r.swap(next_r);
  }
  // prefix maximum over every dimension, then the Pareto cells
  std::vector<Value> pv = cur;
  std::vector<unsigned char> ph = cur_r;
  for (std::size_t k = 0; k < K; ++k) {
    for (std::size_t c = 0; c < d.cells; ++c) {
      if ((c / d.stride[k]) % d.extent[k] == 0) continue;
      const std::size_t from = c - d.stride[k];
      if (ph[from] && (!ph[c] || pv[c] < pv[from])) {
        pv[c] = pv[from];
        ph[c] = 1;
      }
    }
  }
  mmck_result<Value> r;
  r.groups_ = G;
  r.budget_ = B;
  r.info_.path = mmck_path::dense;
  r.info_.dims = K;
  r.info_.cells = d.cells;
  r.info_.work = work;
  r.info_.peak_bytes = static_cast<std::size_t>(bytes);
  for (std::size_t c = 0; c < d.cells; ++c) {
    if (!cur_r[c]) continue;
    bool pareto = true;
    mmck_point<Value> p{std::vector<std::int64_t>(K), cur[c]};
    for (std::size_t k = 0; k < K && pareto; ++k) {
      const std::size_t ik = (c / d.stride[k]) % d.extent[k];
      p.cost[k] = d.offset[k] + std::int64_t(ik) * d.unit[k];
      if (ik > 0 && ph[c - d.stride[k]] && !(pv[c - d.stride[k]] < cur[c])) pareto = false;
    }
    if (!pareto) continue;
    r.front_.push_back(std::move(p));
    r.handle_.push_back(c);
  }
  for (auto& sh : d.shift)
    for (auto& x : sh)
      if (x == std::size_t(-1)) x = 0;
  r.dense_ = std::move(d);
  return r;
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

/// Which points of a solved Pareto set to list (reconstruct, re-score, print), within a memory
/// cap: every point when n x bytes_per_point <= cap and eps == 0; with eps > 0 the
/// epsilon_cover (pareto.hpp) of the set: every Pareto point p has a listed r with
/// r.value >= p.value and r.cost_k <= (1 + eps) p.cost_k. A listing that still passes the cap
/// is refused before anything is built: std::invalid_argument "<fn>: listing the Pareto set
/// needs N bytes (P points x b), more than the memory cap (got C); ..." naming the epsilon
/// (of 0.001, 0.01, 0.05, 0.2) whose cover fits and its size.
template <class Value>
std::vector<std::size_t> mmck_front_listing(const mmck_result<Value>& r, std::size_t bytes_per_point, double eps,
                                            std::size_t cap, std::string_view fn) {
  const auto& f = r.front();
  const std::size_t K = r.dims();
  auto cover = [&](double e) {
    return epsilon_cover(f.size(), K, [&](std::size_t i, std::size_t k) { return f[i].cost[k]; },
                         [&](std::size_t i) -> const Value& { return f[i].value; }, e);
  };
  std::vector<std::size_t> out;
  if (eps > 0) {
    out = cover(eps);
  } else {
    out.resize(f.size());
    std::iota(out.begin(), out.end(), std::size_t{0});
  }
  const long double need = (long double)out.size() * (long double)bytes_per_point;
  if (need <= (long double)cap) return out;
  std::string hint = "no epsilon up to 0.2 fits: add budgets or raise the cap";
  for (double e : {0.001, 0.01, 0.05, 0.2}) {
    if (e <= eps) continue;
    const std::size_t m = cover(e).size();
    if ((long double)m * (long double)bytes_per_point <= (long double)cap) {
      hint = "an epsilon-front with eps = " + std::to_string(e).substr(0, 5) + " has " + std::to_string(m) +
             " points and fits (every Pareto point within (1 + eps) in each cost of a listed one with >= its value)";
      break;
    }
  }
  detail::mck_fail(fn, "listing the Pareto set needs ", (unsigned long long)need, " bytes (", out.size(), " points x ",
                   bytes_per_point, " bytes", eps > 0 ? ", epsilon-cover" : "", "), more than the memory cap (got ", cap,
                   "); ", hint);
}

/// The listing of an in-DP epsilon-front (settings.epsilon > 0, trimmed): epsilon_cover_boxes of
/// its points with the cover boxes that nest its trim boxes (mmck_cover_box, width and depth
/// from r.info()), so the listing has a point in every cover box the root merge's kept states
/// reached (what settings.max_root_boxes counts); every point p of r.front() has a listed q with
/// q.value >= p.value and q.cost_k <= (1 + eps) p.cost_k (eps >= the solve's epsilon: boxes
/// within (1 + epsilon); eps below it: still a cover, with more points). Untrimmed: epsilon_cover.
template <class Value>
std::vector<std::size_t> mmck_front_cover(const mmck_result<Value>& r, double eps) {
  const auto& f = r.front();
  const mmck_info& in = r.info();
  auto cost_at = [&](std::size_t i, std::size_t k) { return f[i].cost[k]; };
  auto value_at = [&](std::size_t i) -> const Value& { return f[i].value; };
  if (!(in.trim_width > 0)) return epsilon_cover(f.size(), r.dims(), cost_at, value_at, eps);
  return epsilon_cover_boxes(f.size(), r.dims(), cost_at, value_at, eps,
                             [&](std::int64_t c) { return detail::mmck_cover_box(c, in.trim_width, in.trim_depth); });
}

/// Outcome of solve_mmck_front: the solved set, which of its points to list, the guarantee.
template <class Value>
struct mmck_front_solution {
  mmck_result<Value> result;          ///< exact Pareto set, or the in-DP epsilon-front
  std::vector<std::size_t> listing;   ///< indices into result.front() to list
  double epsilon = 0;                 ///< guarantee of the listing: (1 + dp_epsilon)(1 + cover_epsilon) - 1
  double dp_epsilon = 0;              ///< in-DP trimming (mmck_settings::epsilon)
  double cover_epsilon = 0;           ///< epsilon_cover of the DP's points
  std::string exact_refusal;          ///< why the exact set is not listed (empty: it is)
  double exact_seconds = 0;           ///< time of the exact attempt (0: none made)
  std::uint64_t exact_work = 0;       ///< the exact attempt's work cap (0: none made)
};

/// The Pareto set of `groups` under `budget`, listed within `cap` bytes (bytes_per_point each),
/// by a cost model (`fn` names the caller in refusals):
///  * epsilon > 0: the in-DP epsilon-front with dp = sqrt(1 + epsilon) - 1, then its
///    epsilon_cover with the same factor: every selection x with (1 + epsilon) c_k(x) <= B_k
///    has a listed r with value(r) >= value(x) and c_k(r) <= (1 + epsilon) c_k(x) for every k;
///  * epsilon = 0: the exact set when its DP finishes within `exact_work` candidates (sparse
///    path, each merge's pairs counted before it starts; 0: no cap; settings.max_work if
///    smaller) and settings.max_table_bytes, and its listing fits `cap` beside what the solve
///    holds (its tables, kept for reconstruction, within 3/4 of `cap` and max_table_bytes, and
///    its points; its root merge stops once it has kept more states than cap / (bytes to hold
///    and list a point), settings.max_root_states); otherwise (the reason
///    kept in exact_refusal) the first epsilon of 0.01, 0.05, 0.2, 1 whose front runs within
///    settings.max_work (0: 4 x exact_work) and max_table_bytes and whose listing fits; each
///    such attempt's root merge stops as soon as its kept states reach more cover boxes than
///    cap / (bytes to hold and list a point) (settings.max_root_boxes: the listing,
///    mmck_front_cover, has a point in each, so the attempt would be refused at its end).
///    The listing of an epsilon-front is mmck_front_cover.
/// Nothing fits: std::invalid_argument "<fn>: ..." naming each attempt. settings.single_budget
/// is ignored (a set is solved).
template <mck_value Value>
mmck_front_solution<Value> solve_mmck_front(const mmck_groups<Value>& groups, const std::vector<std::int64_t>& budget,
                                            const mmck_settings& settings, double epsilon, std::size_t bytes_per_point,
                                            std::size_t cap, std::uint64_t exact_work, std::string_view fn) {
  if (!(epsilon >= 0 && epsilon <= 1e6)) detail::mck_fail(fn, "the front epsilon must be in [0, 1e6] (got ", epsilon, ")");
  // the DP's tables get three quarters of the cap: a merge's transients (the dominance
  // staircase, the trimming's boxes) and the points and listing beside them take the rest
  const std::size_t tables = std::min(settings.max_table_bytes, cap - cap / 4);
  mmck_settings ms = settings;  // the exact attempt
  ms.single_budget = false;
  ms.max_table_bytes = tables;
  if (exact_work != 0 && (ms.max_work == 0 || exact_work < ms.max_work)) ms.max_work = exact_work;
  // the exact attempt stops at its root merge once the listing cannot fit: each point is held
  // (a state of the tables, a point) and listed, so more than cap / those bytes cannot fit
  const std::size_t root_point_bytes = bytes_per_point + sizeof(mmck_point<Value>) + 2 * budget.size() * 8 + 24 +
                                       sizeof(Value) + 12;
  ms.max_root_states = std::max<std::size_t>(1, cap / root_point_bytes);
  mmck_settings es = settings;  // the epsilon attempts: settings.max_work, else 4 x exact_work
  es.single_budget = false;
  es.max_table_bytes = tables;
  if (es.max_work == 0 && exact_work != 0) es.max_work = 4 * exact_work;
  // the fallback attempts stop at their root merge once their cover cannot fit: each cover box
  // the root's kept states reach holds a point of the front and a listed point (max_root_boxes)
  mmck_settings fs = es;
  fs.max_root_boxes = std::max<std::size_t>(1, cap / (bytes_per_point + sizeof(mmck_point<Value>) + budget.size() * 8 + 24));
  auto refused = [](const std::invalid_argument& e) {
    const std::string_view w = e.what();
    return w.find("max_work") != std::string_view::npos || w.find("max_table_bytes") != std::string_view::npos ||
           w.find("max_root_states") != std::string_view::npos || w.find("max_root_boxes") != std::string_view::npos;
  };
  auto split = [](double e) { return double(std::sqrt(1.0L + (long double)e) - 1.0L); };
  auto attempt = [&](double e, bool listing_refusal) -> std::optional<mmck_front_solution<Value>> {
    mmck_front_solution<Value> out;
    out.dp_epsilon = e > 0 ? split(e) : 0;
    out.cover_epsilon = out.dp_epsilon;
    mmck_settings ts = e > 0 ? (listing_refusal ? es : fs) : ms;
    ts.epsilon = out.dp_epsilon;
    out.result = solve_mmck(groups, budget, ts);
    const auto& f = out.result.front();
    const std::size_t K = budget.size();
    if (e > 0) {
      out.listing = mmck_front_cover(out.result, out.cover_epsilon);
      out.epsilon = e;
    } else {
      out.listing.resize(f.size());
      std::iota(out.listing.begin(), out.listing.end(), std::size_t{0});
    }
    // what the process holds: the DP's tables (kept for reconstruction), its points, the listing
    const long double held = (long double)out.result.info().peak_bytes +
                             (long double)f.size() * (long double)(sizeof(mmck_point<Value>) + K * 8 + 24);
    const long double listed = (long double)out.listing.size() * (long double)bytes_per_point;
    if (held + listed <= (long double)cap) return out;
    if (listing_refusal)
      detail::mck_fail(fn, "listing the ", e > 0 ? "epsilon-front" : "Pareto set", " needs ",
                       (unsigned long long)listed, " bytes (", out.listing.size(), " points x ", bytes_per_point,
                       " bytes) beside the ", (unsigned long long)held, " bytes of its DP and points, more than the memory cap (got ", cap,
                       "); give a larger epsilon, fewer budgets, or a larger memory cap");
    return std::nullopt;
  };
  if (epsilon > 0) return *attempt(epsilon, true);
  std::string why;
  const auto t0 = std::chrono::steady_clock::now();
  double exact_seconds = 0;
  try {
    if (auto x = attempt(0, false)) return std::move(*x);
    why = "the exact Pareto set's listing needs more than the memory cap beside its DP (got " + std::to_string(cap) +
          " bytes, " + std::to_string(bytes_per_point) + " per point)";
  } catch (const std::invalid_argument& e) {
    if (!refused(e)) throw;
    why = e.what();
    if (why.find("max_root_states") != std::string::npos)
      why = "the exact Pareto set's listing needs more than the memory cap beside its DP (got " + std::to_string(cap) +
            " bytes, " + std::to_string(bytes_per_point) + " per point: at most " + std::to_string(ms.max_root_states) +
            " points): " + why;
  }
  exact_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string tried;
  for (double e : {0.01, 0.05, 0.2, 1.0}) {
    try {
      if (auto x = attempt(e, false)) {
        x->exact_refusal = why;
        x->exact_seconds = exact_seconds;
        x->exact_work = ms.max_work;
        return std::move(*x);
      }
      tried += "; eps " + std::to_string(e).substr(0, 4) + ": its listing passes the memory cap";
    } catch (const std::invalid_argument& e2) {
      if (!refused(e2)) throw;
      tried += "; eps " + std::to_string(e).substr(0, 4) + ": " + e2.what();
    }
  }
  detail::mck_fail(fn, "no front fits: exact: ", why, tried, "; add budgets, raise --max-memory or --max-work");
}

/// Copies a front's summary into a result with the fields front_points (points in the DP),
/// front_epsilon, front_dp_epsilon, front_exact_refusal, front_exact_seconds and front_info
/// (search_budgets, prune_search): one place for the reporting fields of solve_mmck_front.
template <class Out, class Value>
void mmck_front_summary(Out& out, const mmck_front_solution<Value>& fs) {
  out.front_points = fs.result.front().size();
  out.front_epsilon = fs.epsilon;
  out.front_dp_epsilon = fs.dp_epsilon;
  out.front_exact_refusal = fs.exact_refusal;
  out.front_exact_seconds = fs.exact_seconds;
  out.front_info = fs.result.info();
}

/// A class of identical groups: `multiplicity` groups, each choosing one of `options`.
template <class Value>
struct mmck_class {
  std::vector<mmck_option<Value>> options;
  std::size_t multiplicity = 1;
};

/// solve_mmck over classes of identical groups without materialising the copies: the groups
/// are class 0's multiplicity copies, then class 1's, ... (choices are per group in that
/// order). Runs the lattice path (products split, one multiset table per class); when a class
/// table does not fit and settings.method is automatic, the groups are materialised (if their
/// options fit max_table_bytes) and solve_mmck decides. Domain and errors as solve_mmck, with
/// "class c, option j" in the messages; multiplicity must be >= 1 and the total number of
/// groups times 8 bytes within max_table_bytes.
template <mck_value Value>
mmck_result<Value> solve_mmck_classes(const std::vector<mmck_class<Value>>& classes,
                                      const std::vector<std::int64_t>& budget,
                                      const mmck_settings& settings = {}) {
  const std::size_t K = budget.size();
  if (K < 1 || K > mmck_max_dims)
    detail::mmck_fail("the budget vector needs 1 to ", mmck_max_dims, " entries (got ", K, ")");
  for (std::size_t k = 0; k < K; ++k)
    if (budget[k] < 0) detail::mmck_fail("budgets must be >= 0 (got ", budget[k], " for budget ", k, ")");
  std::size_t G = 0;
  long double vsum = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const auto& cl = classes[c];
    if (cl.multiplicity < 1) detail::mmck_fail("every class needs multiplicity >= 1 (got 0 for class ", c, ")");
    if (cl.options.empty()) detail::mmck_fail("every class needs at least one option (got an empty class ", c, ")");
    if (cl.options.size() > 0xffffffffu)
      detail::mmck_fail("at most 2^32 - 1 options per class (got ", cl.options.size(), " in class ", c, ")");
    G = nsc::detail::checked_add(G, cl.multiplicity, "nsc::solve_mmck", "the number of groups");
    long double big = 0;
    for (std::size_t j = 0; j < cl.options.size(); ++j) {
      const auto& o = cl.options[j];
      if (o.cost.size() != K)
        detail::mmck_fail("every option needs one cost per budget (", K, "; got ", o.cost.size(), " at class ", c,
                          ", option ", j, ")");
      for (std::size_t k = 0; k < K; ++k)
        if (o.cost[k] < 0)
          detail::mmck_fail("option costs must be >= 0 (got ", o.cost[k], " for budget ", k, " at class ", c,
                            ", option ", j, ")");
      if (detail::mck_nonfinite(o.value))
        detail::mmck_fail("option values must be finite (got ", detail::mck_describe(o.value), " at class ", c,
                          ", option ", j, ")");
      if constexpr (std::is_arithmetic_v<Value>) big = std::max(big, std::fabs((long double)o.value));
    }
    vsum += big * (long double)cl.multiplicity;
  }
  if constexpr (std::is_integral_v<Value>) {
    if (vsum > (long double)std::numeric_limits<Value>::max())
      detail::mmck_fail("the sum over groups of the largest |value| must fit in the value type (got ", (double)vsum,
                        " > ", std::numeric_limits<Value>::max(), ")");
  } else if constexpr (std::is_floating_point_v<Value>) {
    if (!(vsum <= (long double)std::numeric_limits<Value>::max()))
      detail::mmck_fail("the sum over groups of the largest |value| must be finite in the value type (got ",
                        (double)vsum, ")");
  }
  if ((long double)G * 8.0L > (long double)settings.max_table_bytes)
    detail::mmck_fail("the choices of ", G, " groups need ", (unsigned long long)G * 8ull,
                      " bytes, more than max_table_bytes (got ", settings.max_table_bytes, ")");
  detail::mmck_lattice_input<Value> in;
  std::size_t at = 0;
  for (const auto& cl : classes) {
    in.push_back({cl.options, {}});
    for (std::size_t t = 0; t < cl.multiplicity; ++t) in.back().second.push_back({at++, 1});
  }
  const bool force = settings.method == mmck_method::lattice || settings.method == mmck_method::automatic ? settings.method == mmck_method::lattice : true;
  if (settings.method == mmck_method::automatic || settings.method == mmck_method::lattice) {
    if (auto r = detail::mmck_solve_lattice(in, G, budget, settings, force)) return std::move(*r);
  }
  long double obytes = 0;
  for (const auto& cl : classes)
    obytes += (long double)cl.multiplicity * (long double)cl.options.size() * (long double)(8 * K + sizeof(Value) + 32);
  if (obytes > (long double)settings.max_table_bytes)
    detail::mmck_fail("the lattice path does not fit and materialising the ", G, " groups needs ", (unsigned long long)obytes,
                      " bytes, more than max_table_bytes (got ", settings.max_table_bytes, ")");
  mmck_groups<Value> groups;
  groups.reserve(G);
  for (const auto& cl : classes)
    for (std::size_t t = 0; t < cl.multiplicity; ++t) groups.push_back(cl.options);
  mmck_settings s = settings;
  if (s.method == mmck_method::automatic) s.method = mmck_method::sparse;
  return solve_mmck(groups, budget, s);
}


} // namespace nsc::search

#endif // NSC_SEARCH_MULTI_KNAPSACK_HPP
