/// \file nsc/search/prune_space.hpp
/// A generic pruning space derived from any transformer_spec (any config nsc reads), budgeted
/// on params / FLOPs / KV cache / memory at once with the exact multi-budget engine.
///
/// Synopsis
/// --------
///     auto space = nsc::search::make_prune_space(hf.spec, {.format = prune_format::decilm});
///     auto r = nsc::search::search_prune(space, {.budgets = {{prune_cost::params, 50e9},
///                                                            {prune_cost::kv_bytes, 8e9}}});
///     r.best->layers[i].kv_heads, .heads, .attention_none, .ffn_width, .ffn_none; r.best->totals
///     nsc::search::prune_apply(space, *r.best)      // the pruned spec (nsc/io/prune_config.hpp
///                                                    // writes it as decilm / per-layer / nsc)
///     nsc::search::prune_totals(spec, settings)     // params, FLOPs, KV, memory, NSC as nsc score
///
/// The space (per layer i, from block i of the spec):
///  * attention (standard kind): query heads h and kept KV heads k.
///      decilm:    h = the model's heads H (fixed by the format), k divides H, k <= the model's
///                 KV heads K (n_heads_in_group = H / k);
///      per_layer: h in H, H - s, ... >= 1 (s = head_step, default the GQA group H / K) and k in
///                 1..K with k dividing h (heads pruned, head_dim kept);
///      nsc:       the model's own (h, k) only (the extension has no attention field);
///    plus no-op (the sublayer removed with its norms) in decilm and per_layer. With tp = N:
///    h % N == 0 and (k % N == 0 or N % k == 0) (vLLM shards KV heads, or replicates them when
///    N > k). Other attention kinds (MLA, linear) are kept as they are (or no-op).
///  * Recurrent mixers (Mamba-2, Gated DeltaNet: attention_spec::recurrent()), in the nsc format
///    only (decilm and per_layer cannot express them: refused by name, naming the layer): kept
///    as they are, or removed (no-op, when no_op) when the mixer is its layer's only sublayer
///    (Nemotron-H: the layer leaves hybrid_override_pattern); their fixed-size state is part of
///    the kv_bytes and memory costs (deploy).
///  * FFN (standard kind): widths w on the grid {G, 2G, ...} below the model's width d_ff, plus
///    d_ff itself, w >= min_ffn and w % tp == 0 (d_ff is always offered); plus no-op in decilm
///    and per_layer (the nsc format has no no-op). A linear FFN is kept (or no-op).
///  * Mixture-of-experts FFN (n_experts E, top_k k): the routed experts kept E' in E, E - s, ...
///    (s = expert_step; 0: E only), E' >= max(k, min_experts), E' % ep == 0 (E always offered),
///    times the experts' width on the FFN grid above (expert_width; false: the model's width
///    only). top_k is unchanged (k experts still run per token), so an option with fewer experts
///    drops E - E' expert copies from params and memory, shrinks the router Linear(d, E') (and
///    its bias, if any), and changes FLOPs only through the router; KV bytes are unaffected.
///    NSC counts every expert copy (make_block: copies = E'). Every format expresses both:
///    decilm as Puzzletron's ffn.moe {num_local_experts, num_experts_per_tok,
///    expert_intermediate_dim}, per_layer as the family's expert count / width overrides, nsc as
///    expert_counts + intermediate_sizes (nsc/io/prune_config.hpp). Shared experts are kept.
///  * LoRA (the LoNAS preset, nsc/search/lonas.hpp): lora_ranks = {r_1, ...} makes the q/k/v
///    adapter rank a per-layer attention choice (each (h, k) above x each rank, in that order);
///    lora_adapter_rank >= 0 puts o_proj / gate / up / down adapters of that rank on every
///    layer. ffn_eighths = {j, ...} replaces the FFN grid by the widths floor(d_ff j / 8)
///    (LoNAS's ladder; the model's own width always first). LoRA parameters are not counted in
///    params (nsc::count's convention) and their matrices are scored.
///  * The attention and FFN sublayers of a layer are separate knapsack groups: every cost and
///    the score of a block are sums over its weights and norms, so block(a, f) costs exactly
///    block(a, none) + block(none, f) (integers) and scores their sum. Layers with the same block
///    give identical groups (solve_mmck's doubling path).
///  * Costs (per option, from the code `nsc score` uses): params total / non-embedding /
///    active (nsc::count), prefill FLOPs of one sequence of T = workload.seq_len tokens
///    (2 x deploy's prefill MACs; flops per token = that / T), KV-cache bytes at the workload
///    and memory (weight bytes at the weight dtype + KV). Embeddings, LM head and final norm are
///    a fixed offset. Scores: nsc::score of each block (default scoring{}: Xavier of each
///    block, psi_MP; Q per head, K and V per KV head, o_proj and FFN matrices whole).
///
/// Accuracy: the optimum is exact for the space (solve_mmck); the reported totals and NSC of a
/// candidate are recomputed from its spec by prune_totals (what `nsc score` prints), so they
/// agree bit for bit with a re-score of the emitted config; the DP's sum of option scores
/// differs from it only by floating rounding (~1e-15 relative).
#ifndef NSC_SEARCH_PRUNE_SPACE_HPP
#define NSC_SEARCH_PRUNE_SPACE_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/model/deployment.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/search/k_best.hpp>
#include <nsc/search/multi_knapsack.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::search {

/// Which config format the pruned model is written in (limits the space).
enum class prune_format { decilm, per_layer, nsc };

constexpr std::string_view to_string(prune_format f) noexcept {
  return f == prune_format::decilm ? "decilm" : f == prune_format::per_layer ? "per-layer" : "nsc";
}

/// Parses "decilm", "per-layer" (or "per_layer") or "nsc"; std::invalid_argument otherwise.
inline prune_format parse_prune_format(std::string_view s) {
  if (s == "decilm") return prune_format::decilm;
  if (s == "per-layer" || s == "per_layer") return prune_format::per_layer;
  if (s == "nsc") return prune_format::nsc;
  throw_invalid_argument("nsc::search::parse_prune_format", "expected decilm, per-layer or nsc", std::string(s));
}

/// The budgeted quantities (every one a sum over layers plus a fixed offset).
enum class prune_cost { params, params_non_embedding, params_active, prefill_flops, kv_bytes, memory };
inline constexpr std::size_t prune_cost_count = 6;

constexpr std::string_view to_string(prune_cost c) noexcept {
  switch (c) {
  case prune_cost::params: return "params";
  case prune_cost::params_non_embedding: return "params_non_embedding";
  case prune_cost::params_active: return "params_active";
  case prune_cost::prefill_flops: return "prefill_flops";
  case prune_cost::kv_bytes: return "kv_bytes";
  case prune_cost::memory: return "memory";
  }
  return "?";
}

/// The most options one sublayer (a layer's attention or FFN) may have: far above any real grid
/// (Llama-3.1-70B's FFN 113, DeepSeek-V3's MoE 249 expert counts x 8 widths), far below what
/// would take seconds or gigabytes to build; a larger space is refused with its size.
inline constexpr double prune_max_sublayer_options = 65536;

/// One value per prune_cost.
using prune_cost_vector = std::array<std::int64_t, prune_cost_count>;

/// How make_prune_space derives the space (defaults: the file comment).
struct prune_space_settings {
  prune_format format = prune_format::decilm;
  std::int64_t ffn_multiple = 256; ///< FFN width grid G
  std::int64_t min_ffn = 0;        ///< smallest FFN width offered (the model's own always is)
  std::int64_t tp = 1;             ///< tensor-parallel degree
  /// per_layer: query heads in steps of this many (0: the model's GQA group, heads / KV heads,
  /// so whole groups are kept: Llama-3.1-70B 8, 16, ..., 64; 1: every count)
  std::int64_t head_step = 0;
  bool no_op = true;               ///< offer no-op sublayers (decilm, per_layer)
  std::int64_t expert_step = 1;    ///< MoE: expert counts E, E - s, ... (0: the model's count only)
  std::int64_t min_experts = 0;    ///< MoE: fewest experts offered (never below top_k; E always is)
  std::int64_t ep = 1;             ///< MoE: expert-parallel degree (expert counts divisible by it)
  bool expert_width = true;        ///< MoE: the experts' width on the FFN grid too (false: kept)
  std::vector<std::int64_t> lora_ranks; ///< q/k/v LoRA ranks offered per layer (empty: kept)
  std::int64_t lora_adapter_rank = -1;  ///< >= 0: o / gate / up / down adapters at this rank
  std::vector<std::int64_t> ffn_eighths; ///< non-empty: widths floor(d_ff j / 8) instead of the grid
  workload load{};                 ///< T (FLOPs), context, batch, dtypes (KV, memory)
  scoring rule{};                  ///< Xavier of each block, psi_MP (nsc score's default)
  qkv_layout qkv = qkv_layout::per_head;
  out_layout out = out_layout::whole;
};

/// One attention option of a layer.
struct prune_attention_option {
  bool none = false;
  std::int64_t heads = 0, kv_heads = 0; ///< standard attention (0 otherwise)
  std::int64_t lora_rank = 0;           ///< q/k/v LoRA rank set (0: the model's adapters kept)
  double nsc = 0;
  prune_cost_vector cost{};
};

/// One FFN option of a layer.
struct prune_ffn_option {
  bool none = false;
  std::int64_t width = 0;   ///< d_ff (experts' width for MoE), 0 for linear
  std::int64_t experts = 0; ///< routed experts kept (MoE), 0 for a dense or linear FFN
  double nsc = 0;
  prune_cost_vector cost{};
};

/// The options of one layer.
struct prune_layer_space {
  block_spec base; ///< the model's block (d_model filled in, layouts set)
  std::int64_t norms_per_sublayer = 0;
  std::vector<prune_attention_option> attention; ///< first: the model's own
  std::vector<prune_ffn_option> ffn;             ///< first: the model's own
};

/// A pruning space: per layer attention and FFN options, plus the fixed part.
struct prune_space {
  transformer_spec spec; ///< the model (layouts set as scored)
  prune_space_settings settings;
  std::vector<prune_layer_space> layers;
  prune_cost_vector fixed{}; ///< embeddings, LM head, final norm
  double fixed_nsc = 0;
  std::size_t distinct_layers = 0; ///< layers with distinct blocks (option sets built)
  std::size_t options() const {
    std::size_t n = 0;
    for (const auto& l : layers) n += l.attention.size() + l.ffn.size();
    return n;
  }
};

/// What one layer of a candidate keeps.
struct prune_layer_choice {
  bool attention_none = false;
  std::int64_t heads = 0, kv_heads = 0;
  std::int64_t lora_rank = 0; ///< q/k/v LoRA rank (0: the model's adapters kept)
  bool ffn_none = false;
  std::int64_t ffn_width = 0;
  std::int64_t experts = 0; ///< routed experts kept (MoE layers; 0 otherwise)
  std::size_t attention_option = 0, ffn_option = 0;
};

/// Totals of a model as `nsc score` reports them.
struct prune_totals_t {
  prune_cost_vector cost{}; ///< params, non-embedding, active, prefill FLOPs, KV bytes, memory
  double nsc = 0;
  double flops_per_token = 0; ///< deploy().flops_per_token()
};

/// One pruned model.
struct prune_candidate {
  std::vector<prune_layer_choice> layers;
  double dp_value = 0;   ///< the knapsack's value (the engine's sum of option scores + fixed)
  prune_totals_t totals; ///< recomputed from the pruned spec (prune_totals)
};

namespace detail {

inline constexpr std::string_view prune_fn = "nsc::search::make_prune_space";

/// Every field of a block that changes a count or a score, as text (identical layers).
inline std::string prune_block_key(const block_spec& b) {
  const attention_spec& a = b.attention;
  const ffn_spec& f = b.ffn;
  std::string s;
  auto put = [&](std::int64_t v) {
    s += std::to_string(v);
    s += ',';
  };
  for (std::int64_t v :
       {std::int64_t(a.kind), a.d_model, a.n_heads, a.kv_heads(), a.head_size(), std::int64_t(a.qkv), std::int64_t(a.out),
        std::int64_t(a.qkv_bias), std::int64_t(a.out_bias), a.lora_q, a.lora_k, a.lora_v, a.lora_o,
        std::int64_t(a.qk_norm), a.sliding_window, a.q_lora_rank, a.kv_lora_rank, a.qk_nope_head_dim,
        a.qk_rope_head_dim, a.v_head_dim, a.ssm_heads, a.ssm_head_dim, a.ssm_state, a.ssm_groups, a.conv_kernel,
        std::int64_t(a.conv_bias), std::int64_t(a.ssm_norm), std::int64_t(a.output_gate), std::int64_t(f.kind), f.d_model, f.d_ff, std::int64_t(f.gated),
        std::int64_t(f.bias), f.lora_gate, f.lora_up, f.lora_down, f.n_experts, f.top_k,
        std::int64_t(f.router_bias), f.shared_d_ff, std::int64_t(f.shared_gate), std::int64_t(b.norm), b.n_norms})
    put(v);
  return s;
}

/// An unsigned 128-bit figure as int64, or std::domain_error naming it.
inline std::int64_t prune_i64(u128 v, std::string_view fn, std::string_view quantity) {
  if (v > u128(INT64_MAX))
    throw std::domain_error(std::string(fn) + ": " + std::string(quantity) + " exceeds 2^63 - 1 (" + nsc::to_string(v) + ")");
  return std::int64_t(v);
}

/// Costs and score of the one-block model {spec's fixed part, b}, block entries only.
inline void prune_block_costs(const transformer_spec& spec, const block_spec& b, const prune_space_settings& s,
                              psi_cache& cache, double& nsc, prune_cost_vector& c) {
  transformer_spec one = spec;
  one.blocks.assign(1, b);
  const deployment d = deploy(one, s.load);
  const network net = make_transformer(one, double(s.load.seq_len));
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    if (net.layers[i].name != "layers.0") continue;
    const resources r = count(net.layers[i]);
    const layer_deployment& ld = d.layers[i];
    c[0] = r.total();
    c[1] = r.non_embedding();
    c[2] = r.active();
    c[3] = prune_i64(2 * ld.prefill_macs, prune_fn, "a layer's prefill FLOPs");
    c[4] = prune_i64(ld.kv_cache_bytes, prune_fn, "KV-cache bytes");
    c[5] = prune_i64(ld.memory_bytes(), prune_fn, "memory bytes");
    nsc = score(net.layers[i], s.rule, &cache).nsc;
    return;
  }
}

/// o_proj / gate / up / down LoRA adapters of rank r on block b (gate only when gated).
inline void prune_set_adapters(block_spec& b, std::int64_t r) {
  b.attention.lora_o = r;
  b.ffn.lora_gate = b.ffn.gated ? r : 0;
  b.ffn.lora_up = b.ffn.lora_down = r;
}

inline bool prune_tp_ok(std::int64_t h, std::int64_t k, std::int64_t tp) {
  return h % tp == 0 && (k % tp == 0 || tp % k == 0);
}

} // namespace detail

/// The block of layer l for choice c (kept sublayers' norms only).
inline block_spec prune_block(const prune_layer_space& l, const prune_layer_choice& c) {
  block_spec b = l.base;
  std::int64_t present = 0;
  if (c.attention_none) {
    b.attention.kind = attention_kind::none;
  } else {
    ++present;
    if (b.attention.kind == attention_kind::standard) {
      b.attention.head_dim = l.base.attention.head_size();
      b.attention.n_heads = c.heads;
      b.attention.n_kv_heads = c.kv_heads;
    }
    if (c.lora_rank > 0) b.attention.lora_q = b.attention.lora_k = b.attention.lora_v = c.lora_rank;
  }
  if (c.ffn_none) {
    b.ffn.kind = ffn_kind::none;
  } else {
    ++present;
    if (b.ffn.kind == ffn_kind::standard) {
      b.ffn.d_ff = c.ffn_width;
      if (b.ffn.n_experts > 0 && c.experts > 0) b.ffn.n_experts = c.experts;
    }
  }
  b.n_norms = l.norms_per_sublayer * present;
  return b;
}

/// The choice of layer l made of option indices (attention ai, FFN fi).
inline prune_layer_choice prune_choice(const prune_layer_space& l, std::size_t ai, std::size_t fi) {
  const prune_attention_option& a = l.attention.at(ai);
  const prune_ffn_option& f = l.ffn.at(fi);
  prune_layer_choice c;
  c.attention_none = a.none;
  c.heads = a.heads;
  c.kv_heads = a.kv_heads;
  c.lora_rank = a.lora_rank;
  c.ffn_none = f.none;
  c.ffn_width = f.width;
  c.experts = f.experts;
  c.attention_option = ai;
  c.ffn_option = fi;
  return c;
}

/// The generic pruning space of `spec` (see the file comment). Errors: std::invalid_argument
/// "nsc::search::make_prune_space: ..." for a model without layers, ffn_multiple < 1, min_ffn
/// < 0, tp < 1, head_step < 0, expert_step < 0, min_experts < 0, ep < 1, a malformed spec or
/// workload (deploy's messages); std::domain_error when a cost overflows.
inline prune_space make_prune_space(const transformer_spec& spec_in, const prune_space_settings& s = {}) {
  using detail::prune_fn;
  validate(spec_in, prune_fn);
  if (spec_in.blocks.empty()) throw_invalid_argument(prune_fn, "the model needs at least one layer");
  if (s.ffn_multiple < 1) throw_invalid_argument(prune_fn, "ffn_multiple must be >= 1", s.ffn_multiple);
  if (s.min_ffn < 0) throw_invalid_argument(prune_fn, "min_ffn must be >= 0", s.min_ffn);
  if (s.tp < 1) throw_invalid_argument(prune_fn, "tp must be >= 1", s.tp);
  if (s.head_step < 0) throw_invalid_argument(prune_fn, "head_step must be >= 0 (0: the GQA group)", s.head_step);
  if (s.expert_step < 0)
    throw_invalid_argument(prune_fn, "expert_step must be >= 0 (0: keep every layer's expert count)", s.expert_step);
  if (s.min_experts < 0) throw_invalid_argument(prune_fn, "min_experts must be >= 0", s.min_experts);
  if (s.ep < 1) throw_invalid_argument(prune_fn, "ep (expert-parallel degree) must be >= 1", s.ep);
  for (std::int64_t r : s.lora_ranks)
    if (r < 1) throw_invalid_argument(prune_fn, "LoRA ranks must be >= 1", r);
  if (s.lora_adapter_rank < -1)
    throw_invalid_argument(prune_fn, "lora_adapter_rank must be >= 0 (or -1: the model's adapters)", s.lora_adapter_rank);
  for (std::int64_t j : s.ffn_eighths)
    if (j < 1 || j > 8) throw_invalid_argument(prune_fn, "FFN width fractions j / 8 need j in [1, 8]", j);
  prune_space out;
  out.settings = s;
  out.spec = expand(spec_in); // one block per layer (runs of identical layers expanded)
  for (block_spec& b : out.spec.blocks) {
    b.attention.qkv = s.qkv;
    b.attention.out = s.out;
    b.attention.d_model = b.ffn.d_model = out.spec.d_model;
    if (s.lora_adapter_rank >= 0) detail::prune_set_adapters(b, s.lora_adapter_rank);
  }
  const bool noop = s.no_op && s.format != prune_format::nsc;
  for (std::size_t i = 0; i < out.spec.blocks.size(); ++i) // DeciLM and per_layer_config have no state-space mixer
    if (s.format != prune_format::nsc && out.spec.blocks[i].attention.recurrent())
      throw_invalid_argument(prune_fn,
                             "layer " + std::to_string(i) + " is a " + std::string(to_string(out.spec.blocks[i].attention.kind)) + " layer, which the " +
                                 std::string(to_string(s.format)) +
                                 " format cannot express; use the nsc format (it keeps or removes such layers)",
                             to_string(s.format));
  psi_cache cache;
  std::vector<std::string> keys;
  std::vector<std::size_t> first_of;
  for (std::size_t i = 0; i < out.spec.blocks.size(); ++i) {
    const block_spec& base = out.spec.blocks[i];
    const std::string key = detail::prune_block_key(base);
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (it != keys.end()) {
      out.layers.push_back(out.layers[first_of[std::size_t(it - keys.begin())]]);
      continue;
    }
    keys.push_back(key);
    first_of.push_back(i);
    prune_layer_space l;
    l.base = base;
    const std::int64_t present =
        std::int64_t(base.attention.kind != attention_kind::none) + std::int64_t(base.ffn.kind != ffn_kind::none);
    l.norms_per_sublayer = present > 0 ? base.n_norms / present : 0;
    // Attention options.
    if (base.attention.kind != attention_kind::none) {
      const attention_spec& a = base.attention;
      std::vector<std::pair<std::int64_t, std::int64_t>> hk;
      if (a.kind == attention_kind::standard) {
        const std::int64_t H = a.n_heads, K = a.kv_heads();
        hk.push_back({H, K});
        if (s.format == prune_format::decilm) {
          for (std::int64_t k = K; k >= 1; --k)
            if (H % k == 0 && k != K && detail::prune_tp_ok(H, k, s.tp)) hk.push_back({H, k});
        } else if (s.format == prune_format::per_layer) {
          const std::int64_t step = s.head_step > 0 ? s.head_step : std::max<std::int64_t>(1, H / K);
          const std::size_t nr = s.lora_ranks.empty() ? 1 : s.lora_ranks.size();
          std::vector<std::int64_t> divisors;
          for (std::int64_t h = H; h >= 1; h -= step) {
            // the KV head counts k <= min(K, h) dividing h, descending: trial division to sqrt(h)
            // (a loop over every k took 43 s for 200,000 heads)
            divisors.clear();
            for (std::int64_t d = 1; d <= h / d; ++d)
              if (h % d == 0) {
                divisors.push_back(d);
                if (d != h / d) divisors.push_back(h / d);
              }
            std::sort(divisors.rbegin(), divisors.rend());
            for (std::int64_t k : divisors)
              if (k <= std::min(K, h) && !(h == H && k == K) && detail::prune_tp_ok(h, k, s.tp)) {
                hk.push_back({h, k});
                if (double(hk.size()) * double(nr) > prune_max_sublayer_options) // before any is scored
                  throw_invalid_argument(prune_fn,
                                         "layer " + std::to_string(i) +
                                             "'s attention would have more than 65536 options (heads x KV heads x "
                                             "LoRA ranks; raise head_step)",
                                         double(hk.size()) * double(nr));
              }
          }
        }
      } else {
        hk.push_back({0, 0});
      }
      const std::vector<std::int64_t> ranks = s.lora_ranks.empty() || a.kind != attention_kind::standard
                                                  ? std::vector<std::int64_t>{0}
                                                  : s.lora_ranks; // q/k/v adapters: standard attention
      for (const auto& [h, k] : hk)
        for (std::int64_t r : ranks) {
          prune_attention_option o;
          o.heads = h;
          o.kv_heads = k;
          o.lora_rank = r;
          prune_layer_choice c;
          c.heads = h;
          c.kv_heads = k;
          c.lora_rank = r;
          c.ffn_none = true;
          detail::prune_block_costs(out.spec, prune_block(l, c), s, cache, o.nsc, o.cost);
          l.attention.push_back(o);
        }
    }
    // A recurrent mixer that is its layer's only sublayer (Nemotron-H) may be removed (no-op) in
    // the nsc format: the whole layer then drops out of hybrid_override_pattern
    // (nsc/io/prune_config.hpp). Beside an FFN (Qwen3-Next) no format nsc writes can skip it: kept.
    if (noop || base.attention.kind == attention_kind::none ||
        (s.no_op && base.attention.recurrent() && base.ffn.kind == ffn_kind::none)) {
      prune_attention_option o;
      o.none = true;
      l.attention.push_back(o);
    }
    // FFN options.
    if (base.ffn.kind != ffn_kind::none) {
      std::vector<std::int64_t> widths;
      const bool resizable = base.ffn.kind == ffn_kind::standard;
      const bool moe = resizable && base.ffn.n_experts > 0;
      { // refuse a grid too large to build before building it (a hostile width or expert count)
        const double nw = resizable && (!moe || s.expert_width)
                              ? (s.ffn_eighths.empty() ? double(base.ffn.d_ff / s.ffn_multiple) + 1
                                                       : double(s.ffn_eighths.size()))
                              : 1.0;
        const double ne = moe && s.expert_step > 0 ? double((base.ffn.n_experts - base.ffn.top_k) / s.expert_step) + 1 : 1.0;
        if (nw * ne > prune_max_sublayer_options)
          throw_invalid_argument(prune_fn,
                                 "layer " + std::to_string(i) +
                                     "'s FFN would have more than 65536 options (widths x expert counts; raise "
                                     "ffn_multiple or expert_step, or keep the expert width)",
                                 nw * ne);
      }
      widths.push_back(resizable ? base.ffn.d_ff : 0);
      if (resizable && (!moe || s.expert_width) && !s.ffn_eighths.empty()) {
        for (std::int64_t j : s.ffn_eighths) {
          const std::int64_t w = nsc::detail::checked_mul(base.ffn.d_ff, j, prune_fn, "an FFN width") / 8;
          if (w >= 1 && w >= s.min_ffn && w % s.tp == 0 && std::find(widths.begin(), widths.end(), w) == widths.end())
            widths.push_back(w);
        }
      } else if (resizable && (!moe || s.expert_width)) {
        for (std::int64_t w = (base.ffn.d_ff - 1) / s.ffn_multiple * s.ffn_multiple; w >= s.ffn_multiple;
             w -= s.ffn_multiple)
          if (w >= s.min_ffn && w % s.tp == 0) widths.push_back(w);
      }
      std::vector<std::int64_t> experts{moe ? base.ffn.n_experts : 0};
      if (moe && s.expert_step > 0)
        for (std::int64_t e = base.ffn.n_experts - s.expert_step; e >= std::max(base.ffn.top_k, s.min_experts);
             e -= s.expert_step)
          if (e % s.ep == 0) experts.push_back(e);
      for (std::int64_t e : experts)
        for (std::int64_t w : widths) {
          prune_ffn_option o;
          o.width = w;
          o.experts = e;
          prune_layer_choice c;
          c.attention_none = true;
          c.ffn_width = w;
          c.experts = e;
          detail::prune_block_costs(out.spec, prune_block(l, c), s, cache, o.nsc, o.cost);
          l.ffn.push_back(o);
        }
    }
    if (noop || base.ffn.kind == ffn_kind::none) {
      prune_ffn_option o;
      o.none = true;
      l.ffn.push_back(o);
    }
    out.layers.push_back(std::move(l));
  }
  out.distinct_layers = keys.size();
  // The fixed part: everything outside "layers.<i>" of the whole model.
  const deployment d = deploy(out.spec, s.load);
  const network net = make_transformer(out.spec, double(s.load.seq_len));
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    if (net.layers[i].name.rfind("layers.", 0) == 0) continue;
    const resources r = count(net.layers[i]);
    const layer_deployment& ld = d.layers[i];
    using nsc::detail::checked_add;
    out.fixed[0] = checked_add(out.fixed[0], r.total(), prune_fn, "fixed params");
    out.fixed[1] = checked_add(out.fixed[1], r.non_embedding(), prune_fn, "fixed params");
    out.fixed[2] = checked_add(out.fixed[2], r.active(), prune_fn, "fixed params");
    out.fixed[3] = checked_add(out.fixed[3], detail::prune_i64(2 * ld.prefill_macs, prune_fn, "prefill FLOPs"), prune_fn,
                               "fixed FLOPs");
    out.fixed[4] = checked_add(out.fixed[4], detail::prune_i64(ld.kv_cache_bytes, prune_fn, "KV bytes"), prune_fn,
                               "fixed KV bytes");
    out.fixed[5] = checked_add(out.fixed[5], detail::prune_i64(ld.memory_bytes(), prune_fn, "memory bytes"),
                               prune_fn, "fixed memory");
    out.fixed_nsc += score(net.layers[i], s.rule, &cache).nsc;
  }
  return out;
}

/// The pruned spec of candidate c (one choice per layer of the space).
/// std::invalid_argument unless c has one choice per layer.
inline transformer_spec prune_apply(const prune_space& space, const prune_candidate& c) {
  if (c.layers.size() != space.layers.size())
    throw_invalid_argument("nsc::search::prune_apply", "the candidate needs one choice per layer of the model",
                           c.layers.size());
  transformer_spec out = space.spec;
  for (std::size_t i = 0; i < out.blocks.size(); ++i) out.blocks[i] = prune_block(space.layers[i], c.layers[i]);
  return out;
}

/// Params (total, non-embedding, active), prefill FLOPs of T tokens, KV-cache bytes, memory
/// bytes and NSC of `spec` exactly as `nsc score` computes them (make_transformer at T, count,
/// deploy at s.load, score with s.rule). `cache` (optional) memoises psi across calls: the
/// values are the same bit for bit (the same computations, looked up).
inline prune_totals_t prune_totals(const transformer_spec& spec_in, const prune_space_settings& s,
                                   psi_cache* cache = nullptr) {
  constexpr std::string_view fn = "nsc::search::prune_totals";
  const transformer_spec spec = expand(spec_in); // per layer, as the search sums them
  const network net = make_transformer(spec, double(s.load.seq_len));
  const resources r = count(net);
  const deployment d = deploy(spec, s.load);
  prune_totals_t t;
  t.cost[0] = r.total();
  t.cost[1] = r.non_embedding();
  t.cost[2] = r.active();
  t.cost[3] = detail::prune_i64(d.prefill_flops(), fn, "prefill FLOPs");
  t.cost[4] = detail::prune_i64(d.kv_cache_bytes, fn, "KV-cache bytes");
  t.cost[5] = detail::prune_i64(d.memory_bytes, fn, "memory bytes");
  psi_cache local;
  t.nsc = score(net, s.rule, cache ? cache : &local).nsc;
  t.flops_per_token = d.flops_per_token();
  return t;
}

/// One budget: cost <= limit (in the cost's units: params, FLOPs of one prefill of T tokens,
/// bytes).
struct prune_budget {
  prune_cost cost = prune_cost::params;
  std::int64_t limit = 0;
};

/// Settings of search_prune.
struct prune_search_settings {
  std::vector<prune_budget> budgets; ///< any subset (empty: no budget, the unpruned optimum)
  bool front = false;                ///< also the Pareto set over the budgeted costs
  std::size_t top = 0;               ///< also the k best (0: none)
  std::size_t min_distance = 0;      ///< k best: min layers-sublayers two differ in
  /// true: every front point's totals re-scored from its spec as best's are (bit for bit what
  /// `nsc score` prints; ~0.6 ms per point for a 32-layer model). false: the front's totals are
  /// the option sums (costs exact integers, the same as a re-score; NSC = dp_value, equal to a
  /// re-score up to floating rounding, ~1e-15 relative) -- for fronts of many points.
  bool rescore_front = true;
  mmck_settings mmck{};
};

/// Why no model fits: for each budget below the cheapest model alone, the smallest value.
struct prune_shortfall {
  prune_cost cost;
  std::int64_t limit = 0;
  std::int64_t smallest = 0; ///< the smallest value any model of the space reaches
};

/// Outcome of search_prune.
struct prune_search_result {
  std::optional<prune_candidate> best; ///< nullopt: infeasible
  std::vector<prune_shortfall> shortfalls; ///< infeasible: the budgets that cannot be met alone
  std::vector<prune_candidate> front;  ///< ascending in the first budgeted cost
  std::vector<prune_candidate> top;    ///< value descending
  prune_candidate unpruned;
  prune_cost_vector minimum{};         ///< smallest reachable value of each cost (alone)
  mmck_info info;
  std::size_t groups = 0;
};

/// The knapsack groups of a space over costs `dims`: group 2i = layer i's attention, 2i + 1 its FFN.
inline mmck_groups<double> prune_groups(const prune_space& space, const std::vector<prune_cost>& dims) {
  mmck_groups<double> g;
  g.reserve(2 * space.layers.size());
  for (const prune_layer_space& l : space.layers) {
    std::vector<mmck_option<double>> a, f;
    for (const auto& o : l.attention) {
      mmck_option<double> x{o.nsc, {}};
      for (prune_cost c : dims) x.cost.push_back(o.cost[std::size_t(c)]);
      a.push_back(std::move(x));
    }
    for (const auto& o : l.ffn) {
      mmck_option<double> x{o.nsc, {}};
      for (prune_cost c : dims) x.cost.push_back(o.cost[std::size_t(c)]);
      f.push_back(std::move(x));
    }
    g.push_back(std::move(a));
    g.push_back(std::move(f));
  }
  return g;
}

/// The candidate of a knapsack selection (2 entries per layer), totals the option sums (exact
/// integers for the costs; NSC the sum of option scores, dp_value).
inline prune_candidate prune_sum_candidate(const prune_space& space, const std::vector<std::size_t>& sel) {
  constexpr std::string_view fn = "nsc::search::prune_sum_candidate";
  prune_candidate c;
  c.dp_value = space.fixed_nsc;
  c.totals.cost = space.fixed;
  for (std::size_t i = 0; i < space.layers.size(); ++i) {
    const prune_layer_space& l = space.layers[i];
    c.layers.push_back(prune_choice(l, sel.at(2 * i), sel.at(2 * i + 1)));
    const prune_attention_option& a = l.attention[sel[2 * i]];
    const prune_ffn_option& f = l.ffn[sel[2 * i + 1]];
    c.dp_value += a.nsc + f.nsc;
    for (std::size_t k = 0; k < prune_cost_count; ++k)
      c.totals.cost[k] = nsc::detail::checked_add(c.totals.cost[k], nsc::detail::checked_add(a.cost[k], f.cost[k], fn, "cost"),
                                                  fn, "total cost");
  }
  c.totals.nsc = c.dp_value;
  c.totals.flops_per_token = double(c.totals.cost[std::size_t(prune_cost::prefill_flops)]) / double(space.settings.load.seq_len);
  return c;
}

/// The candidate of a knapsack selection (2 entries per layer), totals recomputed.
inline prune_candidate prune_make_candidate(const prune_space& space, const std::vector<std::size_t>& sel,
                                            psi_cache* cache = nullptr) {
  prune_candidate c;
  c.dp_value = space.fixed_nsc;
  for (std::size_t i = 0; i < space.layers.size(); ++i) {
    const prune_layer_space& l = space.layers[i];
    c.layers.push_back(prune_choice(l, sel.at(2 * i), sel.at(2 * i + 1)));
    c.dp_value += l.attention[sel[2 * i]].nsc + l.ffn[sel[2 * i + 1]].nsc;
  }
  c.totals = prune_totals(prune_apply(space, c), space.settings, cache);
  return c;
}

/// The exact optimum of the space under every budget at once, plus optionally the Pareto set
/// and the k best. Errors: std::invalid_argument "nsc::search::search_prune: ..." for a budget
/// limit < 0, a cost budgeted twice, and solve_mmck's.
inline prune_search_result search_prune(const prune_space& space, const prune_search_settings& s = {}) {
  constexpr std::string_view fn = "nsc::search::search_prune";
  if (space.layers.empty()) throw_invalid_argument(fn, "the space has no layers");
  std::vector<prune_cost> dims;
  std::vector<std::int64_t> budget;
  for (const prune_budget& b : s.budgets) {
    if (b.limit < 0) throw_invalid_argument(fn, "budget limits must be >= 0", b.limit);
    if (std::find(dims.begin(), dims.end(), b.cost) != dims.end())
      throw_invalid_argument(fn, "a cost is budgeted twice", std::string(to_string(b.cost)));
    dims.push_back(b.cost);
  }
  prune_search_result out;
  psi_cache cache; // one memo for every candidate re-scored below
  // Smallest and largest reachable value of every cost, one at a time (sublayers independent).
  prune_cost_vector largest = space.fixed;
  out.minimum = space.fixed;
  for (const prune_layer_space& l : space.layers)
    for (std::size_t k = 0; k < prune_cost_count; ++k) {
      std::int64_t amin = INT64_MAX, amax = 0, fmin = INT64_MAX, fmax = 0;
      for (const auto& o : l.attention) amin = std::min(amin, o.cost[k]), amax = std::max(amax, o.cost[k]);
      for (const auto& o : l.ffn) fmin = std::min(fmin, o.cost[k]), fmax = std::max(fmax, o.cost[k]);
      using nsc::detail::checked_add;
      out.minimum[k] = checked_add(out.minimum[k], checked_add(amin, fmin, fn, "cost"), fn, "smallest cost");
      largest[k] = checked_add(largest[k], checked_add(amax, fmax, fn, "cost"), fn, "largest cost");
    }
  {
    std::vector<std::size_t> sel;
    for (const prune_layer_space& l : space.layers) {
      (void)l;
      sel.push_back(0);
      sel.push_back(0);
    }
    out.unpruned = prune_make_candidate(space, sel, &cache);
  }
  if (dims.empty()) { // no budget: params with room for everything (the front over params)
    dims.push_back(prune_cost::params);
    budget.push_back(largest[0] - space.fixed[0]);
  } else {
    for (const prune_budget& b : s.budgets) {
      const std::size_t k = std::size_t(b.cost);
      if (b.limit < out.minimum[k]) out.shortfalls.push_back({b.cost, b.limit, out.minimum[k]});
      budget.push_back(std::min(b.limit, largest[k]) - space.fixed[k]);
    }
  }
  if (!out.shortfalls.empty()) return out;
  const mmck_groups<double> groups = prune_groups(space, dims);
  out.groups = groups.size();
  mmck_settings ms = s.mmck;
  ms.single_budget = !s.front; // one query: the Lagrangian-bounded path
  const mmck_result<double> r = solve_mmck(groups, budget, ms);
  out.info = r.info();
  if (const auto ch = r.choice(budget)) {
    out.best = prune_make_candidate(space, *ch, &cache);
    out.best->dp_value = space.fixed_nsc + *r.best(budget);
  }
  if (s.front && out.best)
    for (std::size_t i = 0; i < r.front().size(); ++i) {
      out.front.push_back(s.rescore_front ? prune_make_candidate(space, r.front_choice(i), &cache)
                                          : prune_sum_candidate(space, r.front_choice(i)));
      out.front.back().dp_value = space.fixed_nsc + r.front()[i].value;
    }
  if (s.top > 0 && out.best) {
    k_best_settings ks;
    ks.k = s.top;
    ks.min_distance = s.min_distance;
    ks.mmck = s.mmck;
    for (const auto& x : k_best(groups, budget, ks)) {
      out.top.push_back(prune_make_candidate(space, x.choice, &cache));
      out.top.back().dp_value = space.fixed_nsc + x.value;
    }
  }
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_PRUNE_SPACE_HPP
