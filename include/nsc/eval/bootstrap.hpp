/// \file nsc/eval/bootstrap.hpp
/// Paired bootstrap of rank statistics: is NSC's Kendall tau-b (Spearman rho) against the truth
/// larger than a baseline's by more than sampling noise?
///
/// Synopsis
///
///     bootstrap_settings {resamples = 1000, seed = 1, confidence = 0.95, threads = 0}
///     paired_bootstrap(scores, truth, settings)  -> bootstrap_result
///         scores[0] the reference (NSC), scores[k] the baselines; per resample r and score k
///         tau_b[r][k], rho[r][k]; .difference(k, statistic) -> bootstrap_interval
///     weighted_ranker(x, y): tau-b and rho of (x, y) with multiplicities, O(n log n)
///     uniform_below(engine, n), splitmix64(x), resample_engine(seed, r), resample_counts(...)
///
/// Algorithm (reproducible on every platform: only std::mt19937_64, whose output sequence the
/// C++ standard fixes, and integer arithmetic decide the resamples):
/// * Resample r (0-based) draws n indices with replacement from the engine
///   std::mt19937_64(splitmix64(seed ^ splitmix64(r))), each index by `uniform_below(engine, n)`:
///   Lemire's multiply-and-reject method (unbiased, the high half of the 128-bit product of a
///   draw and n, rejecting the draws whose low half is below 2^64 mod n).
///   std::uniform_int_distribution is not used: its algorithm differs between standard
///   libraries. Resamples are independent, so threads (each taking a contiguous
///   block of resamples) give the same results whatever their number.
/// * The same indices are used for every score (paired): the statistic of resample r is a
///   function of the multiplicities w_i (how often observation i was drawn). Copies of one
///   observation are tied in every variable, so ties are exact: tau-b counts from Knight's
///   formulas with weights, n1 = sum over runs of equal x of T (T - 1) / 2 with T the summed
///   weights, D = sum over pairs (x_i < x_j, y_i > y_j) of w_i w_j by a Fenwick tree over the
///   dense ranks of y, in (x, y)-sorted order computed once; rho from the weighted average ranks
///   (exact half-integers; the sums of their products are exact 64-bit integers). O(n log n)
///   per score and resample; the statistics equal kendall_tau_b / spearman_rho of the
///   explicitly resampled vectors (bit for bit).
/// * Interval of a difference d = stat(reference) - stat(baseline): the percentile interval
///   over the resamples where both statistics are defined, at (1 - confidence) / 2 and
///   (1 + confidence) / 2, with linear interpolation between order statistics (numpy's default:
///   position h = (B - 1) q, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h])).
/// * Verdict at the confidence level: `better` when the interval lies above 0 (lower end > 0),
///   `worse` when it lies below 0 (upper end < 0), else `tied`.
///
/// Errors: std::invalid_argument naming nsc::eval::paired_bootstrap for fewer than 2
/// observations, lengths that differ, NaN/inf, 0 resamples, more than 10^7 resamples,
/// a confidence outside (0, 1), more than 2^21 (2,097,152) observations (the rank sums are
/// exact 64-bit integers: |4 S_xy| <= n^3).
#ifndef NSC_EVAL_BOOTSTRAP_HPP
#define NSC_EVAL_BOOTSTRAP_HPP

#include <nsc/error_handling.hpp>
#include <nsc/eval/ranking.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace nsc::eval {

/// SplitMix64's output function (Steele, Lea, Flood 2014): a bijective mix of 64 bits.
constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The 128-bit product a * b as (high, low) 64-bit halves from 32-bit pieces (any platform).
constexpr std::pair<std::uint64_t, std::uint64_t> mul_64x64_portable(std::uint64_t a,
                                                                     std::uint64_t b) noexcept {
  const std::uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  return {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (p00 & 0xFFFFFFFFu)};
}

/// The 128-bit product a * b as (high, low): the compiler's 128-bit type where it has one,
/// else mul_64x64_portable (equal results).
constexpr std::pair<std::uint64_t, std::uint64_t> mul_64x64(std::uint64_t a, std::uint64_t b) noexcept {
#if defined(__SIZEOF_INT128__)
  __extension__ using u128 = unsigned __int128;
  const u128 p = u128(a) * u128(b);
  return {std::uint64_t(p >> 64), std::uint64_t(p)};
#else
  return mul_64x64_portable(a, b);
#endif
}

/// An integer uniform on [0, n), n >= 1, from a 64-bit engine: Lemire's (2019) nearly
/// divisionless method: m = x n as a 128-bit product of a draw x; the draws whose low half is
/// below 2^64 mod n are rejected (at most n / 2^64 of them); the result is the high half.
/// Unbiased and the same on every platform for the same engine state.
inline std::uint64_t uniform_below(std::mt19937_64& g, std::uint64_t n) {
  auto [hi, lo] = mul_64x64(g(), n);
  if (lo < n) {
    const std::uint64_t threshold = (0 - n) % n; // 2^64 mod n
    while (lo < threshold) std::tie(hi, lo) = mul_64x64(g(), n);
  }
  return hi;
}

/// The engine of resample r under `seed` (see the file comment).
inline std::mt19937_64 resample_engine(std::uint64_t seed, std::uint64_t r) {
  return std::mt19937_64(splitmix64(seed ^ splitmix64(r)));
}

/// Multiplicities of one resample of n observations: w[i] = how often index i was drawn in n
/// draws of uniform_below(g, n).
inline void resample_counts(std::mt19937_64& g, std::size_t n, std::vector<std::uint32_t>& w) {
  w.assign(n, 0);
  for (std::size_t k = 0; k < n; ++k) ++w[uniform_below(g, n)];
}

/// Ranks of the truth shared by every score: dense ranks (0 = smallest) and their count.
struct truth_ranks {
  std::vector<std::uint32_t> dense; ///< per observation
  std::uint32_t levels = 0;         ///< number of distinct values

  explicit truth_ranks(std::span<const double> y) : dense(y.size()) {
    std::vector<std::uint32_t> idx(y.size());
    std::iota(idx.begin(), idx.end(), 0u);
    std::sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) { return y[a] < y[b]; });
    for (std::size_t p = 0; p < idx.size(); ++p) {
      if (p > 0 && y[idx[p]] != y[idx[p - 1]]) ++levels;
      dense[idx[p]] = levels;
    }
    if (!idx.empty()) ++levels;
  }
};

/// Per-resample quantities of the truth: the weight of each level, its centred average rank,
/// n2 and S_yy.
struct truth_weights {
  std::vector<std::int64_t> weight; ///< per level
  std::vector<std::int64_t> centred2; ///< per level: 2 (average rank - (N + 1) / 2), an integer
  std::int64_t total = 0;           ///< N (= n for a resample)
  std::int64_t tied_pairs = 0;      ///< n2
  std::int64_t syy4 = 0;            ///< 4 S_yy = sum T (2 c)^2, exact

  void compute(const truth_ranks& t, std::span<const std::uint32_t> w) {
    weight.assign(t.levels, 0);
    for (std::size_t i = 0; i < w.size(); ++i) weight[t.dense[i]] += w[i];
    centred2.resize(t.levels);
    total = 0;
    for (std::int64_t v : weight) total += v;
    std::int64_t cum = 0;
    tied_pairs = 0;
    syy4 = 0;
    for (std::size_t b = 0; b < weight.size(); ++b) {
      const std::int64_t T = weight[b];
      centred2[b] = 2 * cum + T + 1 - (total + 1); // 2 (cum + (T + 1) / 2 - (N + 1) / 2)
      cum += T;
      tied_pairs += T * (T - 1) / 2;
      syy4 += T * centred2[b] * centred2[b];
    }
  }
};

/// tau-b and rho of one score x against the truth y under multiplicities (see the file
/// comment). Built once per score in O(n log n); each evaluation is O(n log n) with a Fenwick
/// tree over the truth's levels. Inputs unchecked (paired_bootstrap checks them).
class weighted_ranker {
public:
  weighted_ranker(std::span<const double> x, std::span<const double> y, const truth_ranks& t)
      : order_(x.size()), level_(x.size()), levels_(t.levels) {
    std::iota(order_.begin(), order_.end(), 0u);
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return x[a] < x[b] || (x[a] == x[b] && y[a] < y[b]);
    });
    for (std::size_t p = 0; p < order_.size(); ++p) level_[p] = t.dense[order_[p]];
    for (std::size_t p = 0; p < order_.size(); ++p) {
      if (p == 0 || x[order_[p]] != x[order_[p - 1]]) x_run_.push_back(std::uint32_t(p));
    }
    x_run_.push_back(std::uint32_t(order_.size()));
  }

  /// Knight counts and Spearman sums of (x, y) under weights `w`; `tw` from the same weights.
  struct result {
    std::optional<double> tau_b;
    std::optional<double> rho;
  };

  result evaluate(std::span<const std::uint32_t> w, const truth_weights& tw,
                  std::vector<std::uint32_t>& fenwick) const {
    using detail::count_t;
    fenwick.assign(std::size_t(levels_) + 1, 0);
    const count_t N = tw.total;
    count_t n1 = 0, n3 = 0, discordant = 0, added = 0, cum = 0;
    count_t sxx4 = 0, sxy4 = 0; // 4 S_xx, 4 S_xy: exact integers (|.| <= n^3 < 2^63 for n < 2^21)
    for (std::size_t run = 0; run + 1 < x_run_.size(); ++run) {
      const std::size_t a = x_run_[run], b = x_run_[run + 1];
      count_t T = 0;
      for (std::size_t p = a; p < b; ++p) T += w[order_[p]];
      if (T == 0) continue;
      n1 += T * (T - 1) / 2;
      const count_t cx2 = 2 * cum + T + 1 - (N + 1);
      cum += T;
      sxx4 += T * cx2 * cx2;
      count_t joint = 0;
      for (std::size_t p = a; p < b; ++p) {
        const count_t wp = w[order_[p]];
        if (p > a && level_[p] != level_[p - 1]) {
          n3 += joint * (joint - 1) / 2;
          joint = 0;
        }
        joint += wp;
        if (wp == 0) continue;
        const std::uint32_t lv = level_[p];
        sxy4 += wp * cx2 * tw.centred2[lv];
        std::uint32_t not_greater = 0; // weight added so far with level <= lv (<= n < 2^32)
        for (std::size_t i = std::size_t(lv) + 1; i > 0; i -= i & (~i + 1)) not_greater += fenwick[i];
        discordant += wp * (added - count_t(not_greater));
        for (std::size_t i = std::size_t(lv) + 1; i <= levels_; i += i & (~i + 1))
          fenwick[i] += std::uint32_t(wp);
        added += wp;
      }
      n3 += joint * (joint - 1) / 2;
    }
    result r;
    const count_t n0 = N * (N - 1) / 2;
    r.tau_b = detail::tau_from_counts(n0, n1, tw.tied_pairs, n0 - n1 - tw.tied_pairs + n3 - 2 * discordant);
    // the sums are exact, so this is spearman_rho's expression on the same doubles
    const double xx = double(sxx4) / 4, yy = double(tw.syy4) / 4, xy = double(sxy4) / 4;
    if (xx != 0 && yy != 0) r.rho = std::clamp(xy / std::sqrt(xx * yy), -1.0, 1.0);
    return r;
  }

private:
  std::vector<std::uint32_t> order_; ///< observations sorted by (x, y)
  std::vector<std::uint32_t> level_; ///< truth level along order_
  std::vector<std::uint32_t> x_run_; ///< starts of runs of equal x along order_, then n
  std::uint32_t levels_ = 0;
};

/// Settings of paired_bootstrap.
struct bootstrap_settings {
  std::size_t resamples = 1000;
  std::uint64_t seed = 1;
  double confidence = 0.95;
  unsigned threads = 0; ///< 0: std::thread::hardware_concurrency() (results do not depend on it)
};

/// The two statistics bootstrapped.
enum class rank_statistic { tau_b, rho };

/// Outcome of comparing a baseline with the reference.
enum class verdict { better, tied, worse };

/// "better", "tied", "worse".
constexpr std::string_view to_string(verdict v) noexcept {
  return v == verdict::better ? "better" : v == verdict::worse ? "worse" : "tied";
}

/// A percentile interval of a bootstrapped quantity.
struct bootstrap_interval {
  std::array<double, 2> interval{}; ///< [lower, upper]
  std::size_t valid = 0;            ///< resamples where the quantity is defined
  verdict v = verdict::tied;        ///< for a difference: its sign at the confidence level
};

/// The percentile interval of `values` (sorted in place) at `confidence` (see the file comment).
inline std::array<double, 2> percentile_interval(std::vector<double>& values, double confidence) {
  std::sort(values.begin(), values.end());
  const auto at = [&](double q) {
    const double h = double(values.size() - 1) * q;
    const std::size_t lo = std::size_t(std::floor(h));
    const std::size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (h - double(lo)) * (values[hi] - values[lo]);
  };
  return {at(0.5 * (1 - confidence)), at(0.5 * (1 + confidence))};
}

/// Every resample's tau-b and rho of every score (NaN where undefined).
struct bootstrap_result {
  bootstrap_settings settings;
  std::size_t scores = 0;
  std::vector<double> tau_b; ///< [r * scores + k]
  std::vector<double> rho;   ///< [r * scores + k]

  double value(rank_statistic s, std::size_t r, std::size_t k) const {
    return (s == rank_statistic::tau_b ? tau_b : rho)[r * scores + k];
  }

  /// Interval of stat(score k) alone; empty when no resample defines it.
  std::optional<bootstrap_interval> interval(std::size_t k, rank_statistic s) const {
    std::vector<double> v;
    for (std::size_t r = 0; r < settings.resamples; ++r)
      if (!std::isnan(value(s, r, k))) v.push_back(value(s, r, k));
    if (v.empty()) return std::nullopt;
    bootstrap_interval out;
    out.valid = v.size();
    out.interval = percentile_interval(v, settings.confidence);
    return out;
  }

  /// Interval and verdict of stat(score 0) - stat(score k), over the resamples defining both.
  std::optional<bootstrap_interval> difference(std::size_t k, rank_statistic s) const {
    std::vector<double> v;
    for (std::size_t r = 0; r < settings.resamples; ++r) {
      const double a = value(s, r, 0), b = value(s, r, k);
      if (!std::isnan(a) && !std::isnan(b)) v.push_back(a - b);
    }
    if (v.empty()) return std::nullopt;
    bootstrap_interval out;
    out.valid = v.size();
    out.interval = percentile_interval(v, settings.confidence);
    out.v = out.interval[0] > 0 ? verdict::better : out.interval[1] < 0 ? verdict::worse : verdict::tied;
    return out;
  }
};

/// Paired bootstrap of tau-b and rho of every score against `truth` (see the file comment).
inline bootstrap_result paired_bootstrap(std::span<const std::span<const double>> scores,
                                         std::span<const double> truth,
                                         const bootstrap_settings& settings = {}) {
  constexpr const char* fn = "nsc::eval::paired_bootstrap";
  const std::size_t n = truth.size();
  detail::require_at_least_two(fn, n);
  detail::require_finite(fn, "truth", truth);
  if (scores.empty()) throw_invalid_argument(fn, "at least one score is required", 0);
  for (std::size_t k = 0; k < scores.size(); ++k) {
    const std::string name = "score " + std::to_string(k);
    detail::require_same_length(fn, name.c_str(), scores[k].size(), "truth", n);
    detail::require_finite(fn, name.c_str(), scores[k]);
  }
  if (settings.resamples < 1 || settings.resamples > 10'000'000)
    throw_invalid_argument(fn, "resamples must be in [1, 10^7]", settings.resamples);
  if (!(settings.confidence > 0 && settings.confidence < 1))
    throw_invalid_argument(fn, "confidence must lie in (0, 1)", settings.confidence);
  if (n > (std::size_t(1) << 21))
    throw_invalid_argument(fn, "at most 2^21 observations are supported (exact 64-bit rank sums)", n);

  const truth_ranks tr(truth);
  std::vector<weighted_ranker> rankers;
  rankers.reserve(scores.size());
  for (const auto& s : scores) rankers.emplace_back(s, truth, tr);

  bootstrap_result out;
  out.settings = settings;
  out.scores = scores.size();
  const std::size_t cells = settings.resamples * scores.size();
  out.tau_b.assign(cells, std::numeric_limits<double>::quiet_NaN());
  out.rho.assign(cells, std::numeric_limits<double>::quiet_NaN());

  const auto work = [&](std::size_t r0, std::size_t r1) {
    std::vector<std::uint32_t> w;
    std::vector<std::uint32_t> fenwick;
    truth_weights tw;
    for (std::size_t r = r0; r < r1; ++r) {
      std::mt19937_64 g = resample_engine(settings.seed, r);
      resample_counts(g, n, w);
      tw.compute(tr, w);
      for (std::size_t k = 0; k < rankers.size(); ++k) {
        const auto res = rankers[k].evaluate(w, tw, fenwick);
        if (res.tau_b) out.tau_b[r * out.scores + k] = *res.tau_b;
        if (res.rho) out.rho[r * out.scores + k] = *res.rho;
      }
    }
  };
  unsigned threads = settings.threads ? settings.threads : std::thread::hardware_concurrency();
  threads = std::max(1u, std::min<unsigned>(threads, unsigned(std::min<std::size_t>(settings.resamples, 64))));
  if (threads == 1) {
    work(0, settings.resamples);
    return out;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  for (unsigned t = 0; t < threads; ++t) {
    const std::size_t r0 = settings.resamples * t / threads, r1 = settings.resamples * (t + 1) / threads;
    auto job = [&, t, r0, r1] {
      try {
        work(r0, r1);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    };
    try {
      pool.emplace_back(job);
    } catch (const std::system_error&) {
      job(); // no thread available: the same block in this thread (same results)
    }
  }
  for (auto& th : pool) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

} // namespace nsc::eval

#endif // NSC_EVAL_BOOTSTRAP_HPP
