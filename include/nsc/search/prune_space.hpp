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
///     prune_engine_settings(settings, prune_engine::vllm) // the space an engine runs
///     search_prune_uniform(space, s)                // one shape for every layer (exact enumeration)
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
///    the kv_bytes and memory costs (deploy). A layer running attention and a Mamba-2 mixer in
///    parallel (falcon_h1, block_spec::parallel): both mixers kept as they are (the nsc format
///    has no field to change either), its FFN pruned as any; decilm refuses it by name (the
///    per_layer writer refuses falcon_h1, whose config has no per_layer_config; --uniform writes
///    its own fields).
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
///    give identical groups (solve_mmck's doubling path). Except where a norm is shared by both
///    sublayers (prune_shared_norms: the one LayerNorm of a parallel block, cohere / cohere2 /
///    falcon-7b): it exists while either sublayer is kept, which no two additive groups price
///    (c(a, f) + c(none, none) = c(a, none) + c(none, f) would need a norm of cost 0), so such a
///    layer is one group of its (attention, FFN) pairs (prune_joint_pairs, prune_pair_cost; at
///    most prune_max_joint_options), as is every layer under attention_needs_ffn.
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
#include <nsc/model/serving.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/search/k_best.hpp>
#include <nsc/search/multi_knapsack.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsc {

/// DeciLM's FFN width of ffn_mult m at hidden size H: find_multiple(int(2 m H / 3), 256), in
/// double arithmetic as Python computes it (0 when out of range).
inline std::int64_t decilm_ffn_width(double m, std::int64_t hidden) {
  const double x = 2 * m * double(hidden) / 3;
  if (!(std::isfinite(x) && x >= 1 && x < 9.0e15)) return 0;
  const auto n = std::int64_t(x);
  return n % 256 == 0 ? n : n + 256 - n % 256;
}

/// The shortest decimal ffn_mult (at most `decimals` decimals, default 12) whose DeciLM width at
/// `hidden` is exactly `width`, or 0 when none exists (then write intermediate_size). With the
/// default, the unrounded 3 width / (2 hidden) is the last resort. A value of at most 6 decimals
/// is unchanged by Python's round(m, 6), which the remote DeciLMConfig and mlx-lm apply.
/// Domain: width, hidden >= 1.
inline double decilm_ffn_mult(std::int64_t width, std::int64_t hidden, int decimals = 12) {
  if (width < 1 || hidden < 1 || width % 256 != 0) return 0;
  const double exact = 3.0 * double(width) / (2.0 * double(hidden));
  for (int digits = 0; digits <= std::min(decimals, 12); ++digits) {
    const double scale = std::pow(10.0, digits);
    for (double m : {std::round(exact * scale) / scale, std::ceil(exact * scale) / scale,
                     std::floor(exact * scale) / scale}) {
      // Print and re-read, as the JSON file will.
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*f", digits, m);
      const double v = std::strtod(buf, nullptr);
      if (v > 0 && decilm_ffn_width(v, hidden) == width) return v;
    }
  }
  return decimals >= 12 && decilm_ffn_width(exact, hidden) == width ? exact : 0;
}

} // namespace nsc

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

/// The serving engine a pruned config must load in (nsc/io/prune_config.hpp writes the keys it
/// reads; prune_engine_settings restricts the space to what it runs). any: the format's own
/// limits only. Every engine but `any` reads DeciLM block_configs with the classic keys.
enum class prune_engine { any, vllm, sglang, trtllm, mlx, llama_cpp, transformers };

constexpr std::string_view to_string(prune_engine e) noexcept {
  switch (e) {
  case prune_engine::any: return "any";
  case prune_engine::vllm: return "vllm";
  case prune_engine::sglang: return "sglang";
  case prune_engine::trtllm: return "trtllm";
  case prune_engine::mlx: return "mlx";
  case prune_engine::llama_cpp: return "llama.cpp";
  case prune_engine::transformers: return "transformers";
  }
  return "?";
}

/// Parses vllm, sglang, trtllm, mlx, llama.cpp (or llama_cpp), transformers;
/// std::invalid_argument otherwise.
inline prune_engine parse_prune_engine(std::string_view s) {
  for (prune_engine e : {prune_engine::vllm, prune_engine::sglang, prune_engine::trtllm, prune_engine::mlx,
                         prune_engine::llama_cpp, prune_engine::transformers})
    if (s == to_string(e)) return e;
  if (s == "llama_cpp") return prune_engine::llama_cpp;
  throw_invalid_argument("nsc::search::parse_prune_engine",
                         "expected vllm, sglang, trtllm, mlx, llama.cpp or transformers", std::string(s));
}

/// The budgeted quantities (every one a sum over layers plus a fixed offset). memory is the
/// total over the tp GPUs as vLLM allocates it (tp x memory_per_gpu: replicated KV heads and
/// norms counted on every GPU; the model's own weights + KV when tp = 1); memory_per_gpu is
/// one GPU's weights + KV (nsc/model/serving.hpp's shard); weight_bytes the model's weights at
/// the weight dtype; decode_time / prefill_time the roofline decode step at the batch and the
/// prefill of one sequence of the context, in picoseconds (nsc/model/serving.hpp; 0 without a
/// GPU in the settings).
enum class prune_cost {
  params, params_non_embedding, params_active, prefill_flops, kv_bytes, memory,
  weight_bytes, memory_per_gpu, decode_time, prefill_time
};
inline constexpr std::size_t prune_cost_count = 10;

constexpr std::string_view to_string(prune_cost c) noexcept {
  switch (c) {
  case prune_cost::params: return "params";
  case prune_cost::params_non_embedding: return "params_non_embedding";
  case prune_cost::params_active: return "params_active";
  case prune_cost::prefill_flops: return "prefill_flops";
  case prune_cost::kv_bytes: return "kv_bytes";
  case prune_cost::memory: return "memory";
  case prune_cost::weight_bytes: return "weight_bytes";
  case prune_cost::memory_per_gpu: return "memory_per_gpu";
  case prune_cost::decode_time: return "decode_time_ps";
  case prune_cost::prefill_time: return "prefill_time_ps";
  }
  return "?";
}

/// The most options one sublayer (a layer's attention or FFN) may have: far above any real grid
/// (Llama-3.1-70B's FFN 113, DeepSeek-V3's MoE 249 expert counts x 8 widths), far below what
/// would take seconds or gigabytes to build; a larger space is refused with its size.
inline constexpr double prune_max_sublayer_options = 65536;

/// The most (attention, FFN) pairs of a layer that is one knapsack group (prune_joint_pairs: a
/// norm shared by both sublayers, or attention_needs_ffn): 2^20, e.g. 64 attention x 16384 FFN
/// options; Command R7B's per-layer space has 35 x 52.
inline constexpr double prune_max_joint_options = 1048576;

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
  std::int64_t min_kv_heads = 0;   ///< standard attention: fewest KV heads kept (the model's own always offered)
  double min_ffn_ratio = 0;        ///< FFN widths >= this share of the layer's own width (the own always offered)
  /// A GPU (and engine settings) for the decode_time / prefill_time costs; par.tp / par.ep are
  /// taken from tp / ep above.
  std::optional<serving_settings> serving;
  /// >= 0: FFN widths (dense; experts' too) only where a decimal ffn_mult of at most this many
  /// decimals gives the width exactly (decilm_ffn_mult; DeciLM engines read ffn_mult only), the
  /// model's own width included; -1: no restriction.
  int ffn_mult_decimals = -1;
  bool attention_needs_ffn = false;  ///< a layer keeping attention keeps its FFN (llama.cpp deci)
  bool keep_first_attention = false; ///< layer 0 keeps its attention (llama.cpp deci, mlx-lm)
  prune_engine engine = prune_engine::any; ///< informative: set by prune_engine_settings
  scoring rule{};                  ///< Xavier of each block, psi_MP (nsc score's default)
  qkv_layout qkv = qkv_layout::per_head;
  out_layout out = out_layout::whole;
};

/// `s` restricted to what engine `e` loads (../shared/docs/deployment.md "Engines", read from
/// the engines' code): every engine reads DeciLM block_configs (format decilm) with FFN widths
/// from ffn_mult only (SGLang, TensorRT-LLM, mlx-lm and llama.cpp's converter read no other
/// width; vLLM and transformers build the config with the remote DeciLMConfig, whose FFNConfig
/// has ffn_mult alone and rounds it to 6 decimals, as mlx-lm does), so widths are those a
/// 6-decimal ffn_mult gives exactly (ffn_mult_decimals = 6); llama.cpp: no layer keeps attention
/// without its FFN (src/models/deci.cpp `continue`s before `inpL = cur` when n_ff == 0, so that
/// attention's output is lost) and layer 0 keeps attention (the converter and loader take head
/// sizes from it); mlx-lm: layer 0 keeps attention (its cache builds every layer's mask).
/// Other settings (grid, tp, budgets' workload) are kept. Models the engine cannot run at all
/// (MoE, MLA, q/k norms, biases) are refused by the writer (nsc/io/prune_config.hpp).
inline prune_space_settings prune_engine_settings(prune_space_settings s, prune_engine e) {
  s.engine = e;
  if (e == prune_engine::any) return s;
  s.format = prune_format::decilm;
  s.ffn_mult_decimals = 6;
  s.attention_needs_ffn = e == prune_engine::llama_cpp;
  s.keep_first_attention = e == prune_engine::llama_cpp || e == prune_engine::mlx;
  return s;
}

/// One attention option of a layer.
struct prune_attention_option {
  bool none = false;
  std::int64_t heads = 0, kv_heads = 0; ///< standard attention (0 otherwise)
  std::int64_t lora_rank = 0;           ///< q/k/v LoRA rank set (0: the model's adapters kept)
  double nsc = 0;
  prune_cost_vector cost{};
  /// The costs when the layer keeps an FFN too: equal to cost, except in a layer with a norm
  /// shared by its parallel attention and FFN (prune_layer_space::shared_norms), where the kept
  /// FFN's option carries that norm and this is cost without it.
  prune_cost_vector cost_beside_ffn{};
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
  /// Norms shared by the layer's attention and FFN (prune_shared_norms: the one LayerNorm of a
  /// parallel block, cohere / cohere2 / falcon parallel_attn with num_ln_in_parallel_attn 1):
  /// present while either sublayer is kept, removed with the second. Priced in every FFN option
  /// (cost) and in the attention options alone (prune_attention_option::cost, not
  /// cost_beside_ffn); prune_pair_cost adds a pair up.
  std::int64_t shared_norms = 0;
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
        std::int64_t(a.qk_norm), a.sliding_window, std::int64_t(a.sinks), a.chunk, std::int64_t(a.nope), a.index_n_heads,
        a.index_head_dim, a.index_topk, a.q_lora_rank, a.kv_lora_rank, a.qk_nope_head_dim,
        a.qk_rope_head_dim, a.v_head_dim, a.ssm_heads, a.ssm_head_dim, a.ssm_state, a.ssm_groups, a.conv_kernel,
        std::int64_t(a.conv_bias), std::int64_t(a.ssm_norm), std::int64_t(a.output_gate), std::int64_t(a.k_eq_v), std::int64_t(a.kv_shared), std::int64_t(f.router_scales), b.per_layer_input, std::int64_t(f.kind), f.d_model, f.d_ff, std::int64_t(f.gated),
        std::int64_t(f.bias), f.lora_gate, f.lora_up, f.lora_down, f.n_experts, f.top_k,
        std::int64_t(f.router_bias), f.shared_d_ff, std::int64_t(f.shared_gate), std::int64_t(b.norm), b.n_norms})
    put(v);
  const attention_spec& p = b.parallel; // falcon_h1's Mamba-2 beside the attention
  for (std::int64_t v : {std::int64_t(p.kind), p.ssm_heads, p.ssm_head_dim, p.ssm_state, p.ssm_groups, p.conv_kernel,
                         std::int64_t(p.conv_bias), std::int64_t(p.ssm_norm), std::int64_t(p.qkv_bias), std::int64_t(p.out_bias)})
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
/// The parallelism of the settings (tp; experts split by count when ep == tp, else by width:
/// an ep other than tp only constrains the expert counts of the space).
inline parallelism prune_parallelism(const prune_space_settings& s) {
  parallelism p;
  p.tp = s.tp;
  p.ep = s.ep == s.tp ? s.ep : 1;
  return p;
}

/// The serving settings of s with its tp / ep (s.serving must be set).
inline serving_settings prune_serving(const prune_space_settings& s) {
  serving_settings v = *s.serving;
  v.par = prune_parallelism(s);
  return v;
}

/// Per network entry of `one`: one GPU's weights + KV bytes (the tp shard).
inline std::vector<std::uint64_t> prune_gpu_memory(const transformer_spec& one, const prune_space_settings& s) {
  std::vector<std::uint64_t> out;
  const parallelism p = prune_parallelism(s);
  const deployment d = deploy(p.tp == 1 && p.ep == 1 ? one : shard_spec(one, p), s.load);
  for (const layer_deployment& l : d.layers) out.push_back(l.memory_bytes());
  return out;
}

inline void prune_block_costs(const transformer_spec& spec, const block_spec& b, const prune_space_settings& s,
                              psi_cache& cache, double& nsc, prune_cost_vector& c) {
  transformer_spec one = spec;
  one.blocks.assign(1, b);
  const deployment d = deploy(one, s.load);
  const std::vector<std::uint64_t> gpu = prune_gpu_memory(one, s);
  std::vector<serving_entry> times;
  if (s.serving) times = serving_entries(one, s.load, prune_serving(s));
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
    c[6] = prune_i64(ld.weight_bytes, prune_fn, "weight bytes");
    c[7] = prune_i64(gpu.at(i), prune_fn, "memory bytes per GPU");
    c[5] = s.tp > 1 ? nsc::detail::checked_mul(c[7], s.tp, prune_fn, "memory bytes") : prune_i64(ld.memory_bytes(), prune_fn, "memory bytes");
    c[8] = s.serving ? times.at(i).decode_ps : 0;
    c[9] = s.serving ? times.at(i).prefill_ps : 0;
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

/// Whether layer l is one knapsack group of (attention, FFN) pairs (search::prune_joint_pairs):
/// attention_needs_ffn, or a shared norm where a kept attention may meet a removed FFN.
inline bool prune_layer_joint(const prune_layer_space& l, const prune_space_settings& s) {
  if (s.attention_needs_ffn) return true;
  if (l.shared_norms == 0) return false;
  bool ffn_none = false, attention_kept = false;
  for (const auto& o : l.ffn) ffn_none = ffn_none || o.none;
  for (const auto& o : l.attention) attention_kept = attention_kept || !o.none;
  return ffn_none && attention_kept;
}

} // namespace detail

/// The norms of block b shared by its attention and FFN: n_norms % 2 when b has both (a
/// parallel block whose one LayerNorm feeds both sublayers: cohere, cohere2, falcon with
/// parallel_attn and num_ln_in_parallel_attn 1), else 0. The other norms belong to the
/// sublayers, (n_norms - shared) / 2 each (nsc/model/serving.hpp's sublayer_block gives the
/// shared one to the FFN, as the space prices it).
inline std::int64_t prune_shared_norms(const block_spec& b) {
  return b.attention.kind != attention_kind::none && b.ffn.kind != ffn_kind::none ? b.n_norms % 2 : 0;
}

/// The block of layer l for choice c (kept sublayers' norms only; the shared norms while either
/// sublayer is kept).
inline block_spec prune_block(const prune_layer_space& l, const prune_layer_choice& c) {
  block_spec b = l.base;
  std::int64_t present = 0;
  if (c.attention_none) {
    b.attention.kind = attention_kind::none;
    b.attention.output_gate = false; // a removed gated attention (qwen3_next) keeps no gate
    b.parallel.kind = attention_kind::none; // and a removed attention its parallel mixer (falcon_h1)
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
  b.n_norms = l.norms_per_sublayer * present + (present > 0 ? l.shared_norms : 0);
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

/// Every cost of layer l keeping attention option ai and FFN option fi: the two options' costs
/// added, the attention's without the shared norms when a kept FFN carries them
/// (prune_attention_option::cost_beside_ffn). Exact: equal to the costs of prune_block(l, that
/// choice) as prune_totals counts them (serve() splits the block the same way).
inline prune_cost_vector prune_pair_cost(const prune_layer_space& l, std::size_t ai, std::size_t fi) {
  const prune_attention_option& a = l.attention.at(ai);
  const prune_ffn_option& f = l.ffn.at(fi);
  const prune_cost_vector& ac = !a.none && !f.none ? a.cost_beside_ffn : a.cost;
  prune_cost_vector c{};
  for (std::size_t k = 0; k < prune_cost_count; ++k)
    c[k] = nsc::detail::checked_add(ac[k], f.cost[k], "nsc::search::prune_pair_cost", "a layer's cost");
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
  if (s.min_kv_heads < 0) throw_invalid_argument(prune_fn, "min_kv_heads must be >= 0", s.min_kv_heads);
  if (!(s.min_ffn_ratio >= 0 && s.min_ffn_ratio <= 1))
    throw_invalid_argument(prune_fn, "min_ffn_ratio must be in [0, 1]", s.min_ffn_ratio);
  if (s.ffn_mult_decimals < -1 || s.ffn_mult_decimals > 12)
    throw_invalid_argument(prune_fn, "ffn_mult_decimals must be in [0, 12] (or -1: widths unrestricted)",
                           s.ffn_mult_decimals);
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
  { // Gemma 4 structures the space does not model: refused by name, each with its first layer
    std::string what;
    auto note = [&](bool found, std::size_t i, const char* text) {
      if (found && what.find(text) == std::string::npos)
        what += (what.empty() ? "" : "; ") + std::string(text) + " (from layer " + std::to_string(i) + ")";
    };
    for (std::size_t i = 0; i < out.spec.blocks.size(); ++i) {
      const block_spec& b = out.spec.blocks[i];
      note(b.attention.kv_shared, i,
           "KV-shared layers (Gemma 4 num_kv_shared_layers: each reads the keys and values of an earlier layer, "
           "so neither could be pruned or removed apart from the other)");
      note(b.per_layer_input > 0, i,
           "per-layer embeddings (Gemma 4 hidden_size_per_layer_input: the per-layer table's width follows the "
           "layer count)");
      note(b.ffn.router_scales, i, "the Gemma 4 MoE block (enable_moe_block: routed experts beside the dense MLP)");
    }
    if (!what.empty())
      throw_invalid_argument(prune_fn,
                             "the model has " + what +
                                 ", which the pruning space does not model; nsc score and nsc fit read it (Gemma 4 "
                                 "without these, like gemma-4-31B, can be pruned)",
                             out.spec.name);
  }
  for (std::size_t i = 0; i < out.spec.blocks.size(); ++i) { // DeciLM and per_layer_config have no state-space mixer
    // DeciLM's blocks have no second mixer; per_layer (whose per_layer_config falcon_h1 does not
    // read: refused by name when written) still serves --uniform, which writes the family's own fields.
    if (s.format == prune_format::decilm && out.spec.blocks[i].parallel.kind != attention_kind::none)
      throw_invalid_argument(prune_fn,
                             "layer " + std::to_string(i) + " runs attention and a " +
                                 std::string(to_string(out.spec.blocks[i].parallel.kind)) +
                                 " mixer in parallel (falcon_h1), which the " + std::string(to_string(s.format)) +
                                 " format cannot express; use --emit-format nsc (it keeps the mixers and prunes the FFN widths)",
                             to_string(s.format));
    if (s.format != prune_format::nsc && out.spec.blocks[i].attention.recurrent())
      throw_invalid_argument(prune_fn,
                             "layer " + std::to_string(i) + " is a " + std::string(to_string(out.spec.blocks[i].attention.kind)) + " layer, which the " +
                                 std::string(to_string(s.format)) +
                                 " format cannot express; use --emit-format nsc (it keeps or removes such layers)",
                             to_string(s.format));
  }
  psi_cache cache;
  std::vector<std::string> keys;
  std::vector<std::size_t> first_of;
  for (std::size_t i = 0; i < out.spec.blocks.size(); ++i) {
    const block_spec& base = out.spec.blocks[i];
    const bool first_kept = s.keep_first_attention && i == 0; // layer 0 keeps its attention
    const std::string key = detail::prune_block_key(base) + (first_kept ? "first" : "");
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
    l.shared_norms = prune_shared_norms(base);
    l.norms_per_sublayer = present > 0 ? (base.n_norms - l.shared_norms) / present : 0;
    // Attention options.
    if (base.attention.kind != attention_kind::none) {
      const attention_spec& a = base.attention;
      std::vector<std::pair<std::int64_t, std::int64_t>> hk;
      if (a.kind == attention_kind::standard) {
        const std::int64_t H = a.n_heads, K = a.kv_heads();
        hk.push_back({H, K});
        if (s.format == prune_format::decilm) {
          for (std::int64_t k = K; k >= 1; --k)
            if (H % k == 0 && k != K && k >= s.min_kv_heads && detail::prune_tp_ok(H, k, s.tp)) hk.push_back({H, k});
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
              if (k <= std::min(K, h) && k >= s.min_kv_heads && !(h == H && k == K) && detail::prune_tp_ok(h, k, s.tp)) {
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
          o.cost_beside_ffn = o.cost;
          if (l.shared_norms > 0) { // the same attention without the norm a kept FFN carries
            block_spec b = prune_block(l, c);
            b.n_norms -= l.shared_norms;
            double unscored = 0; // norms are not scored: the same NSC
            detail::prune_block_costs(out.spec, b, s, cache, unscored, o.cost_beside_ffn);
          }
          l.attention.push_back(o);
        }
    }
    // A recurrent mixer that is its layer's only sublayer (Nemotron-H) may be removed (no-op) in
    // the nsc format: the whole layer then drops out of hybrid_override_pattern
    // (nsc/io/prune_config.hpp). Beside an FFN (Qwen3-Next) no format nsc writes can skip it: kept.
    if ((noop && !first_kept) || base.attention.kind == attention_kind::none ||
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
      // the floor: min_ffn, and min_ffn_ratio of this layer's own width (rounded up)
      const std::int64_t floor_w =
          std::max(s.min_ffn, std::int64_t(std::ceil(s.min_ffn_ratio * double(base.ffn.d_ff) - 1e-9)));
      if (resizable && (!moe || s.expert_width) && !s.ffn_eighths.empty()) {
        for (std::int64_t j : s.ffn_eighths) {
          const std::int64_t w = nsc::detail::checked_mul(base.ffn.d_ff, j, prune_fn, "an FFN width") / 8;
          if (w >= 1 && w >= floor_w && w % s.tp == 0 && std::find(widths.begin(), widths.end(), w) == widths.end())
            widths.push_back(w);
        }
      } else if (resizable && (!moe || s.expert_width)) {
        for (std::int64_t w = (base.ffn.d_ff - 1) / s.ffn_multiple * s.ffn_multiple; w >= s.ffn_multiple;
             w -= s.ffn_multiple)
          if (w >= floor_w && w % s.tp == 0) widths.push_back(w);
      }
      if (resizable && s.ffn_mult_decimals >= 0) { // only widths a short ffn_mult gives exactly
        widths.erase(std::remove_if(widths.begin(), widths.end(),
                                    [&](std::int64_t w) {
                                      return decilm_ffn_mult(w, out.spec.d_model, s.ffn_mult_decimals) == 0;
                                    }),
                     widths.end());
        if (widths.empty())
          throw_invalid_argument(prune_fn,
                                 "layer " + std::to_string(i) + "'s FFN has no width on the grid that an ffn_mult of " +
                                     std::to_string(s.ffn_mult_decimals) +
                                     " decimals gives exactly (find_multiple(int(2 m hidden / 3), 256): multiples of "
                                     "256; ffn_multiple and min_ffn allow none)",
                                 base.ffn.d_ff);
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
    if (detail::prune_layer_joint(l, s) && double(l.attention.size()) * double(l.ffn.size()) > prune_max_joint_options)
      throw_invalid_argument(prune_fn,
                             "layer " + std::to_string(i) +
                                 " is one knapsack group of (attention, FFN) pairs (" +
                                 (l.shared_norms > 0 ? "a norm shared by both sublayers" : "no attention without its FFN") +
                                 ") and would have more than 2^20 of them (raise ffn_multiple or head_step)",
                             double(l.attention.size()) * double(l.ffn.size()));
    out.layers.push_back(std::move(l));
  }
  out.distinct_layers = keys.size();
  // The fixed part: everything outside "layers.<i>" of the whole model.
  const deployment d = deploy(out.spec, s.load);
  const std::vector<std::uint64_t> gpu_fixed = detail::prune_gpu_memory(out.spec, s);
  std::vector<serving_entry> times_fixed;
  if (s.serving) times_fixed = serving_entries(out.spec, s.load, detail::prune_serving(s));
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
    const std::int64_t mem_gpu = detail::prune_i64(gpu_fixed.at(i), prune_fn, "memory bytes per GPU");
    out.fixed[5] = checked_add(out.fixed[5],
                               s.tp > 1 ? nsc::detail::checked_mul(mem_gpu, s.tp, prune_fn, "memory bytes")
                                        : detail::prune_i64(ld.memory_bytes(), prune_fn, "memory bytes"),
                               prune_fn, "fixed memory");
    out.fixed[6] = checked_add(out.fixed[6], detail::prune_i64(ld.weight_bytes, prune_fn, "weight bytes"), prune_fn, "fixed weight bytes");
    out.fixed[7] = checked_add(out.fixed[7], mem_gpu, prune_fn, "fixed memory per GPU");
    if (s.serving) {
      out.fixed[8] = checked_add(out.fixed[8], times_fixed.at(i).decode_ps, prune_fn, "fixed decode time");
      out.fixed[9] = checked_add(out.fixed[9], times_fixed.at(i).prefill_ps, prune_fn, "fixed prefill time");
    }
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
  t.cost[6] = detail::prune_i64(d.weight_bytes, fn, "weight bytes");
  {
    const parallelism p = detail::prune_parallelism(s);
    const deployment g = p.tp == 1 && p.ep == 1 ? d : deploy(shard_spec(spec, p), s.load);
    t.cost[7] = detail::prune_i64(g.memory_bytes, fn, "memory bytes per GPU");
  }
  t.cost[5] = s.tp > 1 ? nsc::detail::checked_mul(t.cost[7], s.tp, fn, "memory bytes") : detail::prune_i64(d.memory_bytes, fn, "memory bytes");
  if (s.serving) {
    const serving_report sr = serve(spec, s.load, detail::prune_serving(s), false);
    t.cost[8] = sr.decode_ps;
    t.cost[9] = sr.prefill_ps;
  }
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
  /// > 0: an epsilon-front (solve_mmck_front: in-DP trimming, then an epsilon-cover): every model
  /// x with (1 + eps) cost_k(x) <= B_k has a listed one within (1 + eps) in each budgeted cost
  /// with >= its NSC. 0: the exact front when it is solved within front_exact_work and listed
  /// within mmck.max_table_bytes, otherwise the first epsilon of 0.01, 0.05, 0.2, 1 that fits.
  double front_epsilon = 0;
  /// Work cap (DP candidates) of the exact front attempt (0: none); mmck.max_work if smaller.
  std::uint64_t front_exact_work = 100000000;
  mmck_settings mmck{};
  /// top: false (default) lists the k best up to permuting identical sublayers (identical
  /// layers' attention or FFN choices swapped give the same model scores and costs: one entry,
  /// top_orderings says how many it stands for); true: every position assignment.
  bool positions = false;
  /// front: bytes held per listed point beside the listing itself (e.g. a plot of the front in
  /// another process), counted against mmck.max_table_bytes with it: a front whose listing and
  /// this copy do not fit together is listed coarser or refused, as one too large to list.
  std::size_t front_point_extra_bytes = 0;
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
  std::vector<std::string> top_orderings; ///< per top entry: the selections it stands for (decimal)
  prune_candidate unpruned;
  prune_cost_vector minimum{};         ///< smallest reachable value of each cost (alone)
  mmck_info info;
  std::size_t groups = 0;
  std::size_t front_points = 0;        ///< points the front's DP returned (exact: the Pareto set)
  double front_epsilon = 0;            ///< the front's guarantee (0: exact; solve_mmck_front)
  double front_dp_epsilon = 0;         ///< its in-DP trimming share
  std::string front_exact_refusal;     ///< why the exact front is not listed (empty: it is)
  double front_exact_seconds = 0;      ///< time spent on the exact attempt before the epsilon-front
  mmck_info front_info;                ///< the front's DP (info: the best's)
  std::uint64_t uniform_models = 0;    ///< search_prune_uniform: models enumerated (0: the knapsack ran)
};

/// Per layer of the space, the (attention option, FFN option) pairs it offers when the layer is
/// ONE knapsack group, or an empty list when its attention and FFN are two groups (the usual
/// case: every cost of a block is the sum of its sublayers'). A layer is one group when
///  * attention_needs_ffn (llama.cpp): the pairs are every attention option with every kept FFN,
///    plus both removed;
///  * it has a norm shared by both sublayers (prune_layer_space::shared_norms) and both may be
///    removed: a pair costs A0(a) + F(f) with both kept, A1(a) = A0(a) + the norm with the FFN
///    removed, F(f) with the attention removed, 0 with neither (prune_pair_cost). No two
///    independent groups price these four exactly: additive costs would need c(a, f) + c(none,
///    none) = c(a, none) + c(none, f), i.e. a norm of cost 0. Every pair is listed (the product
///    of the two option counts, refused by make_prune_space beyond prune_max_joint_options).
/// Where the FFN cannot be removed (format nsc, no_op false) the shared norm is always there and
/// the layer stays two groups, its attention priced at cost_beside_ffn.
inline std::vector<std::vector<std::pair<std::size_t, std::size_t>>> prune_joint_pairs(const prune_space& space) {
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> pairs(space.layers.size());
  for (std::size_t i = 0; i < space.layers.size(); ++i) {
    const prune_layer_space& l = space.layers[i];
    if (!detail::prune_layer_joint(l, space.settings)) continue;
    for (std::size_t ai = 0; ai < l.attention.size(); ++ai)
      for (std::size_t fi = 0; fi < l.ffn.size(); ++fi)
        if (!space.settings.attention_needs_ffn || !l.ffn[fi].none || l.attention[ai].none) pairs[i].push_back({ai, fi});
  }
  return pairs;
}

/// The knapsack groups of a space over costs `dims`, layer by layer: a layer with joint pairs
/// (prune_joint_pairs) is one group of them, any other two groups, its attention options (at
/// cost_beside_ffn) and its FFN options.
inline mmck_groups<double> prune_groups(const prune_space& space, const std::vector<prune_cost>& dims,
                                        const std::vector<std::vector<std::pair<std::size_t, std::size_t>>>& pairs) {
  mmck_groups<double> g;
  g.reserve(2 * space.layers.size());
  for (std::size_t i = 0; i < space.layers.size(); ++i) {
    const prune_layer_space& l = space.layers[i];
    if (!pairs.at(i).empty()) {
      std::vector<mmck_option<double>> joint;
      for (const auto& [ai, fi] : pairs[i]) {
        const prune_cost_vector pc = prune_pair_cost(l, ai, fi);
        mmck_option<double> x{l.attention[ai].nsc + l.ffn[fi].nsc, {}};
        for (prune_cost c : dims) x.cost.push_back(pc[std::size_t(c)]);
        joint.push_back(std::move(x));
      }
      g.push_back(std::move(joint));
      continue;
    }
    std::vector<mmck_option<double>> a, f;
    for (const auto& o : l.attention) {
      mmck_option<double> x{o.nsc, {}};
      for (prune_cost c : dims) x.cost.push_back(o.cost_beside_ffn[std::size_t(c)]);
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

/// The knapsack groups of a space over costs `dims` (prune_groups with prune_joint_pairs).
inline mmck_groups<double> prune_groups(const prune_space& space, const std::vector<prune_cost>& dims) {
  return prune_groups(space, dims, prune_joint_pairs(space));
}

/// A knapsack selection of prune_groups (one entry per group) as 2 entries per layer
/// (attention option, FFN option).
inline std::vector<std::size_t> prune_group_selection(
    const std::vector<std::vector<std::pair<std::size_t, std::size_t>>>& pairs, const std::vector<std::size_t>& choice) {
  std::vector<std::size_t> sel;
  std::size_t g = 0;
  for (const auto& p : pairs) {
    if (p.empty()) {
      sel.push_back(choice.at(g++));
      sel.push_back(choice.at(g++));
    } else {
      sel.push_back(p.at(choice.at(g)).first);
      sel.push_back(p[choice[g++]].second);
    }
  }
  return sel;
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
    c.dp_value += l.attention[sel[2 * i]].nsc + l.ffn[sel[2 * i + 1]].nsc;
    const prune_cost_vector pc = prune_pair_cost(l, sel[2 * i], sel[2 * i + 1]);
    for (std::size_t k = 0; k < prune_cost_count; ++k)
      c.totals.cost[k] = nsc::detail::checked_add(c.totals.cost[k], pc[k], fn, "total cost");
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
  // A layer is one knapsack group of its allowed (attention, FFN) pairs where its sublayers'
  // costs do not add up independently (prune_joint_pairs), two groups otherwise.
  const std::vector<std::vector<std::pair<std::size_t, std::size_t>>> pairs = prune_joint_pairs(space);
  // Smallest and largest reachable value of every cost, one at a time (sublayers independent,
  // or the allowed pairs).
  prune_cost_vector largest = space.fixed;
  out.minimum = space.fixed;
  for (std::size_t i = 0; i < space.layers.size(); ++i) {
    const prune_layer_space& l = space.layers[i];
    for (std::size_t k = 0; k < prune_cost_count; ++k) {
      using nsc::detail::checked_add;
      std::int64_t lo = INT64_MAX, hi = 0;
      if (!pairs[i].empty()) {
        for (const auto& [ai, fi] : pairs[i]) {
          const std::int64_t c = prune_pair_cost(l, ai, fi)[k];
          lo = std::min(lo, c), hi = std::max(hi, c);
        }
      } else {
        std::int64_t amin = INT64_MAX, amax = 0, fmin = INT64_MAX, fmax = 0;
        for (const auto& o : l.attention) amin = std::min(amin, o.cost_beside_ffn[k]), amax = std::max(amax, o.cost_beside_ffn[k]);
        for (const auto& o : l.ffn) fmin = std::min(fmin, o.cost[k]), fmax = std::max(fmax, o.cost[k]);
        lo = checked_add(amin, fmin, fn, "cost");
        hi = checked_add(amax, fmax, fn, "cost");
      }
      out.minimum[k] = checked_add(out.minimum[k], lo, fn, "smallest cost");
      largest[k] = checked_add(largest[k], hi, fn, "largest cost");
    }
  }
  // A selection of the knapsack (one entry per group) as 2 entries per layer.
  auto sublayers = [&](const std::vector<std::size_t>& ch) { return prune_group_selection(pairs, ch); };
  {
    std::vector<std::size_t> sel;
    bool own = true; // the model's own options are first (not so when a width filter dropped them)
    for (const prune_layer_space& l : space.layers) {
      sel.push_back(0);
      sel.push_back(0);
      if (!l.ffn.empty() && !l.ffn[0].none && l.base.ffn.kind == ffn_kind::standard && l.ffn[0].width != l.base.ffn.d_ff)
        own = false;
    }
    out.unpruned = prune_make_candidate(space, sel, &cache);
    if (!own) out.unpruned.totals = prune_totals(space.spec, space.settings, &cache);
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
  const mmck_groups<double> groups = prune_groups(space, dims, pairs);
  out.groups = groups.size();
  mmck_settings ms = s.mmck;
  ms.single_budget = !s.front; // one query: the Lagrangian-bounded path
  // the front (solve_mmck_front's cost model); one candidate per listed point: per-layer choices
  // and totals (refused past the cap)
  const std::size_t per =
      groups.size() * 8 + space.layers.size() * sizeof(prune_layer_choice) + 512 + s.front_point_extra_bytes;
  std::optional<mmck_front_solution<double>> fs;
  if (s.front)
    fs = solve_mmck_front(groups, budget, s.mmck, s.front_epsilon, per, s.mmck.max_table_bytes, s.front_exact_work, fn);
  // the best: the exact front answers it; otherwise one exact query of the budget vector
  std::optional<mmck_result<double>> single;
  if (!fs || fs->epsilon > 0) {
    ms.single_budget = true;
    single = solve_mmck(groups, budget, ms);
  }
  const mmck_result<double>& r = single ? *single : fs->result;
  out.info = r.info();
  if (const auto ch = r.choice(budget)) {
    out.best = prune_make_candidate(space, sublayers(*ch), &cache);
    out.best->dp_value = space.fixed_nsc + *r.best(budget);
  }
  if (s.front && out.best) {
    const mmck_result<double>& fr = fs->result;
    mmck_front_summary(out, *fs);
    for (std::size_t i : fs->listing) {
      out.front.push_back(s.rescore_front ? prune_make_candidate(space, sublayers(fr.front_choice(i)), &cache)
                                          : prune_sum_candidate(space, sublayers(fr.front_choice(i))));
      out.front.back().dp_value = space.fixed_nsc + fr.front()[i].value;
    }
  }
  if (s.top > 0 && out.best) {
    k_best_settings ks;
    ks.k = s.top;
    ks.min_distance = s.min_distance;
    ks.mmck = s.mmck;
    ks.positions = s.positions;
    const auto classes = identical_classes(groups);
    for (const auto& x : k_best(groups, budget, ks)) {
      out.top_orderings.push_back(count_orderings(classes, x.choice));
      out.top.push_back(prune_make_candidate(space, sublayers(x.choice), &cache));
      out.top.back().dp_value = space.fixed_nsc + x.value;
    }
  }
  return out;
}


/// The exact optimum over uniform models (Minitron-style homogeneous pruning): one attention
/// shape (query heads, KV heads) for every standard-attention layer, one width for every dense
/// FFN, one (experts kept, expert width) for every MoE layer -- each shape one that every layer
/// of its kind offers in `space` (build it with format per_layer for head pruning) -- and a
/// depth d: the last L - d layers removed (only where every one of them may be removed, i.e.
/// the space offers no-op sublayers; so index-based layer patterns of the config, e.g.
/// first_k_dense_replace or layer_types, keep their meaning). Other sublayers (MLA, linear)
/// keep their first non-removed option. Solved by enumeration: every (attention, dense, MoE)
/// shape triple, and for each the running sums over layers 0, 1, ... give every depth, so
/// (#shapes) x L layer additions in all; the value is the sum of option scores (the knapsack's
/// value), the best re-scored from its spec. Ties keep the first in that order (larger shapes
/// first, shallower depth first). Errors: search_prune's, std::invalid_argument
/// "nsc::search::search_prune_uniform: ..." with front / top (one answer), when no shape is
/// offered by every layer, and when the enumeration would exceed 4e8 layer additions.
inline prune_search_result search_prune_uniform(const prune_space& space, const prune_search_settings& s = {}) {
  constexpr std::string_view fn = "nsc::search::search_prune_uniform";
  if (space.layers.empty()) throw_invalid_argument(fn, "the space has no layers");
  if (s.front || s.top > 0)
    throw_invalid_argument(fn, "the uniform search gives one answer: no Pareto front or k best (drop front / top)");
  for (const prune_budget& b : s.budgets)
    if (b.limit < 0) throw_invalid_argument(fn, "budget limits must be >= 0", b.limit);
  for (std::size_t i = 0; i < s.budgets.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (s.budgets[i].cost == s.budgets[j].cost)
        throw_invalid_argument(fn, "a cost is budgeted twice", std::string(to_string(s.budgets[i].cost)));
  const std::size_t L = space.layers.size();
  using shape = std::array<std::int64_t, 3>;
  // The shapes every layer of a kind offers (in the first such layer's order).
  std::vector<shape> A, D, M;
  bool seen_a = false, seen_d = false, seen_m = false;
  auto meet = [](std::vector<shape>& acc, bool& seen, const std::vector<shape>& mine) {
    if (!seen) {
      acc = mine;
      seen = true;
      return;
    }
    acc.erase(std::remove_if(acc.begin(), acc.end(),
                             [&](const shape& x) { return std::find(mine.begin(), mine.end(), x) == mine.end(); }),
              acc.end());
  };
  enum class fkind { dense, moe, other };
  std::vector<fkind> kinds(L);
  for (std::size_t i = 0; i < L; ++i) {
    const prune_layer_space& l = space.layers[i];
    if (l.base.attention.kind == attention_kind::standard) {
      std::vector<shape> mine;
      for (const auto& o : l.attention)
        if (!o.none) mine.push_back({o.heads, o.kv_heads, o.lora_rank});
      meet(A, seen_a, mine);
    }
    kinds[i] = l.base.ffn.kind != ffn_kind::standard ? fkind::other : l.base.ffn.n_experts > 0 ? fkind::moe : fkind::dense;
    if (kinds[i] != fkind::other) {
      std::vector<shape> mine;
      for (const auto& o : l.ffn)
        if (!o.none) mine.push_back({o.experts, o.width, 0});
      meet(kinds[i] == fkind::moe ? M : D, kinds[i] == fkind::moe ? seen_m : seen_d, mine);
    }
  }
  if ((seen_a && A.empty()) || (seen_d && D.empty()) || (seen_m && M.empty()))
    throw_invalid_argument(fn, std::string("no ") + (seen_a && A.empty() ? "attention" : seen_d && D.empty() ? "FFN" : "expert") +
                                   " shape is offered by every layer of its kind (the layers' grids differ)");
  const std::size_t na = std::max<std::size_t>(A.size(), 1), nd = std::max<std::size_t>(D.size(), 1),
                    nm = std::max<std::size_t>(M.size(), 1);
  const double work = double(na) * double(nd) * double(nm) * double(L);
  if (work > 4e8)
    throw_invalid_argument(fn,
                           "the uniform enumeration would take more than 4e8 layer additions (attention shapes x "
                           "FFN widths x expert shapes x layers; raise ffn_multiple, head_step or expert_step)",
                           work);
  // Option indices per layer: attn[i][a], ffn[i][f] (f over D or M by the layer's kind).
  std::vector<std::vector<std::size_t>> attn(L), ffn(L);
  std::vector<std::size_t> a_none(L, SIZE_MAX), f_none(L, SIZE_MAX);
  for (std::size_t i = 0; i < L; ++i) {
    const prune_layer_space& l = space.layers[i];
    std::size_t first_kept = SIZE_MAX;
    for (std::size_t j = 0; j < l.attention.size(); ++j) {
      if (l.attention[j].none) a_none[i] = j;
      else if (first_kept == SIZE_MAX) first_kept = j;
    }
    if (l.base.attention.kind == attention_kind::standard) {
      for (const shape& x : A)
        for (std::size_t j = 0; j < l.attention.size(); ++j)
          if (!l.attention[j].none && shape{l.attention[j].heads, l.attention[j].kv_heads, l.attention[j].lora_rank} == x) {
            attn[i].push_back(j);
            break;
          }
    } else {
      attn[i].assign(na, first_kept != SIZE_MAX ? first_kept : a_none[i]);
    }
    first_kept = SIZE_MAX;
    for (std::size_t j = 0; j < l.ffn.size(); ++j) {
      if (l.ffn[j].none) f_none[i] = j;
      else if (first_kept == SIZE_MAX) first_kept = j;
    }
    if (kinds[i] != fkind::other) {
      const std::vector<shape>& F = kinds[i] == fkind::moe ? M : D;
      for (const shape& x : F)
        for (std::size_t j = 0; j < l.ffn.size(); ++j)
          if (!l.ffn[j].none && shape{l.ffn[j].experts, l.ffn[j].width, 0} == x) {
            ffn[i].push_back(j);
            break;
          }
    } else {
      ffn[i].assign(1, first_kept != SIZE_MAX ? first_kept : f_none[i]);
    }
  }
  // Depths: d >= dmin where every layer >= d can be removed whole.
  std::size_t dmin = L;
  while (dmin > 1 && a_none[dmin - 1] != SIZE_MAX && f_none[dmin - 1] != SIZE_MAX) --dmin;
  prune_search_result out;
  psi_cache cache;
  out.unpruned = prune_make_candidate(space, std::vector<std::size_t>(2 * L, 0), &cache);
  out.minimum.fill(INT64_MAX);
  double best_value = -1;
  std::vector<std::size_t> best_sel;
  std::vector<std::int64_t> limit(prune_cost_count, INT64_MAX);
  for (const prune_budget& b : s.budgets) limit[std::size_t(b.cost)] = b.limit;
  for (std::size_t ia = 0; ia < na; ++ia)
    for (std::size_t id = 0; id < nd; ++id)
      for (std::size_t im = 0; im < nm; ++im) {
        prune_cost_vector c = space.fixed;
        double v = space.fixed_nsc;
        for (std::size_t i = 0; i < L; ++i) {
          const prune_layer_space& l = space.layers[i];
          const std::size_t ai = attn[i][std::min(ia, attn[i].size() - 1)];
          const std::size_t fi = ffn[i][kinds[i] == fkind::moe ? im : kinds[i] == fkind::dense ? id : 0];
          v += l.attention[ai].nsc + l.ffn[fi].nsc;
          bool fits = true;
          const prune_cost_vector pc = prune_pair_cost(l, ai, fi);
          for (std::size_t k = 0; k < prune_cost_count; ++k) {
            c[k] = nsc::detail::checked_add(c[k], pc[k], fn, "total cost");
            fits = fits && c[k] <= limit[k];
          }
          if (i + 1 < dmin) continue;
          ++out.uniform_models;
          for (std::size_t k = 0; k < prune_cost_count; ++k) out.minimum[k] = std::min(out.minimum[k], c[k]);
          if (fits && v > best_value) {
            best_value = v;
            best_sel.clear();
            for (std::size_t j = 0; j < L; ++j) {
              const bool kept = j <= i;
              best_sel.push_back(kept ? attn[j][std::min(ia, attn[j].size() - 1)] : a_none[j]);
              best_sel.push_back(kept ? ffn[j][kinds[j] == fkind::moe ? im : kinds[j] == fkind::dense ? id : 0] : f_none[j]);
            }
          }
        }
      }
  if (best_sel.empty()) {
    for (const prune_budget& b : s.budgets)
      if (b.limit < out.minimum[std::size_t(b.cost)])
        out.shortfalls.push_back({b.cost, b.limit, out.minimum[std::size_t(b.cost)]});
    return out;
  }
  out.best = prune_make_candidate(space, best_sel, &cache);
  out.best->dp_value = best_value;
  return out;
}
} // namespace nsc::search

#endif // NSC_SEARCH_PRUNE_SPACE_HPP
