/// \file nsc/search/knapsack/front.hpp
/// Fronts within a memory cap: which points of a solved Pareto set to list, the epsilon-front's
/// cover, and solve_mmck_front (exact when it fits, else the first epsilon that does).
/// Part of the K-budget knapsack engine (nsc/search/multi_knapsack.hpp: the file comment there
/// describes every algorithm, the choice rule, ties, accuracy and memory).
#ifndef NSC_SEARCH_KNAPSACK_FRONT_HPP
#define NSC_SEARCH_KNAPSACK_FRONT_HPP

#include <nsc/search/knapsack/solve.hpp>

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

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_FRONT_HPP
