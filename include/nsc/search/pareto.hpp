/// \file nsc/search/pareto.hpp
/// Cost/value Pareto fronts and their upper envelope.
///
/// A front is a list of points (cost, value, tag) with strictly increasing cost and
/// strictly increasing value: point i is the best value obtainable with a budget in
/// [cost_i, cost_{i+1}). The knapsack (`multiple_choice_knapsack.hpp`) produces one front
/// per DP; choices that change a whole network (depth, width) are enumerated outside the
/// DP and their fronts are merged here into one (math.md section 6).
#ifndef NSC_SEARCH_PARETO_HPP
#define NSC_SEARCH_PARETO_HPP

#include <nsc/error_handling.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

namespace nsc::search {

/// One point of a front: a total `cost` (integer units of the caller), the best `value`
/// reachable with exactly that cost, and a caller-defined `tag` identifying the solution
/// (std::monostate when there is nothing to carry).
template <class Value, class Tag = std::monostate>
struct pareto_point {
  std::int64_t cost;
  Value value;
  Tag tag;
};

/// Upper envelope of several point sets: for every budget b, the best value over all points
/// of all fronts with cost <= b.
///
/// Returns the points, ascending in cost, at which that best value strictly increases; each
/// kept point is an input point (with its tag). Deterministic tie-breaking: among points
/// with the same cost the highest value wins; on an exact tie (same cost and value) the
/// point of the earlier front wins, then the earlier point within that front. A point whose
/// value does not exceed the value of a cheaper-or-equal kept point is dropped.
/// The inputs need not be fronts themselves (any point sets are accepted, empty ones too).
///
/// Complexity O(N log N) for N points in total. Value needs `<` and `==`.
/// Throws std::invalid_argument("nsc::merge_fronts: ...") when a value is unordered
/// (`!(v == v)`, i.e. NaN for floating types).
template <class Value, class Tag>
std::vector<pareto_point<Value, Tag>> merge_fronts(
    std::vector<std::vector<pareto_point<Value, Tag>>> fronts) {
  struct ref {
    std::size_t front;
    std::size_t pos;
  };
  std::vector<ref> refs;
  std::size_t total = 0;
  for (const auto& f : fronts) total += f.size();
  refs.reserve(total);
  for (std::size_t f = 0; f < fronts.size(); ++f) {
    for (std::size_t i = 0; i < fronts[f].size(); ++i) {
      const Value& v = fronts[f][i].value;
      if (!(v == v)) {
        nsc::throw_invalid_argument("nsc::merge_fronts",
                                    "point values must be ordered (not NaN)");
      }
      refs.push_back(ref{f, i});
    }
  }
  auto at = [&](const ref& r) -> const pareto_point<Value, Tag>& {
    return fronts[r.front][r.pos];
  };
  std::sort(refs.begin(), refs.end(), [&](const ref& a, const ref& b) {
    const auto& pa = at(a);
    const auto& pb = at(b);
    if (pa.cost != pb.cost) return pa.cost < pb.cost;
    if (pb.value < pa.value) return true;   // higher value first
    if (pa.value < pb.value) return false;
    if (a.front != b.front) return a.front < b.front;
    return a.pos < b.pos;
  });
  std::vector<pareto_point<Value, Tag>> out;
  for (const ref& r : refs) {
    auto& p = fronts[r.front][r.pos];
    if (out.empty() || out.back().value < p.value) out.push_back(std::move(p));
  }
  return out;
}

/// The best point of a front (ascending cost and value, e.g. from merge_fronts or
/// mck_result::front) whose cost is <= `budget`, or nullptr when there is none.
/// O(log N).
template <class Value, class Tag>
const pareto_point<Value, Tag>* best_within(const std::vector<pareto_point<Value, Tag>>& front,
                                            std::int64_t budget) {
  auto it = std::upper_bound(front.begin(), front.end(), budget,
                             [](std::int64_t b, const pareto_point<Value, Tag>& p) {
                               return b < p.cost;
                             });
  if (it == front.begin()) return nullptr;
  return &*(it - 1);
}

/// epsilon_cover (below) with the buckets given: box(c) of each cost (any function; points whose
/// boxes agree in every dimension share a bucket). The guarantee holds for any box function
/// (a point its bucket's kept one does not cover is kept too); the size is the number of
/// non-empty buckets when each bucket's costs are within (1 + eps) of each other (e.g. the
/// nested boxes of the in-DP epsilon-front, multi_knapsack.hpp's mmck_cover_box).
template <class CostAt, class ValueAt, class BoxAt>
std::vector<std::size_t> epsilon_cover_boxes(std::size_t n, std::size_t K, CostAt cost, ValueAt value, double eps,
                                             BoxAt box) {
  constexpr const char* fn = "nsc::search::epsilon_cover";
  if (!(eps > 0) || !(eps <= 1000)) nsc::throw_invalid_argument(fn, "eps must be finite and in (0, 1000]", eps);
  std::vector<std::int64_t> key(n * K);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < K; ++k) {
      const std::int64_t c = cost(i, k);
      if (c < 0) nsc::throw_invalid_argument(fn, "costs must be >= 0", c);
      key[i * K + k] = box(c);
    }
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    for (std::size_t k = 0; k < K; ++k)
      if (key[a * K + k] != key[b * K + k]) return key[a * K + k] < key[b * K + k];
    if (value(b) < value(a)) return true;
    if (value(a) < value(b)) return false;
    return a < b;
  });
  auto covers = [&](std::size_t r, std::size_t p) {
    if (value(r) < value(p)) return false;
    for (std::size_t k = 0; k < K; ++k)
      if ((long double)cost(r, k) > (1.0L + (long double)eps) * (long double)cost(p, k)) return false;
    return true;
  };
  std::vector<std::size_t> out;
  for (std::size_t t = 0; t < n;) {
    std::size_t u = t + 1;
    while (u < n && std::equal(key.begin() + std::ptrdiff_t(order[u] * K), key.begin() + std::ptrdiff_t(order[u] * K + K),
                               key.begin() + std::ptrdiff_t(order[t] * K)))
      ++u;
    const std::size_t first = out.size();
    for (std::size_t x = t; x < u; ++x) {
      bool covered = false;
      for (std::size_t y = first; y < out.size() && !covered; ++y) covered = covers(out[y], order[x]);
      if (!covered) out.push_back(order[x]);
    }
    t = u;
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// An epsilon-cover of a point set with K non-negative integer costs and a value (e.g. a
/// K-budget Pareto set too large to list): the indices (ascending) of a subset R such that
/// every input point p has some r in R with
///
///     r.value >= p.value   and   r.cost_k <= (1 + eps) p.cost_k   for every k
///
/// (zero costs covered only by zero costs). Method: points are bucketed by
/// (floor(log_{1+eps} c_k) per k, or a separate bucket for c_k = 0); in each bucket the best
/// value (then lowest index) is kept, and any point of the bucket it does not cover by the
/// inequality above, checked in long double, is kept as well, so the guarantee holds by
/// construction. Size: at most the number of non-empty buckets (plus rounding exceptions);
/// O(n log n) for n points.
/// Errors: std::invalid_argument "nsc::search::epsilon_cover: eps must be finite and in
/// (0, 1000] (got e)", "... costs must be >= 0 ...".
template <class CostAt, class ValueAt>
std::vector<std::size_t> epsilon_cover(std::size_t n, std::size_t K, CostAt cost, ValueAt value, double eps) {
  constexpr const char* fn = "nsc::search::epsilon_cover";
  if (!(eps > 0) || !(eps <= 1000)) nsc::throw_invalid_argument(fn, "eps must be finite and in (0, 1000]", eps);
  const long double step = std::log1pl((long double)eps);
  return epsilon_cover_boxes(n, K, cost, value, eps, [&](std::int64_t c) {
    return c == 0 ? std::int64_t(-1) : std::int64_t(std::floor(std::log((long double)c) / step));
  });
}

} // namespace nsc::search

#endif // NSC_SEARCH_PARETO_HPP
