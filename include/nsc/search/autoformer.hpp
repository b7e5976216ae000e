/// \file nsc/search/autoformer.hpp
/// NSC-DP on the AutoFormer spaces (reference-conventions.md, "AutoFormer (search)").
///
/// Synopsis
/// --------
///     auto r = nsc::search::search_autoformer(nsc::search::autoformer_space("tiny"));
///     r.best->arch.embed_dim, r.best->arch.mlp_ratio, r.best->arch.num_heads, r.best->params
///     search_autoformer(space, {.param_limit = 6e6, .front = true})
///
/// Description
/// -----------
/// Outer enumeration over (embed_dim e, depth D); per pair a knapsack over the D layers, each
/// layer choosing an MLP ratio r and a head count h, scored with the search convention
/// (head dim 64, q = 64 h, f = int(e r)):
///
///     layer value  psi_X(3q, e) + psi_X(e, q) + psi_X(f, e) + psi_X(e, f)
///     layer cost   3qe + 3q + qe + e + 2e + 2ef + f + e + 2e
///     fixed        psi_X(e, 768) and 969 e params (patch embedding, cls, positions, final norm)
///
/// and the budget is an upper bound on the total params (the space's limit: Tiny 5.9M, Small
/// 23.5M, Base 54.5M, or settings.param_limit). Two exact methods:
///
///  * joint (the paper's): one knapsack with D identical groups of |r| x |h| options, costs
///    reduced by their gcd by solve_mck (Small: unit 192, up to ~34,000 cells).
///  * factored (default): value and cost are sums of an attention term (depends on h only:
///    psi_X(3q, e) + psi_X(e, q), q (4e + 3)) and an FFN term (r only: psi_X(f, e) + psi_X(e, f),
///    f (2e + 1)) plus 6e per layer. The D x (r, h) choice is then two independent choices per
///    layer, so the instance splits into an attention knapsack (D groups of |h| options) and an
///    FFN knapsack (D groups of |r| options), each reduced by its own gcd (a few dozen cells),
///    and the optimum for a budget b is the best pair of front points with cost sum <= b
///    (a max-plus combination of the two fronts). Exact: in an optimal selection each part is
///    optimal for its own cost, and a front point of that part is at least as good for no
///    more cost. 10^2 - 10^4 times less DP work than joint on these spaces.
///
/// The two methods return the same NSC (up to the order of floating additions, ~1e-12
/// relative) and the same multisets of h and of r; with several (r, h) pairings of the same
/// multisets (all score and cost the same) they may pair them differently.
/// Reported candidates are re-scored with presets::autoformer_search_nsc / _params.
///
/// Without the front, outer configurations are visited in descending order of an upper bound
/// (fixed score + the LP relaxation of their identical layers, nsc::search::
/// identical_groups_lp_bound) and those whose bound is below the incumbent get no DP (branch
/// and bound; exact).
///
/// Tie-breaking (deterministic): higher NSC, then fewer params, then the earlier outer
/// configuration in the space's order (embed_dim, then depth), whatever the visiting order; inside a DP the lowest option index wins (joint:
/// options r-major, h-minor in the space's list order), the smallest cost achieving the best
/// value is taken, and (factored) pairs of front points are scanned attention-major.
#ifndef NSC_SEARCH_AUTOFORMER_HPP
#define NSC_SEARCH_AUTOFORMER_HPP

#include <nsc/error_handling.hpp>
#include <nsc/presets/autoformer.hpp>
#include <nsc/search/common.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>
#include <nsc/search/pareto.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::search {

/// How search_autoformer solves each (embed_dim, depth) (see the file comment).
enum class autoformer_method { factored, joint };

constexpr std::string_view to_string(autoformer_method m) noexcept {
  return m == autoformer_method::factored ? "factored" : "joint";
}

/// Parses "factored" or "joint"; std::invalid_argument otherwise.
inline autoformer_method parse_autoformer_method(std::string_view name) {
  if (name == "factored") return autoformer_method::factored;
  if (name == "joint") return autoformer_method::joint;
  throw_invalid_argument("nsc::search::parse_autoformer_method",
                         "unknown method; expected factored or joint", std::string(name));
}

/// The reference's spaces by name: "tiny", "small" or "base" (case-sensitive);
/// std::invalid_argument otherwise.
inline presets::autoformer_search_space autoformer_space(std::string_view name) {
  if (name == "tiny") return presets::autoformer_tiny_space();
  if (name == "small") return presets::autoformer_small_space();
  if (name == "base") return presets::autoformer_base_space();
  throw_invalid_argument("nsc::search::autoformer_space",
                         "unknown AutoFormer space; expected tiny, small or base",
                         std::string(name));
}

/// One subnet with its search-convention params and NSC.
struct autoformer_candidate {
  presets::autoformer_arch arch;
  std::int64_t params = 0; ///< presets::autoformer_search_params(arch)
  double nsc = 0;          ///< presets::autoformer_search_nsc(arch)
};

/// Settings of search_autoformer.
struct autoformer_search_settings {
  std::optional<double> param_limit; ///< upper bound on params (default: the space's limit)
  bool front = false;                ///< also return the merged front for every budget <= limit
  autoformer_method method = autoformer_method::factored;
  mck_settings mck{};
};

/// Outcome of search_autoformer.
struct autoformer_search_result {
  std::string space;
  std::int64_t limit = 0; ///< floor of the params limit used
  autoformer_method method = autoformer_method::factored;
  std::optional<autoformer_candidate> best; ///< nullopt: nothing fits the limit
  std::vector<autoformer_candidate> front;  ///< ascending params, strictly ascending NSC
  search_stats stats;
};

namespace detail {

inline void check_af_space(const presets::autoformer_search_space& s, std::string_view fn) {
  if (s.embed_dim.empty()) throw_invalid_argument(fn, "the space needs at least one embed_dim");
  if (s.depth.empty()) throw_invalid_argument(fn, "the space needs at least one depth");
  if (s.mlp_ratio.empty()) throw_invalid_argument(fn, "the space needs at least one mlp_ratio");
  if (s.num_heads.empty()) throw_invalid_argument(fn, "the space needs at least one num_heads");
  for (std::int64_t e : s.embed_dim)
    if (e < 1) throw_invalid_argument(fn, "embed_dim values must be >= 1", e);
  for (std::int64_t d : s.depth)
    if (d < 1) throw_invalid_argument(fn, "depth values must be >= 1", d);
  for (double r : s.mlp_ratio)
    if (!(std::isfinite(r) && r > 0)) throw_invalid_argument(fn, "mlp_ratio values must be > 0", r);
  for (std::int64_t h : s.num_heads)
    if (h < 1) throw_invalid_argument(fn, "num_heads values must be >= 1", h);
  if (s.mlp_ratio.size() * s.num_heads.size() > 255)
    throw_invalid_argument(fn, "at most 255 (mlp_ratio, num_heads) pairs are supported",
                           s.mlp_ratio.size() * s.num_heads.size());
}

/// Where a front point comes from: outer configuration, and the inner cost(s) to reconstruct.
struct af_tag {
  std::size_t config = 0;
  std::int64_t cost_a = 0; ///< joint: the inner cost; factored: the attention knapsack's cost
  std::int64_t cost_f = 0; ///< factored: the FFN knapsack's cost
};

} // namespace detail

/// NSC-DP over an AutoFormer space (see the file comment). Errors: std::invalid_argument
/// "nsc::search::search_autoformer: ..." for an empty or invalid list or a limit that is not
/// finite and >= 0; the knapsack's errors. Nothing fitting is a result with best == nullopt.
inline autoformer_search_result search_autoformer(const presets::autoformer_search_space& space,
                                                  const autoformer_search_settings& settings = {}) {
  constexpr std::string_view fn = "nsc::search::search_autoformer";
  detail::check_af_space(space, fn);
  autoformer_search_result out;
  out.space = space.name;
  out.method = settings.method;
  out.limit = budget_floor(settings.param_limit.value_or(space.param_limit), fn);
  const std::int64_t limit = out.limit;
  const bool joint = settings.method == autoformer_method::joint;

  struct config {
    std::size_t order = 0;      ///< position in the space's (embed_dim, depth) order
    std::size_t ei = 0;         ///< index into space.embed_dim
    std::int64_t e = 0;
    std::int64_t depth = 0;
    std::int64_t base_cost = 0; ///< fixed part (+ 6 e D when factored)
    std::int64_t room = 0;      ///< limit - base_cost: the knapsack's budget
    double fixed_value = 0;
    double bound = 0;           ///< no subnet of this configuration exceeds it
    std::optional<mck_result<double>> a, f; ///< joint: a only
  };
  // Per-e tables: joint (r, h) options, or the attention (h) and FFN (r) terms.
  struct tables {
    double fixed_value = 0;
    std::int64_t fixed_cost = 0;
    std::vector<mck_option<double>> joint, attn, ffn, pairs; ///< pairs: attn + ffn (bounds)
  };
  auto min_cost = [](const std::vector<mck_option<double>>& o) {
    std::int64_t m = o[0].cost;
    for (const auto& x : o) m = std::min(m, x.cost);
    return m;
  };
  std::vector<tables> per_e;
  for (std::int64_t e : space.embed_dim) {
    tables t;
    t.fixed_value = presets::autoformer_search_fixed_score(e);
    t.fixed_cost = presets::autoformer_search_fixed_params(e);
    if (joint) {
      for (double r : space.mlp_ratio)
        for (std::int64_t h : space.num_heads)
          t.joint.push_back({presets::autoformer_search_layer_score(e, r, h),
                             presets::autoformer_search_layer_params(e, r, h)});
      out.stats.layer_scores += t.joint.size();
    } else {
      const double E = double(e);
      for (double r : space.mlp_ratio) // validates every pair (std::invalid_argument)
        for (std::int64_t h : space.num_heads) presets::autoformer_search_layer_params(e, r, h);
      for (std::int64_t h : space.num_heads) {
        const std::int64_t q = presets::autoformer_search_head_dim * h;
        double v = presets::psi_xavier(3 * double(q), E);
        v += presets::psi_xavier(E, double(q));
        t.attn.push_back({v, q * (4 * e + 3)});
      }
      for (double r : space.mlp_ratio) {
        const std::int64_t f = presets::autoformer_mlp_width(e, r);
        double v = presets::psi_xavier(double(f), E);
        v += presets::psi_xavier(E, double(f));
        t.ffn.push_back({v, f * (2 * e + 1)});
      }
      for (const auto& x : t.attn)
        for (const auto& y : t.ffn) t.pairs.push_back({x.value + y.value, x.cost + y.cost});
      out.stats.layer_scores += t.attn.size() + t.ffn.size();
    }
    per_e.push_back(std::move(t));
  }
  std::vector<config> configs;
  for (std::size_t ei = 0; ei < space.embed_dim.size(); ++ei) {
    const tables& t = per_e[ei];
    for (std::int64_t depth : space.depth) {
      config c;
      c.order = configs.size();
      c.ei = ei;
      c.e = space.embed_dim[ei];
      c.depth = depth;
      c.fixed_value = t.fixed_value;
      c.base_cost = t.fixed_cost + (joint ? 0 : 6 * c.e * depth);
      c.room = limit - c.base_cost;
      c.bound = c.room < 0 ? -std::numeric_limits<double>::infinity()
                           : t.fixed_value + identical_groups_lp_bound(joint ? t.joint : t.pairs,
                                                                       depth, c.room);
      configs.push_back(std::move(c));
    }
  }
  // Best only: most promising configurations first; skip those whose bound cannot beat the
  // incumbent (branch and bound). Ties: higher NSC, then fewer params, then the earlier
  // configuration in the space's order, whatever the visiting order.
  std::vector<std::size_t> visit(configs.size());
  for (std::size_t i = 0; i < visit.size(); ++i) visit[i] = i;
  if (!settings.front)
    std::stable_sort(visit.begin(), visit.end(), [&](std::size_t x, std::size_t y) {
      return configs[y].bound < configs[x].bound;
    });

  std::vector<std::vector<pareto_point<double, detail::af_tag>>> points;
  std::optional<pareto_point<double, detail::af_tag>> best;
  auto offer = [&](std::int64_t cost, double value, const detail::af_tag& t) {
    if (settings.front) {
      points.back().push_back({cost, value, t});
    } else if (!best || best->value < value ||
               (best->value == value &&
                (cost < best->cost || (cost == best->cost && t.config < best->tag.config)))) {
      best = pareto_point<double, detail::af_tag>{cost, value, t};
    }
  };

  for (std::size_t index : visit) {
    config& c = configs[index];
    const tables& t = per_e[c.ei];
    const auto D = static_cast<std::size_t>(c.depth);
    ++out.stats.outer_configs;
    const std::int64_t cheapest = joint ? c.depth * min_cost(t.joint)
                                        : c.depth * (min_cost(t.attn) + min_cost(t.ffn));
    if (c.room < cheapest) {
      ++out.stats.skipped;
      continue;
    }
    if (!settings.front && best && c.bound < best->value) {
      ++out.stats.bounded;
      continue;
    }
    if (settings.front) points.emplace_back();
    if (joint) {
      const mck_groups<double> groups(D, t.joint);
      c.a.emplace(solve_mck(groups, c.room, settings.mck));
      out.stats.add(*c.a, groups);
      if (settings.front) {
        for (const auto& p : c.a->front())
          offer(c.base_cost + p.cost, c.fixed_value + p.value, {index, p.cost, 0});
      } else if (const auto v = c.a->best(c.room)) {
        offer(c.base_cost + *c.a->best_cost(c.room), c.fixed_value + *v,
              {index, *c.a->best_cost(c.room), 0});
      }
    } else {
      const mck_groups<double> ga(D, t.attn), gf(D, t.ffn);
      c.a.emplace(solve_mck(ga, c.room - c.depth * min_cost(t.ffn), settings.mck));
      c.f.emplace(solve_mck(gf, c.room - c.depth * min_cost(t.attn), settings.mck));
      out.stats.add(*c.a, ga);
      out.stats.add(*c.f, gf);
      const auto fa = c.a->front(), ff = c.f->front();
      out.stats.cell_updates += std::uint64_t(fa.size()) * ff.size(); // the combination
      for (const auto& pa : fa) {
        for (const auto& pf : ff) {
          if (pa.cost + pf.cost > c.room) break; // ff ascends in cost
          offer(c.base_cost + pa.cost + pf.cost, c.fixed_value + (pa.value + pf.value),
                {index, pa.cost, pf.cost});
        }
      }
    }
  }

  const std::size_t nh = space.num_heads.size();
  auto candidate = [&](const detail::af_tag& t) {
    const config& c = configs[t.config];
    autoformer_candidate a;
    a.arch.embed_dim = c.e;
    const auto D = static_cast<std::size_t>(c.depth);
    a.arch.mlp_ratio.resize(D);
    a.arch.num_heads.resize(D);
    if (joint) {
      const auto ch = *c.a->choice(t.cost_a);
      for (std::size_t l = 0; l < D; ++l) {
        a.arch.mlp_ratio[l] = space.mlp_ratio[ch[l] / nh];
        a.arch.num_heads[l] = space.num_heads[ch[l] % nh];
      }
    } else {
      const auto ca = *c.a->choice(t.cost_a), cf = *c.f->choice(t.cost_f);
      for (std::size_t l = 0; l < D; ++l) {
        a.arch.mlp_ratio[l] = space.mlp_ratio[cf[l]];
        a.arch.num_heads[l] = space.num_heads[ca[l]];
      }
    }
    a.params = presets::autoformer_search_params(a.arch);
    a.nsc = presets::autoformer_search_nsc(a.arch);
    return a;
  };

  if (settings.front) {
    const auto merged = merge_fronts(std::move(points));
    for (const auto& p : merged) out.front.push_back(candidate(p.tag));
    if (!merged.empty()) out.best = out.front.back();
  } else if (best) {
    out.best = candidate(best->tag);
  }
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_AUTOFORMER_HPP
