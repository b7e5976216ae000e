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
///     auto g = nsc::search::prune_lonas(hf.spec, {}, {.budget = 5.7e9}); // the same through the generic
///     g.lonas.best, g.lonas.front; g.space, *g.chosen                  // pruning machinery (nsc prune)
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
/// LoNAS is a preset of the generic pruning space (nsc/search/prune_space.hpp):
/// lonas_prune_settings gives its settings (nsc format, no no-op, the q/k/v LoRA rank a per-layer
/// attention choice, the FFN ladder ffn_eighths, o / gate / up / down adapters), prune_lonas runs
/// search_prune over the whole cost range and reads the budget's answer off the front (what
/// `nsc prune --space lonas` does; layers may differ), and lonas_space_from_spec folds one layer
/// of that space into the rank x width options of a lonas_space (identical layers only).
/// The space from a spec is derived from a transformer_spec (e.g. a Hugging
/// Face config read by nsc/io/hf_config.hpp): widths
/// floor(intermediate_size * j / 8) for j in {8, 7, 6, 5, 4} (exact for every LoNAS config:
/// 11008 -> 11008, 9632, 8256, 6880, 5504), q/k/v LoRA ranks {32, 28}, the other adapters
/// (o, gate, up, down) at rank 32, Q/K/V and the output projection scored per head, Xavier of
/// each block (scoring{}): the reference's LoNAS convention for any llama-like model. Each option
/// is the sum of its two sublayer options of make_prune_space (scored with nsc::score, counted
/// with nsc::count, MACs = deploy's prefill FLOPs / 2); the fixed part is the space's
/// (embeddings, LM head, and the final norm only when
/// count_final_norm: the reference formula leaves it out, so by default LLaMA-7B counts exactly
/// as the preset, 4096 below Hugging Face's 6,738,415,616).
///
/// The knapsack: by default one pass of solve_mck over the L groups. The layers are identical
/// groups, so settings.identical_groups = true solves them as one class of L groups instead
/// (solve_mck_classes: same-cost pruning keeps the better rank per width, and the 129-cell
/// multiset table of the 5 widths is built by max-plus doubling, 2,919 pairs instead of 41,280
/// cell updates) with the same front (tested); settings.lazy_front then returns the front's
/// values only (front_points) and builds a candidate on request (lonas_front_candidate), since
/// building the 129 candidates of 32 layers costs more than either DP (README speed-up table).
/// With the identical-group path, stats.cell_updates counts the pairs the combinations examined.
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
#include <nsc/search/prune_space.hpp>

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
  const std::vector<presets::lonas_option> opts = presets::lonas_options();
  const std::vector<double> scores = presets::lonas_layer_scores(opts);  // bitwise lonas_layer_score
  for (std::size_t j = 0; j < opts.size(); ++j) {
    const presets::lonas_option& o = opts[j];
    lonas_space_option x;
    x.rank = o.rank;
    x.width = o.width;
    x.nsc = scores[j];
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

/// The generic pruning space's settings of the LoNAS preset (nsc/search/prune_space.hpp): the nsc
/// output format (attention heads kept, no no-op sublayers), the q/k/v LoRA rank a per-layer
/// attention choice over s.ranks, the FFN widths floor(d_ff j / 8) for j in s.width_eighths,
/// o / gate / up / down adapters at s.adapter_rank, the scoring layouts and rule of s, and a
/// prefill of T = s.seq_len tokens with full attention (the paper's TFLOPs: prefill FLOPs / 2
/// are the multiply-accumulates). MoE layers keep their expert count (expert_step 0).
inline prune_space_settings lonas_prune_settings(const lonas_space_settings& s = {}) {
  prune_space_settings p;
  p.format = prune_format::nsc;
  p.no_op = false;
  p.lora_ranks = s.ranks;
  p.lora_adapter_rank = s.adapter_rank;
  p.ffn_eighths = s.width_eighths;
  p.expert_step = 0;
  p.load.seq_len = s.seq_len;
  p.load.attention = attention_convention::full;
  p.rule = s.rule;
  p.qkv = s.qkv;
  p.out = s.out;
  return p;
}

/// Params the reference formula leaves out of a model of `spec`: its final norm, unless
/// s.count_final_norm (then 0). LoNAS params = Hugging Face's count - this.
inline std::int64_t lonas_uncounted_params(const transformer_spec& spec, const lonas_space_settings& s = {}) {
  if (s.count_final_norm || spec.blocks.empty()) return 0;
  transformer_spec one = spec;
  one.blocks.resize(1);
  std::int64_t n = 0;
  for (const layer& l : make_transformer(one, 1.0).layers)
    if (l.name == "final_norm") n += count(l).total();
  return n;
}

namespace detail {

inline bool lonas_same_block(const block_spec& a, const block_spec& b) {
  const attention_spec &x = a.attention, &y = b.attention;
  const ffn_spec &f = a.ffn, &g = b.ffn;
  return x.d_model == y.d_model && x.n_heads == y.n_heads && x.kv_heads() == y.kv_heads() &&
         x.head_size() == y.head_size() && x.qkv_bias == y.qkv_bias && x.out_bias == y.out_bias &&
         f.d_ff == g.d_ff && f.gated == g.gated && f.bias == g.bias &&
         f.n_experts == g.n_experts && f.top_k == g.top_k && a.norm == b.norm &&
         a.n_norms == b.n_norms;
}

inline void lonas_check_settings(const transformer_spec& spec, const lonas_space_settings& s, std::string_view fn) {
  validate(spec, fn);
  if (spec.blocks.empty()) throw_invalid_argument(fn, "the model needs at least one layer");
  if (s.seq_len < 1) throw_invalid_argument(fn, "seq_len must be >= 1", s.seq_len);
  if (s.ranks.empty()) throw_invalid_argument(fn, "at least one q/k/v rank is needed");
  for (std::int64_t r : s.ranks)
    if (r < 1) throw_invalid_argument(fn, "LoRA ranks must be >= 1", r);
  if (s.adapter_rank < 0) throw_invalid_argument(fn, "adapter_rank must be >= 0", s.adapter_rank);
  for (const block_spec& b : spec.blocks) (void)lonas_widths_for(b.ffn.d_ff, s.width_eighths);
}

} // namespace detail

/// The LoNAS space of a Transformer with identical layers (see the file comment), as one layer
/// of the generic pruning space (make_prune_space with lonas_prune_settings): option (rank,
/// width) = the attention option of the rank + the FFN option of the width, so its params, MACs
/// (prefill FLOPs / 2) and score are the sums of the two sublayers'; the fixed part is the
/// space's (embeddings, LM head; the final norm only when count_final_norm). Errors:
/// std::invalid_argument "nsc::search::lonas_space_from_spec: ..." when the spec has no layers,
/// its layers differ (other than in LoRA ranks), a rank is < 1, seq_len < 1, or the spec is
/// malformed (make_transformer's messages).
inline lonas_space lonas_space_from_spec(const transformer_spec& spec,
                                         const lonas_space_settings& s = {}) {
  constexpr std::string_view fn = "nsc::search::lonas_space_from_spec";
  detail::lonas_check_settings(spec, s, fn);
  block_spec base = spec.blocks[0];
  base.attention.d_model = base.ffn.d_model = spec.d_model;
  base.repeat = 1; // one layer; a run of identical layers counts repeat times in out.layers
  std::int64_t first = spec.blocks[0].repeat; // the layer index of entry i (runs: repeat layers)
  for (std::size_t i = 1; i < spec.blocks.size(); first += spec.blocks[i].repeat, ++i) {
    block_spec b = spec.blocks[i];
    b.attention.d_model = b.ffn.d_model = spec.d_model;
    b.repeat = 1;
    if (!detail::lonas_same_block(base, b))
      throw_invalid_argument(fn,
                             "every layer must have the same shape (widths are derived from "
                             "layer 0's intermediate size); layer differs",
                             first);
  }
  transformer_spec one = spec;
  one.blocks.resize(1);
  const prune_space g = make_prune_space(one, lonas_prune_settings(s));
  const prune_layer_space& l = g.layers.at(0);
  lonas_space out;
  out.name = spec.name;
  out.layers = total_layers(spec);
  out.seq_len = s.seq_len;
  out.ranks = s.ranks;
  out.widths = lonas_widths_for(base.ffn.d_ff, s.width_eighths);
  out.adapter_rank = s.adapter_rank;
  for (std::size_t ai = 0; ai < l.attention.size(); ++ai)
    for (std::size_t fi = 0; fi < l.ffn.size(); ++fi) {
      const prune_cost_vector c = prune_pair_cost(l, ai, fi);
      lonas_space_option o;
      o.rank = l.attention[ai].lora_rank;
      o.width = l.ffn[fi].width;
      o.nsc = l.attention[ai].nsc + l.ffn[fi].nsc;
      o.params = c[std::size_t(prune_cost::params)];
      o.macs = c[std::size_t(prune_cost::prefill_flops)] / 2;
      out.options.push_back(o);
    }
  out.fixed_params = g.fixed[std::size_t(prune_cost::params)] - lonas_uncounted_params(spec, s);
  out.fixed_macs = g.fixed[std::size_t(prune_cost::prefill_flops)] / 2;
  out.fixed_nsc = g.fixed_nsc;
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
  /// true: the L identical layers as one class (solve_mck_classes: the multiset table by max-plus
  /// doubling, O(log L) combinations). Default false: the one-pass solve_mck over L groups (same
  /// answers; with every candidate of the front built the one pass is as fast, see the README).
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
  std::shared_ptr<const mck_result<double>> engine;
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
    auto r = std::make_shared<const mck_result<double>>(
        solve_mck_classes(std::vector<mck_class<double>>{{std::move(options), std::size_t(space.layers)}}, top, settings.mck));
    ++out.stats.dp_runs;
    out.stats.cells += r->cells();
    out.stats.cell_updates += r->cell_updates();
    front = r->front();
    if (settings.lazy_front) {
      const pareto_point<double>* p = nullptr;
      if (!out.budget) p = front.empty() ? nullptr : &front.back();
      else if (*out.budget >= fixed) p = best_within(front, *out.budget - fixed);
      if (p) out.best = lonas_make_candidate(space, *r->choice(p->cost));
      out.front_points = std::move(front);
      for (auto& q : out.front_points) q.cost += fixed, q.value = q.value + space.fixed_nsc;
      out.engine = std::move(r);
      return out;
    }
    for (const auto& p : front) out.front.push_back(lonas_make_candidate(space, *r->choice(p.cost)));
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
  const std::int64_t fixed = r.cost == lonas_cost::macs ? space.fixed_macs : space.fixed_params;
  return lonas_make_candidate(space, *r.engine->choice(r.front_points[i].cost - fixed));
}

/// A generic pruning candidate (prune_space of lonas_prune_settings) in LoNAS terms: widths,
/// q/k/v ranks, params of the reference formula (Hugging Face's count - `uncounted`), MACs per
/// sequence (prefill FLOPs / 2), TFLOPs and NSC (the candidate's recomputed totals).
inline lonas_candidate lonas_candidate_of(const prune_candidate& c, std::int64_t uncounted = 0) {
  lonas_candidate out;
  for (const prune_layer_choice& l : c.layers) {
    out.widths.push_back(l.ffn_width);
    out.ranks.push_back(l.lora_rank);
  }
  out.params = c.totals.cost[std::size_t(prune_cost::params)] - uncounted;
  out.macs = c.totals.cost[std::size_t(prune_cost::prefill_flops)] / 2;
  out.tflops = double(out.macs) / 1e12;
  out.nsc = c.totals.nsc;
  return out;
}

/// Outcome of prune_lonas: the LoNAS search run by the generic machinery, in both vocabularies.
struct lonas_prune_result {
  prune_space space;                     ///< make_prune_space(spec, lonas_prune_settings(s))
  std::int64_t uncounted = 0;            ///< params the reference formula leaves out (final norm)
  prune_search_result search;            ///< search_prune: the whole front over the budgeted cost
  std::optional<prune_candidate> chosen; ///< the budget's front point (prune_emit_config writes it)
  lonas_search_result lonas;             ///< best / front / unpruned / budget / stats as search_lonas
};

/// `nsc prune --space lonas`: the LoNAS preset of the generic pruning space (lonas_prune_settings;
/// any model, layers may differ: each layer's widths come from its own d_ff), one exact
/// search_prune over the whole range of the budgeted cost (params of the reference formula, or
/// MACs = prefill FLOPs / 2 when settings.cost == macs) giving the front, and the budget's answer
/// read off it as search_lonas does (the most valuable point whose cost is <= floor(budget); no
/// budget: the front's last point). For llama-7b.json it reproduces the paper's answer and the
/// 129-point front (tests/test_searches.cpp). Errors: std::invalid_argument
/// "nsc::search::prune_lonas: ..." as lonas_space_from_spec (except that layers may differ), a
/// budget that is not finite and >= 0, and make_prune_space's / search_prune's.
inline lonas_prune_result prune_lonas(const transformer_spec& spec, const lonas_space_settings& s = {},
                                      const lonas_search_settings& settings = {}) {
  constexpr std::string_view fn = "nsc::search::prune_lonas";
  detail::lonas_check_settings(spec, s, fn);
  lonas_prune_result out;
  out.space = make_prune_space(spec, lonas_prune_settings(s));
  out.uncounted = lonas_uncounted_params(spec, s);
  const bool by_macs = settings.cost == lonas_cost::macs;
  prune_search_settings ps;
  ps.budgets = {{by_macs ? prune_cost::prefill_flops : prune_cost::params, INT64_MAX / 4}}; // the whole range
  ps.front = true;
  ps.rescore_front = false; // 129 points for LLaMA-7B: option sums (the LoNAS search's own totals)
  ps.mmck.max_table_bytes = settings.mck.max_table_bytes;
  out.search = search_prune(out.space, ps);
  lonas_search_result& r = out.lonas;
  r.cost = settings.cost;
  if (settings.budget) r.budget = budget_floor(*settings.budget, fn);
  r.unpruned = lonas_candidate_of(out.search.unpruned, out.uncounted);
  r.stats.outer_configs = 1;
  r.stats.dp_runs = 1;
  r.stats.cells = out.search.info.cells + out.search.info.states;
  r.stats.cell_updates = out.search.info.work;
  r.stats.layer_scores = out.space.options();
  for (const prune_candidate& c : out.search.front) {
    r.front.push_back(lonas_candidate_of(c, out.uncounted));
    const lonas_candidate& x = r.front.back();
    if (!r.budget || (by_macs ? x.macs : x.params) <= *r.budget) out.chosen = c; // ascending cost and value
  }
  if (out.chosen) { // re-scored from its spec: what `nsc score` of the emitted config prints
    out.chosen->totals = prune_totals(prune_apply(out.space, *out.chosen), out.space.settings);
    r.best = lonas_candidate_of(*out.chosen, out.uncounted);
  }
  return out;
}

/// The pruned spec: `base` with each layer's d_ff and LoRA ranks set as the search scored them
/// (q/k/v at the candidate's rank, o / gate / up / down at s.adapter_rank). Write it out with
/// nsc::with_nsc_extensions (nsc/io/hf_config.hpp) for a config that `nsc score` reads back.
/// std::invalid_argument unless the candidate has one entry per layer of `base`.
inline transformer_spec lonas_apply(const transformer_spec& base_in, const lonas_candidate& c,
                                    const lonas_space_settings& s = {}) {
  constexpr std::string_view fn = "nsc::search::lonas_apply";
  const transformer_spec base = expand(base_in); // one block per layer
  if (c.widths.size() != base.blocks.size() || c.ranks.size() != base.blocks.size())
    throw_invalid_argument(fn, "the candidate needs one width and one rank per layer of the model",
                           c.widths.size());
  transformer_spec out = base;
  for (std::size_t i = 0; i < out.blocks.size(); ++i) { // as prune_block of lonas_prune_settings' space
    block_spec& b = out.blocks[i];
    b.attention.qkv = s.qkv;
    b.attention.out = s.out;
    detail::prune_set_adapters(b, s.adapter_rank);
    b.attention.lora_q = b.attention.lora_k = b.attention.lora_v = c.ranks[i];
    b.ffn.d_ff = c.widths[i];
  }
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_LONAS_HPP
