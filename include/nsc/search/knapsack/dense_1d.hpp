/// \file nsc/search/knapsack/dense_1d.hpp
/// Exact multiple-choice knapsack (NSC-DP, math.md section 6), generic over the value type.
///
/// Synopsis
/// --------
///     groups[g][j] = {value v_gj, integer cost c_gj >= 0}
///     maximise sum_g v_{g,j_g}  subject to  sum_g c_{g,j_g} <= B,  exactly one j_g per group
///
///     auto r = nsc::search::solve_mck(groups, B);
///     r.best(b), r.choice(b)          // optimum and choice for every budget b in [0, B]
///     r.best_exact(c), r.choice_exact(c), r.best_in_band(lo, hi)
///     r.front()                       // Pareto front (cost, value), ascending
///
/// Description
/// -----------
/// One pass of the exact-cost recurrence
///     T_0(0) = 0, T_0(c) = unreachable for c > 0,
///     T_g(c) = max_j T_{g-1}(c - c_gj) + v_gj   (over the reachable predecessors)
/// over c = 0..B gives the best value with total cost exactly c, its prefix maximum (the
/// best value with cost <= b for every b <= B, i.e. the Pareto front of value against
/// cost) and back-pointers that reconstruct an optimal choice for any b or c.
///
/// Preprocessing, all exact (answers are always in the caller's original cost units and
/// original option indices):
///  (a) every group's minimum cost m_g is subtracted; the budget drops by M = sum_g m_g
///      (B < M: every budget is infeasible, a status, not an error);
///  (b) shifted costs and the budget are divided by d = gcd of all shifted costs (the
///      budget is floored: a total cost is always M + d k);
///  (c) options no selection ever needs are dropped (see mck_pruning);
///  (d) the table stops at the largest reachable total cost (sum of per-group maxima).
///
/// Tie-breaking (deterministic): at every cell the options of a group are scanned in
/// ascending original index and a later option replaces the incumbent only if it is
/// strictly better, so among equal values the lowest original index wins; `best(b)` and
/// `choice(b)` use the smallest exact cost achieving the best value at b.
///
/// Value requirements (concept mck_value): copyable, default-constructible with `Value{}`
/// the zero, `a + b`, `a < b`, `a == b`. double, long double, std::int64_t and
/// boost::multiprecision::cpp_bin_float_50 work. Unreachable cells are tracked in a
/// separate byte row, never with a sentinel value.
///
/// Accuracy: exact in Value arithmetic. Values are summed group by group, in group order
/// (((0 + v_0) + v_1) + ...), so a floating result is bitwise the sum a caller gets by
/// adding the chosen values in that order. Integral Value: the instance is refused if
/// sum_g max_j |v_gj| does not fit in Value, so no partial sum overflows.
///
/// Complexity: O(G * W * J) time (W <= B/d + 1 cells, J options per group, after the
/// reductions), O(G * W) bytes of back-pointers (1 byte per cell for groups of at most 256
/// options, 2 for at most 65536, ...) plus O(W) values. The hot loop allocates nothing.
#ifndef NSC_SEARCH_KNAPSACK_DENSE_1D_HPP
#define NSC_SEARCH_KNAPSACK_DENSE_1D_HPP

#include <nsc/error_handling.hpp>
#include <nsc/search/pareto.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <ranges>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace nsc::search {

/// What the knapsack needs from a value type: copy, `Value{}` as zero, `+`, `<`, `==`.
template <class V>
concept mck_value = std::copyable<V> && std::default_initializable<V> &&
                    requires(const V& a, const V& b) {
                      { a + b } -> std::convertible_to<V>;
                      { a < b } -> std::convertible_to<bool>;
                      { a == b } -> std::convertible_to<bool>;
                    };

/// One option of a group: its score and its integer cost (>= 0, caller's units).
template <class Value>
struct mck_option {
  Value value;
  std::int64_t cost;
};

/// The groups of an instance; exactly one option is chosen per group.
template <class Value>
using mck_groups = std::vector<std::vector<mck_option<Value>>>;

/// Outcome for one budget: an optimal selection exists, or no selection fits.
enum class mck_status { optimal, infeasible };

/// Which options are dropped before the DP (step (c)). Both are exact for `best`, `choice`
/// and `front`; they differ only in what is kept for exact-cost queries.
enum class mck_pruning {
  /// Drop an option only if another option of its group has the same cost and a value
  /// >= (equal values: the lowest original index is kept). Every query, including the
  /// exact-cost ones (best_exact, choice_exact, best_in_band), is answered exactly. Default.
  same_cost,
  /// Also drop every option dominated inside its group (another option with cost <= and
  /// value >=, strictly better in one). Budget queries (best, best_cost, choice, front)
  /// give identical answers, possibly faster; but a dominated option can be the only way
  /// to reach an exact cost, so exact-cost queries throw std::invalid_argument.
  dominated
};

/// Settings of solve_mck.
struct mck_settings {
  /// Refuse (std::invalid_argument, before allocating) instances whose tables would need
  /// more bytes than this: the back-pointer table (groups x cells x index bytes) plus the
  /// O(cells) rows (two value rows, two reachability bytes, one prefix index per cell).
  std::size_t max_table_bytes = std::size_t{1} << 30;
  mck_pruning pruning = mck_pruning::same_cost;
  /// solve_mck_classes only: refuse (std::invalid_argument) instances whose combinations would
  /// examine more than this many pairs, counted before each combination (2^32: a few seconds).
  /// solve_mck's work is bounded by max_table_bytes already: it fills every cell it stores.
  std::uint64_t max_work = std::uint64_t{1} << 32;
};

namespace detail {

template <class V>
concept mck_streamable = requires(std::ostream& os, const V& v) { os << v; };

/// Throws std::invalid_argument("<fn>: <parts...>").
template <class... Parts>
[[noreturn]] void mck_fail(std::string_view fn, const Parts&... parts) {
  std::ostringstream os;
  os.precision(17);
  (os << ... << parts);
  nsc::throw_invalid_argument(fn, os.str());
}

template <class V>
std::string mck_describe(const V& v) {
  if constexpr (mck_streamable<V>) {
    std::ostringstream os;
    os.precision(17);
    os << v;
    return os.str();
  } else {
    return "a value that is NaN or infinite";
  }
}

/// True when v is NaN (`!(v == v)`) or infinite (`v + v == v` while `v != 0`). Integer
/// types (std::numeric_limits<V>::is_integer) are always finite and are not tested, which
/// also avoids the overflow of `v + v`.
template <class V>
bool mck_nonfinite(const V& v) {
  if constexpr (std::numeric_limits<V>::is_integer) {
    return false;
  } else {
    if (!(v == v)) return true;
    const V twice = v + v;
    return twice == v && !(v == V{});
  }
}

/// Magnitude of an integral value as uintmax_t (no overflow for the most negative value).
template <class V>
std::uintmax_t mck_magnitude(V v) {
  if constexpr (std::is_signed_v<V>) {
    return v < 0 ? std::uintmax_t{0} - static_cast<std::uintmax_t>(v)
                 : static_cast<std::uintmax_t>(v);
  } else {
    return static_cast<std::uintmax_t>(v);
  }
}

/// Floating Value: refuses instances whose sum over groups of the largest |value| is not
/// finite in Value (e.g. two options of 1e308: a DP sum would be inf), so every partial sum
/// of the DP stays finite. Other types: nothing to check.
template <class Groups, class Get>
void mck_check_value_sum(std::string_view fn, const Groups& groups, Get get) {
  using V = std::remove_cvref_t<decltype(get(groups[0][0]))>;
  if constexpr (std::is_floating_point_v<V>) {
    V total = 0;
    for (const auto& g : groups) {
      V largest = 0;
      for (const auto& o : g) largest = std::max(largest, V(std::fabs(get(o))));
      total += largest;
    }
    if (!std::isfinite(total))
      mck_fail(fn, "the sum over groups of the largest |value| must be finite in the value type "
                   "(got a sum above ", std::numeric_limits<V>::max(), ")");
  }
}

/// Checks the groups (non-empty, costs >= 0, values finite) and, for integral Value, that
/// `extra + sum_g max_j |v_gj|` fits in Value (so no DP sum overflows).
template <class Value>
void mck_validate(std::string_view fn, const mck_groups<Value>& groups,
                  std::uintmax_t extra = 0) {
  [[maybe_unused]] std::uintmax_t total = extra;
  [[maybe_unused]] bool overflow = false;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty()) {
      mck_fail(fn, "every group needs at least one option (got an empty group ", g, ")");
    }
    [[maybe_unused]] std::uintmax_t largest = 0;
    for (std::size_t j = 0; j < groups[g].size(); ++j) {
      const auto& o = groups[g][j];
      if (o.cost < 0) {
        mck_fail(fn, "option costs must be >= 0 (got ", o.cost, " at group ", g, ", option ",
                 j, ")");
      }
      if (mck_nonfinite(o.value)) {
        mck_fail(fn, "option values must be finite (got ", mck_describe(o.value), " at group ",
                 g, ", option ", j, ")");
      }
      if constexpr (std::is_integral_v<Value>) {
        largest = std::max(largest, mck_magnitude(o.value));
      }
    }
    if constexpr (std::is_integral_v<Value>) {
      if (total > std::numeric_limits<std::uintmax_t>::max() - largest) overflow = true;
      total += largest;
    }
  }
  if constexpr (std::is_integral_v<Value>) {
    const auto limit = static_cast<std::uintmax_t>(std::numeric_limits<Value>::max());
    if (overflow || total > limit) {
      mck_fail(fn, "the sum over groups of the largest |value| must fit in the value type (got ",
               overflow ? std::string("more than 2^64") : std::to_string(total), " > ", limit,
               ")");
    }
  }
  mck_check_value_sum(fn, groups, [](const auto& o) -> const Value& { return o.value; });
}

inline std::int64_t mck_saturating_add(std::int64_t a, std::int64_t b) {
  // a, b >= 0
  return a > std::numeric_limits<std::int64_t>::max() - b ? std::numeric_limits<std::int64_t>::max()
                                                          : a + b;
}

/// One group of the reduced instance: kept options in ascending original index.
struct mck_group_table {
  std::vector<std::size_t> cost;      ///< reduced cost (c - m_g) / d
  std::vector<std::size_t> original;  ///< original option index
  unsigned width = 1;                 ///< bytes per back-pointer: 1, 2, 4 or 8
  std::size_t offset = 0;             ///< first back-pointer in the table of that width
};

/// The DP for one group: next(c) = max_j cur(c - s_j) + v_j, bp(c) = argmax.
/// Options scanned in ascending original index, replacement only if strictly better.
/// No allocation; O(W * J).
template <class Value, class Index>
void mck_relax(const Value* cur, const unsigned char* cur_reach, Value* next,
               unsigned char* next_reach, Index* bp, std::size_t cells,
               const std::size_t* costs, const Value* values, std::size_t options) {
  std::fill(next_reach, next_reach + cells, static_cast<unsigned char>(0));
  for (std::size_t j = 0; j < options; ++j) {
    const std::size_t s = costs[j];
    if (s >= cells) continue;
    const std::size_t n = cells - s;
    const Value& v = values[j];
    const auto tag = static_cast<Index>(j);
    Value* dst = next + s;
    unsigned char* dst_reach = next_reach + s;
    Index* dst_bp = bp + s;
    if constexpr (std::is_arithmetic_v<Value>) {
      // Branch-free select: every load first, then unconditional stores, so that the
      // compiler can vectorise (g++ -O3 does for double: ~3x faster than the branches on
      // random data). Unreachable cells hold stale but initialised values that the
      // reachability flags mask out.
      for (std::size_t c = 0; c < n; ++c) {
        const unsigned char from = cur_reach[c];
        const unsigned char here = dst_reach[c];
        const Value old = dst[c];
        const Index old_bp = dst_bp[c];
        const Value cand = cur[c] + v;
        const bool take = (from != 0) & ((here == 0) | (old < cand));
        dst[c] = take ? cand : old;
        dst_bp[c] = take ? tag : old_bp;
        dst_reach[c] = static_cast<unsigned char>(here | from);
      }
    } else {
      for (std::size_t c = 0; c < n; ++c) {
        if (!cur_reach[c]) continue;
        Value cand = cur[c] + v;
        if (!dst_reach[c] || dst[c] < cand) {
          dst[c] = std::move(cand);
          dst_reach[c] = 1;
          dst_bp[c] = tag;
        }
      }
    }
  }
}

/// Step (c) for one group: the options kept, in ascending original index. same_cost: one per
/// cost (the largest value, lowest index on ties); dominated: also drop every option another
/// one of the group dominates (cost <= and value >=).
template <class Value>
std::vector<std::size_t> mck_kept_options(const std::vector<mck_option<Value>>& opts, mck_pruning pruning) {
  std::vector<std::size_t> order(opts.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (opts[a].cost != opts[b].cost) return opts[a].cost < opts[b].cost;
    if (opts[b].value < opts[a].value) return true;
    if (opts[a].value < opts[b].value) return false;
    return a < b;
  });
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& o = opts[order[i]];
    const bool take = pruning == mck_pruning::same_cost ? i == 0 || opts[order[i - 1]].cost != o.cost
                                                        : keep.empty() || opts[keep.back()].value < o.value;
    if (take) keep.push_back(order[i]);
  }
  std::sort(keep.begin(), keep.end());
  return keep;
}

/// One max-plus combination of solve_mck_classes: out(d) = max over a + b = d of X(a) + Y(b)
/// (cells of reduced cost, out truncated to `cells`). An operand x >= 0 is op x's output, x < 0
/// the one-copy table of class -x - 1. op_bp[offset + d] = the a of out(d)'s best pair.
struct mck_merge_op {
  std::int64_t x = 0, y = 0;
  std::size_t offset = 0, cells = 0;
};

/// Everything solve_mck computes; wrapped by mck_result.
template <class Value>
struct mck_tables {
  std::size_t groups = 0;
  std::int64_t budget = 0;
  std::int64_t offset = 0;  ///< M = sum of the group minima (saturated)
  std::int64_t unit = 1;    ///< d = gcd of the shifted costs (1 if all are zero)
  std::size_t cells = 0;    ///< W (0 when B < M)
  std::size_t bytes = 0;
  mck_pruning pruning = mck_pruning::same_cost;
  std::vector<mck_group_table> group;
  std::vector<std::uint8_t> bp8;
  std::vector<std::uint16_t> bp16;
  std::vector<std::uint32_t> bp32;
  std::vector<std::uint64_t> bp64;
  std::vector<Value> exact;           ///< T_G(k), meaningful where reach[k]
  std::vector<unsigned char> reach;   ///< T_G(k) reachable
  std::vector<std::size_t> prefix;    ///< smallest k' <= k maximising T_G, or npos
  std::uint64_t work = 0;             ///< cell updates (solve_mck) / pairs examined (classes)
  // solve_mck_classes: classes of identical groups combined by max-plus ops (`group` empty)
  std::vector<mck_merge_op> ops;
  std::vector<std::uint32_t> op_bp;   ///< ops[t].cells entries from ops[t].offset: X's cell
  /// per class: (reduced cost, original index) of the kept options, ascending cost
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> leaf;
  std::vector<std::size_t> multiplicity;  ///< per class; empty for solve_mck
  std::int64_t root = 0;                   ///< the final table's operand (see mck_merge_op)
};

} // namespace detail

/// The solution of one multiple-choice knapsack for every budget b in [0, B] at once.
///
/// Costs taken and returned are in the caller's original units; choices are vectors with
/// one original option index per group. Queries outside [0, B] throw std::invalid_argument
/// naming the query ("nsc::mck_result::best: ..."). An infeasible budget is a status:
/// `status(b) == mck_status::infeasible` and the optional answers are empty.
template <class Value>
class mck_result {
public:
  using value_type = Value;
  using point = pareto_point<Value>;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  /// Wraps computed tables (used by solve_mck).
  explicit mck_result(detail::mck_tables<Value> t) : t_(std::move(t)) {}

  std::size_t group_count() const noexcept { return t_.groups; }
  /// The budget B the instance was solved for.
  std::int64_t budget() const noexcept { return t_.budget; }
  /// M = sum over groups of the minimum option cost: the cheapest selection's cost
  /// (saturated at INT64_MAX, in which case no budget is feasible).
  std::int64_t cost_offset() const noexcept { return t_.offset; }
  /// d: every selection costs M + d k for an integer k >= 0.
  std::int64_t cost_unit() const noexcept { return t_.unit; }
  /// W: the number of DP cells after the reductions (0 when B < M).
  std::size_t cells() const noexcept { return t_.cells; }
  /// Bytes counted against mck_settings::max_table_bytes.
  std::size_t table_bytes() const noexcept { return t_.bytes; }
  /// The DP's work: cell updates (solve_mck: sum_g W * J_g) or candidate pairs examined by the
  /// max-plus combinations (solve_mck_classes).
  std::uint64_t cell_updates() const noexcept { return t_.work; }
  mck_pruning pruning() const noexcept { return t_.pruning; }

  /// optimal if some selection costs <= b, else infeasible. O(1). b in [0, B].
  mck_status status(std::int64_t b) const {
    return budget_cell(b, "nsc::mck_result::status") == npos ? mck_status::infeasible
                                                              : mck_status::optimal;
  }

  /// max over selections with cost <= b of the value sum, or nullopt. O(1). b in [0, B].
  std::optional<Value> best(std::int64_t b) const {
    const std::size_t k = budget_cell(b, "nsc::mck_result::best");
    if (k == npos) return std::nullopt;
    return t_.exact[k];
  }

  /// The smallest exact cost of a selection achieving best(b), or nullopt. O(1).
  std::optional<std::int64_t> best_cost(std::int64_t b) const {
    const std::size_t k = budget_cell(b, "nsc::mck_result::best_cost");
    if (k == npos) return std::nullopt;
    return cost_of(k);
  }

  /// An optimal selection for budget b (original option index per group; the one of
  /// exact cost best_cost(b)), or nullopt. O(G). b in [0, B].
  std::optional<std::vector<std::size_t>> choice(std::int64_t b) const {
    const std::size_t k = budget_cell(b, "nsc::mck_result::choice");
    if (k == npos) return std::nullopt;
    return reconstruct(k);
  }

  /// max over selections with cost exactly c of the value sum, or nullopt when no selection
  /// costs exactly c. O(1). c in [0, B]. Needs mck_pruning::same_cost.
  std::optional<Value> best_exact(std::int64_t c) const {
    const std::size_t k = exact_cell(c, "nsc::mck_result::best_exact");
    if (k == npos) return std::nullopt;
    return t_.exact[k];
  }

  /// An optimal selection of cost exactly c, or nullopt. O(G). Needs mck_pruning::same_cost.
  std::optional<std::vector<std::size_t>> choice_exact(std::int64_t c) const {
    const std::size_t k = exact_cell(c, "nsc::mck_result::choice_exact");
    if (k == npos) return std::nullopt;
    return reconstruct(k);
  }

  /// The best selection whose exact cost lies in the band [lo, hi] (0 <= lo <= hi <= B):
  /// (exact cost, value), the smallest such cost on ties, or nullopt if no selection costs
  /// inside the band. Reconstruct it with choice_exact(point.cost). O((hi - lo) / d).
  /// Needs mck_pruning::same_cost.
  std::optional<point> best_in_band(std::int64_t lo, std::int64_t hi) const {
    constexpr std::string_view fn = "nsc::mck_result::best_in_band";
    check_range(lo, fn);
    check_range(hi, fn);
    if (hi < lo) detail::mck_fail(fn, "the band needs lo <= hi (got [", lo, ", ", hi, "])");
    require_exact(fn);
    if (t_.cells == 0 || hi < t_.offset) return std::nullopt;
    const std::int64_t d = t_.unit;
    const std::int64_t first =
        lo <= t_.offset ? 0 : (lo - t_.offset) / d + ((lo - t_.offset) % d != 0 ? 1 : 0);
    const std::int64_t last_raw = (hi - t_.offset) / d;
    const std::size_t last =
        std::min(static_cast<std::size_t>(last_raw), t_.cells - 1);
    std::size_t arg = npos;
    for (auto k = static_cast<std::size_t>(first); k <= last; ++k) {
      if (t_.reach[k] && (arg == npos || t_.exact[arg] < t_.exact[k])) arg = k;
    }
    if (arg == npos) return std::nullopt;
    return point{cost_of(arg), t_.exact[arg], {}};
  }

  /// The Pareto front: the points (exact cost, value), ascending, at which best(b)
  /// strictly increases with b; each cost is the smallest exact cost achieving its value.
  /// best(b) is the value of the last point with cost <= b (see best_within). O(W).
  std::vector<point> front() const {
    std::vector<point> out;
    for (std::size_t k = 0; k < t_.cells; ++k) {
      if (t_.reach[k] && (out.empty() || out.back().value < t_.exact[k])) {
        out.push_back(point{cost_of(k), t_.exact[k], {}});
      }
    }
    return out;
  }

private:
  void check_range(std::int64_t b, std::string_view fn) const {
    if (b < 0 || b > t_.budget) {
      detail::mck_fail(fn, "budget or cost must be in [0, B = ", t_.budget, "] (got ", b, ")");
    }
  }

  void require_exact(std::string_view fn) const {
    if (t_.pruning != mck_pruning::same_cost) {
      detail::mck_fail(fn,
                       "exact-cost queries need mck_pruning::same_cost (got an instance solved "
                       "with mck_pruning::dominated)");
    }
  }

  std::int64_t cost_of(std::size_t k) const {
    return t_.offset + static_cast<std::int64_t>(k) * t_.unit;
  }

  /// The prefix-argmax cell for budget b, or npos when infeasible.
  std::size_t budget_cell(std::int64_t b, std::string_view fn) const {
    check_range(b, fn);
    if (t_.cells == 0 || b < t_.offset) return npos;
    const auto k = static_cast<std::size_t>((b - t_.offset) / t_.unit);
    return t_.prefix[std::min(k, t_.cells - 1)];
  }

  /// The cell of exact cost c if reachable, else npos.
  std::size_t exact_cell(std::int64_t c, std::string_view fn) const {
    check_range(c, fn);
    require_exact(fn);
    if (t_.cells == 0 || c < t_.offset) return npos;
    const std::int64_t r = c - t_.offset;
    if (r % t_.unit != 0) return npos;
    const auto k = static_cast<std::size_t>(r / t_.unit);
    if (k >= t_.cells || !t_.reach[k]) return npos;
    return k;
  }

  std::size_t back_pointer(std::size_t g, std::size_t k) const {
    const auto& gt = t_.group[g];
    switch (gt.width) {
      case 1: return t_.bp8[gt.offset + k];
      case 2: return t_.bp16[gt.offset + k];
      case 4: return t_.bp32[gt.offset + k];
      default: return static_cast<std::size_t>(t_.bp64[gt.offset + k]);
    }
  }

  std::vector<std::size_t> reconstruct(std::size_t k) const {
    if (!t_.multiplicity.empty()) return reconstruct_classes(k);
    std::vector<std::size_t> out(t_.groups);
    for (std::size_t g = t_.groups; g-- > 0;) {
      const std::size_t j = back_pointer(g, k);
      out[g] = t_.group[g].original[j];
      k -= t_.group[g].cost[j];
    }
    return out;
  }

  /// solve_mck_classes: walk the op tree from the root down to one-copy cells, then list each
  /// class's options in ascending original index over its groups.
  std::vector<std::size_t> reconstruct_classes(std::size_t k) const {
    std::vector<std::vector<std::size_t>> picks(t_.multiplicity.size());
    std::vector<std::pair<std::int64_t, std::size_t>> todo{{t_.root, k}};
    while (!todo.empty()) {
      const auto [x, cell] = todo.back();
      todo.pop_back();
      if (x < 0) {
        const auto& leaf = t_.leaf[static_cast<std::size_t>(-x - 1)];
        const auto it = std::lower_bound(leaf.begin(), leaf.end(), std::make_pair(cell, std::size_t{0}));
        picks[static_cast<std::size_t>(-x - 1)].push_back(it->second);
        continue;
      }
      const detail::mck_merge_op& op = t_.ops[static_cast<std::size_t>(x)];
      const std::size_t a = t_.op_bp[op.offset + cell];
      todo.push_back({op.y, cell - a});
      todo.push_back({op.x, a});
    }
    std::vector<std::size_t> out;
    out.reserve(t_.groups);
    for (auto& p : picks) {
      std::sort(p.begin(), p.end());
      out.insert(out.end(), p.begin(), p.end());
    }
    return out;
  }

  detail::mck_tables<Value> t_;
};

/// Solves the multiple-choice knapsack for every budget in [0, budget] in one pass.
///
/// Domain: every group non-empty, every cost >= 0, every value finite (floating types:
/// `v == v` and not `v + v == v != 0`), budget >= 0; integral Value: the sum over groups of
/// the largest |value| must fit in Value. Zero groups is a valid instance: its only
/// selection is the empty one, cost 0 and value Value{}, optimal for every budget.
/// Errors: std::invalid_argument "nsc::solve_mck: <rule> (got ...)" for each broken rule,
/// and when the tables would exceed settings.max_table_bytes (checked before allocating).
/// Complexity: O(G * W * J) time, W = min(floor((B - M) / d), sum_g max shifted cost / d) + 1.
template <mck_value Value>
mck_result<Value> solve_mck(const mck_groups<Value>& groups, std::int64_t budget,
                            const mck_settings& settings = {}) {
  constexpr std::string_view fn = "nsc::solve_mck";
  if (budget < 0) detail::mck_fail(fn, "budget must be >= 0 (got ", budget, ")");
  detail::mck_validate(fn, groups);

  detail::mck_tables<Value> t;
  t.groups = groups.size();
  t.budget = budget;
  t.pruning = settings.pruning;
  t.group.resize(groups.size());

  // (a) minimum cost per group.
  std::vector<std::int64_t> minimum(groups.size());
  std::int64_t offset = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::int64_t m = groups[g][0].cost;
    for (const auto& o : groups[g]) m = std::min(m, o.cost);
    minimum[g] = m;
    offset = detail::mck_saturating_add(offset, m);
  }
  t.offset = offset;
  if (offset > budget) return mck_result<Value>(std::move(t));  // infeasible everywhere

  // (c) pruning, on shifted costs; kept options in ascending original index.
  std::vector<std::vector<Value>> kept_values(groups.size());
  std::vector<std::vector<std::int64_t>> kept_shift(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& opts = groups[g];
    const std::vector<std::size_t> keep = detail::mck_kept_options(opts, settings.pruning);
    t.group[g].original = keep;
    for (std::size_t j : keep) {
      kept_values[g].push_back(opts[j].value);
      kept_shift[g].push_back(opts[j].cost - minimum[g]);
    }
  }

  // (b) gcd of the shifted costs, (d) largest reachable shifted total.
  std::int64_t unit = 0;
  std::int64_t reachable = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::int64_t largest = 0;
    for (std::int64_t s : kept_shift[g]) {
      unit = std::gcd(unit, s);
      largest = std::max(largest, s);
    }
    reachable = detail::mck_saturating_add(reachable, largest);
  }
  if (unit == 0) unit = 1;
  t.unit = unit;
  const std::int64_t last_cell = std::min((budget - offset) / unit, reachable / unit);
  const auto cells64 = static_cast<std::uint64_t>(last_cell) + 1;

  // Memory: bytes per cell, then refuse before allocating.
  std::size_t per_cell = 2 * sizeof(Value) + 2 + sizeof(std::size_t);
  std::size_t count8 = 0, count16 = 0, count32 = 0, count64 = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::size_t j = t.group[g].original.size();
    unsigned w = 8;
    if (j <= (std::size_t{1} << 8)) {
      w = 1;
    } else if (j <= (std::size_t{1} << 16)) {
      w = 2;
    } else if (static_cast<std::uint64_t>(j) <= (std::uint64_t{1} << 32)) {
      w = 4;
    }
    t.group[g].width = w;
    per_cell += w;
  }
  const std::size_t cap = settings.max_table_bytes;
  if (cells64 > std::numeric_limits<std::size_t>::max() / per_cell ||
      cells64 * per_cell > cap) {
    const bool huge = cells64 > std::numeric_limits<std::size_t>::max() / per_cell;
    detail::mck_fail(fn, "the DP tables need ",
                     huge ? std::string("more than SIZE_MAX")
                          : std::to_string(static_cast<std::size_t>(cells64) * per_cell),
                     " bytes (", groups.size(), " groups x ", cells64, " cells x ", per_cell,
                     " bytes per cell incl. back-pointers), more than max_table_bytes (got ",
                     cap, ")");
  }
  const auto cells = static_cast<std::size_t>(cells64);
  t.cells = cells;
  t.bytes = cells * per_cell;

  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto& gt = t.group[g];
    std::size_t* count = gt.width == 1   ? &count8
                         : gt.width == 2 ? &count16
                         : gt.width == 4 ? &count32
                                         : &count64;
    gt.offset = *count;
    *count += cells;
    gt.cost.reserve(kept_shift[g].size());
    for (std::int64_t s : kept_shift[g]) gt.cost.push_back(static_cast<std::size_t>(s / unit));
  }
  t.bp8.resize(count8);
  t.bp16.resize(count16);
  t.bp32.resize(count32);
  t.bp64.resize(count64);

  // The DP: two rolling rows of values and reachability.
  std::vector<Value> cur(cells), next(cells);
  std::vector<unsigned char> cur_reach(cells, 0), next_reach(cells, 0);
  cur[0] = Value{};
  cur_reach[0] = 1;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& gt = t.group[g];
    const std::size_t* c = gt.cost.data();
    const Value* v = kept_values[g].data();
    const std::size_t j = gt.cost.size();
    t.work += std::uint64_t(cells) * j;
    switch (gt.width) {
      case 1:
        detail::mck_relax(cur.data(), cur_reach.data(), next.data(), next_reach.data(),
                          t.bp8.data() + gt.offset, cells, c, v, j);
        break;
      case 2:
        detail::mck_relax(cur.data(), cur_reach.data(), next.data(), next_reach.data(),
                          t.bp16.data() + gt.offset, cells, c, v, j);
        break;
      case 4:
        detail::mck_relax(cur.data(), cur_reach.data(), next.data(), next_reach.data(),
                          t.bp32.data() + gt.offset, cells, c, v, j);
        break;
      default:
        detail::mck_relax(cur.data(), cur_reach.data(), next.data(), next_reach.data(),
                          t.bp64.data() + gt.offset, cells, c, v, j);
        break;
    }
    cur.swap(next);
    cur_reach.swap(next_reach);
  }
  next = std::vector<Value>();
  next_reach = std::vector<unsigned char>();

  // Prefix argmax: the smallest cell achieving the best value up to k.
  t.prefix.assign(cells, mck_result<Value>::npos);
  std::size_t arg = mck_result<Value>::npos;
  for (std::size_t k = 0; k < cells; ++k) {
    if (cur_reach[k] && (arg == mck_result<Value>::npos || cur[arg] < cur[k])) arg = k;
    t.prefix[k] = arg;
  }
  t.exact = std::move(cur);
  t.reach = std::move(cur_reach);
  return mck_result<Value>(std::move(t));
}

/// A class of identical groups for solve_mck_classes: `multiplicity` groups, each choosing one
/// of `options` (e.g. the decoder layers of an LLM, every one with the same choices).
template <class Value>
struct mck_class {
  std::vector<mck_option<Value>> options;
  std::size_t multiplicity = 1;
};

/// solve_mck over classes of identical groups without materialising the copies: the groups
/// are class 0's `multiplicity` copies, then class 1's, ...; every query of mck_result works
/// (best, best_cost, choice, the exact-cost ones, front) and answers exactly as solve_mck over
/// the materialised groups does, in value and cost.
///
/// Algorithm: the reductions of solve_mck (a)-(d) (per class minimum, one gcd over every class,
/// same-cost or dominated pruning, cells W up to the largest reachable total); per class the
/// exact-cost table of its m-option multisets, built by max-plus combinations of 1-D tables
/// (out(d) = max over a + b = d of X(a) + Y(b), truncated at W): either one copy at a time
/// (m - 1 combinations with the one-copy table, about sum_i min(i S, W) J pairs for J options of
/// largest reduced cost S) or by doubling (powers P_1, P_2 = P_1 + P_1, ..., the set bits of m
/// combined: O(log m) combinations of up to W^2 / 2 pairs), whichever the estimate says is
/// less work; then the classes' tables are combined in class order. One back-pointer per
/// combination and output cell (4 bytes).
///
/// Tie-breaking: best(b) is the largest value with cost <= b, at the smallest exact cost
/// achieving it (as solve_mck). Among selections of equal value and exact cost, the pair found
/// first by a combination wins (its cells in ascending order, the first operand outermost);
/// the choice lists each class's multiset in ascending original option index over that
/// class's groups (the groups of a class are interchangeable). Values are summed along the
/// combination tree, not in group order: for floating types a value may differ from
/// solve_mck's in the last bits (integers: identical).
///
/// Domain and errors as solve_mck, named "nsc::solve_mck_classes" with "class c, option j":
/// every class needs an option and multiplicity >= 1; the value sum rule counts each class
/// multiplicity times; memory (back-pointers, tables, the choice vector of every group) is
/// refused before allocating beyond settings.max_table_bytes, with the bytes it would need;
/// work beyond settings.max_work pairs is refused too (each combination's pairs are counted
/// exactly before it runs, so at most max_work pairs are examined: doubling a dense table of W
/// cells examines up to ~W^2 / 4 pairs per combination; 2^20 groups of two options under a
/// budget of 26,368 cells examine 1.04e9 pairs, 0.8 s); at most 2^32 - 1 cells.
template <mck_value Value>
mck_result<Value> solve_mck_classes(const std::vector<mck_class<Value>>& classes, std::int64_t budget,
                                    const mck_settings& settings = {}) {
  constexpr std::string_view fn = "nsc::solve_mck_classes";
  if (budget < 0) detail::mck_fail(fn, "budget must be >= 0 (got ", budget, ")");
  const std::size_t C = classes.size();
  std::size_t G = 0;
  [[maybe_unused]] std::uintmax_t vtotal = 0;
  [[maybe_unused]] bool voverflow = false;
  [[maybe_unused]] long double ftotal = 0;
  for (std::size_t c = 0; c < C; ++c) {
    const auto& cl = classes[c];
    if (cl.multiplicity < 1) detail::mck_fail(fn, "every class needs multiplicity >= 1 (got 0 for class ", c, ")");
    if (cl.options.empty()) detail::mck_fail(fn, "every class needs at least one option (got an empty class ", c, ")");
    if (__builtin_add_overflow(G, cl.multiplicity, &G))
      detail::mck_fail(fn, "the number of groups overflows (class ", c, ")");
    [[maybe_unused]] std::uintmax_t largest = 0;
    [[maybe_unused]] long double flargest = 0;
    for (std::size_t j = 0; j < cl.options.size(); ++j) {
      const auto& o = cl.options[j];
      if (o.cost < 0) detail::mck_fail(fn, "option costs must be >= 0 (got ", o.cost, " at class ", c, ", option ", j, ")");
      if (detail::mck_nonfinite(o.value))
        detail::mck_fail(fn, "option values must be finite (got ", detail::mck_describe(o.value), " at class ", c,
                         ", option ", j, ")");
      if constexpr (std::is_integral_v<Value>) largest = std::max(largest, detail::mck_magnitude(o.value));
      if constexpr (std::is_floating_point_v<Value>) flargest = std::max(flargest, std::fabs((long double)o.value));
    }
    if constexpr (std::is_integral_v<Value>) {
      std::uintmax_t part = 0;
      if (__builtin_mul_overflow(largest, std::uintmax_t(cl.multiplicity), &part) ||
          __builtin_add_overflow(vtotal, part, &vtotal))
        voverflow = true;
    }
    if constexpr (std::is_floating_point_v<Value>) ftotal += flargest * (long double)cl.multiplicity;
  }
  if constexpr (std::is_integral_v<Value>) {
    const auto limit = static_cast<std::uintmax_t>(std::numeric_limits<Value>::max());
    if (voverflow || vtotal > limit)
      detail::mck_fail(fn, "the sum over groups of the largest |value| must fit in the value type (got ",
                       voverflow ? std::string("more than 2^64") : std::to_string(vtotal), " > ", limit, ")");
  }
  if constexpr (std::is_floating_point_v<Value>) {
    if (!(ftotal <= (long double)std::numeric_limits<Value>::max()))
      detail::mck_fail(fn, "the sum over groups of the largest |value| must be finite in the value type (got a sum above ",
                       std::numeric_limits<Value>::max(), ")");
  }
  const std::size_t cap = settings.max_table_bytes;
  if ((long double)G * sizeof(std::size_t) > (long double)cap)
    detail::mck_fail(fn, "the choices of ", G, " groups need ", (long double)G * sizeof(std::size_t),
                     " bytes, more than max_table_bytes (got ", cap, ")");

  detail::mck_tables<Value> t;
  t.groups = G;
  t.budget = budget;
  t.pruning = settings.pruning;
  t.multiplicity.resize(C);
  for (std::size_t c = 0; c < C; ++c) t.multiplicity[c] = classes[c].multiplicity;
  if (C == 0) {  // the empty selection
    t.cells = 1;
    t.exact.assign(1, Value{});
    t.reach.assign(1, 1);
    t.prefix.assign(1, 0);
    t.bytes = sizeof(Value) + 1 + sizeof(std::size_t);
    return mck_result<Value>(std::move(t));
  }
  // (a) minima, offset M = sum_c m_c * multiplicity (saturated: then infeasible everywhere)
  std::vector<std::int64_t> minimum(C);
  std::int64_t offset = 0;
  for (std::size_t c = 0; c < C; ++c) {
    std::int64_t m = classes[c].options[0].cost;
    for (const auto& o : classes[c].options) m = std::min(m, o.cost);
    minimum[c] = m;
    std::int64_t part = 0;
    if (classes[c].multiplicity > std::size_t(std::numeric_limits<std::int64_t>::max()) ||
        __builtin_mul_overflow(m, std::int64_t(classes[c].multiplicity), &part))
      part = std::numeric_limits<std::int64_t>::max();
    offset = detail::mck_saturating_add(offset, part);
  }
  t.offset = offset;
  if (offset > budget) return mck_result<Value>(std::move(t));  // infeasible everywhere
  // (c) pruning per class (kept in ascending original index), (b) one gcd, (d) reach
  std::vector<std::vector<std::size_t>> kept(C);
  std::int64_t unit = 0, reachable = 0;
  for (std::size_t c = 0; c < C; ++c) {
    const auto& opts = classes[c].options;
    kept[c] = detail::mck_kept_options(opts, settings.pruning);
    std::int64_t largest = 0;
    for (std::size_t j : kept[c]) {
      unit = std::gcd(unit, opts[j].cost - minimum[c]);
      largest = std::max(largest, opts[j].cost - minimum[c]);
    }
    std::int64_t part = 0;
    if (classes[c].multiplicity > std::size_t(std::numeric_limits<std::int64_t>::max()) ||
        __builtin_mul_overflow(largest, std::int64_t(classes[c].multiplicity), &part))
      part = std::numeric_limits<std::int64_t>::max();
    reachable = detail::mck_saturating_add(reachable, part);
  }
  if (unit == 0) unit = 1;
  t.unit = unit;
  const std::int64_t last = std::min((budget - offset) / unit, reachable / unit);
  if (last >= std::int64_t(std::numeric_limits<std::uint32_t>::max()))
    detail::mck_fail(fn, "the table needs ", last + 1, " cells, more than 2^32 - 1 (budget ", budget, ", unit ", unit, ")");
  const std::size_t W = std::size_t(last) + 1;
  // one-copy tables, truncated at W
  t.leaf.resize(C);
  std::vector<std::size_t> S(C, 0);
  for (std::size_t c = 0; c < C; ++c) {
    for (std::size_t j : kept[c]) {
      const auto s = std::size_t((classes[c].options[j].cost - minimum[c]) / unit);
      if (s < W) t.leaf[c].push_back({s, j}), S[c] = std::max(S[c], s);
    }
    std::sort(t.leaf[c].begin(), t.leaf[c].end());
  }
  // plans: per class one copy at a time or doubling, whichever examines fewer pairs (estimated
  // on reach bounds: a table of i copies reaches at most min(i S + 1, W) cells)
  auto cells_of = [&](long double w) { return std::min(w, (long double)W); };
  // sum over k = lo..hi of min(k s + 1, W)
  auto widths = [&](long double lo, long double hi, long double s) -> long double {
    if (hi < lo) return 0;
    if (s == 0) return hi - lo + 1;
    const long double top = std::min(hi, std::floor(((long double)W - 1) / s));  // k s + 1 <= W
    long double sum = 0;
    if (top >= lo) sum += s * (top * (top + 1) - (lo - 1) * lo) / 2 + (top - lo + 1);
    return sum + (hi - std::max(top, lo - 1)) * (long double)W;
  };
  std::vector<char> doubled(C, 0);
  std::vector<long double> reach_of(C);
  long double bp_cells = 0, nops = 0;
  for (std::size_t c = 0; c < C; ++c) {
    const long double m = (long double)classes[c].multiplicity, J = (long double)t.leaf[c].size(),
                      s = (long double)S[c];
    const long double lin = widths(1, m - 1, s) * J, lin_cells = widths(2, m, s);
    long double dbl = 0, dbl_cells = 0, dbl_ops = 0;
    {
      long double wp = s + 1, wa = 0;
      for (std::size_t rest = classes[c].multiplicity;;) {
        if (rest & 1) {
          if (wa > 0) dbl += wa * wp, wa = cells_of(wa + wp - 1), dbl_cells += wa, ++dbl_ops;
          else wa = wp;
        }
        rest >>= 1;
        if (!rest) break;
        dbl += wp * (wp + 1) / 2, wp = cells_of(2 * wp - 1), dbl_cells += wp, ++dbl_ops;
      }
    }
    doubled[c] = classes[c].multiplicity > 1 && dbl < lin;
    bp_cells += doubled[c] ? dbl_cells : lin_cells;
    nops += doubled[c] ? dbl_ops : m - 1;
    reach_of[c] = cells_of(m * s + 1);
  }
  long double folded = reach_of[0];
  for (std::size_t c = 1; c < C; ++c) {  // the class folds
    folded = cells_of(folded + reach_of[c] - 1);
    bp_cells += folded, ++nops;
  }
  // back-pointers, ops, five live tables (values, reach lists, flags), the result's rows
  const long double bytes = bp_cells * 4.0L + nops * sizeof(detail::mck_merge_op) +
                            (long double)W * (5.0L * (sizeof(Value) + 4.0L) + 1.0L) +
                            (long double)W * (sizeof(Value) + 1 + sizeof(std::size_t)) +
                            (long double)G * sizeof(std::size_t);
  if (!(bytes <= (long double)cap))
    detail::mck_fail(fn, "the tables need ", (unsigned long long)std::min(bytes, 1.8e19L), " bytes (", G,
                     " groups in ", C, " classes over ", W, " cells: ", (unsigned long long)std::min(bp_cells, 1.8e19L),
                     " back-pointers of 4 bytes), more than max_table_bytes (got ", cap, ")");
  t.bytes = std::size_t(bytes);
  t.op_bp.reserve(std::size_t(bp_cells));
  t.ops.reserve(std::size_t(nops));

  // the combinations
  struct table {
    std::vector<Value> v;               // by cell, meaningful where reachable
    std::vector<std::uint32_t> reach;   // reachable cells, ascending
  };
  std::vector<unsigned char> seen(W, 0);
  auto combine = [&](const table& X, std::int64_t xi, const table& Y, std::int64_t yi, bool self) {
    const std::size_t wx = X.reach.empty() ? 0 : X.reach.back(), wy = Y.reach.empty() ? 0 : Y.reach.back();
    const std::size_t w = std::min(wx + wy + 1, W);
    {  // the pairs this combination examines (a + b < w; self: b at or after a), before any
      std::uint64_t n = 0;
      std::size_t below = Y.reach.size();  // #b with a + b < w, for a ascending
      for (std::size_t ia = 0; ia < X.reach.size(); ++ia) {
        while (below > 0 && std::size_t(X.reach[ia]) + Y.reach[below - 1] >= w) --below;
        if (below > (self ? ia : 0)) n += below - (self ? ia : 0);
      }
      if (n > settings.max_work - std::min<std::uint64_t>(t.work, settings.max_work))
        detail::mck_fail(fn, "the combinations need more than max_work = ", settings.max_work, " pairs (", G,
                         " groups in ", C, " classes over ", W, " cells; ", t.work, " examined, the next needs ", n,
                         "); lower the budget or raise max_work");
    }
    table out;
    out.v.resize(w);
    detail::mck_merge_op op{xi, yi, t.op_bp.size(), w};
    t.op_bp.resize(t.op_bp.size() + w, 0);
    std::uint32_t* bp = t.op_bp.data() + op.offset;
    Value* ov = out.v.data();
    const std::size_t ny = Y.reach.size();
    for (std::size_t ia = 0; ia < X.reach.size(); ++ia) {
      const std::uint32_t a = X.reach[ia];
      const Value& va = X.v[a];
      std::size_t ib = self ? ia : 0;
      for (; ib < ny; ++ib) {
        const std::size_t d = std::size_t(a) + Y.reach[ib];
        if (d >= w) break;
        Value cand = va + Y.v[Y.reach[ib]];
        if (!seen[d]) {
          seen[d] = 1;
          ov[d] = std::move(cand);
          bp[d] = a;
        } else if (ov[d] < cand) {
          ov[d] = std::move(cand);
          bp[d] = a;
        }
      }
      t.work += ib - (self ? ia : 0);
    }
    for (std::size_t d = 0; d < w; ++d)
      if (seen[d]) out.reach.push_back(std::uint32_t(d)), seen[d] = 0;
    t.ops.push_back(op);
    return out;
  };
  table acc;
  std::int64_t acc_i = 0;
  for (std::size_t c = 0; c < C; ++c) {
    table one;
    one.v.resize(S[c] + 1);
    for (const auto& [s, j] : t.leaf[c]) one.v[s] = classes[c].options[j].value, one.reach.push_back(std::uint32_t(s));
    const std::int64_t leaf_i = -std::int64_t(c) - 1;
    table cls;
    std::int64_t cls_i = leaf_i;
    const std::size_t m = classes[c].multiplicity;
    if (m == 1) {
      cls = one;
    } else if (doubled[c]) {  // doubling
      table power = one;
      std::int64_t power_i = leaf_i;
      bool has = false;
      std::size_t rest = m;
      while (true) {
        if (rest & 1) {
          if (has) {
            cls = combine(cls, cls_i, power, power_i, false);
            cls_i = std::int64_t(t.ops.size()) - 1;
          } else {
            cls = power, cls_i = power_i, has = true;
          }
        }
        rest >>= 1;
        if (!rest) break;
        power = combine(power, power_i, power, power_i, true);
        power_i = std::int64_t(t.ops.size()) - 1;
      }
    } else {  // one copy at a time
      cls = one;
      for (std::size_t i = 1; i < m; ++i) {
        cls = combine(cls, cls_i, one, leaf_i, false);
        cls_i = std::int64_t(t.ops.size()) - 1;
      }
    }
    if (c == 0) {
      acc = std::move(cls), acc_i = cls_i;
    } else {
      acc = combine(acc, acc_i, cls, cls_i, false);
      acc_i = std::int64_t(t.ops.size()) - 1;
    }
  }
  t.root = acc_i;
  t.cells = W;
  t.exact.assign(W, Value{});
  t.reach.assign(W, 0);
  for (std::uint32_t d : acc.reach) t.exact[d] = acc.v[d], t.reach[d] = 1;
  t.prefix.assign(W, mck_result<Value>::npos);
  std::size_t arg = mck_result<Value>::npos;
  for (std::size_t k = 0; k < W; ++k) {
    if (t.reach[k] && (arg == mck_result<Value>::npos || t.exact[arg] < t.exact[k])) arg = k;
    t.prefix[k] = arg;
  }
  return mck_result<Value>(std::move(t));
}

namespace detail {
template <class T>
struct mck_option_value {};
template <class V>
struct mck_option_value<mck_option<V>> {
  using type = V;
};
/// Value of a range of ranges of mck_option<Value> (substitution failure otherwise).
template <class Groups>
using mck_groups_value_t = typename mck_option_value<
    std::ranges::range_value_t<std::ranges::range_value_t<Groups>>>::type;
} // namespace detail

/// Same as above for any range of ranges of mck_option<Value> (e.g. an array of spans);
/// the options are copied into mck_groups<Value> first (O(total options)).
template <std::ranges::input_range Groups>
  requires std::ranges::input_range<std::ranges::range_value_t<Groups>> &&
           requires { typename detail::mck_groups_value_t<Groups>; } &&
           (!std::same_as<Groups, mck_groups<detail::mck_groups_value_t<Groups>>>)
mck_result<detail::mck_groups_value_t<Groups>> solve_mck(const Groups& groups,
                                                         std::int64_t budget,
                                                         const mck_settings& settings = {}) {
  mck_groups<detail::mck_groups_value_t<Groups>> copy;
  for (const auto& g : groups) copy.emplace_back(std::ranges::begin(g), std::ranges::end(g));
  return solve_mck(copy, budget, settings);
}

// ---- real-valued costs -----------------------------------------------------------------

/// An option with a real cost (>= 0, finite), quantized onto a grid of resolution delta.
template <class Value>
struct mck_real_option {
  Value value;
  double cost;
};

template <class Value>
using mck_real_groups = std::vector<std::vector<mck_real_option<Value>>>;

/// ceil(cost / delta) computed exactly for the given doubles (the quotient is corrected
/// with fma so that q * delta >= cost > (q - 1) * delta holds in exact real arithmetic).
/// No tolerance is applied: a cost that is a multiple of delta only up to floating noise
/// (0.1 + 0.2 on a grid of 0.1) rounds UP to the next unit, which keeps every answer
/// feasible and is covered by the gap bound of solve_mck(real). Choose delta so that
/// costs are exact multiples (e.g. integer parameter counts and an integer delta) or
/// pre-round the costs if that matters.
/// Domain: cost finite >= 0, delta finite > 0, cost / delta < 2^53 (delta in the normal
/// range). Errors: std::invalid_argument "nsc::mck_quantize: ...".
inline std::int64_t mck_quantize_cost(double cost, double delta) {
  constexpr std::string_view fn = "nsc::mck_quantize";
  if (!(delta > 0) || !std::isfinite(delta)) {
    detail::mck_fail(fn, "delta must be finite and > 0 (got ", delta, ")");
  }
  if (!(cost >= 0) || !std::isfinite(cost)) {
    detail::mck_fail(fn, "costs must be finite and >= 0 (got ", cost, ")");
  }
  double q = std::ceil(cost / delta);
  // strictly below 2^53 so that q + 1 and q - 1 are exact (at 2^53, q + 1 == q would never end
  // the correction loop)
  if (!(q < 0x1p53)) {
    detail::mck_fail(fn, "cost / delta must be < 2^53 (got ", cost, " / ", delta, ")");
  }
  while (std::fma(q, delta, -cost) < 0) q += 1;
  while (q > 0 && std::fma(q - 1, delta, -cost) >= 0) q -= 1;
  return static_cast<std::int64_t>(q);
}

/// floor(budget / delta) computed exactly (K * delta <= budget < (K + 1) * delta).
/// Domain: budget finite >= 0, delta finite > 0, budget / delta < 2^53 - 1 (a larger budget is
/// an error here; callers that mean "no limit" clamp to the largest reachable cost first, as
/// search_groups does).
inline std::int64_t mck_quantize_budget(double budget, double delta) {
  constexpr std::string_view fn = "nsc::mck_quantize";
  if (!(delta > 0) || !std::isfinite(delta)) {
    detail::mck_fail(fn, "delta must be finite and > 0 (got ", delta, ")");
  }
  if (!(budget >= 0) || !std::isfinite(budget)) {
    detail::mck_fail(fn, "budget must be finite and >= 0 (got ", budget, ")");
  }
  double k = std::floor(budget / delta);
  // strictly below 2^53 so that k + 1 is exact (k + 1 == k at 2^53: the loop below never ended)
  if (!(k < 0x1p53 - 1)) {
    detail::mck_fail(fn, "budget / delta must be < 2^53 (got ", budget, " / ", delta, ")");
  }
  while (k > 0 && std::fma(k, delta, -budget) > 0) k -= 1;
  while (std::fma(k + 1, delta, -budget) <= 0) k += 1;
  return static_cast<std::int64_t>(k);
}

/// The integer instance of a real-cost instance: cost -> mck_quantize_cost(cost, delta).
template <class Value>
mck_groups<Value> mck_quantize(const mck_real_groups<Value>& groups, double delta) {
  mck_groups<Value> out(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    out[g].reserve(groups[g].size());
    for (const auto& o : groups[g]) {
      out[g].push_back(mck_option<Value>{o.value, mck_quantize_cost(o.cost, delta)});
    }
  }
  return out;
}

/// Real-valued costs: solves the instance quantized with resolution delta, integer cost
/// ceil(c / delta) and integer budget floor(budget / delta). All costs in the result
/// (budgets of queries, best_cost, front) are in units of delta.
///
/// Every answer is feasible in real units, and the optimality gap is bounded: with G
/// groups, best(floor(B / delta)) >= OPT_real(B - G delta) (and <= OPT_real(B)).
/// Proof. Feasible: sum c <= delta sum ceil(c / delta) <= delta floor(B / delta) <= B.
///   Gap: a selection with sum c <= B - G delta has sum ceil(c / delta) < sum (c / delta + 1)
///   <= B / delta, an integer below B / delta, so <= floor(B / delta): the DP sees it.
/// Errors: those of mck_quantize_cost / mck_quantize_budget and solve_mck.
template <mck_value Value>
mck_result<Value> solve_mck(const mck_real_groups<Value>& groups, double budget, double delta,
                            const mck_settings& settings = {}) {
  const std::int64_t b = mck_quantize_budget(budget, delta);
  return solve_mck(mck_quantize(groups, delta), b, settings);
}

// ---- outer enumeration -----------------------------------------------------------------

/// What the `build` callback of solve_outer returns for one outer configuration: the
/// inner knapsack plus a cost and value every selection of this configuration pays/gets
/// (embeddings, heads, ...).
template <class Value>
struct mck_instance {
  mck_groups<Value> groups;
  std::int64_t fixed_cost = 0;
  Value fixed_value{};
};

/// Identifies one solution of solve_outer: the outer configuration's index and the inner
/// choice (original option index per group).
struct outer_tag {
  std::size_t outer;
  std::vector<std::size_t> choice;
};

/// The merged front of solve_outer and its best point under the budget.
template <class Value>
struct outer_result {
  /// Ascending total cost (fixed + inner) and strictly ascending total value.
  std::vector<pareto_point<Value, outer_tag>> front;
  /// The best total value with total cost <= budget (front.back()), or nullopt if no
  /// configuration fits. Earlier outer configurations win exact ties.
  std::optional<pareto_point<Value, outer_tag>> best;
};

/// Composes an outer enumeration with the knapsack: for each `outer[i]`, `build(outer[i])`
/// returns an mck_instance<Value> (or any type with members `mck_groups<Value> groups`,
/// `std::int64_t fixed_cost`, `Value fixed_value`); the DP
/// runs with budget B - fixed_cost (configurations with fixed_cost > B are infeasible and
/// skipped, after validation), its front is shifted by (fixed_cost, fixed_value) (total
/// value = fixed_value + inner sum, in that order) and
/// tagged with (i, choice), and the fronts are merged (merge_fronts; earlier outer index
/// wins exact ties). best_within(result.front, b) answers every budget b <= B.
///
/// Domain: budget >= 0, fixed_cost >= 0, fixed_value finite, groups as for solve_mck
/// (integral Value: |fixed_value| + sum of largest |value| fits).
/// Errors: std::invalid_argument "nsc::solve_outer: ..." or "nsc::solve_mck: ...".
/// Complexity: the sum of the DPs, plus O(P G + P log P) for P front points; one DP's
/// tables are alive at a time.
template <class Outer, class F>
auto solve_outer(const std::vector<Outer>& outer, F&& build, std::int64_t budget,
                 const mck_settings& settings = {}) {
  using Instance = std::remove_cvref_t<std::invoke_result_t<F&, const Outer&>>;
  using Value = std::remove_cvref_t<decltype(std::declval<Instance&>().fixed_value)>;
  constexpr std::string_view fn = "nsc::solve_outer";
  if (budget < 0) detail::mck_fail(fn, "budget must be >= 0 (got ", budget, ")");

  std::vector<std::vector<pareto_point<Value, outer_tag>>> fronts(outer.size());
  for (std::size_t i = 0; i < outer.size(); ++i) {
    const Instance inst = build(outer[i]);
    if (inst.fixed_cost < 0) {
      detail::mck_fail(fn, "fixed_cost must be >= 0 (got ", inst.fixed_cost,
                       " for outer configuration ", i, ")");
    }
    if (detail::mck_nonfinite(inst.fixed_value)) {
      detail::mck_fail(fn, "fixed_value must be finite (got ",
                       detail::mck_describe(inst.fixed_value), " for outer configuration ", i,
                       ")");
    }
    std::uintmax_t extra = 0;
    if constexpr (std::is_integral_v<Value>) extra = detail::mck_magnitude(inst.fixed_value);
    detail::mck_validate("nsc::solve_mck", inst.groups, extra);
    if (inst.fixed_cost > budget) continue;
    const auto r = solve_mck(inst.groups, budget - inst.fixed_cost, settings);
    for (const auto& p : r.front()) {
      fronts[i].push_back(pareto_point<Value, outer_tag>{
          p.cost + inst.fixed_cost, inst.fixed_value + p.value,
          outer_tag{i, *r.choice(p.cost)}});
    }
  }
  outer_result<Value> out;
  out.front = merge_fronts(std::move(fronts));
  if (!out.front.empty()) out.best = out.front.back();
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_DENSE_1D_HPP
