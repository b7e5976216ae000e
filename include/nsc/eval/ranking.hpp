/// \file nsc/eval/ranking.hpp
/// Rank statistics that measure how well a score orders architectures (math.md section 7):
/// Kendall tau-b, Spearman rho, the "10%-PW tau" (tau over pairs of similar size), the
/// Conover-Iman partial tau and the pairwise accuracy.
///
/// Conventions shared by every function of this header:
/// * Inputs are `std::span<const double>`; x[i], y[i], ... describe observation i.
///   Rank statistics only compare values, so double suffices and nothing is templated.
/// * Values are compared exactly (`<` and `==` on doubles; -0.0 == +0.0). Two observations
///   are tied in a variable when their values are equal.
/// * A statistic that is mathematically undefined is returned as an empty
///   `std::optional<double>`, never as a NaN: a constant input (all pairs tied), no pair in
///   the window, residuals that vanish identically, ... A defined result lies in [-1, 1]
///   (in [0, 1] for `pairwise_accuracy`).
/// * Bad input throws `std::invalid_argument` whose message starts with the function name:
///   lengths that differ ("nsc::kendall_tau_b: x and y must have the same length
///   (got 5 and 4)"), fewer than 2 observations, NaN or infinite values, `rel` outside
///   (0, 1), an empty list of controls.
/// * Accuracy: tau-b, the windowed tau and the pairwise accuracy are computed from exact
///   64-bit pair counts and are within 2 ulp of the exact value. Spearman rho uses exact
///   centred ranks and compensated sums (a few ulp). The partial tau inherits the rounding
///   of a least-squares fit; see `partial_kendall_tau`.
#ifndef NSC_EVAL_RANKING_HPP
#define NSC_EVAL_RANKING_HPP

#include <nsc/error_handling.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace nsc::eval {

namespace detail {

using count_t = std::int64_t;

// ---- argument checks -----------------------------------------------------------------------

inline void require_same_length(const char* fn, const char* a_name, std::size_t a,
                                const char* b_name, std::size_t b) {
  if (a != b) {
    nsc::throw_invalid_argument(fn, std::string(a_name) + " and " + b_name +
                                        " must have the same length",
                                std::to_string(a) + " and " + std::to_string(b));
  }
}

inline void require_at_least_two(const char* fn, std::size_t n) {
  if (n < 2) nsc::throw_invalid_argument(fn, "at least 2 observations are required", n);
}

inline void require_finite(const char* fn, const char* name, std::span<const double> v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      nsc::throw_invalid_argument(fn, std::string(name) + " must contain only finite values",
                                  std::to_string(v[i]) + " at index " + std::to_string(i));
    }
  }
}

/// x and y: same length, n >= 2, finite.
inline void require_paired(const char* fn, std::span<const double> x, std::span<const double> y,
                           const char* x_name = "x", const char* y_name = "y") {
  require_same_length(fn, x_name, x.size(), y_name, y.size());
  require_at_least_two(fn, x.size());
  require_finite(fn, x_name, x);
  require_finite(fn, y_name, y);
}

inline void require_rel(const char* fn, double rel) {
  if (!(rel > 0.0 && rel < 1.0)) nsc::throw_invalid_argument(fn, "rel must lie in (0, 1)", rel);
}

// ---- small numeric helpers -----------------------------------------------------------------

/// Number of pairs among t tied observations, t (t - 1) / 2.
constexpr count_t tied_pairs(count_t t) noexcept { return t * (t - 1) / 2; }

/// Neumaier's compensated sum: error ~ eps |sum| + n eps^2 sum |terms|.
struct compensated_sum {
  double sum = 0.0;
  double correction = 0.0;
  void add(double v) noexcept {
    const double t = sum + v;
    if (std::abs(sum) >= std::abs(v)) {
      correction += (sum - t) + v;
    } else {
      correction += (v - t) + sum;
    }
    sum = t;
  }
  [[nodiscard]] double value() const noexcept { return sum + correction; }
};

inline double dot(std::span<const double> a, std::span<const double> b) noexcept {
  compensated_sum s;
  for (std::size_t i = 0; i < a.size(); ++i) s.add(a[i] * b[i]);
  return s.value();
}

/// The tau-b form shared by every Kendall-type statistic here: over a set of `pairs` pairs
/// with `tied_x` pairs tied in x (joint ties included), `tied_y` tied in y and
/// `c_minus_d` = concordant - discordant,
///   tau = (C - D) / sqrt((pairs - tied_x) (pairs - tied_y)),
/// empty when a factor under the root is 0. The counts are exact; one rounded product, one
/// root and one division keep the result within 2 ulp, and a perfect (reversed) order
/// gives exactly +1 (-1) (scipy's two roots give 1 - 2^-52 for some n).
inline std::optional<double> tau_from_counts(count_t pairs, count_t tied_x, count_t tied_y,
                                             count_t c_minus_d) noexcept {
  const count_t ux = pairs - tied_x;
  const count_t uy = pairs - tied_y;
  if (ux <= 0 || uy <= 0) return std::nullopt;
  const double tau = static_cast<double>(c_minus_d) /
                     std::sqrt(static_cast<double>(ux) * static_cast<double>(uy));
  return std::clamp(tau, -1.0, 1.0);
}

// ---- Knight's O(n log n) pair counting -------------------------------------------------------

/// Sorts v ascending (stably) and returns its number of inversions, the pairs i < j with
/// v[i] > v[j] (equal values are not inversions). Insertion sort on runs of 32 (each shift
/// moves one element past one larger element: one inversion), then bottom-up merging
/// (taking the right element first passes it over all remaining left ones). O(n log n).
inline count_t sort_and_count_inversions(std::vector<double>& v) {
  const std::size_t n = v.size();
  constexpr std::size_t run = 32;
  count_t inversions = 0;
  for (std::size_t lo = 0; lo < n; lo += run) {
    const std::size_t hi = std::min(n, lo + run);
    for (std::size_t i = lo + 1; i < hi; ++i) {
      const double key = v[i];
      std::size_t j = i;
      while (j > lo && v[j - 1] > key) {
        v[j] = v[j - 1];
        --j;
      }
      inversions += static_cast<count_t>(i - j);
      v[j] = key;
    }
  }
  if (n <= run) return inversions;
  std::vector<double> buffer(n);
  double* src = v.data();
  double* dst = buffer.data();
  for (std::size_t width = run; width < n; width *= 2) {
    for (std::size_t lo = 0; lo < n; lo += 2 * width) {
      const std::size_t mid = std::min(n, lo + width);
      const std::size_t hi = std::min(n, lo + 2 * width);
      std::size_t i = lo;
      std::size_t j = mid;
      std::size_t k = lo;
      if (mid < hi && !(src[mid] < src[mid - 1])) {  // already in order
        std::copy(src + lo, src + hi, dst + lo);
        continue;
      }
      while (i < mid && j < hi) {  // branch-free: random data defeats branch prediction
        const double a = src[i];
        const double b = src[j];
        const bool right = b < a;
        dst[k++] = right ? b : a;
        inversions += right ? static_cast<count_t>(mid - i) : 0;
        j += static_cast<std::size_t>(right);
        i += static_cast<std::size_t>(!right);
      }
      std::copy(src + i, src + mid, dst + k);
      std::copy(src + j, src + hi, dst + k + (mid - i));
    }
    std::swap(src, dst);
  }
  if (src != v.data()) std::copy(src, src + n, v.data());
  return inversions;
}

/// Knight's (1966) pair counts of (x, y): n0 = n(n-1)/2 pairs, n1 tied in x, n2 tied in y,
/// n3 tied in both, and `discordant`.
struct knight_counts {
  count_t n0 = 0;
  count_t n1 = 0;
  count_t n2 = 0;
  count_t n3 = 0;
  count_t discordant = 0;
  /// C - D. Pairs untied in both are n0 - n1 - n2 + n3 (inclusion-exclusion) = C + D.
  [[nodiscard]] count_t c_minus_d() const noexcept { return n0 - n1 - n2 + n3 - 2 * discordant; }
};

/// Sort the pairs lexicographically by (x, y): n1 and n3 are sums of t(t-1)/2 over the runs
/// of equal x and of equal (x, y). In that order a pair at positions a < b has x_a < x_b, or
/// x_a == x_b and y_a <= y_b; so y_a > y_b exactly when the pair is discordant
/// (x_a < x_b, y_a > y_b): the discordant pairs are the inversions of the y sequence, which
/// a merge sort counts ("swaps"); pairs tied in x or y are never inversions. The sorted y
/// then gives n2. O(n log n) time, O(n) memory. Inputs unchecked.
inline knight_counts count_pairs(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = x.size();
  knight_counts k;
  k.n0 = tied_pairs(static_cast<count_t>(n));
  std::vector<std::pair<double, double>> xy(n);
  for (std::size_t i = 0; i < n; ++i) xy[i] = {x[i], y[i]};
  std::sort(xy.begin(), xy.end());
  count_t run_x = 1;
  count_t run_xy = 1;
  for (std::size_t i = 1; i <= n; ++i) {
    const bool same_x = i < n && xy[i].first == xy[i - 1].first;
    const bool same_xy = same_x && xy[i].second == xy[i - 1].second;
    if (same_x) {
      ++run_x;
    } else {
      k.n1 += tied_pairs(run_x);
      run_x = 1;
    }
    if (same_xy) {
      ++run_xy;
    } else {
      k.n3 += tied_pairs(run_xy);
      run_xy = 1;
    }
  }
  std::vector<double> ys(n);
  for (std::size_t i = 0; i < n; ++i) ys[i] = xy[i].second;
  xy = {};
  k.discordant = sort_and_count_inversions(ys);
  count_t run_y = 1;
  for (std::size_t i = 1; i <= n; ++i) {
    if (i < n && ys[i] == ys[i - 1]) {
      ++run_y;
    } else {
      k.n2 += tied_pairs(run_y);
      run_y = 1;
    }
  }
  return k;
}

/// 1-based average ranks, unchecked.
inline std::vector<double> average_ranks_unchecked(std::span<const double> x) {
  const std::size_t n = x.size();
  std::vector<std::pair<double, std::size_t>> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = {x[i], i};
  std::sort(v.begin(), v.end());
  std::vector<double> ranks(n);
  std::size_t first = 0;
  while (first < n) {
    std::size_t last = first + 1;
    while (last < n && v[last].first == v[first].first) ++last;
    // positions first..last-1 share the ranks first+1..last; their mean is exact in double.
    const double r = 0.5 * static_cast<double>(first + 1 + last);
    for (std::size_t i = first; i < last; ++i) ranks[v[i].second] = r;
    first = last;
  }
  return ranks;
}

/// Average ranks minus their mean (n + 1) / 2: exact half-integers (n < 2^52).
inline std::vector<double> centred_ranks(std::span<const double> x) {
  std::vector<double> r = average_ranks_unchecked(x);
  const double mean = 0.5 * static_cast<double>(x.size() + 1);
  for (double& v : r) v -= mean;
  return r;
}

// ---- the window of the "10%-PW tau" ----------------------------------------------------------

/// Observations reordered so that every observation's window partners form a contiguous
/// run just before it: position p (observation `order[p]`) pairs with exactly the positions
/// [lo[p], p).
struct window_plan {
  std::vector<std::size_t> order;
  std::vector<std::size_t> lo;
  count_t pairs = 0;  ///< |P| = sum_p (p - lo[p])
};

/// The pair predicate |c_i - c_j| < rel max(|c_i|, |c_j|), evaluated as written (one
/// subtraction, one multiplication, both rounded) so that other implementations agree.
/// It fails when c_i, c_j differ in sign or one is 0 (then |c_i - c_j| >= max(...) > rel max),
/// and is invariant under c -> -c. So the observations are grouped as negative / zero /
/// positive control, each group sorted by |c|; zeros have no partner. Within a group, for
/// a position p and earlier q (|c_q| <= |c_p|) the predicate reads fl(|c_p| - |c_q|) <
/// fl(rel |c_p|), monotone in |c_q|: the partners of p among earlier positions are a suffix
/// [lo[p], p), found by binary search (ties of c are inside it). Each unordered pair is
/// seen once, from its later position. O(n log n).
inline window_plan plan_windows(std::span<const double> c, double rel) {
  const std::size_t n = c.size();
  struct entry {
    int group;
    double magnitude;
    std::size_t index;
  };
  std::vector<entry> e(n);
  for (std::size_t i = 0; i < n; ++i) {
    e[i] = {c[i] < 0.0 ? 0 : (c[i] == 0.0 ? 1 : 2), std::abs(c[i]), i};
  }
  std::sort(e.begin(), e.end(), [](const entry& a, const entry& b) {
    if (a.group != b.group) return a.group < b.group;
    if (a.magnitude != b.magnitude) return a.magnitude < b.magnitude;
    return a.index < b.index;
  });
  window_plan plan;
  plan.order.resize(n);
  plan.lo.resize(n);
  std::size_t group_start = 0;
  for (std::size_t p = 0; p < n; ++p) {
    plan.order[p] = e[p].index;
    if (p > 0 && e[p].group != e[p - 1].group) group_start = p;
    if (e[p].group == 1) {
      plan.lo[p] = p;
      continue;
    }
    const double cp = c[e[p].index];
    std::size_t first = group_start;
    std::size_t count = p - group_start;
    while (count > 0) {  // first position q in [group_start, p) that pairs with p
      const std::size_t half = count / 2;
      const double cq = c[e[first + half].index];
      if (!(std::abs(cq - cp) < rel * std::max(std::abs(cq), std::abs(cp)))) {
        first += half + 1;
        count -= half + 1;
      } else {
        count = half;
      }
    }
    plan.lo[p] = first;
    plan.pairs += static_cast<count_t>(p - first);
  }
  return plan;
}

/// Counts of the windowed tau: |P|, pairs of P tied in x (joint ties included), tied in y,
/// and C - D over P.
struct window_counts {
  count_t pairs = 0;
  count_t tied_x = 0;
  count_t tied_y = 0;
  count_t c_minus_d = 0;
};

/// Visits every pair of P: O(|P|) after the plan.
inline window_counts count_window_enumerate(std::span<const double> x, std::span<const double> y,
                                            const window_plan& plan) {
  const std::size_t n = x.size();
  std::vector<double> xs(n);
  std::vector<double> ys(n);
  for (std::size_t p = 0; p < n; ++p) {
    xs[p] = x[plan.order[p]];
    ys[p] = y[plan.order[p]];
  }
  window_counts w;
  w.pairs = plan.pairs;
  for (std::size_t p = 0; p < n; ++p) {
    const double xp = xs[p];
    const double yp = ys[p];
    count_t s = 0;
    count_t tx = 0;
    count_t ty = 0;
    for (std::size_t q = plan.lo[p]; q < p; ++q) {
      const int sx = static_cast<int>(xs[q] > xp) - static_cast<int>(xs[q] < xp);
      const int sy = static_cast<int>(ys[q] > yp) - static_cast<int>(ys[q] < yp);
      s += sx * sy;
      tx += static_cast<count_t>(sx == 0);
      ty += static_cast<count_t>(sy == 0);
    }
    w.c_minus_d += s;
    w.tied_x += tx;
    w.tied_y += ty;
  }
  return w;
}

/// Dense group ids (0, 1, ...) of the positions, numbered in the order of `keys`, which are
/// compared with `less` and `equal`. Returns the number of groups.
template <class Key, class Less, class Equal>
std::size_t dense_groups(const std::vector<Key>& keys, Less less, Equal equal,
                         std::vector<std::uint32_t>& group) {
  const std::size_t n = keys.size();
  std::vector<std::uint32_t> idx(n);
  std::iota(idx.begin(), idx.end(), std::uint32_t{0});
  std::sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (less(keys[a], keys[b])) return true;
    if (less(keys[b], keys[a])) return false;
    return a < b;
  });
  group.assign(n, 0);
  std::uint32_t g = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (k > 0 && !equal(keys[idx[k]], keys[idx[k - 1]])) ++g;
    group[idx[k]] = g;
  }
  return n == 0 ? 0 : static_cast<std::size_t>(g) + 1;
}

/// Number of pairs (q, p) of P, q in [lo[p], p), with group[q] == group[p]: the positions of
/// each group in ascending order, a binary search for lo[p] in p's group. O(n log n).
inline count_t window_ties(const std::vector<std::uint32_t>& group, std::size_t groups,
                           const std::vector<std::size_t>& lo) {
  const std::size_t n = group.size();
  std::vector<std::size_t> start(groups + 1, 0);
  for (std::uint32_t g : group) ++start[g + 1];
  for (std::size_t g = 0; g < groups; ++g) start[g + 1] += start[g];
  std::vector<std::size_t> fill(start.begin(), start.end() - 1);
  std::vector<std::size_t> positions(n);
  count_t ties = 0;
  for (std::size_t p = 0; p < n; ++p) {
    const std::size_t g = group[p];
    const std::size_t k = fill[g]++;
    positions[k] = p;
    const auto begin = positions.begin() + static_cast<std::ptrdiff_t>(start[g]);
    const auto here = positions.begin() + static_cast<std::ptrdiff_t>(k);
    ties += here - std::lower_bound(begin, here, lo[p]);
  }
  return ties;
}

/// Fenwick tree of counts over y groups.
class fenwick {
public:
  explicit fenwick(std::size_t size) : tree_(size + 1, 0) {}
  void add(std::size_t i, count_t v) noexcept {
    for (++i; i < tree_.size(); i += i & (~i + 1)) tree_[i] += v;
  }
  /// sum over indices < i
  [[nodiscard]] count_t prefix(std::size_t i) const noexcept {
    count_t s = 0;
    for (; i > 0; i -= i & (~i + 1)) s += tree_[i];
    return s;
  }

private:
  std::vector<count_t> tree_;
};

/// One event of the offline divide and conquer: a point (an observation at its position)
/// or a query "discordant points among positions < bound" with weight +-1.
struct window_event {
  std::uint32_t key;  ///< rank of the observation in (x, y, position) order: a permutation
  std::uint32_t y;    ///< dense rank of y
  std::int32_t weight;  ///< 0: point; +1 / -1: query
};

/// After the call, ev[l, r) is sorted by key and `discordant` has received, for every query
/// in [l, r), its weight times the number of discordant points before it in [l, r).
/// In the (x, y, position) order, key_q < key_p and y_q > y_p means x_q < x_p (discordant),
/// key_q > key_p and y_q < y_p means x_q > x_p; equal keys never meet (a query's own point
/// comes after it). CDQ divide and conquer: the left half's points against the right
/// half's queries by one sweep in key order with a Fenwick tree over y. O(m log m log n).
inline void count_discordant_cdq(std::vector<window_event>& ev, std::vector<window_event>& tmp,
                                 std::size_t l, std::size_t r, fenwick& tree,
                                 count_t& discordant) {
  if (r - l < 2) return;
  const std::size_t m = l + (r - l) / 2;
  count_discordant_cdq(ev, tmp, l, m, tree, discordant);
  count_discordant_cdq(ev, tmp, m, r, tree, discordant);
  std::size_t i = l;
  count_t inserted = 0;
  for (std::size_t j = m; j < r; ++j) {
    if (ev[j].weight == 0) continue;
    for (; i < m && ev[i].key < ev[j].key; ++i) {
      if (ev[i].weight == 0) {
        tree.add(ev[i].y, 1);
        ++inserted;
      }
    }
    const count_t below = tree.prefix(ev[j].y);       // key < key_q, y < y_q
    const count_t above = inserted - tree.prefix(ev[j].y + 1);  // key < key_q, y > y_q
    // discordant = above + (all left points with y < y_q) - below; the middle term below
    discordant += ev[j].weight * (above - below);
  }
  for (; i < m; ++i) {
    if (ev[i].weight == 0) tree.add(ev[i].y, 1);
  }
  for (std::size_t j = m; j < r; ++j) {
    if (ev[j].weight != 0) discordant += ev[j].weight * tree.prefix(ev[j].y);
  }
  for (std::size_t k = l; k < m; ++k) {
    if (ev[k].weight == 0) tree.add(ev[k].y, -1);
  }
  std::merge(ev.begin() + static_cast<std::ptrdiff_t>(l), ev.begin() + static_cast<std::ptrdiff_t>(m),
             ev.begin() + static_cast<std::ptrdiff_t>(m), ev.begin() + static_cast<std::ptrdiff_t>(r),
             tmp.begin() + static_cast<std::ptrdiff_t>(l),
             [](const window_event& a, const window_event& b) { return a.key < b.key; });
  std::copy(tmp.begin() + static_cast<std::ptrdiff_t>(l), tmp.begin() + static_cast<std::ptrdiff_t>(r),
            ev.begin() + static_cast<std::ptrdiff_t>(l));
}

/// Counts P without visiting its pairs. Tied pairs come from `window_ties` on the dense
/// groups of x, y and (x, y); then C + D = |P| - Tx - Ty + Txy and D is a sum over p of
/// (discordant among positions < p) - (discordant among positions < lo[p]): 2n prefix
/// queries answered offline by `count_discordant_cdq`. O(n log^2 n), independent of |P|.
inline window_counts count_window_divide_and_conquer(std::span<const double> x,
                                                     std::span<const double> y,
                                                     const window_plan& plan) {
  const std::size_t n = x.size();
  using xy_t = std::pair<double, double>;
  std::vector<xy_t> xy(n);
  std::vector<double> xs(n);
  std::vector<double> ys(n);
  for (std::size_t p = 0; p < n; ++p) {
    xs[p] = x[plan.order[p]];
    ys[p] = y[plan.order[p]];
    xy[p] = {xs[p], ys[p]};
  }
  const auto lt = [](const auto& a, const auto& b) { return a < b; };
  const auto eq = [](const auto& a, const auto& b) { return a == b; };
  std::vector<std::uint32_t> gx;
  std::vector<std::uint32_t> gy;
  std::vector<std::uint32_t> gxy;
  const std::size_t nx = dense_groups(xs, lt, eq, gx);
  const std::size_t ny = dense_groups(ys, lt, eq, gy);
  const std::size_t nxy = dense_groups(xy, lt, eq, gxy);
  window_counts w;
  w.pairs = plan.pairs;
  w.tied_x = window_ties(gx, nx, plan.lo);
  w.tied_y = window_ties(gy, ny, plan.lo);
  const count_t tied_xy = window_ties(gxy, nxy, plan.lo);

  // key: rank in (x, y, position) order; gxy numbers the (x, y) groups in that order.
  std::vector<std::uint32_t> key(n);
  {
    std::vector<std::size_t> first(nxy + 1, 0);
    for (std::uint32_t g : gxy) ++first[g + 1];
    for (std::size_t g = 0; g < nxy; ++g) first[g + 1] += first[g];
    for (std::size_t p = 0; p < n; ++p) key[p] = static_cast<std::uint32_t>(first[gxy[p]]++);
  }
  // events in time order: at time t the queries with bound t, then the point t.
  std::vector<std::size_t> minus_start(n + 1, 0);
  for (std::size_t p = 0; p < n; ++p) {
    if (plan.lo[p] < p) ++minus_start[plan.lo[p] + 1];
  }
  for (std::size_t t = 0; t < n; ++t) minus_start[t + 1] += minus_start[t];
  std::vector<std::uint32_t> minus_of(minus_start[n]);
  {
    std::vector<std::size_t> fill(minus_start.begin(), minus_start.end() - 1);
    for (std::size_t p = 0; p < n; ++p) {
      if (plan.lo[p] < p) minus_of[fill[plan.lo[p]]++] = static_cast<std::uint32_t>(p);
    }
  }
  std::vector<window_event> ev;
  ev.reserve(n + 2 * minus_of.size());
  for (std::size_t t = 0; t < n; ++t) {
    for (std::size_t k = minus_start[t]; k < minus_start[t + 1]; ++k) {
      const std::uint32_t p = minus_of[k];
      ev.push_back({key[p], gy[p], -1});
    }
    if (plan.lo[t] < t) ev.push_back({key[t], gy[t], +1});
    ev.push_back({key[t], gy[t], 0});
  }
  std::vector<window_event> tmp(ev.size());
  fenwick tree(ny);
  count_t discordant = 0;
  count_discordant_cdq(ev, tmp, 0, ev.size(), tree, discordant);
  w.c_minus_d = w.pairs - w.tied_x - w.tied_y + tied_xy - 2 * discordant;
  return w;
}

// ---- Conover-Iman residuals ------------------------------------------------------------------

/// Relative size below which a projected column or residual counts as identically zero.
/// Rounding leaves ~1e-15 relative; a genuine rank residual is >~ 5 n^-1.5 relative
/// (one transposition away from collinear), above 1e-11 for n < 6e7.
inline constexpr double residual_tolerance = 1e-11;

/// Subtracts from v its projection on the orthonormal columns q (twice: "twice is enough"
/// makes modified Gram-Schmidt orthogonal to working precision). Row i of the result
/// depends only on row i of v and q and on shared scalars, so identical rows stay bitwise
/// identical.
inline void project_out(std::vector<double>& v, const std::vector<std::vector<double>>& q) {
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& qk : q) {
      const double coef = dot(qk, v);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] -= coef * qk[i];
    }
  }
}

/// Residuals of the centred ranks of `v` after OLS on [1, ranks of the controls]; empty
/// when they vanish (|residual| <= residual_tolerance |centred ranks|).
inline std::optional<std::vector<double>> rank_residuals(std::span<const double> v,
                                                         const std::vector<std::vector<double>>& q) {
  std::vector<double> r = centred_ranks(v);
  const double norm0 = std::sqrt(dot(r, r));
  if (norm0 == 0.0) return std::nullopt;
  project_out(r, q);
  if (std::sqrt(dot(r, r)) <= residual_tolerance * norm0) return std::nullopt;
  return r;
}

/// Orthonormal basis of the centred control ranks (the intercept is handled by centring,
/// which is exact for ranks); a control in the span of the previous ones (or constant) adds
/// no direction and is skipped, so rank-deficient designs give the least-squares residuals.
inline std::vector<std::vector<double>> control_basis(std::span<const std::span<const double>> controls) {
  std::vector<std::vector<double>> q;
  for (const auto& c : controls) {
    std::vector<double> v = centred_ranks(c);
    const double norm0 = std::sqrt(dot(v, v));
    if (norm0 == 0.0) continue;
    project_out(v, q);
    const double norm = std::sqrt(dot(v, v));
    if (norm <= residual_tolerance * norm0) continue;
    for (double& e : v) e /= norm;
    q.push_back(std::move(v));
  }
  return q;
}

inline std::optional<double> kendall_tau_b_unchecked(std::span<const double> x,
                                                     std::span<const double> y) {
  const knight_counts k = count_pairs(x, y);
  return tau_from_counts(k.n0, k.n1, k.n2, k.c_minus_d());
}

inline std::optional<double> partial_kendall_tau_unchecked(
    std::span<const double> x, std::span<const double> y,
    std::span<const std::span<const double>> controls) {
  const auto q = control_basis(controls);
  const auto ex = rank_residuals(x, q);
  if (!ex) return std::nullopt;
  const auto ey = rank_residuals(y, q);
  if (!ey) return std::nullopt;
  return kendall_tau_b_unchecked(*ex, *ey);
}

}  // namespace detail

/// 1-based average ranks: the observations sorted ascending get ranks 1..n, and tied values
/// share the mean of their ranks (scipy.stats.rankdata, method 'average'). The ranks are
/// half-integers, exact. O(n log n). Throws std::invalid_argument on NaN/inf; n = 0 gives
/// an empty vector.
inline std::vector<double> average_ranks(std::span<const double> x) {
  detail::require_finite("nsc::average_ranks", "x", x);
  return detail::average_ranks_unchecked(x);
}

/// Kendall's tau-b (scipy.stats.kendalltau, variant 'b'):
///   tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)),
/// C / D concordant / discordant pairs, n0 = n(n-1)/2, n1 / n2 pairs tied in x / y. Knight's
/// algorithm (see `detail::count_pairs`) gives C - D = n0 - n1 - n2 + n3 - 2 swaps, n3 the
/// pairs tied in both, swaps the merge-sort inversion count. O(n log n) time, O(n) memory;
/// within 2 ulp. Empty when x or y is constant. Throws on length mismatch, n < 2, NaN/inf.
inline std::optional<double> kendall_tau_b(std::span<const double> x, std::span<const double> y) {
  detail::require_paired("nsc::kendall_tau_b", x, y);
  return detail::kendall_tau_b_unchecked(x, y);
}

/// Spearman's rho (scipy.stats.spearmanr): the Pearson correlation of the average ranks,
///   rho = S_xy / sqrt(S_xx S_yy), S_ab = sum (ra_i - (n+1)/2)(rb_i - (n+1)/2).
/// The centred ranks and their products are exact; compensated sums keep rho within a few
/// ulp. O(n log n). Empty when x or y is constant. Throws on length mismatch, n < 2, NaN/inf.
inline std::optional<double> spearman_rho(std::span<const double> x, std::span<const double> y) {
  detail::require_paired("nsc::spearman_rho", x, y);
  const std::vector<double> rx = detail::centred_ranks(x);
  const std::vector<double> ry = detail::centred_ranks(y);
  const double sxx = detail::dot(rx, rx);
  const double syy = detail::dot(ry, ry);
  if (sxx == 0.0 || syy == 0.0) return std::nullopt;
  const double rho = detail::dot(rx, ry) / std::sqrt(sxx * syy);
  return std::clamp(rho, -1.0, 1.0);
}

/// How `windowed_kendall_tau` counts the window pairs (the results are identical).
enum class window_algorithm {
  automatic,          ///< enumerate when |P| is small, else divide and conquer
  enumerate_pairs,    ///< visit each pair of P: O(n log n + |P|)
  divide_and_conquer  ///< offline dominance counting: O(n log^2 n) whatever |P|
};

/// The "10%-PW tau" (pairwise-window tau, math.md section 7): tau-b restricted to the pairs
/// of observations with similar control (e.g. #Params),
///   P = { i < j : |c_i - c_j| < rel * max(|c_i|, |c_j|) }          (as evaluated in double),
///   tau = (C - D) / sqrt((|P| - Tx)(|P| - Ty)),
/// C / D the concordant / discordant pairs of P, Tx / Ty the pairs of P tied in x / in y
/// (joint ties in both). Pairs with controls of opposite sign or a zero control are never in
/// P; negative controls behave like their magnitudes. `rel` = 0.10 is the paper's 10%.
/// Complexity: O(n log n) to find each observation's window (a contiguous run after sorting
/// by control), then O(|P|) (`enumerate_pairs`) or O(n log^2 n) (`divide_and_conquer`);
/// `automatic` picks the cheaper from |P|. Exact counts, within 2 ulp.
/// Empty when P has no pair untied in x or none untied in y. Throws on length mismatch,
/// n < 2, NaN/inf in x, y or control, rel outside (0, 1).
inline std::optional<double> windowed_kendall_tau(std::span<const double> x,
                                                  std::span<const double> y,
                                                  std::span<const double> control,
                                                  double rel = 0.10,
                                                  window_algorithm algorithm = window_algorithm::automatic) {
  constexpr const char* fn = "nsc::windowed_kendall_tau";
  detail::require_paired(fn, x, y);
  detail::require_same_length(fn, "x", x.size(), "control", control.size());
  detail::require_finite(fn, "control", control);
  detail::require_rel(fn, rel);
  if (x.size() > std::numeric_limits<std::uint32_t>::max()) {
    nsc::throw_invalid_argument(fn, "at most 2^32 - 1 observations are supported", x.size());
  }
  const detail::window_plan plan = detail::plan_windows(control, rel);
  if (algorithm == window_algorithm::automatic) {
    // measured (bench_ranking, g++ -O3): ~1.5 ns per enumerated pair, ~7 ns * n log2(n)^2
    // for divide and conquer; the crossover is near |P| = 5 n log2(n)^2.
    const double lg = std::log2(static_cast<double>(x.size()));
    const double dc_cost = 5.0 * static_cast<double>(x.size()) * lg * lg;
    algorithm = static_cast<double>(plan.pairs) <= dc_cost ? window_algorithm::enumerate_pairs
                                                           : window_algorithm::divide_and_conquer;
  }
  const detail::window_counts w = algorithm == window_algorithm::enumerate_pairs
                                      ? detail::count_window_enumerate(x, y, plan)
                                      : detail::count_window_divide_and_conquer(x, y, plan);
  return detail::tau_from_counts(w.pairs, w.tied_x, w.tied_y, w.c_minus_d);
}

/// Partial Kendall tau of x and y controlling for one or more variables, after Conover and
/// Iman: rank-transform x, y and every control (average ranks), regress rank(x) by least
/// squares on [1, ranks of the controls], likewise rank(y), and return the tau-b of the two
/// residual vectors. The intercept is exact centring; the controls are orthonormalised by
/// modified Gram-Schmidt with reorthogonalisation (a control collinear with earlier ones is
/// dropped: same residuals as a minimum-norm least-squares solve); compensated dot products.
/// O((k + 1) n log n) for k controls.
///
/// Residual ties are decided by exact comparison of the computed residuals. Observations
/// with identical ranks in x (or y) and in every control get bitwise identical residuals
/// (each residual is computed from its own row and shared coefficients), so these genuine
/// ties are kept; other exact ties need a coincidental rational identity and are rare, and
/// rounding then moves tau by at most (number of such pairs) / (number of pairs).
///
/// Empty when a residual vector vanishes, i.e. its norm is <= 1e-11 of the centred ranks'
/// norm (rank(x) or rank(y) is an affine function of the control ranks, e.g. x is itself a
/// control, or x or y is constant). Throws on length mismatch (x, y or any control), n < 2,
/// NaN/inf, an empty list of controls.
inline std::optional<double> partial_kendall_tau(std::span<const double> x,
                                                 std::span<const double> y,
                                                 std::span<const std::span<const double>> controls) {
  constexpr const char* fn = "nsc::partial_kendall_tau";
  detail::require_paired(fn, x, y);
  if (controls.empty()) nsc::throw_invalid_argument(fn, "at least one control is required", 0);
  for (std::size_t k = 0; k < controls.size(); ++k) {
    const std::string name = "control " + std::to_string(k);
    detail::require_same_length(fn, "x", x.size(), name.c_str(), controls[k].size());
    detail::require_finite(fn, name.c_str(), controls[k]);
  }
  return detail::partial_kendall_tau_unchecked(x, y, controls);
}

/// `partial_kendall_tau(x, y, {params, flops})`.
inline std::optional<double> partial_kendall_tau(std::span<const double> x,
                                                 std::span<const double> y,
                                                 std::initializer_list<std::span<const double>> controls) {
  return partial_kendall_tau(x, y, std::span<const std::span<const double>>(controls.begin(), controls.size()));
}

/// Pairwise accuracy: among the pairs whose truth values differ, the fraction that the score
/// orders the same way; a pair tied in score counts 1/2:
///   PA = (C + T_s / 2) / (n0 - n_t) = (1 + (C - D) / (n0 - n_t)) / 2,
/// C / D concordant / discordant pairs, T_s pairs tied in score only, n_t pairs tied in truth
/// (so PA = (1 + Somers' d) / 2, the AUC of ordering pairs). Knight's counts, O(n log n),
/// within 1 ulp. Empty when the truth is constant. Throws on length mismatch, n < 2, NaN/inf.
inline std::optional<double> pairwise_accuracy(std::span<const double> score,
                                               std::span<const double> truth) {
  detail::require_paired("nsc::pairwise_accuracy", score, truth, "score", "truth");
  const detail::knight_counts k = detail::count_pairs(score, truth);
  const detail::count_t distinct_truth = k.n0 - k.n2;
  if (distinct_truth == 0) return std::nullopt;
  // 2 PA (n0 - n2) = 2C + (n1 - n3), C = n0 - n1 - n2 + n3 - D.
  const detail::count_t concordant = k.n0 - k.n1 - k.n2 + k.n3 - k.discordant;
  return static_cast<double>(2 * concordant + k.n1 - k.n3) /
         static_cast<double>(2 * distinct_truth);
}

/// The four statistics of one score against the ground truth, as the paper reports them.
struct rank_summary {
  std::size_t n = 0;                  ///< number of architectures
  std::optional<double> tau_b;        ///< kendall_tau_b(score, truth)
  std::optional<double> rho;          ///< spearman_rho(score, truth)
  std::optional<double> pw10_tau;     ///< windowed_kendall_tau(score, truth, params, 0.10)
  std::optional<double> partial_tau;  ///< partial_kendall_tau(score, truth, {params, flops})
};

/// All statistics of `score` against `truth` (higher is better for both): tau-b, rho, the
/// 10%-PW tau with #Params as control, and the partial tau controlling for #Params and
/// #FLOPs. When the score is itself #Params or #FLOPs (the paper's baselines), its ranks lie
/// in the span of the control ranks, the residuals vanish and `partial_tau` is empty: report
/// it as undefined ("n/a"), or call `partial_kendall_tau` with the other control only.
/// Throws like the individual functions (message naming nsc::summarize).
inline rank_summary summarize(std::span<const double> score, std::span<const double> truth,
                              std::span<const double> params, std::span<const double> flops) {
  constexpr const char* fn = "nsc::summarize";
  detail::require_paired(fn, score, truth, "score", "truth");
  detail::require_same_length(fn, "score", score.size(), "params", params.size());
  detail::require_same_length(fn, "score", score.size(), "flops", flops.size());
  detail::require_finite(fn, "params", params);
  detail::require_finite(fn, "flops", flops);
  rank_summary s;
  s.n = score.size();
  s.tau_b = detail::kendall_tau_b_unchecked(score, truth);
  s.rho = spearman_rho(score, truth);
  s.pw10_tau = windowed_kendall_tau(score, truth, params, 0.10);
  const std::span<const double> controls[] = {params, flops};
  s.partial_tau = detail::partial_kendall_tau_unchecked(score, truth, controls);
  return s;
}

}  // namespace nsc::eval

#endif  // NSC_EVAL_RANKING_HPP
