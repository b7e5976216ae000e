/// \file nsc/search/lonas.hpp
/// NSC-DP pruning in the LoNAS style: per layer an FFN width and a q/k/v LoRA rank
/// (reference-conventions.md, "LoNAS LLaMA-7B (pruning)" and "The searches").
///
/// Synopsis
/// --------
///     auto space = nsc::search::lonas_llama7b_space();              // the paper's preset
///     auto space = nsc::search::lonas_space_from_spec(hf.spec);     // any llama-like model
///     auto r = nsc::search::search_lonas(space, {.max_params = 5.7e9});
///     r.best->widths, r.best->ranks, r.best->params, r.best->tflops, r.best->nsc
///     r.front                                                       // one optimum per reachable cost
///     nsc::search::lonas_apply(hf.spec, *r.best, settings)          // the pruned spec (emit a config)
///
/// Description
/// -----------
/// Every layer picks one of |ranks| x |widths| options (rank-major, widths in the space's order);
/// the layers are identical groups. One knapsack pass over the whole cost range (no budget:
/// budget = the sum of the layers' largest costs) gives the optimum for every budget at once;
/// the budgeted answer is read off that front (best_within). A LoRA rank costs nothing (adapters
/// are not counted), so at equal width only the better rank survives (same-cost pruning).
///
/// The paper's preset (lonas_llama7b_space) takes its numbers from nsc/presets/lonas.hpp:
/// layer score presets::lonas_layer_score, params 4 H^2 + 2 H + 3 H k, MACs per sequence
/// 4 H^2 T + 2 T^2 H + 3 H k T, fixed 2 V H params and H V T MACs (TFLOPs = MACs / 1e12 at
/// T = 256). Known answer at 5.7e9: rank 32 everywhere, width 8256 in 30 layers and 9632 in 2,
/// 5,690,097,664 params, NSC 881196.752; the front has 129 points (every FFN sum, in steps of
/// 1376 x 3 H params) from 4,574,150,656 to 6,738,411,520 params.
///
/// The generic space (lonas_space_from_spec) is derived from a transformer_spec (e.g. a Hugging
/// Face config read by nsc/io/hf_config.hpp) with identical layers: widths
/// floor(intermediate_size * j / 8) for j in {8, 7, 6, 5, 4} (exact for every LoNAS config:
/// 11008 -> 11008, 9632, 8256, 6880, 5504), q/k/v LoRA ranks {32, 28}, the other adapters
/// (o, gate, up, down) at rank 32, Q/K/V and the output projection scored per head, Xavier of
/// each block (scoring{}): the reference's LoNAS convention for any llama-like model. Each option
/// is built with make_block and scored with nsc::score / counted with nsc::count; the fixed part
/// is the rest of make_transformer(spec) (embeddings, LM head, and the final norm only when
/// count_final_norm: the reference formula leaves it out, so by default LLaMA-7B counts exactly
/// as the preset, 4096 below Hugging Face's 6,738,415,616).
///
/// The knapsack: by default one pass of solve_mck over the L groups. The layers are identical
/// groups, so settings.identical_groups = true solves them as one class of L groups instead
/// (solve_mmck_classes: the rank x width product split, one multiset table of the widths by
/// max-plus doubling, ~3,000 updates instead of 41,280) with the same front (tested);
/// settings.lazy_front then returns the front's values only (front_points) and builds a
/// candidate on request (lonas_front_candidate), since building the 129 candidates of 32 layers
/// costs more than the DP (README speed-up table). With the identical-group path, stats.cells
/// counts the class points kept and stats.cell_updates the engine's work (table updates and
/// merged pairs), not table cells.
///
/// Tie-breaking (deterministic): lowest option index wins an exact tie at a DP cell (rank 32
/// before 28, wider before narrower); a budget's answer is the cheapest cost reaching the best
/// value. Layers are identical groups: compare multisets of (rank, width), not orders.
#ifndef NSC_SEARCH_LONAS_HPP
#define NSC_SEARCH_LONAS_HPP

#include <nsc/error_handling.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/presets/lonas.hpp>
#include <nsc/detail/checked.hpp>
#include <nsc/search/common.hpp>
#include <nsc/search/multi_knapsack.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>
#include <nsc/search/pareto.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::search {

/// One per-layer option with its layer score and costs.
struct lonas_space_option {
  std::int64_t rank = 0;   ///< q/k/v LoRA rank
  std::int64_t width = 0;  ///< FFN intermediate width
  double nsc = 0;          ///< the layer's score
  std::int64_t params = 0; ///< the layer's params
  std::int64_t macs = 0;   ///< the layer's multiply-accumulates for one sequence of seq_len tokens
};

/// A LoNAS-style space: `layers` identical groups of `options`, plus a fixed part.
struct lonas_space {
  std::string name;
  std::int64_t layers = 0;
  std::int64_t seq_len = presets::lonas_seq_len;
  std::vector<std::int64_t> ranks;  ///< q/k/v ranks, in option order
  std::vector<std::int64_t> widths; ///< FFN widths, in option order (first: the unpruned width)
  std::int64_t adapter_rank = presets::lonas_lora_rank; ///< o / gate / up / down adapters
  std::vector<lonas_space_option> options;               ///< rank-major, width-minor
  std::int64_t fixed_params = 0; ///< embeddings, LM head (final norm only if counted)
  std::int64_t fixed_macs = 0;   ///< LM head MACs for one sequence
  double fixed_nsc = 0;          ///< scored matrices outside the layers (0 in the reference)
  /// Index of the unpruned option (largest rank, largest width).
  std::size_t unpruned_option() const {
    std::size_t best = 0;
    for (std::size_t j = 1; j < options.size(); ++j) {
      const auto& a = options[j];
      const auto& b = options[best];
      if (a.width > b.width || (a.width == b.width && a.rank > b.rank)) best = j;
    }
    return best;
  }
};

/// The paper's LLaMA-7B space (nsc/presets/lonas.hpp) at sequence length T for the TFLOPs.
inline lonas_space lonas_llama7b_space(std::int64_t seq_len = presets::lonas_seq_len) {
  if (seq_len < 1)
    throw_invalid_argument("nsc::search::lonas_llama7b_space", "seq_len must be >= 1", seq_len);
  lonas_space s;
  s.name = "lonas-llama-7b";
  s.layers = presets::lonas_layers;
  s.seq_len = seq_len;
  s.ranks.assign(presets::lonas_ranks.begin(), presets::lonas_ranks.end());
  s.widths.assign(presets::lonas_widths.begin(), presets::lonas_widths.end());
  const std::int64_t H = presets::lonas_hidden, T = seq_len;
  for (const presets::lonas_option& o : presets::lonas_options()) {
    lonas_space_option x;
    x.rank = o.rank;
    x.width = o.width;
    x.nsc = presets::lonas_layer_score(o);
    x.params = presets::lonas_layer_params(o);
    x.macs = 4 * H * H * T + 2 * T * T * H + 3 * H * o.width * T;
    s.options.push_back(x);
  }
  s.fixed_params = presets::lonas_fixed_params();
  s.fixed_macs = H * presets::lonas_vocab * T;
  return s;
}

/// How lonas_space_from_spec derives the space.
struct lonas_space_settings {
  /// Widths floor(intermediate_size * j / 8) for these j (duplicates dropped); the LoNAS ladder.
  std::vector<std::int64_t> width_eighths{8, 7, 6, 5, 4};
  std::vector<std::int64_t> ranks{32, 28};          ///< q/k/v LoRA ranks
  std::int64_t adapter_rank = presets::lonas_lora_rank; ///< o / gate / up / down adapters
  std::int64_t seq_len = presets::lonas_seq_len;     ///< T of the MACs (TFLOPs)
  bool count_final_norm = false; ///< add the final norm to the params (HF's exact count)
  qkv_layout qkv = qkv_layout::per_head; ///< how Q/K/V are scored (the reference: per head)
  out_layout out = out_layout::per_head; ///< how o_proj is scored (the reference: per head)
  scoring rule{};                        ///< Xavier of each block, psi_MP (the reference)
};

/// floor(intermediate * j / 8) for each j of `eighths`, duplicates dropped, order kept.
/// std::invalid_argument unless intermediate >= 1 and every j in [1, 8] gives a width >= 1.
inline std::vector<std::int64_t> lonas_widths_for(std::int64_t intermediate,
                                                  const std::vector<std::int64_t>& eighths) {
  constexpr std::string_view fn = "nsc::search::lonas_widths_for";
  if (intermediate < 1) throw_invalid_argument(fn, "intermediate_size must be >= 1", intermediate);
  if (eighths.empty()) throw_invalid_argument(fn, "at least one width fraction is needed");
  std::vector<std::int64_t> w;
  for (std::int64_t j : eighths) {
    if (j < 1 || j > 8) throw_invalid_argument(fn, "width fractions j / 8 need j in [1, 8]", j);
    const std::int64_t k = intermediate * j / 8;
    if (k < 1) throw_invalid_argument(fn, "every width must be >= 1", k);
    if (std::find(w.begin(), w.end(), k) == w.end()) w.push_back(k);
  }
  return w;
}

namespace detail {

/// The block of option (rank, width): per-head scoring layouts and the LoNAS adapters.
inline block_spec lonas_block(const block_spec& base, std::int64_t rank, std::int64_t width,
                              const lonas_space_settings& s) {
  block_spec b = base;
  b.attention.qkv = s.qkv;
  b.attention.out = s.out;
  b.attention.lora_q = b.attention.lora_k = b.attention.lora_v = rank;
  b.attention.lora_o = s.adapter_rank;
  b.ffn.d_ff = width;
  b.ffn.lora_gate = b.ffn.gated ? s.adapter_rank : 0;
  b.ffn.lora_up = b.ffn.lora_down = s.adapter_rank;
  return b;
}

inline bool lonas_same_block(const block_spec& a, const block_spec& b) {
  const attention_spec &x = a.attention, &y = b.attention;
  const ffn_spec &f = a.ffn, &g = b.ffn;
  return x.d_model == y.d_model && x.n_heads == y.n_heads && x.kv_heads() == y.kv_heads() &&
         x.head_size() == y.head_size() && x.qkv_bias == y.qkv_bias && x.out_bias == y.out_bias &&
         f.d_ff == g.d_ff && f.gated == g.gated && f.bias == g.bias &&
         f.n_experts == g.n_experts && f.top_k == g.top_k && a.norm == b.norm &&
         a.n_norms == b.n_norms;
}

} // namespace detail

/// The LoNAS space of a Transformer with identical layers (see the file comment). Errors:
/// std::invalid_argument "nsc::search::lonas_space_from_spec: ..." when the spec has no layers,
/// its layers differ (other than in LoRA ranks), a rank is < 1, seq_len < 1, or the spec is
/// malformed (make_transformer's messages).
inline lonas_space lonas_space_from_spec(const transformer_spec& spec,
                                         const lonas_space_settings& s = {}) {
  constexpr std::string_view fn = "nsc::search::lonas_space_from_spec";
  validate(spec, fn);
  if (spec.blocks.empty()) throw_invalid_argument(fn, "the model needs at least one layer");
  if (s.seq_len < 1) throw_invalid_argument(fn, "seq_len must be >= 1", s.seq_len);
  if (s.ranks.empty()) throw_invalid_argument(fn, "at least one q/k/v rank is needed");
  for (std::int64_t r : s.ranks)
    if (r < 1) throw_invalid_argument(fn, "LoRA ranks must be >= 1", r);
  if (s.adapter_rank < 0) throw_invalid_argument(fn, "adapter_rank must be >= 0", s.adapter_rank);
  block_spec base = spec.blocks[0];
  base.attention.d_model = base.ffn.d_model = spec.d_model;
  for (std::size_t i = 1; i < spec.blocks.size(); ++i) {
    block_spec b = spec.blocks[i];
    b.attention.d_model = b.ffn.d_model = spec.d_model;
    if (!detail::lonas_same_block(base, b))
      throw_invalid_argument(fn,
                             "every layer must have the same shape (widths are derived from "
                             "layer 0's intermediate size); layer differs",
                             i);
  }
  lonas_space out;
  out.name = spec.name;
  out.layers = static_cast<std::int64_t>(spec.blocks.size());
  out.seq_len = s.seq_len;
  out.ranks = s.ranks;
  out.widths = lonas_widths_for(base.ffn.d_ff, s.width_eighths);
  out.adapter_rank = s.adapter_rank;
  const double T = double(s.seq_len);
  psi_cache cache;
  for (std::int64_t r : out.ranks) {
    for (std::int64_t w : out.widths) {
      const layer l = make_block(detail::lonas_block(base, r, w, s), T, "layer", spec.lora);
      const resources res = count(l);
      lonas_space_option o;
      o.rank = r;
      o.width = w;
      o.nsc = score(l, s.rule, &cache).nsc;
      o.params = res.total();
      o.macs = std::llround(res.macs * T);
      out.options.push_back(o);
    }
  }
  // The fixed part: everything make_transformer builds outside "layers.<i>".
  transformer_spec one = spec;
  one.blocks.assign(1, detail::lonas_block(base, out.ranks[0], out.widths[0], s));
  const network net = make_transformer(one, T);
  for (const layer& l : net.layers) {
    if (l.name.rfind("layers.", 0) == 0) continue;
    const resources res = count(l);
    if (l.name != "final_norm" || s.count_final_norm) out.fixed_params += res.total();
    out.fixed_macs += std::llround(res.macs * T);
    out.fixed_nsc += score(l, s.rule, &cache).nsc;
  }
  return out;
}

/// One pruned model: per layer a width and a q/k/v rank, with its totals.
struct lonas_candidate {
  std::vector<std::int64_t> widths; ///< FFN width per layer
  std::vector<std::int64_t> ranks;  ///< q/k/v LoRA rank per layer
  std::int64_t params = 0;
  std::int64_t macs = 0;            ///< per sequence of seq_len tokens
  double tflops = 0;                ///< macs / 1e12 (the paper's TFLOPs: multiply-accumulates)
  double nsc = 0;
  std::int64_t ffn_sum() const {
    std::int64_t s = 0;
    for (std::int64_t w : widths) s += w;
    return s;
  }
};

/// What the budget bounds.
enum class lonas_cost { params, macs };

/// Settings of search_lonas.
struct lonas_search_settings {
  /// Upper bound on the cost (params, or MACs per sequence when cost == macs); nullopt: no
  /// budget (the best is the unconstrained optimum, the front's last point).
  std::optional<double> budget;
  lonas_cost cost = lonas_cost::params;
  mck_settings mck{};
  /// true: combine the identical layers by doubling their Pareto set (solve_mmck's identical-group
  /// path, O(log L) merges). Default false: the one-pass solve_mck over L groups (same answers;
  /// measured faster end to end for LLaMA-7B's 32 x 10 options, see the README).
  bool identical_groups = false;
  /// With identical_groups: leave `front` empty and fill `front_points` (cost, NSC) only; the
  /// candidate of point i (widths, ranks, params, MACs) is built on request by
  /// lonas_front_candidate(space, result, i). `best` is always a full candidate.
  bool lazy_front = false;
};

/// Outcome of search_lonas.
struct lonas_search_result {
  std::optional<lonas_candidate> best;  ///< nullopt: the budget is below the cheapest model
  std::vector<lonas_candidate> front;   ///< every point of the one-pass front, ascending cost
  lonas_candidate unpruned;             ///< every layer at the unpruned option
  std::optional<std::int64_t> budget;   ///< the integer budget used (floor), if any
  lonas_cost cost = lonas_cost::params;
  search_stats stats;
  /// lazy_front: every front point (cost incl. the fixed part, NSC incl. the fixed part)
  std::vector<pareto_point<double>> front_points;
  /// lazy_front: the solved engine, for lonas_front_candidate
  std::shared_ptr<const mmck_result<double>> engine;
};

/// The candidate made of option indices `choice` (one per layer).
inline lonas_candidate lonas_make_candidate(const lonas_space& s,
                                            const std::vector<std::size_t>& choice) {
  lonas_candidate c;
  c.params = s.fixed_params;
  c.macs = s.fixed_macs;
  c.widths.reserve(choice.size());
  c.ranks.reserve(choice.size());
  double v = 0;
  for (std::size_t j : choice) {
    const lonas_space_option& o = s.options.at(j);
    c.widths.push_back(o.width);
    c.ranks.push_back(o.rank);
    c.params += o.params;
    c.macs += o.macs;
    v += o.nsc;
  }
  c.nsc = s.fixed_nsc + v;
  c.tflops = double(c.macs) / 1e12;
  return c;
}

/// NSC-DP over a LoNAS space (see the file comment): one pass, the whole front, the answer for
/// settings.budget. Errors: std::invalid_argument "nsc::search::search_lonas: ..." for a space
/// without layers or options, a negative cost, or a budget that is not finite and >= 0.
inline lonas_search_result search_lonas(const lonas_space& space,
                                        const lonas_search_settings& settings = {}) {
  constexpr std::string_view fn = "nsc::search::search_lonas";
  if (space.layers < 1) throw_invalid_argument(fn, "the space needs at least one layer", space.layers);
  if (space.options.empty()) throw_invalid_argument(fn, "the space needs at least one option");
  if (space.options.size() > 255)
    throw_invalid_argument(fn, "at most 255 options per layer are supported", space.options.size());
  const bool by_macs = settings.cost == lonas_cost::macs;
  std::vector<mck_option<double>> options;
  std::int64_t largest = 0;
  for (const lonas_space_option& o : space.options) {
    const std::int64_t c = by_macs ? o.macs : o.params;
    if (c < 0) throw_invalid_argument(fn, "option costs must be >= 0", c);
    options.push_back({o.nsc, c});
    largest = std::max(largest, c);
  }
  const std::int64_t fixed = by_macs ? space.fixed_macs : space.fixed_params;
  lonas_search_result out;
  out.cost = settings.cost;
  out.stats.layer_scores = options.size();
  out.stats.outer_configs = 1;
  out.unpruned = lonas_make_candidate(
      space, std::vector<std::size_t>(std::size_t(space.layers), space.unpruned_option()));
  if (settings.budget) out.budget = budget_floor(*settings.budget, fn);

  const std::int64_t top = nsc::detail::checked_mul(space.layers, largest, fn, "the largest total cost");
  std::vector<pareto_point<double>> front;
  if (settings.identical_groups) {
    std::vector<mmck_option<double>> layer;
    for (const auto& o : options) layer.push_back({o.value, {o.cost}});
    mmck_settings ms;
    ms.max_table_bytes = settings.mck.max_table_bytes;
    auto r = std::make_shared<const mmck_result<double>>(
        solve_mmck_classes(std::vector<mmck_class<double>>{{std::move(layer), std::size_t(space.layers)}}, {top}, ms));
    ++out.stats.dp_runs;
    out.stats.cells += r->info().states;
    out.stats.cell_updates += r->info().work;
    for (std::size_t i = 0; i < r->front().size(); ++i) front.push_back({r->front()[i].cost[0], r->front()[i].value, {}});
    if (settings.lazy_front) {
      const pareto_point<double>* p = nullptr;
      if (!out.budget) p = front.empty() ? nullptr : &front.back();
      else if (*out.budget >= fixed) p = best_within(front, *out.budget - fixed);
      if (p) out.best = lonas_make_candidate(space, r->front_choice(std::size_t(p - front.data())));
      out.front_points.reserve(front.size());
      for (const auto& q : front) out.front_points.push_back({q.cost + fixed, q.value + space.fixed_nsc, {}});
      out.engine = std::move(r);
      return out;
    }
    for (std::size_t i = 0; i < r->front().size(); ++i) out.front.push_back(lonas_make_candidate(space, r->front_choice(i)));
  } else {
    const mck_groups<double> groups(std::size_t(space.layers), options);
    const mck_result<double> r = solve_mck(groups, top, settings.mck);
    out.stats.add(r, groups);
    front = r.front();
    for (const auto& p : front) out.front.push_back(lonas_make_candidate(space, *r.choice(p.cost)));
  }
  if (!out.budget) {
    if (!out.front.empty()) out.best = out.front.back();
  } else if (*out.budget >= fixed) {
    if (const auto* p = best_within(front, *out.budget - fixed))
      out.best = out.front[std::size_t(p - front.data())];
  }
  return out;
}

/// The candidate of front point i of a lazy_front search (built from the engine's tables:
/// O(layers log layers)). std::invalid_argument unless `r` came from search_lonas with
/// lazy_front and i < r.front_points.size().
inline lonas_candidate lonas_front_candidate(const lonas_space& space, const lonas_search_result& r,
                                             std::size_t i) {
  constexpr std::string_view fn = "nsc::search::lonas_front_candidate";
  if (!r.engine) throw_invalid_argument(fn, "the result has no engine (search with lazy_front = true)");
  if (i >= r.front_points.size()) throw_invalid_argument(fn, "front index out of range", i);
  return lonas_make_candidate(space, r.engine->front_choice(i));
}

/// The pruned spec: `base` with each layer's d_ff and LoRA ranks set as the search scored them
/// (q/k/v at the candidate's rank, o / gate / up / down at s.adapter_rank). Write it out with
/// nsc::with_nsc_extensions (nsc/io/hf_config.hpp) for a config that `nsc score` reads back.
/// std::invalid_argument unless the candidate has one entry per layer of `base`.
inline transformer_spec lonas_apply(const transformer_spec& base, const lonas_candidate& c,
                                    const lonas_space_settings& s = {}) {
  constexpr std::string_view fn = "nsc::search::lonas_apply";
  if (c.widths.size() != base.blocks.size() || c.ranks.size() != base.blocks.size())
    throw_invalid_argument(fn, "the candidate needs one width and one rank per layer of the model",
                           c.widths.size());
  transformer_spec out = base;
  for (std::size_t i = 0; i < out.blocks.size(); ++i)
    out.blocks[i] = detail::lonas_block(base.blocks[i], c.ranks[i], c.widths[i], s);
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_LONAS_HPP
