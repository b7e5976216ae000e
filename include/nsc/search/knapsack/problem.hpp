/// \file nsc/search/knapsack/problem.hpp
/// The K-budget multiple-choice knapsack's instance, settings and report: options and groups,
/// the algorithm asked for and the one that ran, mmck_settings, mmck_info, a Pareto point.
/// Part of the K-budget knapsack engine (nsc/search/multi_knapsack.hpp: the file comment there
/// describes every algorithm, the choice rule, ties, accuracy and memory).
#ifndef NSC_SEARCH_KNAPSACK_PROBLEM_HPP
#define NSC_SEARCH_KNAPSACK_PROBLEM_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/search/knapsack/dense_1d.hpp>
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

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_PROBLEM_HPP
