/// \file nsc/eval/rank_scores.hpp
/// The generic ranking of `nsc rank`: one score (NSC) and any number of baselines against a
/// measured quality, with the statistics of nsc/eval/ranking.hpp and, optionally, a paired
/// bootstrap of the differences (nsc/eval/bootstrap.hpp). Every built-in family
/// (nsc/eval/families.hpp) and every table (nsc/io/rank_table.hpp) produces a ranking_input;
/// this header turns it into numbers.
///
/// Synopsis
///
///     ranking_input {ids, score, truth, params, flops, baselines: [{name, values}]}
///     rank_scores(input[, bootstrap_settings]) -> ranking_report
///         .nsc                 rank_summary of the score
///         .baselines[k]        {name, summary, tau_b_diff, rho_diff} (differences: NSC minus
///                              the baseline, interval and verdict; only with a bootstrap)
///         .nsc_tau_b_ci, .nsc_rho_ci, .bootstrap (settings used)
///
/// Conventions: the truth is higher-is-better (negate a perplexity first); so is every score.
/// Each summary is `summarize` against the truth with #Params as the 10%-PW control, and the
/// partial tau controls for #Params and #FLOPs except a control equal to the score itself
/// (element by element): a score controlled for itself has no residual, so the #Params baseline
/// is controlled for #FLOPs only and the #FLOPs baseline for #Params only (what the families
/// always did). A partial tau is empty (n/a) when the residuals vanish, e.g. when #Params and
/// #FLOPs are rank-equivalent.
///
/// Errors: std::invalid_argument "nsc::eval::rank_scores: ..." for vectors of different
/// lengths, fewer than 2 observations, NaN/inf values, a baseline without a name; the
/// bootstrap's own errors.
#ifndef NSC_EVAL_RANK_SCORES_HPP
#define NSC_EVAL_RANK_SCORES_HPP

#include <nsc/error_handling.hpp>
#include <nsc/eval/bootstrap.hpp>
#include <nsc/eval/ranking.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace nsc::eval {

/// A named score column (a baseline).
struct score_column {
  std::string name;
  std::vector<double> values;
};

/// Aligned per-architecture vectors: the score (NSC), the truth (higher is better), the
/// controls #Params and #FLOPs, and the baselines to compare NSC with.
struct ranking_input {
  std::vector<std::string> ids;
  std::vector<double> score, truth, params, flops;
  std::vector<score_column> baselines;
  std::size_t size() const noexcept { return score.size(); }
};

/// One baseline's statistics and its comparison with NSC.
struct baseline_ranking {
  std::string name;
  rank_summary summary;
  std::optional<bootstrap_interval> tau_b_diff; ///< NSC - baseline, with a bootstrap
  std::optional<bootstrap_interval> rho_diff;
};

/// Everything rank_scores computes.
struct ranking_report {
  rank_summary nsc;
  std::vector<baseline_ranking> baselines;
  std::optional<bootstrap_settings> bootstrap;   ///< the settings used, if any
  std::optional<bootstrap_interval> nsc_tau_b_ci; ///< NSC's own tau-b interval
  std::optional<bootstrap_interval> nsc_rho_ci;
};

namespace detail {

inline bool same_values(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

/// summarize() with the partial tau's controls {params, flops} minus those equal to `score`.
inline rank_summary summarize_controlled(std::span<const double> score, const ranking_input& in) {
  rank_summary s = summarize(score, in.truth, in.params, in.flops);
  const bool own_params = same_values(score, in.params), own_flops = same_values(score, in.flops);
  if (own_params && !own_flops)
    s.partial_tau = partial_kendall_tau(score, in.truth, {std::span<const double>(in.flops)});
  else if (own_flops && !own_params)
    s.partial_tau = partial_kendall_tau(score, in.truth, {std::span<const double>(in.params)});
  else if (own_flops && own_params)
    s.partial_tau.reset();
  return s;
}

} // namespace detail

/// The statistics of the score and of every baseline, and with `boot` the paired bootstrap
/// of tau-b and rho differences (see the file comment). O((k + 1) n log n) without, plus
/// O(B (k + 1) n log n) with B resamples.
inline ranking_report rank_scores(const ranking_input& in,
                                  const std::optional<bootstrap_settings>& boot = std::nullopt) {
  constexpr const char* fn = "nsc::eval::rank_scores";
  const std::size_t n = in.score.size();
  detail::require_paired(fn, in.score, in.truth, "score", "truth");
  detail::require_same_length(fn, "score", n, "params", in.params.size());
  detail::require_same_length(fn, "score", n, "flops", in.flops.size());
  if (!in.ids.empty()) detail::require_same_length(fn, "score", n, "ids", in.ids.size());
  for (const score_column& b : in.baselines) {
    if (b.name.empty()) throw_invalid_argument(fn, "a baseline needs a name", "\"\"");
    detail::require_same_length(fn, "score", n, b.name.c_str(), b.values.size());
    detail::require_finite(fn, b.name.c_str(), b.values);
  }
  ranking_report out;
  out.nsc = detail::summarize_controlled(in.score, in);
  for (const score_column& b : in.baselines)
    out.baselines.push_back({b.name, detail::summarize_controlled(b.values, in), {}, {}});
  if (!boot) return out;
  std::vector<std::span<const double>> cols{std::span<const double>(in.score)};
  for (const score_column& b : in.baselines) cols.emplace_back(b.values);
  const bootstrap_result r = paired_bootstrap(cols, in.truth, *boot);
  out.bootstrap = *boot;
  out.nsc_tau_b_ci = r.interval(0, rank_statistic::tau_b);
  out.nsc_rho_ci = r.interval(0, rank_statistic::rho);
  for (std::size_t k = 0; k < in.baselines.size(); ++k) {
    out.baselines[k].tau_b_diff = r.difference(k + 1, rank_statistic::tau_b);
    out.baselines[k].rho_diff = r.difference(k + 1, rank_statistic::rho);
  }
  return out;
}

} // namespace nsc::eval

#endif // NSC_EVAL_RANK_SCORES_HPP
